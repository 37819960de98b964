"""`circle --mode rpc --rpc-approvals`: what would ask goes to the client as pi's
extension_ui_request, and anything but a yes in time denies (fail closed)."""

from __future__ import annotations

import json
from typing import Any

from circle._testing.gateway import chat_text, chat_tool_calls

from ._rpc import RpcProcess
from .conftest import Circle


def _answer(rpc: RpcProcess, request: dict[str, Any], **fields: Any) -> None:
    rpc.send({"type": "extension_ui_response", "id": request["id"], **fields})


def _results(rpc: RpcProcess) -> list[dict[str, Any]]:
    return rpc.events("tool_execution_end")


def test_the_client_confirms_a_command_denies_a_file_change_and_answers_questions(cli: Circle) -> None:
    questions = [{"question": "Which colour?", "options": ["red", "blue"]}, {"question": "Why?"}]
    cli.gateway.enqueue(
        chat_tool_calls([("c1", "execute", {"command": "touch made.txt"})]),
        chat_tool_calls([("c2", "write_file", {"file_path": "new.txt", "content": "hello\n"})]),
        chat_tool_calls([("c3", "question", {"questions": questions})]),
        chat_text("Done."),
    )
    rpc = RpcProcess(cli, "--rpc-approvals")
    try:
        rpc.request("prompt", message="work")
        command = rpc.nth("extension_ui_request", 1)
        assert command["method"] == "confirm" and command["title"] == "Allow execute?"
        assert "touch made.txt" in command["message"] and command["timeout"] == 300_000
        assert command["details"]["toolName"] == "execute"
        _answer(rpc, command, confirmed=True)
        change = rpc.nth("extension_ui_request", 2)
        assert change["method"] == "confirm" and "+hello" in change["message"]
        assert "+hello" in change["details"]["diff"]
        _answer(rpc, change, confirmed=False)
        select = rpc.nth("extension_ui_request", 3)
        assert (select["method"], select["title"], select["options"]) == (
            "select",
            "Which colour?",
            ["red", "blue"],
        )
        _answer(rpc, select, value="blue")
        typed = rpc.nth("extension_ui_request", 4)
        assert (typed["method"], typed["title"]) == ("input", "Why?")
        _answer(rpc, typed, value="it is calm")
        rpc.event("agent_settled")
        assert (cli.workspace / "made.txt").exists()
        assert not (cli.workspace / "new.txt").exists()
        ran, refused, asked = _results(rpc)
        assert not ran["isError"] and refused["isError"]
        assert "the RPC client denied it" in refused["result"]["content"][0]["text"]
        answered = asked["result"]["content"][0]["text"]
        assert "-> blue" in answered and "-> it is calm" in answered
        assert not [line for line in rpc.lines if line.get("command") == "extension_ui_response"]
    finally:
        rpc.kill()


def test_an_answer_that_comes_late_denies(cli: Circle) -> None:
    cli.gateway.enqueue(chat_tool_calls([("c1", "execute", {"command": "touch late.txt"})]), chat_text("Ok."))
    rpc = RpcProcess(cli, "--rpc-approvals", env=cli.env(CIRCLE_RPC_APPROVAL_TIMEOUT="0.5"))
    try:
        rpc.request("prompt", message="work")
        request = rpc.event("extension_ui_request")
        assert request["timeout"] == 500
        [ended] = [rpc.event("tool_execution_end")]
        _answer(rpc, request, confirmed=True)  # too late: nothing waits for it any more
        rpc.event("agent_settled")
        assert ended["isError"] and "did not answer in time" in ended["result"]["content"][0]["text"]
        assert rpc.close() == 0
        assert not (cli.workspace / "late.txt").exists()
    finally:
        rpc.kill()


def test_a_client_that_goes_away_while_asked_denies(cli: Circle) -> None:
    cli.gateway.enqueue(chat_tool_calls([("c1", "execute", {"command": "touch gone.txt"})]), chat_text("Ok."))
    rpc = RpcProcess(cli, "--rpc-approvals")
    try:
        rpc.request("prompt", message="work")
        rpc.event("extension_ui_request")
        assert rpc.close(timeout=20) == 0
        ended = rpc.event("tool_execution_end")
        assert ended["isError"] and not (cli.workspace / "gone.txt").exists()
        assert "the RPC client went away (denied)" in ended["result"]["content"][0]["text"]
    finally:
        rpc.kill()


def test_without_the_flag_a_call_that_would_ask_is_not_run_and_nothing_is_asked(cli: Circle) -> None:
    cli.gateway.enqueue(
        chat_tool_calls([("c1", "execute", {"command": "touch quiet.txt"})]), chat_text("Ok.")
    )
    rpc = RpcProcess(cli)
    try:
        rpc.request("prompt", message="work")
        rpc.event("agent_settled")
        assert not rpc.events("extension_ui_request")
        assert rpc.event("tool_execution_end")["isError"] and not (cli.workspace / "quiet.txt").exists()
    finally:
        rpc.kill()


def test_the_flag_goes_with_rpc_mode_only(cli: Circle) -> None:
    done = cli.run("-p", "--rpc-approvals", "hi")
    assert done.returncode == 2 and "--rpc-approvals goes with --mode rpc" in done.stderr
    assert json.dumps(done.stdout) == '""'
