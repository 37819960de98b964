"""pi's RPC commands beyond prompting, through `circle --mode rpc` on real pipes: compaction,
forks and sessions, the person's own commands, queue modes, retries, models, and their events."""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Iterator

import pytest

from circle._testing.gateway import chat_error, chat_text, chat_tool_calls

from ._rpc import RpcProcess
from .conftest import Circle


@pytest.fixture
def rpc(cli: Circle) -> Iterator[RpcProcess]:
    process = RpcProcess(cli, "--yolo")
    yield process
    process.kill()


def _settle(rpc: RpcProcess, message: str) -> None:
    after = len(rpc.lines)
    assert rpc.request("prompt", message=message)["success"] is True
    rpc.wait_for(lambda d: d.get("type") == "agent_settled", after=after)


def test_compact_summarizes_now_and_its_events_carry_pis_result(cli: Circle) -> None:
    cli.home.mkdir(parents=True, exist_ok=True)
    settings = {"models": {"test-model": {"context": 6000, "output": 1000}}}
    (cli.home / "settings.json").write_text(json.dumps(settings))
    (cli.workspace / "big.txt").write_text("".join(f"line {i}: {'x' * 60}\n" for i in range(400)))
    cli.gateway.enqueue(
        chat_text("Hello."),
        chat_tool_calls([("c1", "read_file", {"file_path": "big.txt"})]),
        chat_text("big.txt has 400 lines."),
        chat_text("Summary: the person asked about big.txt."),
    )
    rpc = RpcProcess(cli, "--yolo")
    try:
        assert rpc.request("set_auto_compaction", enabled=False) == {
            "type": "response",
            "command": "set_auto_compaction",
            "success": True,
            "id": "r1",
        }
        assert rpc.request("get_state")["data"]["autoCompactionEnabled"] is False
        _settle(rpc, "hello first")
        _settle(rpc, "how many lines has big.txt?")
        assert not rpc.events("compaction_start"), "automatic compaction is off"
        done = rpc.request("compact", customInstructions="keep the line count")
        assert done["success"] is True, done
        summary = done["data"]["summary"]
        assert summary.startswith("Summary: the person asked about big.txt.")
        assert isinstance(done["data"]["tokensBefore"], int) and done["data"]["firstKeptEntryId"]
        assert rpc.events("compaction_start") == [
            {
                "type": "compaction_start",
                "reason": "manual",
                "session_id": rpc.events("compaction_start")[0]["session_id"],
            }
        ]
        end = rpc.event("compaction_end")
        assert end["result"]["summary"] == summary and end["aborted"] is False and end["willRetry"] is False
        assert "keep the line count" in json.dumps(cli.gateway.requests[-1].json()["messages"])
        assert rpc.request("get_state")["data"]["isCompacting"] is False
        assert done["data"] == end["result"]
        assert end["result"]["details"]["summarized"] >= 2, "the first exchange was summarized"
        listed = rpc.request("get_fork_messages")["data"]["messages"]
        assert [m["text"] for m in listed] == ["hello first", "how many lines has big.txt?"]
        forked = rpc.request("fork", entryId=listed[1]["entryId"])
        assert forked["success"] is True and forked["data"]["text"] == "how many lines has big.txt?"
        texts = [m["data"]["content"] for m in rpc.request("get_messages")["data"]["messages"][1:]]
        assert len(texts) == 1 and texts[0].startswith("[Summary of the earlier conversation]")
        rpc.request("switch_session", sessionPath=end["session_id"])
        first = rpc.request("fork", entryId=listed[0]["entryId"])["data"]
        assert first["text"] == "hello first" and rpc.request("get_state")["data"]["messageCount"] == 0
    finally:
        rpc.kill()


