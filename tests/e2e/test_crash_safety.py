"""Crash safety: the real `circle` killed with SIGKILL at random moments, then reopened.

Each trial starts ``circle -p --yolo --mode json`` on a conversation of several rounds (the
loopback gateway answers each request with a command to run, then with a final answer), kills it
at a random moment, and checks what a person relies on:

- circle.sqlite passes ``PRAGMA integrity_check``;
- every message the JSON output reported as ended (``message_end``) is stored;
- ``circle -p -c`` afterwards sends a valid conversation: every tool call has a result, and a
  call the crash interrupted says what became of it (not run, or stopped while running);
- no command ran twice: each appends its call id to runs.log, and nothing re-runs a call by itself.

Most kills land a moment after a random message of the conversation ended (so every phase is
hit: a model stream, a command, a commit), some while Circle is still starting. The moments come
from a seeded RNG; the seed is printed (``CIRCLE_CRASH_SEED`` replays it). Trials run a few at a
time, so the whole test takes well under half a minute.
"""

from __future__ import annotations

import dataclasses
import json
import os
import random
import signal
import sqlite3
import subprocess
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from circle._testing.gateway import (
    GatewayResponse,
    RecordedRequest,
    ScriptedGateway,
    chat_error,
    chat_text,
    chat_tool_calls,
)
from circle.domain.call_marks import CallMark, lost_result

from .conftest import Circle, circle_command

TRIALS = 20
ROUNDS = 5
MESSAGES = 2 + 2 * ROUNDS
"""Messages of a whole run: the prompt, each round's call and result, the final answer."""
PARALLEL = 5
CHECK = "continue-check"
LOST = {lost_result(None), lost_result(CallMark("c", "started"))}
"""Results a crash leaves: the call never started, or was running (a command is stopped with Circle);
or, killed between a command's end and its result's commit, "Result lost" with its exit code."""
SETTLE_S = 0.4
"""Longer than a scripted command runs (0.1 s), plus a shell's start."""


def _user_texts(body: dict[str, Any]) -> list[str]:
    return [m["content"] for m in body["messages"] if m["role"] == "user" and isinstance(m["content"], str)]


def answer(request: RecordedRequest) -> GatewayResponse:
    """The scripted conversation: ROUNDS commands, each appending its call id to runs.log, then
    a final answer; a request ending with CHECK (the resumed session) is answered at once."""
    try:
        body = request.json()
    except ValueError:  # a request cut short by the kill
        return chat_error(400, "the request body was cut short")
    if _user_texts(body)[-1].startswith(CHECK):
        return chat_text("Resumed.")
    done = sum(1 for m in body["messages"] if m["role"] == "tool")
    if done >= ROUNDS:
        return dataclasses.replace(chat_text("All done."), delay_s=0.03)
    call = f"call_{done}"
    command = f"echo {call} >> runs.log && sleep 0.1"
    reply = chat_tool_calls([(call, "execute", {"command": command})], text=f"Step {done}.")
    return dataclasses.replace(reply, delay_s=0.03, stall_after=2, stall_s=0.03)


@pytest.fixture(scope="module")
def gateway() -> Iterator[ScriptedGateway]:
    with ScriptedGateway(fallback=answer) as gw:
        yield gw


