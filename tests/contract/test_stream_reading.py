"""How each model protocol reads a streamed answer: one iteration of the body, closed by the
adapter itself, read on to its end after the answer's last event so the connection is reused.

An iteration abandoned mid-body is closed by the garbage collector instead, through the event
loop's async-generator finalizer: a wake-up of the loop from another thread's path and a task
for each generator, every request (two a tool round before this was fixed).
"""

from __future__ import annotations

import gc
import sys
from collections.abc import AsyncGenerator, Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from circle._testing.faults import PROTOCOLS, Faults, Protocol
from circle._testing.gateway import ScriptedGateway
from circle.adapters.models.anthropic import AnthropicModel
from circle.adapters.models.openai_chat import OpenAIChatModel
from circle.adapters.models.openai_responses import OpenAIResponsesModel
from circle.application.ports.model_client import ModelClient
from circle.domain.messages import Message
from circle.domain.model import ModelRequest, TextDelta
from circle.domain.settings import Endpoint

REQUEST = ModelRequest(model="test-model", system="", messages=(Message.user("hi"),))


def adapter(protocol: Protocol, base_url: str) -> ModelClient:
    endpoint = Endpoint(base_url=base_url, protocol=protocol, api_key="test-key", model="test-model")
    kinds: dict[Protocol, Callable[[Endpoint], ModelClient]] = {
        "openai-chat": OpenAIChatModel,
        "openai-responses": OpenAIResponsesModel,
        "anthropic": AnthropicModel,
    }
    return kinds[protocol](endpoint)


@contextmanager
def finalized_by_the_collector() -> Iterator[list[str]]:
    """The names of async generators started inside that were left for the garbage collector."""
    hooks = sys.get_asyncgen_hooks()
    names: list[str] = []

    def finalizer(generator: AsyncGenerator[Any]) -> None:
        names.append(generator.__qualname__)
        if hooks.finalizer is not None:
            hooks.finalizer(generator)

    sys.set_asyncgen_hooks(firstiter=hooks.firstiter, finalizer=finalizer)
    try:
        yield names
        gc.collect()
    finally:
        sys.set_asyncgen_hooks(firstiter=hooks.firstiter, finalizer=hooks.finalizer)


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_an_answer_read_to_its_end_leaves_nothing_for_the_garbage_collector(protocol: Protocol) -> None:
    faults = Faults(protocol)
    with ScriptedGateway() as gateway:
        gateway.enqueue(faults.answer("warm"), faults.answer("one"), faults.answer("two"))
        model = adapter(protocol, gateway.base_url)
        try:
            async for _ in model.stream(REQUEST):  # the first request pays the imports
                pass
            texts: list[str] = []
            with finalized_by_the_collector() as left:
                for _ in range(2):
                    async for event in model.stream(REQUEST):
                        if isinstance(event, TextDelta):
                            texts.append(event.text)
        finally:
            await model.aclose()
    assert "".join(texts) == "onetwo"
    assert left == []
