"""AnthropicModel: the Anthropic Messages protocol, for Anthropic and compatible servers.

The SDK sends the request (auth, headers, timeouts, status errors) but not its body: the body
is written by :class:`~._anthropic_wire.RequestEncoder`, which keeps the JSON of messages it
already wrote. The streamed body is read as raw server-sent events and translated by
:class:`~._anthropic_wire.StreamTranslator` (an ``error`` event mid-stream is a ``ModelError``;
a JSON message instead of a stream is the collected answer). SDK and transport errors become
:mod:`circle.domain.errors` in :func:`_translate` alone (an HTTP error answer through
:func:`~._status_errors.status_error`, the mapping the OpenAI protocols share).

Signed thinking goes back only to the identity that signed it. Every answer carries a
``scope`` (a hash of the base URL, the key and the model); thinking of messages with another
scope is left out of requests, while text, tool calls and results stay. Messages without a
scope (older or imported) keep their thinking; when the endpoint answers 400 rejecting a
thinking signature, the request is sent once more without historical thinking, and the
fingerprints of the rejected payloads are remembered so later requests leave those out too.
Thinking itself stays enabled.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from circle.domain.errors import (
    ConfigError,
    ModelError,
    ModelStreamError,
    ProviderProtocolError,
)
from circle.domain.model import ModelEvent, ModelRequest, RequestSent, ResponseStarted
from circle.domain.settings import Endpoint

from ._anthropic_wire import RequestEncoder, StreamTranslator, Wire, thinking_scope
from ._error_hints import transport_error
from ._sdk import loaded, loaded_with
from ._sse import SSEDecoder as _SSEDecoder
from ._sse import drain, parse_json
from ._status_errors import error_text, error_type, status_error

if TYPE_CHECKING:
    import anthropic
    import httpx2

_NO_KEY = "no-key-needed"
_MISSING_KEY = "no API key: set CIRCLE_API_KEY or ANTHROPIC_API_KEY"
_SIGNATURE = re.compile(r"signature", re.IGNORECASE)


def api_base_url(base_url: str) -> str:
    """The base URL the SDK wants: it appends ``/v1/messages`` itself, so a trailing /v1 goes."""
    url = base_url.rstrip("/")
    return url.removesuffix("/v1") if url.endswith("/v1") else url


class AnthropicModel:
    """A :class:`~circle.application.ports.model_client.ModelClient` over Anthropic Messages.

    Args:
        endpoint: where to send requests (with or without a trailing ``/v1``), the API key and
            the timeout.
        http_client: an httpx2 client to use (its owner closes it); by default one on Circle's
            HTTP/1.1 transport (:mod:`._http11`), as the OpenAI protocols use.
    """

    def __init__(self, endpoint: Endpoint, *, http_client: httpx2.AsyncClient | None = None) -> None:
        self._endpoint = endpoint
        self._base_url = api_base_url(endpoint.base_url)
        self._http_client = http_client
        self._client: anthropic.AsyncAnthropic | None = None
        self._encoder = RequestEncoder()
        self._rejected: set[str] = set()

    def _sdk(self) -> anthropic.AsyncAnthropic:
        if self._client is not None:
            return self._client
        import anthropic
        import httpx2

        from ._http11 import http11_client

        endpoint = self._endpoint
        key = endpoint.api_key
        if not key:
            if urlsplit(self._base_url).hostname == "api.anthropic.com":
                raise ConfigError(_MISSING_KEY)
            key = _NO_KEY
        try:
            self._client = anthropic.AsyncAnthropic(
                base_url=self._base_url,
                api_key=key,
                max_retries=0,
                timeout=endpoint.timeout_s,
                http_client=self._http_client or http11_client(timeout=endpoint.timeout_s),
            )
        except (anthropic.AnthropicError, httpx2.InvalidURL, ValueError) as exc:
            raise ConfigError(f"cannot use the endpoint {endpoint.base_url!r}: {exc}") from exc
        return self._client

    def scope(self, model: str) -> str:
        """The thinking scope of answers from ``model`` at this endpoint with this key."""
        return thinking_scope(self._base_url, self._endpoint.api_key, model)

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        """Send ``request`` and yield its answer as normalized events.

        Raises:
            ConfigError: no API key for api.anthropic.com, or no model named.
            ModelError: the endpoint refused, failed or could not be reached (a subclass says which).
        """
        if self._client is None:
            await loaded_with("anthropic", "httpx2", make=self._sdk)
        client = self._sdk()
        model = request.model or self._endpoint.model
        if not model:
            raise ConfigError("no model: set CIRCLE_MODEL or pass --model")
        scope = self.scope(model)
        sent = self._send(client, request, model=model, scope=scope)
        async with contextlib.aclosing(self._answer(sent, StreamTranslator(scope=scope))) as events:
            async for event in events:
                yield event

    async def send(self, body: bytes, translator: StreamTranslator) -> AsyncGenerator[ModelEvent]:
        """Post a request body written elsewhere (a side request, such as a native web search) and
        yield what ``translator`` makes of the answer; errors are raised as :meth:`stream` raises them.
        """
        await loaded("anthropic", "httpx2")
        async with contextlib.aclosing(self._answer(_post(self._sdk(), body), translator)) as events:
            async for event in events:
                yield event

    async def _answer(
        self, sent: Awaitable[httpx2.Response], translator: StreamTranslator
    ) -> AsyncGenerator[ModelEvent]:
        """The events of the answer to a request being sent, SDK and transport errors translated."""
        import anthropic
        import httpx2

        yield RequestSent()
        try:
            response = await sent
            try:
                yield ResponseStarted()
                async with contextlib.aclosing(_events(response, translator)) as events:
                    async for event in events:
                        yield event
            finally:
                await response.aclose()
        except (anthropic.AnthropicError, httpx2.HTTPError, httpx2.StreamError) as exc:
            raise _translate(exc, self._endpoint) from exc

    async def _send(
        self, client: anthropic.AsyncAnthropic, request: ModelRequest, *, model: str, scope: str
    ) -> httpx2.Response:
        """Post the request; once more without the historical thinking the endpoint rejects."""
        import anthropic

        body, sent = self._encoder.encode(request, model=model, scope=scope, forget=self._rejected)
        try:
            return await _post(client, body)
        except anthropic.BadRequestError as exc:
            if not sent or not _rejects_signature(exc.body):
                raise
        self._rejected.update(sent)
        body, _ = self._encoder.encode(request, model=model, scope=scope, forget=self._rejected)
        return await _post(client, body)

    async def aclose(self) -> None:
        """Close the SDK client (a given ``http_client`` stays open for its owner)."""
        client, self._client = self._client, None
        if client is not None and self._http_client is None:
            await client.close()


async def _post(client: anthropic.AsyncAnthropic, body: bytes) -> httpx2.Response:
    import httpx2

    return await client.post("/v1/messages", cast_to=httpx2.Response, content=body, stream=True)


def _rejects_signature(body: object) -> bool:
    """Whether a 400 body says a thinking block's signature did not verify."""
    text = error_text(body)
    return bool(_SIGNATURE.search(text)) and "thinking" in text.lower()


