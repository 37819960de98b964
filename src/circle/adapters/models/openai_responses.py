"""OpenAIResponsesModel: the OpenAI Responses API (``POST /responses``), for OpenAI and compatibles.

Requests are stateless (``store: false``): the whole conversation goes as input items every
time, with reasoning items carried back through their encrypted content. As in the Chat
Completions adapter, the request goes out through httpx2 (no OpenAI SDK is loaded) with the
body :class:`~._openai_responses_wire.RequestEncoder` writes from cached JSON; the streamed body
is read as raw server-sent events and folded by :class:`~._openai_responses_wire.EventTranslator`.
Transport errors and error answers become :mod:`circle.domain.errors` in
:mod:`~._openai_common` alone, with the same wording for both protocols.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncGenerator, AsyncIterator
from typing import TYPE_CHECKING

from circle.domain.model import ModelEvent, ModelRequest
from circle.domain.settings import Endpoint

from ._openai_common import OpenAIClient
from ._openai_responses_wire import EventTranslator, RequestEncoder
from ._sdk import loaded_with
from ._sse import SSEDecoder, drain, parse_json

if TYPE_CHECKING:
    import httpx2


class OpenAIResponsesModel(OpenAIClient):
    """A :class:`~circle.application.ports.model_client.ModelClient` over the Responses API.

    Args:
        endpoint: where to send requests, the API key and the timeout.
        http_client: an httpx2 client to use (its owner closes it); by default one of its own.
    """

    def __init__(self, endpoint: Endpoint, *, http_client: httpx2.AsyncClient | None = None) -> None:
        super().__init__(endpoint, http_client=http_client)
        self._encoder = RequestEncoder()

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        """Send ``request`` and yield its answer as normalized events.

        A stream that ends without its terminal event yields no ``Finished``.

        Raises:
            ConfigError: no API key for api.openai.com, or no model named.
            ModelError: the endpoint refused, failed or could not be reached (a subclass says which).
        """
        if self._client is None:
            await loaded_with("httpx2", make=self._http)
        body = self._encoder.encode(request, model=self._model(request))
        async with contextlib.aclosing(self.send(body, EventTranslator())) as events:
            async for event in events:
                yield event

    async def send(self, body: bytes, translator: EventTranslator) -> AsyncGenerator[ModelEvent]:
        """Post a request body written elsewhere (a side request, such as a native web search) and
        yield what ``translator`` makes of the answer; errors are raised as :meth:`stream` raises them.
        """
        sent = self.post("/responses", body, lambda response: _events(response, translator))
        async with contextlib.aclosing(sent) as events:
            async for event in events:
                yield event


async def _events(response: httpx2.Response, translator: EventTranslator) -> AsyncGenerator[ModelEvent]:
    """The events of a 200 response: server-sent events, or one JSON response object."""
    if "json" in response.headers.get("content-type", ""):
        for event in translator.feed_response(parse_json(await response.aread())):
            yield event
        return
    decoder = SSEDecoder()
    async with contextlib.aclosing(response.aiter_bytes()) as chunks:
        async for chunk in chunks:
            for name, data in decoder.feed(chunk):
                if not data.startswith("[DONE]"):
                    for event in translator.feed(parse_json(data), name=name):
                        yield event
                if translator.done:
                    await drain(chunks)
                    return
    for name, data in decoder.close():
        if not data.startswith("[DONE]"):
            for event in translator.feed(parse_json(data), name=name):
                yield event


__all__ = ["OpenAIResponsesModel"]
