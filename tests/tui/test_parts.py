"""The interface's pure parts: mentions, slash commands, history, words and lines, the theme."""

from __future__ import annotations

from pathlib import Path

from circle.domain.messages import Usage
from circle.entrypoints.tui import _format, _mentions, _slash
from circle.entrypoints.tui._history import InputHistory
from circle.entrypoints.tui._theme import DARK, LIGHT, theme_from_env, theme_from_reply


def test_mentions_bare_quoted_and_escaped() -> None:
    text = 'see @src/app.py, @"my notes.txt" and @docs/a\\ b.md but not mail@example.com'
    assert [m.path for m in _mentions.find_mentions(text)] == ["src/app.py", "my notes.txt", "docs/a b.md"]


def test_the_fragment_at_the_cursor() -> None:
    assert _mentions.fragment_at("look @sr", 8) == _mentions.Fragment(5, "sr", quoted=False)
    assert _mentions.fragment_at('look @"my no', 12) == _mentions.Fragment(5, "my no", quoted=True)
    assert _mentions.fragment_at("look @my\\ no", 12) == _mentions.Fragment(5, "my no", quoted=False)
    assert _mentions.fragment_at("a@b", 3) is None
    assert _mentions.split_typed("src/ap") == ("src/", "ap")
    assert _mentions.written("my file.txt", quoted=False, is_dir=False) == "@my\\ file.txt"


def test_slash_parsing_and_close_matches() -> None:
    assert _slash.parse("/export out.md") == _slash.Invocation("export", "out.md")
    assert _slash.parse("/usr/bin/env is a path") is None
    assert _slash.parse("plain") is None
    assert _slash.close_matches("reusme") == ["resume"]
    assert _slash.unknown_message("zzz") == "Unknown command /zzz. /help lists the commands."
    assert [c.name for c in _slash.completions("/re")] == ["resume", "rewind", "redo", "reload"]
    for name in ("help", "hotkeys", "models", "new", "resume", "tree", "fork", "rewind", "undo", "redo"):
        assert f"/{name}" in _slash.help_text()
    for name in ("compact", "export", "name", "jobs", "agents", "skills", "reload", "quit"):
        assert f"/{name}" in _slash.help_text()


def test_history_keeps_the_draft_and_persists(tmp_path: Path) -> None:
    path = tmp_path / "history.jsonl"
    history = InputHistory.load(path)
    history.add("one")
    history.add("two\nlines")
    history.add("two\nlines")
    assert history.older("draft") == "two\nlines"
    assert history.older("draft") == "one"
    assert history.older("draft") is None
    assert history.newer() == "two\nlines"
    assert history.newer() == "draft"
    again = InputHistory.load(path)
    assert again.entries == ["one", "two\nlines"]
    assert again.search("LINES") == ["two\nlines"]


def test_words_and_lines() -> None:
    usage = Usage(input=1000, output=234)
    assert _format.turn_line(3.25, usage, 0.0123) == "✓ 3.2s · 1.2k tokens · $0.012"
    assert _format.turn_line(75, usage, None, aborted=True).endswith("cost unknown · cancelled")
    footer = _format.footer_line(
        model="m", thinking="high", context_pct=42.4, session_tokens=12_345, session_cost=1.5
    )
    assert footer == "m · thinking high · context 42% · 12k tokens · $1.50"
    diff = _format.edit_preview(
        "edit_file", {"file_path": "a.py", "old_string": "x", "new_string": "y"}, "x\n"
    )
    assert diff is not None and "-x" in diff and "+y" in diff
    assert _format.tool_title("execute", {"command": "ls -la"}) == "execute  ls -la"
    assert _format.clip("a\nb\nc", 2) == ("a\nb", 1)


def test_the_theme_follows_the_terminal() -> None:
    assert theme_from_reply(b"\x1b]11;rgb:ffff/ffff/ffff\x07") == LIGHT
    assert theme_from_reply(b"\x1b]11;rgb:1e1e/1e1e/1e1e\x1b\\") == DARK
    assert theme_from_reply(b"") is None
    assert theme_from_env({"COLORFGBG": "0;15"}) == LIGHT
    assert theme_from_env({"COLORFGBG": "15;0"}) == DARK
    assert theme_from_env({"CIRCLE_THEME": "light", "COLORFGBG": "15;0"}) == LIGHT
    assert theme_from_env({}) is None


def test_tree_rows_name_job_notices_and_the_compaction_summary_as_what_they_are() -> None:
    from circle.domain.checkpoints import Checkpoint
    from circle.domain.compaction import summary_message
    from circle.domain.messages import Message, Shown
    from circle.entrypoints.tui._tree import tree_rows, who

    said = [
        Message.user("hi"),
        Message.user("[job-3 (sleep 1) exited with code 0]", shown=Shown(source="job")),
        summary_message("what went before"),
        Message.user("@a.txt look\n<file>body</file>", shown=Shown(typed="@a.txt look", files=("a.txt",))),
    ]
    points = [Checkpoint(f"c{n}", "s", f"c{n - 1}" if n else None, n, m, 0.0) for n, m in enumerate(said)]
    rows = tree_rows(points, branches=[], labels=[], here="c3")
    assert [row.who for row in rows] == ["you", "notice", "summary", "you"]
    assert rows[3].text == "@a.txt look"  # what the person typed, as the conversation shows it
    assert who(Message(role="assistant", parts=())) == "circle"


def test_a_job_notice_row_reads_as_a_notice_not_as_the_models_bracketed_text() -> None:
    """The row showed the notice as the model reads it: in brackets, with the log file's path."""
    from circle.domain.messages import Message, Shown
    from circle.entrypoints.tui.widgets.person import person_rows

    notice = "[job-3 (make) exited with code 2; last lines of /home/u/jobs/job-3.log:\nerror: no rule]"
    (row,) = person_rows(Message.user(notice, shown=Shown(source="job")), live=False)
    assert str(row.content) == "job-3 (make) exited with code 2\nerror: no rule"
    assert row.has_class("notice") and row.has_class("job")