async def _events(response: httpx2.Response, translator: StreamTranslator) -> AsyncGenerator[ModelEvent]:
    """The events of a 200 response: server-sent events, or one JSON message."""
    if "json" in response.headers.get("content-type", ""):
        for kind, message in _message_events(parse_json(await response.aread())):
            for event in _feed(translator, message, event=kind):
                yield event
        return
    decoder = _SSEDecoder()
    async with contextlib.aclosing(response.aiter_bytes()) as chunks:
        async for chunk in chunks:
            for name, text in decoder.feed(chunk):
                for event in _feed(translator, parse_json(text), event=name):
                    yield event
                if translator.done:
                    await drain(chunks)
                    return
    for name, text in decoder.close():
        for event in _feed(translator, parse_json(text), event=name):
            yield event


def _feed(translator: StreamTranslator, data: object, *, event: str | None) -> list[ModelEvent]:
    """The events of one stream event; an ``error`` event raises ``ModelError``."""
    if not isinstance(data, dict):
        raise ProviderProtocolError(f"the endpoint sent an event that is not an object: {data!r:.200}")
    if data.get("type") == "error" or event == "error":
        text, kind = error_text(data), error_type(data)
        status = _STREAM_ERROR_STATUS.get(kind or "")
        what = "is overloaded and stopped" if kind == "overloaded_error" else "failed"
        raise ModelStreamError(f"the endpoint {what} mid-answer: {text}", status=status)
    return translator.feed(data)


_STREAM_ERROR_STATUS = {
    "overloaded_error": 529,
    "rate_limit_error": 429,
    "api_error": 500,
    "timeout_error": 504,
    "invalid_request_error": 400,
    "authentication_error": 401,
    "billing_error": 402,
    "permission_error": 403,
    "not_found_error": 404,
    "request_too_large": 413,
}
"""The HTTP status an error event inside a stream stands for, by its ``error.type``."""


def _message_events(message: object) -> list[tuple[str, Wire]]:
    """A whole (non-streamed) Messages answer as the stream events that would have carried it."""
    if not isinstance(message, dict):
        raise ProviderProtocolError(f"the endpoint sent an answer that is not an object: {message!r:.200}")
    if message.get("type") == "error":
        return [("error", message)]
    head = {k: v for k, v in message.items() if k not in ("content", "stop_reason")}
    events: list[tuple[str, Wire]] = [("message_start", {"type": "message_start", "message": head})]
    for index, block in enumerate(message.get("content") or ()):
        events.append(
            ("content_block_start", {"type": "content_block_start", "index": index, "content_block": block})
        )
        events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
    delta = {"type": "message_delta", "delta": {"stop_reason": message.get("stop_reason")}}
    return [*events, ("message_delta", delta), ("message_stop", {"type": "message_stop"})]


def _translate(exc: Exception, endpoint: Endpoint) -> ModelError:
    """The Circle error for an SDK or transport exception: the one place they are mapped."""
    import anthropic

    if isinstance(exc, anthropic.APIStatusError):
        return status_error(exc.status_code, exc.body, exc.response.headers)
    return transport_error(
        exc,
        endpoint,
        sdk="Anthropic",
        timeouts=(anthropic.APITimeoutError,),
        connections=(anthropic.APIConnectionError,),
    )


__all__ = ["AnthropicModel", "api_base_url"]
