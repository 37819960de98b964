"""What a one-shot run loads on its way to the first request, checked in a fresh interpreter."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest


def _loaded(code: str, names: tuple[str, ...]) -> list[str]:
    shown = f"json.dumps(sorted(n for n in {names!r} if n in sys.modules))"
    probe = f"{code}\nimport json, sys\nprint({shown})"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    return list(json.loads(out))


def test_the_container_loads_no_web_framework() -> None:
    names = ("starlette", "starlette.requests", "fastapi")
    assert _loaded("import circle.entrypoints.container", names) == []


def test_the_web_framework_still_imports_after_the_container() -> None:
    code = "import circle.entrypoints.container\nimport starlette.requests"
    assert _loaded(code, ("starlette.requests",)) == ["starlette.requests"]


_FIRST_REQUEST = """
import asyncio
from circle.testing import ScriptedGateway, chat_text, responses_answer
from circle.adapters.models.{module} import {cls}
from circle.domain.messages import Message
from circle.domain.model import ModelRequest
from circle.domain.settings import Endpoint

async def main(url):
    model = {cls}(Endpoint(base_url=url, protocol="openai-chat", api_key="k", model="m"))
    request = ModelRequest(model="m", system="", messages=(Message.user("hi"),))
    events = [type(e).__name__ async for e in model.stream(request)]
    await model.aclose()
    assert "TextDelta" in "".join(events), events

with ScriptedGateway() as gateway:
    gateway.enqueue({reply}("hello"))
    asyncio.run(main(gateway.base_url))
"""


@pytest.mark.parametrize(
    ("module", "cls", "reply"),
    [
        ("openai_chat", "OpenAIChatModel", "chat_text"),
        ("openai_responses", "OpenAIResponsesModel", "responses_answer"),
    ],
)
def test_an_openai_request_is_sent_without_loading_the_openai_sdk(module: str, cls: str, reply: str) -> None:
    code = _FIRST_REQUEST.format(module=module, cls=cls, reply=reply)
    assert _loaded(code, ("openai", "openai.types")) == []


def test_building_the_runtime_loads_no_web_fetching_machinery() -> None:
    code = (
        "from circle.adapters.web.httpx_web import HttpxWebClient\nHttpxWebClient(proxy=None, ca_file=None)"
    )
    assert _loaded(code, ("urllib.request",)) == []


def test_proxy_variables_are_still_read_when_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    from circle.adapters.web._hops import proxied

    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.example:3128")
    assert proxied(None)
    monkeypatch.delenv("HTTPS_PROXY")
    for name in ("HTTP_PROXY", "http_proxy", "https_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.delenv(name, raising=False)
    assert not proxied(None)
