"""What the two OpenAI protocol adapters share: the SDK client, the raw streamed body, the errors.

Both adapters let the SDK send the request (auth, headers, timeouts, status errors) and read
the streamed body themselves: :func:`post_streamed` skips the SDK's per-call transform,
:mod:`._sse` (shared with Anthropic) splits the body into events, and :func:`translate_error` is
the one place where SDK and transport exceptions become :mod:`circle.domain.errors` (an HTTP
error answer through :func:`~._status_errors.status_error`, which Anthropic shares).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncGenerator, Callable
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from circle.domain.errors import ConfigError, ModelError
from circle.domain.model import ModelEvent, ModelRequest, RequestSent, ResponseStarted
from circle.domain.settings import Endpoint

from ._error_hints import transport_error
from ._sdk import loaded
from ._status_errors import status_error

if TYPE_CHECKING:
    import httpx2
    import openai

_NO_KEY = "no-key-needed"
_MISSING_KEY = "no API key: set CIRCLE_API_KEY or OPENAI_API_KEY (or api_key in credentials.json)"


class OpenAIClient:
    """What both OpenAI protocol clients are: an endpoint, its SDK client made on first use, and
    :meth:`post` (a written body out, the answer's events in, errors translated).

    Args:
        endpoint: where to send requests, the API key and the timeout.
        http_client: an httpx2 client to use (its owner closes it); by default the SDK's own.
    """

    def __init__(self, endpoint: Endpoint, *, http_client: httpx2.AsyncClient | None = None) -> None:
        self._endpoint = endpoint
        self._http_client = http_client
        self._client: openai.AsyncOpenAI | None = None

    def _sdk(self) -> openai.AsyncOpenAI:
        if self._client is None:
            self._client = sdk_client(self._endpoint, self._http_client)
        return self._client

    def _model(self, request: ModelRequest) -> str:
        """The model to name: the request's, else the endpoint's; ConfigError when neither says."""
        model = request.model or self._endpoint.model
        if not model:
            raise ConfigError("no model: set CIRCLE_MODEL or pass --model")
        return model

    async def post(
        self, path: str, body: bytes, read: Callable[[httpx2.Response], AsyncGenerator[ModelEvent]]
    ) -> AsyncGenerator[ModelEvent]:
        """Post ``body`` to ``path`` and yield what ``read`` makes of the 200 answer, between the
        :class:`RequestSent` and :class:`ResponseStarted` markers; SDK and transport errors are
        raised as :mod:`circle.domain.errors`."""
        await loaded("openai", "httpx2")
        import httpx2
        import openai

        client = self._sdk()
        yield RequestSent()
        try:
            response = await post_streamed(client, path, body)
            try:
                yield ResponseStarted()
                async with contextlib.aclosing(read(response)) as events:
                    async for event in events:
                        yield event
            finally:
                await response.aclose()
        except (openai.OpenAIError, httpx2.HTTPError, httpx2.StreamError) as exc:
            raise translate_error(exc, self._endpoint) from exc

    async def aclose(self) -> None:
        """Close the SDK client (a given ``http_client`` stays open for its owner)."""
        client, self._client = self._client, None
        if client is not None and self._http_client is None:
            await client.close()


def sdk_client(endpoint: Endpoint, http_client: httpx2.AsyncClient | None) -> openai.AsyncOpenAI:
    """An SDK client without retries; a local endpoint needs no key, api.openai.com does.

    Raises:
        ConfigError: no key for api.openai.com, or a base URL the SDK cannot use.
    """
    import httpx2
    import openai

    key = endpoint.api_key
    if not key:
        if urlsplit(endpoint.base_url).hostname == "api.openai.com":
            raise ConfigError(_MISSING_KEY)
        key = _NO_KEY
    try:
        return openai.AsyncOpenAI(
            base_url=endpoint.base_url,
            api_key=key,
            max_retries=0,
            timeout=endpoint.timeout_s,
            http_client=http_client,
        )
    except (openai.OpenAIError, httpx2.InvalidURL, ValueError) as exc:
        raise ConfigError(f"cannot use the endpoint {endpoint.base_url!r}: {exc}") from exc


async def post_streamed(client: openai.AsyncOpenAI, path: str, body: bytes) -> httpx2.Response:
    """POST a ready JSON body and return the raw response, its body not yet read."""
    import httpx2

    return await client.post(
        path,
        cast_to=httpx2.Response,
        content=body,
        options={"security": {"bearer_auth": True}},
        stream=True,
    )


def translate_error(exc: Exception, endpoint: Endpoint) -> ModelError:
    """The Circle error for an SDK or transport exception: the one place they are mapped."""
    import openai

    if isinstance(exc, openai.APIStatusError):
        return status_error(exc.status_code, exc.body, exc.response.headers)
    return transport_error(
        exc,
        endpoint,
        sdk="OpenAI",
        timeouts=(openai.APITimeoutError,),
        connections=(openai.APIConnectionError,),
    )


_STREAM_STATUSES = (
    ("rate_limit", 429),
    ("quota", 429),
    ("overloaded", 529),
    ("timeout", 504),
    ("unavailable", 503),
    ("server_error", 500),
    ("internal", 500),
    ("api_error", 500),
    ("invalid_request", 400),
    ("authentication", 401),
    ("permission", 403),
    ("not_found", 404),
)


def stream_error_status(error: object) -> int | None:
    """The HTTP equivalent of an error reported inside a stream, from its code, type or status.

    A failed tool-call generation (Groq's ``tool_use_failed``) has none: another try may differ.
    """
    if not isinstance(error, dict):
        return None
    if "error" in error and isinstance(error["error"], dict):
        error = error["error"]
    assert isinstance(error, dict)
    if error.get("code") == "tool_use_failed":
        return None
    for key in ("status_code", "status", "code"):
        value = error.get(key)
        if isinstance(value, int) and 400 <= value < 600:
            return value
    words = " ".join(str(error.get(key) or "") for key in ("code", "type")).lower()
    return next((status for word, status in _STREAM_STATUSES if word in words), None)


__all__ = [
    "OpenAIClient",
    "post_streamed",
    "sdk_client",
    "stream_error_status",
    "translate_error",
]
