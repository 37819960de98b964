"""The first request of each model protocol loads its SDK on a thread: the event loop (the
interface's keys, the spinner) never stalls while ``import anthropic`` or ``import openai`` runs."""

from __future__ import annotations

import subprocess
import sys

import pytest

LONGEST_STALL_S = 0.25
"""Far under the seconds an SDK import takes; the machine running the tests may be busy."""

SCRIPT = """
import asyncio, sys, time
from circle.domain.messages import Message
from circle.domain.model import ModelRequest
from circle.domain.settings import Endpoint
from circle.testing import ScriptedGateway, anthropic_answer, responses_answer
from circle._testing.gateway import chat_text

protocol, module, cls = sys.argv[1], sys.argv[2], sys.argv[3]
replies = {"anthropic": anthropic_answer, "openai-responses": responses_answer, "openai-chat": chat_text}
gateway = ScriptedGateway()
gateway.enqueue(replies[protocol]("hi"))
url = gateway.start()

async def main():
    import importlib
    model_cls = getattr(importlib.import_module(module), cls)
    assert not any(name in sys.modules for name in ("anthropic", "openai")), "an SDK loaded too soon"
    model = model_cls(Endpoint(base_url=url, protocol=protocol, api_key="k", model="m"))
    longest, last, done = 0.0, time.perf_counter(), False
    async def tick():
        nonlocal longest, last
        while not done:
            await asyncio.sleep(0.005)
            now = time.perf_counter()
            longest, last = max(longest, now - last), now
    ticker = asyncio.create_task(tick())
    await asyncio.sleep(0.02)
    request = ModelRequest(model="m", system="s", messages=(Message.user("hello"),))
    async for _ in model.stream(request):
        pass
    done = True
    await ticker
    await model.aclose()
    print(f"{longest:.3f}")

asyncio.run(main())
gateway.stop()
"""


@pytest.mark.parametrize(
    ("protocol", "module", "cls"),
    [
        ("anthropic", "circle.adapters.models.anthropic", "AnthropicModel"),
        ("openai-chat", "circle.adapters.models.openai_chat", "OpenAIChatModel"),
        ("openai-responses", "circle.adapters.models.openai_responses", "OpenAIResponsesModel"),
    ],
)
def test_the_first_request_never_stalls_the_event_loop(protocol: str, module: str, cls: str) -> None:
    ran = subprocess.run(
        [sys.executable, "-c", SCRIPT, protocol, module, cls], capture_output=True, text=True, timeout=120
    )
    assert ran.returncode == 0, ran.stderr[-2000:]
    stall = float(ran.stdout.split()[-1])
    assert stall < LONGEST_STALL_S, f"the event loop stalled {stall:.3f} s during the first request"