def test_fork_clone_and_switch_session_move_between_stored_sessions(cli: Circle, rpc: RpcProcess) -> None:
    cli.gateway.enqueue(chat_text("One."), chat_text("Two."))
    _settle(rpc, "first")
    _settle(rpc, "second")
    original = rpc.request("get_state")["data"]["sessionId"]
    listed = rpc.request("get_fork_messages")["data"]["messages"]
    assert [m["text"] for m in listed] == ["first", "second"]
    forked = rpc.request("fork", entryId=listed[1]["entryId"])["data"]
    assert forked["text"] == "second" and forked["cancelled"] is False
    state = rpc.request("get_state")["data"]
    assert state["sessionId"] != original and state["messageCount"] == 2
    texts = [m["data"]["content"] for m in rpc.request("get_messages")["data"]["messages"][1:]]
    assert texts == ["first", "One."]
    cloned = rpc.request("clone")["data"]
    assert cloned == {"cancelled": False, "sessionId": cloned["sessionId"]}
    assert cloned["sessionId"] not in (original, state["sessionId"])
    assert rpc.request("get_state")["data"]["messageCount"] == 2
    assert rpc.request("switch_session", sessionPath=original)["data"]["cancelled"] is False
    assert rpc.request("get_state")["data"] == {
        **rpc.request("get_state")["data"],
        "sessionId": original,
        "messageCount": 4,
    }
    missing = rpc.request("fork", entryId="no-such-entry")
    assert missing["success"] is False and "get_fork_messages" in missing["error"]
    unknown = rpc.request("switch_session", sessionPath="/sessions/nope.jsonl")
    assert unknown["success"] is False and "no session 'nope'" in unknown["error"]
    rpc.request("set_session_name", name="refactor")
    assert rpc.event("session_info_changed") == {"type": "session_info_changed", "name": "refactor"}


def test_bash_runs_the_persons_command_its_output_goes_with_the_next_prompt(
    cli: Circle, rpc: RpcProcess
) -> None:
    ran = rpc.request("bash", command="echo from-the-person; exit 3")
    assert ran["data"] == {
        "output": "from-the-person\n",
        "exitCode": 3,
        "cancelled": False,
        "truncated": False,
    }
    started = time.monotonic()
    rpc.send({"id": "long", "type": "bash", "command": "sleep 30"})
    time.sleep(0.3)
    assert rpc.request("abort_bash")["success"] is True
    cancelled = rpc.wait_for(lambda d: d.get("id") == "long")
    assert cancelled["data"]["cancelled"] is True and time.monotonic() - started < 10
    cli.gateway.enqueue(chat_text("Seen."))
    _settle(rpc, "what did it print?")
    sent = cli.gateway.requests[-1].json()["messages"]
    user = [m["content"] for m in sent if m["role"] == "user"][-1]
    assert "$ echo from-the-person; exit 3\nfrom-the-person" in user and user.endswith("what did it print?")
    assert "sleep 30" not in user
    commands = rpc.request("get_commands")["data"]["commands"]
    assert commands and all(c["name"].startswith("skill:") and c["source"] == "skill" for c in commands)
    assert all(c["sourceInfo"]["path"].endswith("SKILL.md") for c in commands)


def test_queue_modes_and_queue_updates(cli: Circle, rpc: RpcProcess) -> None:
    assert rpc.request("set_steering_mode", mode="one-at-a-time")["success"] is True
    assert rpc.request("set_follow_up_mode", mode="all")["success"] is True
    bad = rpc.request("set_follow_up_mode", mode="sometimes")
    assert bad["success"] is False and "one-at-a-time" in bad["error"]
    state = rpc.request("get_state")["data"]
    assert (state["steeringMode"], state["followUpMode"]) == ("one-at-a-time", "all")
    cli.gateway.enqueue(
        chat_tool_calls([("c1", "execute", {"command": "sleep 1.5"})]),
        chat_text("Slept."),
        chat_text("Both read."),
    )
    rpc.request("prompt", message="sleep a while")
    rpc.event("tool_execution_start")
    rpc.request("follow_up", message="then a")
    rpc.request("prompt", message="then b", streamingBehavior="followUp")
    updates = [e for e in rpc.lines if e["type"] == "queue_update"]
    assert updates[-2:] == [
        {"type": "queue_update", "steering": [], "followUp": ["then a"]},
        {"type": "queue_update", "steering": [], "followUp": ["then a", "then b"]},
    ]
    rpc.event("agent_settled", timeout=30)
    assert rpc.events("queue_update")[-1] == {"type": "queue_update", "steering": [], "followUp": []}
    turns = [e["message"] for e in rpc.events("turn_start")]
    assert turns == ["sleep a while", "then a\n\nthen b"], "follow-ups in 'all' mode go together"


