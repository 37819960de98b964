"""Automatic compaction through the installed `circle`, with a small context window from settings."""

from __future__ import annotations

import json

from circle._testing.gateway import chat_text, chat_tool_calls

from .conftest import Circle


def test_a_full_window_is_summarized_and_the_turn_goes_on(cli: Circle) -> None:
    cli.home.mkdir(parents=True, exist_ok=True)
    settings = {"models": {"test-model": {"context": 6000, "output": 1000}}}
    (cli.home / "settings.json").write_text(json.dumps(settings))
    (cli.workspace / "big.txt").write_text("".join(f"line {i}: {'x' * 60}\n" for i in range(400)))
    cli.gateway.enqueue(
        chat_tool_calls([("c1", "read_file", {"file_path": "big.txt"})]),
        chat_text("Summary: the person asked about big.txt; it holds 400 numbered lines."),
        chat_text("big.txt has 400 lines."),
    )
    done = cli.run("-p", "--yolo", "--mode", "json", "how many lines has big.txt?")
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    kinds = [e["type"] for e in events]
    assert "compaction_start" in kinds and "compaction_end" in kinds
    end = next(e for e in events if e["type"] == "compaction_end")
    assert not end.get("error"), end
    assert next(e for e in reversed(events) if e["type"] == "turn_end")["answer"] == "big.txt has 400 lines."
    posts = [r.json() for r in cli.gateway.requests if r.method == "POST"]
    assert len(posts) == 3 and "tools" not in posts[1]
    last = json.dumps(posts[2]["messages"])
    assert "Summary: the person asked about big.txt" in last
    assert "how many lines has big.txt?" in last
    histories = list((cli.home / "projects").glob("*/conversation_history/*.md"))
    assert len(histories) == 1 and "line 399" in histories[0].read_text()


def test_an_answer_that_reports_a_nearly_full_window_compacts_before_the_next_request(cli: Circle) -> None:
    (cli.workspace / "notes.txt").write_text("".join(f"note {i}\n" for i in range(200)))
    read = ("read_file", {"file_path": "notes.txt"})
    cli.gateway.enqueue(
        chat_tool_calls([("c1", *read)], usage=(3_000, 40)),
        chat_tool_calls([("c2", *read)], usage=(120_000, 40)),
        chat_text("Summary: notes.txt was read twice."),
        chat_text("notes.txt has 200 notes."),
    )
    done = cli.run("-p", "--yolo", "--mode", "json", "--model", "gpt-4o", "count the notes")
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    end = next(e for e in events if e["type"] == "compaction_end")
    assert end["reason"] == "threshold" and not end.get("error"), end
    assert end["tokens_before"] >= 120_040
    posts = [r.json() for r in cli.gateway.requests if r.method == "POST"]
    assert len(posts) == 4 and "tools" not in posts[2]
    assert "Summary: notes.txt was read twice." in json.dumps(posts[3]["messages"])
