"""ctrl+c while an answer streams keeps the text already sent: `circle -p -c` sends it back."""

from __future__ import annotations

import json
import signal
import time
from dataclasses import replace

from circle._testing.gateway import chat_text

from ._rpc import RpcProcess
from .conftest import Circle


def _stop_mid_answer(cli: Circle, *args: str) -> list[dict[str, object]]:
    stalled = replace(chat_text("Hello there, friend. And more.", pieces=6), stall_after=3, stall_s=30)
    cli.gateway.enqueue(stalled)
    process = cli.popen("-p", "--mode", "json", *args, "say hello")
    assert process.stdout is not None
    lines, deltas = [], 0
    for line in process.stdout:  # the first two pieces come, then the endpoint goes quiet
        lines.append(line)
        deltas += '"text_delta"' in line
        if deltas == 2:
            process.send_signal(signal.SIGINT)
            break
    rest, _ = process.communicate(timeout=30)
    assert process.returncode == 130
    return [json.loads(line) for line in ("".join(lines) + rest).splitlines()]


def test_the_next_request_after_ctrl_c_carries_the_text_already_streamed(cli: Circle) -> None:
    events = _stop_mid_answer(cli)
    ends = [e for e in events if e["type"] == "message_end"]
    answer = ends[-1]["message"]
    assert isinstance(answer, dict) and answer["role"] == "assistant" and answer["stopReason"] == "aborted"
    shown = "".join(part["text"] for part in answer["content"] if part["type"] == "text")
    assert shown == "Hello ther"
    cli.gateway.enqueue(chat_text("As I was saying."))
    done = cli.run("-p", "-c", "go on")
    assert done.returncode == 0, done.stderr
    sent = cli.gateway.requests[-1].json()["messages"]
    assert [m["role"] for m in sent[-3:]] == ["user", "assistant", "user"]
    assert sent[-2]["content"] == shown and sent[-1]["content"] == "go on"


def test_print_mode_prints_the_text_it_kept_when_stopped(cli: Circle) -> None:
    stalled = replace(chat_text("Hello there, friend. And more.", pieces=6), stall_after=3, stall_s=30)
    cli.gateway.enqueue(stalled, chat_text("As I was saying."))
    process = cli.popen("-p", "say hello")
    deadline = time.monotonic() + 20
    while not cli.gateway.requests and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(3)  # the two pieces before the pause are read (the pause lasts 30 s)
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=30)
    assert process.returncode == 130 and err.strip().endswith("circle: interrupted")
    assert out == "Hello ther\n"
    assert cli.run("-p", "-c", "go on").returncode == 0
    assert cli.gateway.requests[-1].json()["messages"][-2] == {"role": "assistant", "content": "Hello ther"}


def test_rpc_abort_ends_the_answer_aborted_with_its_text_and_stores_it(cli: Circle) -> None:
    stalled = replace(chat_text("Hello there, friend. And more.", pieces=6), stall_after=3, stall_s=30)
    cli.gateway.enqueue(stalled, chat_text("As I was saying."))
    rpc = RpcProcess(cli)
    try:
        rpc.request("prompt", message="say hello")
        rpc.wait_for(lambda d: d.get("type") == "message_update" and _text_of(d) == "Hello ther")
        assert rpc.request("abort")["data"] == {"aborted": True}
        [end] = [e for e in rpc.events("message_end") if e["message"]["role"] == "assistant"]
        assert end["message"]["stopReason"] == "aborted" and end["message"]["errorMessage"]
        assert end["message"]["content"] == [{"type": "text", "text": "Hello ther"}]
        assert end["checkpoint_id"]
        [agent_end] = rpc.events("agent_end")  # listed once: stored, not also as an unstored answer
        assert [(m["role"], m.get("stopReason")) for m in agent_end["messages"]] == [
            ("user", None),
            ("assistant", "aborted"),
        ]
        stored = rpc.request("get_messages")["data"]["messages"]
        assert [(m["type"], m["data"]["content"]) for m in stored[1:]] == [
            ("human", "say hello"),
            ("ai", "Hello ther"),
        ]
        rpc.request("prompt", message="go on")
        rpc.nth("agent_end", 2)
        sent = cli.gateway.requests[-1].json()["messages"]
        assert [(m["role"], m["content"]) for m in sent[-2:]] == [
            ("assistant", "Hello ther"),
            ("user", "go on"),
        ]
    finally:
        rpc.kill()


def _text_of(update: dict[str, object]) -> str:
    partial = update["message"]
    assert isinstance(partial, dict)
    return "".join(part.get("text", "") for part in partial["content"] if part["type"] == "text")
