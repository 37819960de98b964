"""`circle export`, `circle import` and `--export` as a person runs them."""

from __future__ import annotations

import json

from circle._testing.gateway import chat_text, chat_tool_calls
from circle.domain.export import comparable_jsonl

from .conftest import Circle


def _tool_round(cli: Circle, *args: str) -> None:
    (cli.workspace / "note.txt").write_text("color = green\n")
    cli.gateway.enqueue(
        chat_tool_calls([("c1", "read_file", {"file_path": "note.txt"})]),
        chat_text("The note says green."),
    )
    done = cli.run("-p", "what does <b>note.txt</b> say?", "--yolo", *args)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "The note says green.\n"


def test_an_imported_export_exports_the_same_jsonl(cli: Circle) -> None:
    _tool_round(cli, "--session-id", "first")
    exported = cli.run("export", "first", "--output", "s.jsonl")
    assert exported.returncode == 0, exported.stderr
    original = (cli.workspace / "s.jsonl").read_text()
    kinds = [json.loads(line)["type"] for line in original.splitlines()]
    assert kinds == ["session", "message", "message", "message", "message", "branch"]

    imported = cli.run("import", "s.jsonl")
    assert imported.returncode == 0, imported.stderr
    new_id = imported.stdout.strip()
    assert new_id and new_id != "first" and "\n" not in new_id

    again = cli.run("export", new_id, "--output", "t.jsonl")
    assert again.returncode == 0, again.stderr
    copy = (cli.workspace / "t.jsonl").read_text()
    assert comparable_jsonl(copy) == comparable_jsonl(original)
    assert new_id in cli.run("sessions").stdout


def test_export_prints_markdown_by_default(cli: Circle) -> None:
    _tool_round(cli, "--session-id", "md")
    shown = cli.run("export", "md")
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.startswith("# what does <b>note.txt</b> say?")
    assert "**Tool call** `read_file`" in shown.stdout and "color = green" in shown.stdout
    as_html = cli.run("export", "md", "--format", "html")
    assert as_html.stdout.startswith("<!doctype html>")


def test_export_option_writes_an_escaped_page_after_the_run(cli: Circle) -> None:
    _tool_round(cli, "--export", "out.html")
    page = (cli.workspace / "out.html").read_text()
    assert "The note says green." in page
    assert "&lt;b&gt;note.txt&lt;/b&gt;" in page and "<b>" not in page
    assert "<details><summary>Result of <code>read_file</code>" in page


def test_export_option_refuses_an_unknown_extension_before_running(cli: Circle) -> None:
    done = cli.run("-p", "hi", "--yolo", "--export", "out.txt")
    assert done.returncode == 2
    assert "cannot tell the export format of out.txt" in done.stderr
    assert cli.gateway.requests == []


def test_bad_input_is_one_line_and_imports_nothing(cli: Circle) -> None:
    (cli.workspace / "broken.jsonl").write_text('{"type": "session", "version": 1}\nnot json\n')
    broken = cli.run("import", "broken.jsonl")
    assert broken.returncode == 1
    assert broken.stderr == "circle: broken.jsonl: line 2: not JSON (Expecting value at column 1)\n"
    assert broken.stdout == ""
    missing = cli.run("import", "nowhere.jsonl")
    assert missing.returncode == 1
    assert missing.stderr.startswith("circle: cannot read nowhere.jsonl") and missing.stderr.count("\n") == 1
    unknown = cli.run("export", "no-such-session")
    assert (unknown.returncode, unknown.stderr) == (1, "circle: no session no-such-session\n")
    assert "no sessions yet" in cli.run("sessions").stdout
