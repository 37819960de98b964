"""A whole turn with tool calls through the installed `circle`, once per wire protocol."""

from __future__ import annotations

import pytest

from circle._testing.gateway import GatewayResponse, chat_text, chat_tool_calls
from circle._testing.wire_scripts import anthropic_answer, responses_answer

from .conftest import Circle


def _chat(text: str, calls: list[tuple[str, str, dict[str, object]]]) -> GatewayResponse:
    return chat_tool_calls(calls, text=text) if calls else chat_text(text)


def _responses(text: str, calls: list[tuple[str, str, dict[str, object]]]) -> GatewayResponse:
    return responses_answer(text, calls)


def _anthropic(text: str, calls: list[tuple[str, str, dict[str, object]]]) -> GatewayResponse:
    return anthropic_answer(text, calls, thinking="Let me look first." if calls else "")


PROTOCOLS = {
    "openai-chat": ("/chat/completions", _chat),
    "openai-responses": ("/responses", _responses),
    "anthropic": ("/v1/messages", _anthropic),
}


@pytest.mark.parametrize("protocol", list(PROTOCOLS))
def test_a_turn_with_tool_calls(cli: Circle, protocol: str) -> None:
    path, answer = PROTOCOLS[protocol]
    (cli.workspace / "todo.txt").write_text("buy milk\n")
    cli.gateway.enqueue(
        answer("Reading it.", [("call_1", "read_file", {"file_path": "todo.txt"})]),
        answer(
            "",
            [("call_2", "edit_file", {"file_path": "todo.txt", "old_string": "milk", "new_string": "tea"})],
        ),
        answer("Changed milk to tea.", []),
    )
    done = cli.run("-p", "--yolo", "swap milk for tea", env=cli.env(CIRCLE_PROTOCOL=protocol))
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "Changed milk to tea."
    assert (cli.workspace / "todo.txt").read_text() == "buy tea\n"
    posts = [r for r in cli.gateway.requests if r.method == "POST"]
    assert len(posts) == 3 and all(r.path.endswith(path) for r in posts)
    last = posts[-1].body.decode()
    assert "buy milk" in last and "Edited todo.txt" in last
    if protocol == "anthropic":
        assert "Let me look first." in last and "c2ln" in last
