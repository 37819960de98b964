"""What the three model adapters share when they translate a failure: hints for the retry policy.

:func:`retry_hints` reads ``retry-after-ms`` / ``retry-after`` and ``x-should-retry`` the way the
SDKs do (their own retries are off, so the policy in :mod:`circle.domain.retry` uses them), and
:func:`connection_kind` tells a TLS failure or a timeout from a refused or dropped connection.
"""

from __future__ import annotations

import ssl
import time
from collections.abc import Mapping

from circle.domain.endpoint_hints import parse_retry_after, should_retry_header
from circle.domain.errors import ConnectionKind, ModelConnectionError, ModelError
from circle.domain.settings import Endpoint


def retry_hints(headers: Mapping[str, str]) -> tuple[float | None, bool | None]:
    """The wait an error answer asks for (seconds) and its ``x-should-retry``, each None if absent."""
    return parse_retry_after(headers, time.time()), should_retry_header(headers)


def _causes(exc: BaseException) -> list[BaseException]:
    seen: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and current not in seen and len(seen) < 20:
        seen.append(current)
        current = current.__cause__ or current.__context__
    return seen


def connection_kind(exc: BaseException) -> ConnectionKind:
    """What broke, from the exception chain: ``tls`` for a certificate or SSL failure, ``timeout``
    for a timeout, ``connect`` when no connection could be made (refused, no such host), else
    ``dropped``: the endpoint closed or broke a connection it had accepted, before or mid-answer."""
    causes = _causes(exc)
    if any(isinstance(c, ssl.SSLError) or "[SSL" in str(c) for c in causes):
        return "tls"
    if any(isinstance(c, TimeoutError) or "Timeout" in type(c).__name__ for c in causes):
        return "timeout"
    if any(type(c).__name__ == "ConnectError" or isinstance(c, ConnectionRefusedError) for c in causes):
        return "connect"
    return "dropped"


__all__ = ["connection_kind", "retry_hints"]


def transport_error(
    exc: Exception,
    endpoint: Endpoint,
    *,
    sdk: str,
    timeouts: tuple[type[BaseException], ...],
    connections: tuple[type[BaseException], ...],
) -> ModelError:
    """The Circle error for a failure below HTTP status level, worded alike for every SDK.

    ``timeouts`` and ``connections`` are the SDK's own classes; httpx2's are added here.
    """
    import httpx2

    base_url = endpoint.base_url
    if isinstance(exc, (*timeouts, httpx2.TimeoutException)):
        return ModelConnectionError(
            f"cannot reach {base_url}: no answer within {endpoint.timeout_s:g} s (see CIRCLE_LLM_TIMEOUT)",
            kind="timeout",
        )
    if isinstance(exc, connections):
        cause = exc.__cause__ or exc
        detail = one_line(str(cause)) or type(cause).__name__
        return ModelConnectionError(f"cannot reach {base_url}: {detail}", kind=connection_kind(exc))
    if isinstance(exc, httpx2.HTTPError | httpx2.StreamError):
        detail = one_line(str(exc)) or type(exc).__name__
        return ModelConnectionError(
            f"the connection to {base_url} broke mid-answer: {detail}", kind=connection_kind(exc)
        )
    return ModelError(f"the {sdk} SDK failed: {one_line(str(exc)) or type(exc).__name__}")


def one_line(text: str) -> str:
    return " ".join(text.split())
