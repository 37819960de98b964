"""An RPC session is stored with its first prompt: before it, asking about it answers plainly, and
leaving stores nothing."""

from __future__ import annotations

from circle._testing.gateway import chat_text

from ._rpc import RpcProcess
from .conftest import Circle


def test_before_the_first_prompt_the_session_answers_and_nothing_is_stored(cli: Circle) -> None:
    rpc = RpcProcess(cli, "--yolo")
    try:
        assert rpc.request("get_fork_messages")["data"] == {"messages": []}
        assert rpc.request("set_session_name", name="later")["success"] is True
        assert rpc.request("get_state")["data"]["sessionName"] == "later"
        assert rpc.close() == 0
    finally:
        rpc.kill()
    listed = cli.run("sessions")
    assert listed.returncode == 0 and "later" not in listed.stdout

    cli.gateway.enqueue(chat_text("Hi."))
    rpc = RpcProcess(cli, "--yolo")
    try:
        rpc.request("set_session_name", name="greeting")
        rpc.request("prompt", message="hello")
        rpc.event("agent_settled")
        assert rpc.close() == 0
    finally:
        rpc.kill()
    assert "greeting" in cli.run("sessions").stdout