def test_retries_can_be_turned_off_and_aborted_with_pis_events(cli: Circle, rpc: RpcProcess) -> None:
    now = {"retry-after": "0"}
    cli.gateway.enqueue(chat_error(503, "Service Unavailable", headers=now), chat_text("Fine."))
    _settle(rpc, "one")
    assert [e["type"] for e in rpc.lines if e["type"].startswith("auto_retry")] == [
        "auto_retry_start",
        "auto_retry_end",
    ]
    start, end = rpc.event("auto_retry_start"), rpc.event("auto_retry_end")
    assert start == {
        "type": "auto_retry_start",
        "attempt": 1,
        "maxAttempts": start["maxAttempts"],
        "delayMs": 0,
        "errorMessage": "the endpoint answered 503: Service Unavailable",
    }
    assert end == {"type": "auto_retry_end", "success": True, "attempt": 1}

    assert rpc.request("set_auto_retry", enabled=False)["success"] is True
    cli.gateway.enqueue(chat_error(503, "Service Unavailable", headers=now), chat_text("Not sent."))
    after = len(rpc.lines)
    _settle(rpc, "two")
    assert not [e for e in rpc.lines[after:] if e["type"].startswith("auto_retry")]
    assert "automatic retries are off" in rpc.nth("turn_end", 2)["error"]["message"]
    cli.gateway.reset()

    assert rpc.request("set_auto_retry", enabled=True)["success"] is True
    cli.gateway.enqueue(chat_error(503, "Busy", headers={"retry-after": "30"}))
    after = len(rpc.lines)
    started = time.monotonic()
    rpc.request("prompt", message="three")
    rpc.event("auto_retry_start", after=after)
    assert rpc.request("abort_retry")["data"] == {"aborted": True}
    rpc.wait_for(lambda d: d.get("type") == "agent_settled", after=after)
    assert time.monotonic() - started < 15
    ended = [e for e in rpc.lines[after:] if e["type"] == "auto_retry_end"]
    assert ended == [
        {"type": "auto_retry_end", "success": False, "attempt": 1, "finalError": ended[0]["finalError"]}
    ]
    assert "the retry was aborted" in ended[0]["finalError"]


def test_cycle_model_and_thinking_level(cli: Circle, rpc: RpcProcess) -> None:
    listed = [m["id"] for m in rpc.request("get_available_models")["data"]["models"]]
    cycled = rpc.request("cycle_model")["data"]
    if listed == ["test-model"]:
        assert cycled is None
    else:
        following = (
            listed[(listed.index("test-model") + 1) % len(listed)] if "test-model" in listed else listed[0]
        )
        assert cycled["model"]["id"] == following
        assert cycled["isScoped"] is False and cycled["thinkingLevel"] == "off"
        assert rpc.request("get_state")["data"]["model"]["id"] == cycled["model"]["id"]
    levels = [rpc.request("cycle_thinking_level")["data"] for _ in range(6)]
    assert levels == [{"level": level} for level in ("minimal", "low", "medium", "high", "max", "off")]


def test_abort_stops_a_manual_compaction_and_changes_nothing(cli: Circle) -> None:
    cli.home.mkdir(parents=True, exist_ok=True)
    settings = {"models": {"test-model": {"context": 6000, "output": 1000}}}
    (cli.home / "settings.json").write_text(json.dumps(settings))
    (cli.workspace / "big.txt").write_text("".join(f"line {i}: {'x' * 60}\n" for i in range(400)))
    slow = dataclasses.replace(chat_text("Summary never comes."), delay_s=30)
    cli.gateway.enqueue(
        chat_tool_calls([("c1", "read_file", {"file_path": "big.txt"})]), chat_text("400 lines."), slow
    )
    rpc = RpcProcess(cli, "--yolo")
    try:
        rpc.request("set_auto_compaction", enabled=False)
        _settle(rpc, "how many lines has big.txt?")
        before = rpc.request("get_state")["data"]["messageCount"]
        rpc.send({"id": "squeeze", "type": "compact"})
        rpc.event("compaction_start")
        started = time.monotonic()
        assert rpc.request("abort")["success"] is True
        failed = rpc.wait_for(lambda d: d.get("id") == "squeeze")
        assert failed["success"] is False and "aborted" in failed["error"]
        assert time.monotonic() - started < 10
        assert rpc.event("compaction_end") == {
            "type": "compaction_end",
            "reason": "manual",
            "result": None,
            "aborted": True,
        }
        state = rpc.request("get_state")["data"]
        assert (state["isCompacting"], state["messageCount"]) == (False, before)
    finally:
        rpc.kill()


def test_fork_gives_back_the_persons_text_without_the_command_output_sent_with_it(
    cli: Circle, rpc: RpcProcess
) -> None:
    rpc.request("bash", command="echo from-the-person")
    cli.gateway.enqueue(chat_text("Seen."))
    _settle(rpc, "what did it print?")
    sent = cli.gateway.requests[-1].json()["messages"]
    assert "from-the-person" in [m["content"] for m in sent if m["role"] == "user"][-1]  # the model read it
    listed = rpc.request("get_fork_messages")["data"]["messages"]
    assert [m["text"] for m in listed] == ["what did it print?"]
    assert rpc.request("fork", entryId=listed[0]["entryId"])["data"]["text"] == "what did it print?"
