"""One `circle -p --yolo` session in which the scripted model calls every built-in tool.

The model's answers come from a responder rather than a fixed queue, because three kinds of
request share the gateway: the main agent's (answered in script order), the explore subagent's
(a report) and the compaction's (a summary). webfetch of the loopback page is refused (a loopback
address asks in every mode, and nobody answers here); websearch goes to DuckDuckGo through
``HTTPS_PROXY``, pointed at the same loopback server, which refuses the tunnel: the search URL has
no setting, so the test checks its clear error instead of results.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import pytest

from circle._testing.gateway import (
    GatewayResponse,
    RecordedRequest,
    ScriptedGateway,
    chat_text,
    chat_tool_calls,
)
from circle.application.tools import builtin_tools
from circle.domain.subagents import SUBAGENT_ONLY

from .conftest import Circle

PAGE = "<html><head><title>Loopback</title></head><body><h1>Hello from the loopback page</h1></body></html>"
PATCH = "*** Begin Patch\n*** Update File: new.txt\n@@\n-fresh\n+patched\n*** End Patch"
PLAN = "# Plan\n\n1. Touch every tool.\n"
FINAL = "Every tool ran."
SUBAGENT_REPORT = "The workspace holds notes.txt and new.txt."

Round = list[tuple[str, str, dict[str, Any]]]


def _rounds(web: str) -> list[Round]:
    """The main agent's tool rounds, in order; call ids are the tool names, numbered."""
    script: list[list[tuple[str, dict[str, Any]]]] = [
        [("ls", {}), ("read_file", {"file_path": "notes.txt"}), ("glob", {"pattern": "**/*.txt"})],
        [("grep", {"pattern": "gren"}), ("write_file", {"file_path": "new.txt", "content": "fresh\n"})],
        [
            ("edit_file", {"file_path": "notes.txt", "old_string": "gren", "new_string": "green"}),
            ("apply_patch", {"patch": PATCH}),
            ("delete", {"file_path": "old.txt"}),
        ],
        [("execute", {"command": "echo bg-$((2*3)); sleep 30", "background": True})],
        [("execute", {"command": "sleep 0.3; echo fg-$((6*7))"}), ("list_jobs", {})],
        [
            ("stop_job", {"job_id": "job-1"}),
            ("write_todos", {"todos": [{"content": "Touch every tool", "status": "in_progress"}]}),
            ("question", {"questions": [{"question": "Tabs or spaces?", "options": ["tabs", "spaces"]}]}),
        ],
        [("plan_enter", {})],
        [("plan_exit", {"plan": PLAN})],
        [
            ("skill", {"name": "create-pr"}),
            ("webfetch", {"url": f"{web}/page.html"}),
            ("websearch", {"query": "circle coding agent"}),
        ],
        [
            (
                "task",
                {"description": "look around", "prompt": "What files are here?", "subagent_type": "explore"},
            )
        ],
        [("compact_conversation", {"instructions": "keep the file names"})],
    ]
    if "lsp" in builtin_tools():  # no language server is assumed installed: any result will do
        script.append([("lsp", {"operation": "symbols", "file_path": "notes.txt"})])
    return [
        [(f"{name}-{i}-{j}", name, args) for j, (name, args) in enumerate(calls)]
        for i, calls in enumerate(script)
    ]


class _Responder:
    """Answers the subagent and the compaction by their system prompts, the main agent in script order."""

    def __init__(self, rounds: list[Round]) -> None:
        self.main = [chat_tool_calls(calls) for calls in rounds] + [chat_text(FINAL)]
        self.kinds: list[str] = []
        self._lock = threading.Lock()

    def __call__(self, request: RecordedRequest) -> GatewayResponse:
        system = str(request.json()["messages"][0].get("content", ""))
        with self._lock:
            if system.startswith("You are an explore subagent"):
                self.kinds.append("subagent")
                return chat_text(SUBAGENT_REPORT)
            if system.startswith("You summarize a coding session"):
                self.kinds.append("compaction")
                return chat_text("Summary: every tool was being tried; files notes.txt and new.txt.")
            self.kinds.append("main")
            return self.main.pop(0) if self.main else chat_text("(script exhausted)")


