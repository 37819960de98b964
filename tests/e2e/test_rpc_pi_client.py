"""pi's own RpcClient (the npm package @mariozechner/pi-coding-agent) drives `circle --mode rpc`
unchanged, through every client method and event helper: its idle detection returns, the streamed
events follow pi's rules, and each command answers in pi's shape.

The package is installed once into a cached folder (``CIRCLE_TEST_PI_DIR``, else the system's
temporary folder); the test is skipped when node or npm is missing or the install fails.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from circle._testing.gateway import ScriptedGateway
from circle._testing.rpc_scenario import scenario_answer

from .conftest import Circle, circle_command

PACKAGE = "@mariozechner/pi-coding-agent"
SCRIPT = Path(__file__).with_name("pi_rpc_client.mjs")


def _pi_package() -> Path:
    if shutil.which("node") is None or shutil.which("npm") is None:
        pytest.skip("node and npm are needed to run pi's RpcClient")
    folder = Path(os.environ.get("CIRCLE_TEST_PI_DIR") or Path(tempfile.gettempdir()) / "circle-pi-client")
    client = folder / "node_modules" / PACKAGE / "dist" / "modes" / "rpc" / "rpc-client.js"
    if client.exists():
        return folder
    folder.mkdir(parents=True, exist_ok=True)
    try:
        done = subprocess.run(
            ["npm", "install", "--no-audit", "--no-fund", "--prefix", str(folder), PACKAGE],
            capture_output=True,
            text=True,
            timeout=300,
        )
    except subprocess.TimeoutExpired:
        pytest.skip(f"npm install {PACKAGE} took over 300 s")
    if done.returncode != 0 or not client.exists():
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        pytest.skip(f"npm install {PACKAGE} failed: {last}")
    return folder


@pytest.fixture
def gateway() -> Iterator[ScriptedGateway]:
    """The scenario's answers, chosen from each request (as bench/rpc_shapes.py gives them to pi)."""
    with ScriptedGateway(fallback=scenario_answer) as gw:
        yield gw