@dataclass
class Trial:
    """One run to kill ``kill_after`` seconds after its ``after_messages``-th ended message (or,
    when that is None, after it started: while Circle opens or creates its store)."""

    number: int
    after_messages: int | None
    kill_after: float
    circle: Circle
    lines: list[str] = field(default_factory=list)
    killed: bool = False
    reached: threading.Event = field(default_factory=threading.Event)

    @property
    def prompt(self) -> str:
        return f"task {self.number}: run the steps"

    def env(self) -> dict[str, str]:
        return self.circle.env(CIRCLE_PROTOCOL="openai-chat")

    def run_and_kill(self) -> None:
        process = subprocess.Popen(
            [circle_command(), "-p", "--yolo", "--mode", "json", self.prompt],
            cwd=self.circle.workspace,
            env=self.env(),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        reader = threading.Thread(target=self._read, args=(process,), daemon=True)
        reader.start()
        if self.after_messages is not None:
            self.reached.wait(timeout=30)
        try:
            process.wait(timeout=self.kill_after)
        except subprocess.TimeoutExpired:
            os.kill(process.pid, signal.SIGKILL)
            self.killed = True
            process.wait(timeout=10)
            time.sleep(SETTLE_S)  # its shell dies with Circle, a child it had started may not: let it end
        reader.join(timeout=10)

    def _read(self, process: subprocess.Popen[str]) -> None:
        ended = 0
        for line in process.stdout or ():
            self.lines.append(line)
            ended += '"type":"message_end"' in line
            if ended == self.after_messages:
                self.reached.set()
        self.reached.set()

    def events(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self.lines if line.startswith("{")]

    @property
    def store(self) -> Path:
        return self.circle.home / "circle.sqlite"

    def runs(self) -> list[str]:
        log = self.circle.workspace / "runs.log"
        return log.read_text().split() if log.exists() else []


def check_store(trial: Trial) -> dict[str, list[dict[str, Any]]]:
    """Integrity, and every ended message stored; returns the stored session's messages by session."""
    ended = [e["checkpoint_id"] for e in trial.events() if e["type"] == "message_end"]
    if not trial.store.exists():
        assert not ended, f"trial {trial.number}: messages ended but there is no store"
        return {}
    with sqlite3.connect(trial.store) as db:
        assert db.execute("PRAGMA integrity_check").fetchall() == [("ok",)], f"trial {trial.number}"
        tables = {name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if "checkpoints" not in tables:  # killed while the schema was being created: rolled back
            assert not ended, f"trial {trial.number}: messages ended but there are no tables"
            return {}
        rows = db.execute("SELECT id, session_id, message_json FROM checkpoints ORDER BY seq").fetchall()
    stored = {row[0] for row in rows}
    missing = [checkpoint for checkpoint in ended if checkpoint not in stored]
    assert not missing, f"trial {trial.number}: ended but not stored: {missing}"
    sessions: dict[str, list[dict[str, Any]]] = {}
    for _, session_id, message in rows:
        sessions.setdefault(session_id, []).append(json.loads(message))
    return sessions


def unanswered_calls(messages: list[dict[str, Any]]) -> set[str]:
    """Call ids of stored tool calls with no stored result."""
    calls = {p["id"] for m in messages for p in m.get("parts", ()) if p.get("type") == "tool_call"}
    results = {
        p["tool_call_id"] for m in messages for p in m.get("parts", ()) if p.get("type") == "tool_result"
    }
    return calls - results


def resume(trial: Trial, gateway: ScriptedGateway) -> dict[str, Any]:
    """Run ``circle -p -c`` and return the conversation it sent."""
    check = f"{CHECK} {trial.number}"
    done = subprocess.run(
        [circle_command(), "-p", "-c", "--yolo", check],
        cwd=trial.circle.workspace,
        env=trial.env(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, f"trial {trial.number}: {done.stderr}"
    assert done.stdout == "Resumed.\n"
    sent = [r.json() for r in gateway.requests if r.body and _user_texts(r.json())[-1:] == [check]]
    assert len(sent) == 1, f"trial {trial.number}: the resumed conversation was not sent once"
    stored_prompt = any(e["type"] == "message_end" and e["message"]["role"] == "user" for e in trial.events())
    if stored_prompt:  # the killed run had committed its prompt: -c continues that session
        assert trial.prompt in _user_texts(sent[0])
    return dict(sent[0])


def check_resumed(trial: Trial, body: dict[str, Any], interrupted: set[str]) -> None:
    messages = body["messages"]
    results: dict[str, str] = {m["tool_call_id"]: m["content"] for m in messages if m["role"] == "tool"}
    for message in messages:
        for call in message.get("tool_calls") or ():
            assert call["id"] in results, f"trial {trial.number}: {call['id']} has no result"
    for call_id in interrupted:  # what is known of it: not started, still running, or result lost
        text = results[call_id]
        assert text in LOST or text.startswith("Result lost: the call ran to the end ("), (trial.number, text)


def play(trial: Trial, gateway: ScriptedGateway) -> str:
    trial.run_and_kill()
    sessions = check_store(trial)
    runs_before = trial.runs()
    assert len(runs_before) == len(set(runs_before)), f"trial {trial.number}: a command ran twice"
    interrupted = set().union(*(unanswered_calls(m) for m in sessions.values())) if sessions else set()
    check_resumed(trial, resume(trial, gateway), interrupted)
    assert trial.runs() == runs_before, f"trial {trial.number}: resuming ran a command again"
    ended = sum(1 for e in trial.events() if e["type"] == "message_end")
    when = "its start" if trial.after_messages is None else f"message {trial.after_messages}"
    what = f"killed {trial.kill_after:.2f}s after {when}" if trial.killed else "finished"
    return f"trial {trial.number}: {what}, {ended} messages ended, {len(interrupted)} calls interrupted"


def test_a_kill_at_any_moment_loses_at_most_the_running_step(
    tmp_path: Path, gateway: ScriptedGateway
) -> None:
    seed = int(os.environ.get("CIRCLE_CRASH_SEED") or time.time_ns() % 1_000_000)
    print(f"crash test seed: {seed} (CIRCLE_CRASH_SEED={seed} replays it)")
    rng = random.Random(seed)
    trials = []
    for number in range(TRIALS):
        workspace = tmp_path / f"work{number}"
        workspace.mkdir()
        circle = Circle(home=tmp_path / f"home{number}", workspace=workspace, gateway=gateway)
        # most die a moment after one of the messages of the conversation (in a model stream, a
        # command or a commit); some while starting (opening or creating the store)
        after = None if rng.random() < 0.15 else rng.randrange(MESSAGES)
        trials.append(
            Trial(number, after, rng.uniform(0.05, 0.8) if after is None else rng.uniform(0, 0.3), circle)
        )

    with ThreadPoolExecutor(max_workers=PARALLEL) as pool:
        reports = list(pool.map(lambda trial: play(trial, gateway), trials))

    print("\n".join(reports))
    assert sum(trial.killed for trial in trials) >= TRIALS * 3 // 4, "most trials should be killed mid-run"
