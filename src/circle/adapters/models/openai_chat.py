"""OpenAIChatModel: the OpenAI Chat Completions protocol, for OpenAI and compatible servers.

The SDK sends the request (auth, headers, timeouts, status errors) but not its body: the body
is written by :class:`~._openai_chat_wire.RequestEncoder`, which keeps the JSON of messages it
already wrote, instead of the SDK re-validating the whole history on every call. The streamed
body is read as raw server-sent events, so provider quirks (Groq's ``event: error``, an error
chunk after the finish, Mistral's list content) are ours to handle. SDK and transport errors
become :mod:`circle.domain.errors` in :func:`_translate` alone.
"""

from __future__ import annotations

import asyncio
import contextlib
import email.utils
import html
import json
import re
import time
from collections.abc import AsyncGenerator, AsyncIterator, Mapping
from typing import TYPE_CHECKING, cast
from urllib.parse import urlsplit

from circle.domain.errors import (
    ConfigError,
    ContextOverflowError,
    ModelConnectionError,
    ModelError,
    ModelHTTPError,
    ProviderProtocolError,
    RateLimitedError,
)
from circle.domain.model import ModelEvent, ModelRequest
from circle.domain.settings import Endpoint

from ._openai_chat_wire import ChunkTranslator, RequestEncoder, SSEDecoder, error_text

if TYPE_CHECKING:
    import httpx2
    import openai

_NO_KEY = "no-key-needed"
_MISSING_KEY = "no API key: set CIRCLE_API_KEY or OPENAI_API_KEY (or api_key in credentials.json)"
_DRAIN_S = 0.1
_CONTEXT_OVERFLOW = re.compile(
    r"context.(length|window|size)|maximum context|too many tokens|prompt is too long|reduce the length",
    re.IGNORECASE,
)


class OpenAIChatModel:
    """A :class:`~circle.application.ports.model_client.ModelClient` over Chat Completions.

    Args:
        endpoint: where to send requests, the API key and the timeout.
        http_client: an httpx2 client to use (its owner closes it); by default the SDK's own.
    """

    def __init__(self, endpoint: Endpoint, *, http_client: httpx2.AsyncClient | None = None) -> None:
        self._endpoint = endpoint
        self._http_client = http_client
        self._client: openai.AsyncOpenAI | None = None
        self._encoder = RequestEncoder()

    def _sdk(self) -> openai.AsyncOpenAI:
        if self._client is not None:
            return self._client
        import httpx2
        import openai

        endpoint = self._endpoint
        key = endpoint.api_key
        if not key:
            if urlsplit(endpoint.base_url).hostname == "api.openai.com":
                raise ConfigError(_MISSING_KEY)
            key = _NO_KEY
        try:
            self._client = openai.AsyncOpenAI(
                base_url=endpoint.base_url,
                api_key=key,
                max_retries=0,
                timeout=endpoint.timeout_s,
                http_client=self._http_client,
            )
        except (openai.OpenAIError, httpx2.InvalidURL, ValueError) as exc:
            raise ConfigError(f"cannot use the endpoint {endpoint.base_url!r}: {exc}") from exc
        return self._client

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        """Send ``request`` and yield its answer as normalized events.

        Raises:
            ConfigError: no API key for api.openai.com, or no model named.
            ModelError: the endpoint refused, failed or could not be reached (a subclass says which).
        """
        import httpx2
        import openai

        client = self._sdk()
        model = request.model or self._endpoint.model
        if not model:
            raise ConfigError("no model: set CIRCLE_MODEL or pass --model")
        body = self._encoder.encode(request, model=model)
        translator = ChunkTranslator()
        try:
            response = await client.post(
                "/chat/completions",
                cast_to=httpx2.Response,
                content=body,
                options={"security": {"bearer_auth": True}},
                stream=True,
            )
            try:
                async with contextlib.aclosing(_events(response, translator)) as events:
                    async for event in events:
                        yield event
            finally:
                await response.aclose()
        except (openai.OpenAIError, httpx2.HTTPError, httpx2.StreamError) as exc:
            raise _translate(exc, self._endpoint) from exc
        for event in translator.finish():
            yield event

    async def aclose(self) -> None:
        """Close the SDK client (a given ``http_client`` stays open for its owner)."""
        client, self._client = self._client, None
        if client is not None and self._http_client is None:
            await client.close()


