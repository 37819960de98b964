"""The one mapping from an endpoint's error answer (status, body, headers) to a Circle error.

The OpenAI and Anthropic SDKs both hand over the status, the parsed body and the headers of a
refused request; :func:`status_error` turns them into the most specific
:class:`~circle.domain.errors.ModelError` for every protocol alike:

- 401 and 403 refuse the key, 404 names a model or URL not found, 429 is a rate limit;
- 529, or an ``overloaded`` error type, is an overloaded endpoint;
- a 400, 413 or 422 about the prompt's length is a ``ContextOverflowError`` (so the loop
  compacts), unless it is the answer's limit (``max_tokens`` and its kin) that is too large:
  that one names its parameter so the retry policy sends the limit the endpoint allows;
- everything else is a ``ModelHTTPError`` carrying the parameter the body names (OpenAI's
  ``error.param``, or the ``name:`` a validation message starts with).

:func:`error_text` reads both error shapes (the OpenAI SDK passes the ``error`` object, the
Anthropic SDK the whole ``{"type": "error", "error": {...}}``), also for errors inside a stream.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Mapping

from circle.domain.endpoint_hints import OUTPUT_PARAMETERS, allowed_output, rejected_parameter
from circle.domain.errors import ContextOverflowError, ModelError, ModelHTTPError, RateLimitedError
from circle.domain.lazy_re import lazy_compile

from ._error_hints import one_line, retry_hints

_CONTEXT_OVERFLOW = lazy_compile(
    r"prompt is too long|context.(length|window|size|limit)|maximum context|exceed(s|ed)? (the )?context"
    r"|too many tokens|reduce the length",
    re.IGNORECASE,
)
_QUOTED_MESSAGE = lazy_compile(r'"message"\s*:\s*"((?:[^"\\]|\\.)*)')
_NAME_PREFIX = lazy_compile(r"^\s*([A-Za-z_][\w.\[\]]*)\s*:")


def status_error(status: int, body: object, headers: Mapping[str, str]) -> ModelError:
    """The Circle error for an HTTP error answer (see the module docstring)."""
    detail = body_text(body) or "(no details in the answer)"
    retry_after, should_retry = retry_hints(headers)
    error = _error_object(body)
    param = _param(error, detail)

    def http_error(message: str, *, cls: type[ModelHTTPError] = ModelHTTPError) -> ModelError:
        return cls(message, status=status, retry_after=retry_after, should_retry=should_retry, param=param)

    if status in (401, 403):
        return http_error(f"the endpoint refused the API key ({status}): {detail}")
    if status == 404:
        return http_error(f"model or URL not found (404): {detail}")
    if status == 429:
        wait = f" (retry after {retry_after:g} s)" if retry_after is not None else ""
        return http_error(f"rate limited (429){wait}: {detail}", cls=RateLimitedError)
    if status == 529 or "overloaded" in _field(error, "type"):
        return http_error(f"the endpoint is overloaded ({status}): {detail}")
    if status in (400, 413, 422) and not _answer_limit(param, detail):
        code = _field(error, "code") or (_field(body, "code") if isinstance(body, dict) else "")
        if code == "context_length_exceeded" or _CONTEXT_OVERFLOW.search(detail):
            return ContextOverflowError(
                f"the request is larger than the model's context ({status}): {detail}"
            )
    return http_error(f"the endpoint answered {status}: {detail}")


def _answer_limit(param: str | None, detail: str) -> bool:
    """Whether a 400 refuses the answer's length limit and says what it allows (vLLM words that
    one as "maximum context length", but it is not the prompt that is too long)."""
    return rejected_parameter(param, detail) in OUTPUT_PARAMETERS and allowed_output(detail) is not None


def _error_object(body: object) -> object:
    """The error object of a body: ``body["error"]`` when it is one, else the body itself."""
    if isinstance(body, dict) and isinstance(body.get("error"), dict):
        return body["error"]
    return body


def _field(error: object, key: str) -> str:
    value = error.get(key) if isinstance(error, dict) else None
    return value if isinstance(value, str) else ""


def _param(error: object, detail: str) -> str | None:
    """The request parameter the error names: its ``param``, else a ``name:`` opening the message."""
    if named := _field(error, "param"):
        return named
    prefix = _NAME_PREFIX.match(detail)
    return prefix.group(1) if prefix else None


def body_text(body: object) -> str:
    """One readable line from an error body: the JSON error's message, or an HTML page's text."""
    if body is None:
        return ""
    if not isinstance(body, str):
        return error_text(body)
    if quoted := _QUOTED_MESSAGE.search(body):  # JSON cut short: its message is still readable
        with contextlib.suppress(ValueError):
            return one_line(json.loads(f'"{quoted.group(1)}"'))[:500]
    import html  # its entity table loads with the first error page, not with every adapter

    text = re.sub(r"(?is)<(head|script|style)\b.*?</\1\s*>", " ", body)
    text = html.unescape(re.sub(r"<[^>]*>", " ", text))
    return one_line(text or body)[:200]


def error_text(body: object) -> str:
    """The message of an error body or object, either shape, on one line (OpenRouter's
    ``metadata.raw``, the upstream provider's own words, is added after it)."""
    error = _error_object(body)
    if isinstance(error, dict):
        message = error.get("message")
        text = message if isinstance(message, str) and message else json.dumps(error, separators=(",", ":"))
        metadata = error.get("metadata")
        raw = metadata.get("raw") if isinstance(metadata, dict) else None
        if isinstance(raw, str) and raw:
            text = f"{text}: {raw}"
    else:
        text = str(error)
    return one_line(text)[:500]


def error_type(body: object) -> str | None:
    """The ``type`` of an error body's error object (Anthropic's ``overloaded_error``...), if any."""
    return _field(_error_object(body), "type") or None


__all__ = ["body_text", "error_text", "error_type", "status_error"]
