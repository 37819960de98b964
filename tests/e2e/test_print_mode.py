"""`circle -p` end to end: real files, real commands, real SQLite, a loopback endpoint."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sqlite3
import time

from circle._testing.gateway import chat_text, chat_tool_calls

from .conftest import Circle


def _tool_results(request_body: dict[str, object]) -> list[str]:
    messages = request_body["messages"]
    assert isinstance(messages, list)
    return [m["content"] for m in messages if m["role"] == "tool"]


def test_reads_edits_runs_and_answers(cli: Circle) -> None:
    note = cli.workspace / "note.txt"
    note.write_text("color = gren\n")
    cli.gateway.enqueue(
        chat_tool_calls([("c1", "read_file", {"file_path": "note.txt"})]),
        chat_tool_calls(
            [("c2", "edit_file", {"file_path": "note.txt", "old_string": "gren", "new_string": "green"})]
        ),
        chat_tool_calls([("c3", "execute", {"command": "cat note.txt && echo ran-$((6*7))"})]),
        chat_text("Fixed the typo in note.txt."),
    )
    done = cli.run("-p", "fix the typo in note.txt", "--yolo")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "Fixed the typo in note.txt.\n"
    assert note.read_text() == "color = green\n"
    requests = [r.json() for r in cli.gateway.requests if r.path.endswith("/chat/completions")]
    assert len(requests) == 4
    assert requests[0]["model"] == "test-model"
    assert requests[0]["messages"][0]["role"] == "system"
    assert {t["function"]["name"] for t in requests[0]["tools"]} >= {"read_file", "edit_file", "execute"}
    results = _tool_results(requests[3])
    assert "color = gren" in results[0]
    assert "Edited note.txt" in results[1]
    assert "color = green" in results[2] and "ran-42" in results[2] and "[exit code 0]" in results[2]


def test_continue_sends_the_whole_earlier_conversation(cli: Circle) -> None:
    cli.run("trust", str(cli.workspace))
    cli.gateway.enqueue(chat_text("The answer is 4."))
    first = cli.run("-p", "what is 2+2?")
    assert first.returncode == 0, first.stderr
    cli.gateway.enqueue(chat_text("You asked about 2+2."))
    second = cli.run("-p", "-c", "what did I ask?")
    assert second.returncode == 0, second.stderr
    assert second.stdout.strip() == "You asked about 2+2."
    sent = cli.gateway.requests[-1].json()["messages"]
    assert [(m["role"], m.get("content")) for m in sent[1:]] == [
        ("user", "what is 2+2?"),
        ("assistant", "The answer is 4."),
        ("user", "what did I ask?"),
    ]
    listing = cli.run("sessions")
    assert listing.returncode == 0 and "4 msgs" in listing.stdout


def test_json_mode_streams_one_event_a_line(cli: Circle) -> None:
    (cli.workspace / "a.txt").write_text("alpha\n")
    cli.gateway.enqueue(
        chat_tool_calls([("c1", "read_file", {"file_path": "a.txt"})]),
        chat_text("It says alpha."),
    )
    done = cli.run("-p", "--mode", "json", "--yolo", "read a.txt")
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    types = [e["type"] for e in events]
    assert types[:2] == ["agent_start", "turn_start"] and types[-2:] == ["turn_end", "agent_end"]
    assert "message_update" in types
    start = next(e for e in events if e["type"] == "tool_execution_start")
    assert start["toolName"] == "read_file" and start["args"] == {"file_path": "a.txt"}
    end = next(e for e in events if e["type"] == "tool_execution_end")
    assert "alpha" in end["result"]["content"][0]["text"] and end["isError"] is False
    deltas = "".join(
        e["assistantMessageEvent"]["delta"]
        for e in events
        if e["type"] == "message_update" and e["assistantMessageEvent"]["type"] == "text_delta"
    )
    assert deltas == "It says alpha."
    assert events[-2]["answer"] == "It says alpha."
    assert events[-2]["usage"]["input"] > 0
    roles = [m["role"] for m in events[-1]["messages"]]
    assert roles == ["user", "assistant", "toolResult", "assistant"]


def test_kill_9_mid_command_loses_nothing_committed(cli: Circle) -> None:
    cli.run("trust", str(cli.workspace))
    marker = cli.workspace / "started"
    cli.gateway.enqueue(
        chat_tool_calls([("c1", "execute", {"command": "echo $$ > started; sleep 30", "timeout": 60})]),
    )
    proc = cli.popen("-p", "--yolo", "run the long thing")
    deadline = time.monotonic() + 30
    while not (marker.exists() and marker.read_text().strip()) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert marker.exists(), proc.stderr.read() if proc.stderr else ""
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=10)
    shell_pid = int(marker.read_text().strip())
    with contextlib.suppress(ProcessLookupError):
        os.killpg(shell_pid, signal.SIGKILL)
    db = sqlite3.connect(cli.home / "circle.sqlite")
    roles = [r[0] for r in db.execute("select role from checkpoints order by seq")]
    db.close()
    assert roles == ["user", "assistant"]
    cli.gateway.enqueue(chat_text("It was interrupted."))
    resumed = cli.run("-p", "-c", "what happened?")
    assert resumed.returncode == 0, resumed.stderr
    sent = cli.gateway.requests[-1].json()["messages"]
    assert [m["role"] for m in sent[1:]] == ["user", "assistant", "tool", "user"]
    assert sent[2]["tool_calls"][0]["id"] == "c1"
    assert sent[3]["tool_call_id"] == "c1" and "Interrupted" in sent[3]["content"]


def test_version_is_quick_and_plain(cli: Circle) -> None:
    done = cli.run("--version")
    assert done.returncode == 0 and done.stdout.startswith("circle ")


def test_bad_tool_calls_go_back_to_the_model_as_errors(cli: Circle) -> None:
    (cli.workspace / "bin.dat").write_bytes(b"\x00\x01\x02" * 10)
    cli.gateway.enqueue(
        chat_tool_calls(
            [
                ("c1", "no_such_tool", {}),
                ("c2", "read_file", {"file_path": "../outside.txt"}),
                ("c3", "read_file", {"file_path": "missing.txt"}),
                ("c4", "read_file", {"file_path": "bin.dat"}),
                ("c5", "edit_file", {"file_path": "bin.dat", "old_string": "zzz", "new_string": "y"}),
                ("c6", "read_file", {"path": "wrong-name.txt"}),
                ("c7", "read_file", {"file_path": "a.txt", "limit": "many"}),
            ]
        ),
        chat_text("Understood."),
    )
    done = cli.run("-p", "--yolo", "try things")
    assert done.returncode == 0, done.stderr
    results = _tool_results(cli.gateway.requests[-1].json())
    assert "unknown tool 'no_such_tool'" in results[0]
    assert "outside the workspace" in results[1]
    assert "file not found: missing.txt" in results[2]
    assert "binary file" in results[3]
    assert "not UTF-8" in results[4] or "not found" in results[4]
    assert "call repaired: argument path → file_path" in results[5]
    assert "file not found: wrong-name.txt" in results[5]
    assert "read_file" in results[6] and "limit" in results[6] and "many" in results[6]


def test_json_events_stream_a_commands_output_as_it_comes(cli: Circle) -> None:
    command = "echo first; sleep 0.6; echo second"
    cli.gateway.enqueue(chat_tool_calls([("c1", "execute", {"command": command})]), chat_text("Ran."))
    done = cli.run("-p", "--mode", "json", "--yolo", "run it")
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    updates = [e for e in events if e["type"] == "tool_execution_update" and e["partialResult"]["content"]]
    assert updates and updates[0]["partialResult"]["content"][0]["text"] == "first"
    assert updates[0]["toolCallId"] == "c1"


def test_json_events_stop_quietly_when_the_reader_goes_away(cli: Circle) -> None:
    (cli.workspace / "a.txt").write_text("alpha\n")
    cli.gateway.enqueue(
        chat_tool_calls([("c1", "read_file", {"file_path": "a.txt"})]),
        chat_text("It says alpha." * 50),
    )
    process = cli.popen("-p", "--mode", "json", "--yolo", "read a.txt")
    assert process.stdout is not None and process.stderr is not None
    first = process.stdout.readline()
    assert json.loads(first)["type"] == "agent_start"
    process.stdout.close()  # as `| head -1` does
    stderr = process.stderr.read()
    process.wait(timeout=60)
    assert "event sink failed" not in stderr and "Traceback" not in stderr, stderr
    posts = [r for r in cli.gateway.requests if r.method == "POST"]
    assert len(posts) == 2  # the turn went on to its end
