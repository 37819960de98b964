"""A small RPC client written only from docs/rpc.md, driving a whole session through real pipes."""

from __future__ import annotations

import json
import queue
import subprocess
import threading
from typing import Any

from circle._testing.gateway import chat_text, chat_tool_calls

from .conftest import Circle, circle_command


class DocumentedClient:
    """What docs/rpc.md promises: JSON lines in, a response per command (same id), events, and
    `jobs_stopped` as the last line after stdin closes."""

    def __init__(self, argv: list[str], **popen: Any) -> None:
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, **popen)
        self.inbox: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self.events: list[dict[str, Any]] = []
        self.counter = 0
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for raw in iter(self.proc.stdout.readline, b""):
            self.inbox.put(json.loads(raw.split(b"\n")[0]))
        self.inbox.put(None)

    def _next(self) -> dict[str, Any]:
        item = self.inbox.get(timeout=30)
        assert item is not None, "circle closed its output early"
        if item["type"] != "response":
            self.events.append(item)
        return item

    def call(self, kind: str, **fields: Any) -> Any:
        self.counter += 1
        ident = f"c{self.counter}"
        line = json.dumps({"id": ident, "type": kind, **fields}) + "\n"
        assert self.proc.stdin is not None
        self.proc.stdin.write(line.encode())
        self.proc.stdin.flush()
        while True:
            item = self._next()
            if item["type"] == "response" and item.get("id") == ident:
                if not item["success"]:
                    raise RuntimeError(item["error"])
                return item.get("data")

    def until(self, kind: str) -> dict[str, Any]:
        for event in self.events:
            if event["type"] == kind:
                self.events.remove(event)
                return event
        while True:
            item = self._next()
            if item["type"] == kind:
                self.events.remove(item)
                return item

    def ask(self, message: str) -> str:
        """Prompt, wait for the work to settle, return the last turn's answer."""
        assert self.call("prompt", message=message)["disposition"] == "started"
        answers = []
        while True:
            event = self._next()
            if event["type"] == "turn_end":
                answers.append(event["answer"])
            if event["type"] == "agent_settled":
                self.events.clear()
                return answers[-1]

    def close(self) -> tuple[int, dict[str, Any]]:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        last: dict[str, Any] | None = None
        while (item := self.inbox.get(timeout=60)) is not None:
            last = item
        assert last is not None
        return self.proc.wait(timeout=30), last


def test_a_client_built_from_the_documentation_runs_a_whole_session(cli: Circle) -> None:
    (cli.workspace / "notes.txt").write_text("alpha\nbeta\n")
    cli.gateway.enqueue(
        chat_tool_calls([("t1", "read_file", {"path": "notes.txt"})]),
        chat_text("notes.txt has two lines."),
        chat_tool_calls([("t2", "execute", {"command": "wc -l notes.txt"})]),
        chat_text("wc says 2."),
        chat_text("Fresh start."),
    )
    client = DocumentedClient(
        [circle_command(), "--mode", "rpc", "--yolo"],
        cwd=cli.workspace,
        env=cli.env(),
        stderr=subprocess.DEVNULL,
    )
    try:
        assert client.ask("What is in notes.txt?") == "notes.txt has two lines."
        assert client.ask("Count its lines with wc.") == "wc says 2."
        state = client.call("get_state")
        assert state["isStreaming"] is False and state["messageCount"] == 8
        client.call("set_session_name", name="notes")
        stats = client.call("get_session_stats")
        assert (stats["userMessages"], stats["toolCalls"]) == (2, 2)
        kinds = [m["type"] for m in client.call("get_messages")["messages"]]
        assert kinds == ["system", "human", "ai", "tool", "ai", "human", "ai", "tool", "ai"]
        assert client.call("get_last_assistant_text") == {"text": "wc says 2."}
        page = client.call("export_html", outputPath="notes.html")["path"]
        assert (cli.workspace / "notes.html").exists() and page.endswith("notes.html")
        old = state["sessionId"]
        new = client.call("new_session")["sessionId"]
        assert new != old
        assert client.ask("Hello again") == "Fresh start."
        assert client.call("list_jobs") == {"jobs": []}
        code, last = client.close()
    finally:
        if client.proc.poll() is None:
            client.proc.kill()
    assert code == 0
    assert last == {"type": "jobs_stopped", "count": 0}
    listed = cli.run("sessions")
    assert "notes" in listed.stdout
