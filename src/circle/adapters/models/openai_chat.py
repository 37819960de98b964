"""OpenAIChatModel: the OpenAI Chat Completions protocol, for OpenAI and compatible servers.

The request goes out through httpx2 as the OpenAI SDK would send it (auth, headers, timeouts,
status errors), without loading the SDK; its body is written by
:class:`~._openai_chat_wire.RequestEncoder`, which keeps the JSON of messages it already wrote
instead of re-validating the whole history on every call. The streamed body is read as raw
server-sent events, so provider quirks (Groq's ``event: error``, an error chunk after the finish,
Mistral's list content) are ours to handle. Transport errors and error answers become
:mod:`circle.domain.errors` in :mod:`~._openai_common` alone. What it shares with the Responses
adapter (the HTTP client, posting, closing) is :class:`~._openai_common.OpenAIClient`."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncGenerator, AsyncIterator
from typing import TYPE_CHECKING

from circle.domain.model import ModelEvent, ModelRequest
from circle.domain.settings import Endpoint

from ._openai_chat_wire import ChunkTranslator, RequestEncoder
from ._openai_common import OpenAIClient
from ._sdk import loaded_with
from ._sse import SSEDecoder, drain, parse_json

if TYPE_CHECKING:
    import httpx2


class OpenAIChatModel(OpenAIClient):
    """A :class:`~circle.application.ports.model_client.ModelClient` over Chat Completions.

    Args:
        endpoint: where to send requests, the API key and the timeout.
        http_client: an httpx2 client to use (its owner closes it); by default one of its own.
    """

    def __init__(self, endpoint: Endpoint, *, http_client: httpx2.AsyncClient | None = None) -> None:
        super().__init__(endpoint, http_client=http_client)
        self._encoder = RequestEncoder()

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        """Send ``request`` and yield its answer as normalized events.

        Raises:
            ConfigError: no API key for api.openai.com, or no model named.
            ModelError: the endpoint refused, failed or could not be reached (a subclass says which).
        """
        if self._client is None:
            await loaded_with("httpx2", make=self._http)
        body = self._encoder.encode(request, model=self._model(request))
        translator = ChunkTranslator()
        sent = self.post("/chat/completions", body, lambda response: _events(response, translator))
        async with contextlib.aclosing(sent) as events:
            async for event in events:
                yield event
        for event in translator.finish():
            yield event


async def _events(response: httpx2.Response, translator: ChunkTranslator) -> AsyncGenerator[ModelEvent]:
    """The events of a 200 response: server-sent events, or one JSON completion."""
    if "json" in response.headers.get("content-type", ""):
        for event in translator.feed(parse_json(await response.aread())):
            yield event
        return
    decoder = SSEDecoder()
    async with contextlib.aclosing(response.aiter_bytes()) as chunks:
        async for chunk in chunks:
            for name, data in decoder.feed(chunk):
                if data.startswith("[DONE]"):
                    await drain(chunks)
                    return
                for event in translator.feed(parse_json(data), event=name):
                    yield event
    for name, data in decoder.close():
        if not data.startswith("[DONE]"):
            for event in translator.feed(parse_json(data), event=name):
                yield event


__all__ = ["OpenAIChatModel"]
