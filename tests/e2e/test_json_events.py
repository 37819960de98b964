"""`circle -p --mode json` streams RPC's events: pi's content indexes, every message closed, a
command's output as it comes, and an ``error`` event (with a line on stderr) when a limit stops it."""

from __future__ import annotations

import json
import signal
from dataclasses import replace
from typing import Any

from circle._testing.gateway import chat_error, chat_text, chat_tool_calls

from .conftest import Circle


def _events(stdout: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stdout.splitlines()]


def _updates(events: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [
        e["assistantMessageEvent"]
        for e in events
        if e["type"] == "message_update" and e["assistantMessageEvent"]["type"] == kind
    ]


def _assert_every_message_closed(events: list[dict[str, Any]]) -> None:
    opened = [e["message"]["role"] for e in events if e["type"] == "message_start"]
    closed = [e["message"]["role"] for e in events if e["type"] == "message_end"]
    assert opened == closed


def test_content_indexes_are_positions_in_the_message(cli: Circle) -> None:
    call = ("c1", "execute", {"command": "echo first; sleep 0.5; echo second"})
    cli.gateway.enqueue(chat_tool_calls([call], text="Running it."), chat_text("Ran."))
    done = cli.run("-p", "--mode", "json", "--yolo", "run it")
    assert done.returncode == 0, done.stderr
    events = _events(done.stdout)
    assert {u["contentIndex"] for u in _updates(events, "text_delta")} == {0}
    assert [u["contentIndex"] for u in _updates(events, "toolcall_start")] == [1]
    assert {u["contentIndex"] for u in _updates(events, "toolcall_delta")} == {1}
    told = [e["partialResult"]["content"] for e in events if e["type"] == "tool_execution_update"]
    assert told[0] == [] and told[1] == [{"type": "text", "text": "first"}]
    end = next(e for e in events if e["type"] == "tool_execution_end")
    assert end["result"]["content"][0]["text"].startswith("first\nsecond")
    _assert_every_message_closed(events)


def test_answers_carry_the_providers_response_id(cli: Circle) -> None:
    cli.gateway.enqueue(chat_text("Hello."))
    done = cli.run("-p", "--mode", "json", "say hello")
    assert done.returncode == 0, done.stderr
    events = _events(done.stdout)
    answer = next(e for e in events if e["type"] == "message_end" and e["message"]["role"] == "assistant")
    assert answer["message"]["responseId"] == "chatcmpl-scripted"
    assert events[-1]["messages"][-1]["responseId"] == "chatcmpl-scripted"
    partials = [u["partial"] for u in _updates(events, "text_delta")]  # known from the first chunk
    assert partials and all(p["responseId"] == "chatcmpl-scripted" for p in partials)


def test_a_failed_request_closes_its_answer_with_the_error(cli: Circle) -> None:
    cli.gateway.enqueue(chat_error(400, "the request is malformed"))
    done = cli.run("-p", "--mode", "json", "say hello")
    assert done.returncode == 1
    events = _events(done.stdout)
    _assert_every_message_closed(events)
    errors = [e for e in events if e["type"] == "error"]
    assert len(errors) == 1 and "malformed" in errors[0]["message"]
    assert "malformed" in done.stderr and len(done.stderr.splitlines()) == 1


def test_an_interrupted_answer_ends_its_message_as_aborted(cli: Circle) -> None:
    stalled = replace(chat_text("Hello there, friend.", pieces=6), stall_after=3, stall_s=30)
    cli.gateway.enqueue(stalled)
    process = cli.popen("-p", "--mode", "json", "say hello")
    assert process.stdout is not None
    lines = []
    for line in process.stdout:
        lines.append(line)
        if '"text_delta"' in line:
            process.send_signal(signal.SIGINT)
            break
    rest, _ = process.communicate(timeout=30)
    assert process.returncode == 130
    events = _events("".join(lines) + rest)
    _assert_every_message_closed(events)
    answer = next(e for e in events if e["type"] == "message_end" and e["message"]["role"] == "assistant")
    assert answer["message"]["stopReason"] == "aborted"
    assert _updates(events, "error")[0]["reason"] == "aborted"


def test_max_turns_stop_is_an_error_event_and_a_line(cli: Circle) -> None:
    call = ("c1", "execute", {"command": "true"})
    cli.gateway.enqueue(chat_tool_calls([call]), chat_text("Never asked for."))
    done = cli.run("-p", "--mode", "json", "--yolo", "--max-turns", "1", "go")
    assert done.returncode == 1
    events = _events(done.stdout)
    errors = [e for e in events if e["type"] == "error"]
    assert errors == [{"type": "error", "code": "turn-limit", "message": errors[0]["message"]}]
    assert "--max-turns" in errors[0]["message"]
    assert done.stderr == f"circle: {errors[0]['message']}\n"
    assert [e["type"] for e in events][-2:] == ["turn_end", "agent_end"]


def test_budget_stop_is_an_error_event_and_a_line(cli: Circle) -> None:
    call = ("c1", "execute", {"command": "true"})
    cli.gateway.enqueue(chat_tool_calls([call], usage=(100000, 100000)), chat_text("Never asked for."))
    done = cli.run("-p", "--mode", "json", "--yolo", "--model", "gpt-4o", "--max-budget-usd", "0.01", "go")
    assert done.returncode == 1
    errors = [e for e in _events(done.stdout) if e["type"] == "error"]
    assert len(errors) == 1 and errors[0]["code"] == "usage-limit"
    assert done.stderr.endswith(f"circle: {errors[0]['message']}\n")


def test_a_file_changes_result_details_hold_its_diff_as_pi_shapes_it(cli: Circle) -> None:
    note = cli.workspace / "note.txt"
    note.write_text("one\ntwo\ncolor = gren\nfour\n")
    edit = {"file_path": "note.txt", "old_string": "gren", "new_string": "green"}
    cli.gateway.enqueue(chat_tool_calls([("c1", "edit_file", edit)]), chat_text("Fixed."))
    done = cli.run("-p", "--mode", "json", "--yolo", "fix the typo")
    assert done.returncode == 0, done.stderr
    events = _events(done.stdout)
    end = next(e for e in events if e["type"] == "tool_execution_end")
    details = end["result"]["details"]
    assert "-color = gren\n+color = green" in details["diff"] and details["firstChangedLine"] == 3
    result = next(e for e in events if e["type"] == "message_end" and e["message"]["role"] == "toolResult")
    assert result["message"]["details"] == details


def test_a_command_announces_its_output_then_tells_all_of_it_before_it_ends(cli: Circle) -> None:
    call = ("c1", "execute", {"command": "echo first; sleep 0.5; echo second"})
    cli.gateway.enqueue(chat_tool_calls([call]), chat_text("Ran."))
    done = cli.run("-p", "--mode", "json", "--yolo", "run it")
    assert done.returncode == 0, done.stderr
    events = _events(done.stdout)
    kinds = [e["type"] for e in events if e["type"].startswith("tool_execution")]
    assert kinds[0] == "tool_execution_start" and kinds[-1] == "tool_execution_end"
    updates = [e["partialResult"]["content"] for e in events if e["type"] == "tool_execution_update"]
    assert updates[0] == []  # the command started, nothing written yet: as pi's bash tool says it
    assert updates[-1] == [{"type": "text", "text": "first\nsecond"}]