async def _events(response: httpx2.Response, translator: ChunkTranslator) -> AsyncGenerator[ModelEvent]:
    """The events of a 200 response: server-sent events, or one JSON completion."""
    if "json" in response.headers.get("content-type", ""):
        for event in translator.feed(_parse(await response.aread())):
            yield event
        return
    decoder = SSEDecoder()
    async for chunk in response.aiter_bytes():
        for name, data in decoder.feed(chunk):
            if data.startswith("[DONE]"):
                await _drain(response)
                return
            for event in translator.feed(_parse(data), event=name):
                yield event
    for name, data in decoder.close():
        if not data.startswith("[DONE]"):
            for event in translator.feed(_parse(data), event=name):
                yield event


def _parse(data: str | bytes) -> object:
    try:
        return json.loads(data)
    except ValueError:
        raise ProviderProtocolError(f"the endpoint sent data that is not JSON: {data[:200]!r}") from None


async def _drain(response: httpx2.Response) -> None:
    """Read what follows ``[DONE]`` for a moment, so the connection can be reused."""
    import httpx2

    with contextlib.suppress(TimeoutError, httpx2.HTTPError, httpx2.StreamError):
        async with asyncio.timeout(_DRAIN_S):
            async for _ in cast(AsyncIterator[bytes], response.stream):
                pass


def _translate(exc: Exception, endpoint: Endpoint) -> ModelError:
    """The Circle error for an SDK or transport exception: the one place they are mapped."""
    import httpx2
    import openai

    base_url = endpoint.base_url
    if isinstance(exc, openai.APIStatusError):
        return _status_error(exc.status_code, exc.body, exc.response.headers)
    if isinstance(exc, openai.APITimeoutError | httpx2.TimeoutException):
        return ModelConnectionError(
            f"cannot reach {base_url}: no answer within {endpoint.timeout_s:g} s (see CIRCLE_LLM_TIMEOUT)"
        )
    if isinstance(exc, openai.APIConnectionError):
        cause = exc.__cause__ or exc
        detail = _one_line(str(cause)) or type(cause).__name__
        return ModelConnectionError(f"cannot reach {base_url}: {detail}")
    if isinstance(exc, httpx2.HTTPError | httpx2.StreamError):
        detail = _one_line(str(exc)) or type(exc).__name__
        return ModelConnectionError(f"the connection to {base_url} broke mid-answer: {detail}")
    return ModelError(f"the OpenAI SDK failed: {_one_line(str(exc)) or type(exc).__name__}")


def _status_error(status: int, body: object, headers: Mapping[str, str]) -> ModelError:
    detail = _body_text(body) or "(no details in the answer)"
    retry_after = _retry_after(headers)
    if status in (401, 403):
        return ModelHTTPError(f"the endpoint refused the API key ({status}): {detail}", status=status)
    if status == 404:
        return ModelHTTPError(f"model or URL not found (404): {detail}", status=status)
    if status == 429:
        wait = f" (retry after {retry_after:g} s)" if retry_after is not None else ""
        return RateLimitedError(f"rate limited (429){wait}: {detail}", status=status, retry_after=retry_after)
    code = body.get("code") if isinstance(body, dict) else None
    if status in (400, 413, 422) and (code == "context_length_exceeded" or _CONTEXT_OVERFLOW.search(detail)):
        return ContextOverflowError(f"the request is larger than the model's context ({status}): {detail}")
    return ModelHTTPError(f"the endpoint answered {status}: {detail}", status=status, retry_after=retry_after)


def _body_text(body: object) -> str:
    """One readable line from an error body: the JSON error's message, or an HTML page's text."""
    if body is None:
        return ""
    if not isinstance(body, str):
        return error_text(body)
    text = re.sub(r"(?is)<(head|script|style)\b.*?</\1\s*>", " ", body)
    text = html.unescape(re.sub(r"<[^>]*>", " ", text))
    return _one_line(text or body)[:200]


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _retry_after(headers: Mapping[str, str]) -> float | None:
    """Seconds to wait from ``retry-after-ms`` or ``retry-after`` (seconds or an HTTP date)."""
    with contextlib.suppress(ValueError):
        if (millis := headers.get("retry-after-ms")) is not None:
            return max(float(millis) / 1000, 0.0)
    value = headers.get("retry-after")
    if value is None:
        return None
    with contextlib.suppress(ValueError):
        return max(float(value), 0.0)
    with contextlib.suppress(TypeError, ValueError, OverflowError):
        return max(email.utils.parsedate_to_datetime(value).timestamp() - time.time(), 0.0)
    return None


__all__ = ["OpenAIChatModel"]