def _updates(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [e["assistantMessageEvent"] for e in events if e["type"] == "message_update"]


def _run_scenario(cli: Circle) -> dict[str, Any]:
    package = _pi_package()
    done = subprocess.run(
        ["node", str(SCRIPT), str(package), circle_command(), str(cli.workspace)],
        env=cli.env(),
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    seen: dict[str, Any] = json.loads(done.stdout)
    return seen


def test_pis_rpc_client_drives_circle_unchanged(cli: Circle) -> None:
    seen = _run_scenario(cli)

    # promptAndWait, collectEvents and waitForIdle end at agent_end, well before their timeouts
    for name in ("hello", "tool", "idle", "collect", "abort", "abort_command", "steer_and_follow_up"):
        events = seen[name]["events"]
        assert events[-1]["type"] == "agent_end", name
        assert seen[name]["ms"] < 15_000, name
    hello = seen["hello"]["events"]
    assert hello[0]["type"] == "agent_start"
    assert [m["role"] for m in hello[-1]["messages"]] == ["user", "assistant"]

    # contentIndex is the position in the message's content: text 0, then the tool call 1
    updates = _updates(seen["tool"]["events"])
    first = updates[: next(i for i, u in enumerate(updates) if u["type"] == "done") + 1]
    assert [u["type"] for u in first][:2] == ["start", "text_start"]
    assert {u["contentIndex"] for u in first if u["type"].startswith("text_")} == {0}
    assert {u["contentIndex"] for u in first if u["type"].startswith("toolcall_")} == {1}
    started = next(u for u in first if u["type"] == "toolcall_start")
    call = started["partial"]["content"][1]
    assert (call["type"], call["name"]) == ("toolCall", "execute")
    assert (call.pop("partialArgs"), call.pop("streamIndex")) == ("", 0)  # pi's, while it streams
    ended = next(u for u in first if u["type"] == "toolcall_end")
    assert ended["toolCall"] == {**call, "arguments": {"command": "ls"}}
    text_end = next(u for u in first if u["type"] == "text_end")
    assert text_end["content"] == "Looking."
    assert first[-1]["reason"] == "toolUse"
    ends = [e["message"] for e in seen["tool"]["events"] if e["type"] == "message_end"]
    assert [m["role"] for m in ends] == ["user", "assistant", "toolResult", "assistant"]
    assert all(isinstance(m["timestamp"], int) for m in ends)
    answer = ends[1]
    assert answer["api"] == "openai-completions"
    assert isinstance(answer["timestamp"], int) and answer["provider"]
    assert answer["usage"]["totalTokens"] == 15 and "total" in answer["usage"]["cost"]

    # an abort closes the streamed message with stopReason "aborted"
    abort = seen["abort"]["events"]
    starts = [e for e in abort if e["type"] == "message_start" and e["message"]["role"] == "assistant"]
    ends = [e for e in abort if e["type"] == "message_end" and e["message"]["role"] == "assistant"]
    assert len(starts) == len(ends) == 1
    assert ends[0]["message"]["stopReason"] == "aborted" and ends[0]["message"]["errorMessage"]
    assert _updates(abort)[-1]["type"] == "error" and _updates(abort)[-1]["reason"] == "aborted"

    # an abort mid-command stops the command (sleep 30) long before it would end
    stopped = seen["abort_command"]
    assert stopped["ms"] < 10_000
    [result] = [e for e in stopped["events"] if e["type"] == "tool_execution_end"]
    assert result["isError"] is True

    # steer and follow-up during a command: the steering message is read, the follow-up gets a turn
    events = seen["steer_and_follow_up"]["events"]
    assert [e["message"] for e in events if e["type"] == "steer"] == ["also mention the time"]
    assert [e["message"] for e in events if e["type"] == "turn_start"] == [
        "run a short command",
        "then say bye",
    ]
    queued = [e for e in events if e["type"] == "queue_update"]
    assert {"type": "queue_update", "steering": ["also mention the time"], "followUp": []} in queued
    assert queued[-1] == {"type": "queue_update", "steering": [], "followUp": []}
    _assert_every_client_method_answers_in_pis_shape(seen)


def _assert_every_client_method_answers_in_pis_shape(seen: dict[str, Any]) -> None:
    calls = seen["calls"]
    failed = {name: call["error"] for name, call in calls.items() if not call["ok"]}
    assert failed == {}, failed
    data = {name: call["data"] for name, call in calls.items()}
    state = data["getState"]
    assert {"model", "thinkingLevel", "isStreaming", "isCompacting", "steeringMode", "followUpMode"} <= set(
        state
    )
    assert data["getAvailableModels"][0]["id"] == "scripted"
    assert data["setModel"]["id"] == "scripted"
    assert data["cycleModel"] is None, "the endpoint lists one model"
    assert data["cycleThinkingLevel"] == {"level": "max"}
    assert data["bash"] == {"output": "from-bash\n", "exitCode": 0, "cancelled": False, "truncated": False}
    assert data["bashAborted"]["cancelled"] is True
    compacted = data["compact"]
    assert compacted["summary"] and isinstance(compacted["tokensBefore"], int)
    start, end = seen["compact"]["events"]
    assert (start["type"], start["reason"]) == ("compaction_start", "manual")
    assert end["result"]["summary"] == compacted["summary"], "e.result.summary works"
    assert data["getLastAssistantText"] == "Hello there."
    assert Path(data["exportHtml"]["path"]).is_file()
    forkable = data["getForkMessages"]
    assert [m["text"] for m in forkable][:2] == ["say hello", "look around"], "also those summarized"
    assert forkable[-1]["text"] == "then say bye"
    forked = data["fork"]
    assert forked == {"text": "say hello", "cancelled": False, "sessionId": forked["sessionId"]}
    assert (
        data["getStateAfterFork"]["sessionId"]
        == forked["sessionId"]
        != data["getStateBeforeFork"]["sessionId"]
    )
    assert data["clone"]["cancelled"] is False
    before = data["getStateBeforeFork"]
    assert data["getStateAfterSwitch"]["sessionId"] == before["sessionId"]
    assert data["getStateAfterSwitch"]["sessionName"] == "shapes"
    assert data["newSession"] == {"sessionId": data["newSession"]["sessionId"], "cancelled": False}
    assert all(command["name"].startswith("skill:") for command in data["getCommands"])
    assert [e for e in seen["all"] if e["type"] == "session_info_changed"] == [
        {"type": "session_info_changed", "name": "shapes"}
    ]
