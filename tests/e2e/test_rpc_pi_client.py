"""pi's own RpcClient (the npm package @mariozechner/pi-coding-agent) drives `circle --mode rpc`
unchanged: its idle detection returns, and the streamed events follow pi's rules.

The package is installed once into a cached folder (``CIRCLE_TEST_PI_DIR``, else the system's
temporary folder); the test is skipped when node or npm is missing or the install fails.
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import pytest

from circle._testing.gateway import chat_text, chat_tool_calls

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


def _updates(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [e["assistantMessageEvent"] for e in events if e["type"] == "message_update"]


def test_pis_rpc_client_drives_circle_unchanged(cli: Circle) -> None:
    package = _pi_package()
    stalled = dataclasses.replace(chat_text("Partial answer that never ends."), stall_after=2, stall_s=30)
    cli.gateway.enqueue(
        chat_text("Hello there."),
        chat_tool_calls([("c1", "ls", {})], text="Looking."),
        chat_text("Done."),
        chat_text("Idle."),
        stalled,
    )
    done = subprocess.run(
        ["node", str(SCRIPT), str(package), circle_command(), str(cli.workspace)],
        env=cli.env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    seen = json.loads(done.stdout)

    # promptAndWait, collectEvents and waitForIdle end at agent_end, well before their timeouts
    for name in ("hello", "tool", "idle", "abort"):
        events = seen[name]["events"]
        assert events[-1]["type"] == "agent_end", name
        assert seen[name]["ms"] < 10_000, name
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
    assert started["partial"]["content"][1] == {"type": "toolCall", "id": "c1", "name": "ls", "arguments": {}}
    ended = next(u for u in first if u["type"] == "toolcall_end")
    assert ended["toolCall"] == {"type": "toolCall", "id": "c1", "name": "ls", "arguments": {}}
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