class _Web(BaseHTTPRequestHandler):
    """Serves the page webfetch reads; as the HTTPS proxy it answers CONNECT with 501 (no handler)."""

    seen: ClassVar[list[str]] = []

    def do_GET(self) -> None:
        self.seen.append(f"GET {self.path}")
        body = PAGE.encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        self.seen.append(f"{self.command} {self.path} -> {code}")
        super().send_error(code, message, explain)

    def log_message(self, format: str, *args: Any) -> None:
        return None


@pytest.fixture
def web() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Web)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    _Web.seen = []
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()
    thread.join(timeout=5)


def _stored(home: Path) -> list[dict[str, Any]]:
    db = sqlite3.connect(home / "circle.sqlite")
    try:
        rows = db.execute("select message_json from checkpoints order by seq").fetchall()
    finally:
        db.close()
    return [json.loads(row[0]) for row in rows]


def test_one_session_calls_every_builtin_tool(tmp_path: Path, web: str) -> None:
    rounds = _rounds(web)
    responder = _Responder(rounds)
    workspace = tmp_path / "work"
    workspace.mkdir()
    (workspace / "notes.txt").write_text("color = gren\n")
    (workspace / "old.txt").write_text("obsolete\n")
    with ScriptedGateway(fallback=responder) as gateway:
        cli = Circle(home=tmp_path / "home", workspace=workspace, gateway=gateway)
        env = cli.env(
            CIRCLE_PROTOCOL="openai-chat",
            HTTPS_PROXY=web,
            HTTP_PROXY=web,
            NO_PROXY="127.0.0.1,localhost",
        )
        for name in ("https_proxy", "http_proxy", "no_proxy", "ALL_PROXY", "all_proxy"):
            env.pop(name, None)
        done = cli.run("-p", "--yolo", "try every tool", env=env, timeout=60)
        assert done.returncode == 0, done.stderr
        assert done.stdout == f"{FINAL}\n"

    assert responder.main == []
    assert responder.kinds.count("subagent") == 1 and responder.kinds.count("compaction") == 1

    # the files on disk
    assert (workspace / "notes.txt").read_text() == "color = green\n"
    assert (workspace / "new.txt").read_text() == "patched\n"
    assert not (workspace / "old.txt").exists()
    home = cli.home
    plans = list((home / "session_plans").glob("*.md"))
    assert [p.read_text() for p in plans] == [PLAN]
    logs = list((home / "background_jobs").glob("*/job-1.log"))
    assert len(logs) == 1 and "bg-6" in logs[0].read_text()
    assert "GET /page.html" not in _Web.seen  # a loopback site asks in every mode: refused here
    assert any(s.startswith("CONNECT html.duckduckgo.com") for s in _Web.seen), _Web.seen

    # the stored session: every call answered, every built-in tool among them
    messages = _stored(home)
    calls = {p["id"]: p["name"] for m in messages for p in m["parts"] if p["type"] == "tool_call"}
    results = {
        p["tool_call_id"]: p
        for m in messages
        if m["role"] == "tool"
        for p in m["parts"]
        if p["type"] == "tool_result"
    }
    assert set(calls) == set(results)
    assert set(calls.values()) == set(builtin_tools()) - SUBAGENT_ONLY  # wait_jobs: test_wait_jobs.py
    assert set(calls) == {call_id for calls_ in rounds for call_id, _, _ in calls_}

    def text(call_id: str) -> str:
        return "".join(c.get("text", "") for c in results[call_id]["content"])

    by_name = {name: call_id for call_id, name in calls.items() if name not in ("execute",)}
    failed = {calls[i] for i, r in results.items() if r["is_error"]} - {"lsp"}  # lsp: no server assumed
    assert failed == {"websearch", "webfetch"}, {
        calls[i]: text(i) for i, r in results.items() if r["is_error"]
    }
    assert "DuckDuckGo" in text(by_name["websearch"])
    assert "a loopback address, which webfetch asks for in every mode" in text(by_name["webfetch"])
    assert SUBAGENT_REPORT in text(by_name["task"])
    assert "fg-42" in text("execute-4-0") and "job-1" in text("execute-3-0")
    assert "color = gren" in text(by_name["read_file"])
