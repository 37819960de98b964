"""OpenAIChatModel: the OpenAI Chat Completions protocol, for OpenAI and compatible servers.

The SDK sends the request (auth, headers, timeouts, status errors) but not its body: the body
is written by :class:`~._openai_chat_wire.RequestEncoder`, which keeps the JSON of messages it
already wrote, instead of the SDK re-validating the whole history on every call. The streamed
body is read as raw server-sent events, so provider quirks (Groq's ``event: error``, an error
chunk after the finish, Mistral's list content) are ours to handle. SDK and transport errors
become :mod:`circle.domain.errors` in :func:`~._openai_common.translate_error` alone.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncGenerator, AsyncIterator
from typing import TYPE_CHECKING

from circle.domain.errors import ConfigError
from circle.domain.model import ModelEvent, ModelRequest, RequestSent, ResponseStarted
from circle.domain.settings import Endpoint

from ._openai_chat_wire import ChunkTranslator, RequestEncoder
from ._openai_common import post_streamed, sdk_client, translate_error
from ._sse import SSEDecoder, drain, parse_json

if TYPE_CHECKING:
    import httpx2
    import openai


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
        if self._client is None:
            self._client = sdk_client(self._endpoint, self._http_client)
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
        yield RequestSent()
        try:
            response = await post_streamed(client, "/chat/completions", body)
            try:
                yield ResponseStarted()
                async with contextlib.aclosing(_events(response, translator)) as events:
                    async for event in events:
                        yield event
            finally:
                await response.aclose()
        except (openai.OpenAIError, httpx2.HTTPError, httpx2.StreamError) as exc:
            raise translate_error(exc, self._endpoint) from exc
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
        for event in translator.feed(parse_json(await response.aread())):
            yield event
        return
    decoder = SSEDecoder()
    async for chunk in response.aiter_bytes():
        for name, data in decoder.feed(chunk):
            if data.startswith("[DONE]"):
                await drain(response)
                return
            for event in translator.feed(parse_json(data), event=name):
                yield event
    for name, data in decoder.close():
        if not data.startswith("[DONE]"):
            for event in translator.feed(parse_json(data), event=name):
                yield event


__all__ = ["OpenAIChatModel"]
