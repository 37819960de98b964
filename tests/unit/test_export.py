"""The JSONL export: what it writes, what it refuses to read back, and the import plan."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping

import pytest

from circle.domain.checkpoints import Branch, Checkpoint, Label
from circle.domain.errors import ConfigError
from circle.domain.export import (
    SessionArchive,
    comparable_jsonl,
    format_from_name,
    from_jsonl,
    import_plan,
    parse_format,
    to_jsonl,
)
from circle.domain.messages import Message, StopReason, TextPart, ThinkingPart, ToolCallPart, Usage


def _cp(cid: str, parent: str | None, seq: int, message: Message | None = None) -> Checkpoint:
    return Checkpoint(
        id=cid,
        session_id="s1",
        parent_id=parent,
        seq=seq,
        message=message or Message.user(f"say {cid}"),
        created_at=100.0 + seq,
    )


def _archive() -> SessionArchive:
    answer = Message(
        role="assistant",
        parts=(
            ThinkingPart(text="hmm", signature="sig"),
            TextPart(text="reading"),
            ToolCallPart(id="c1", name="read_file", arguments='{"file_path": "a.txt"}'),
        ),
        stop_reason=StopReason.TOOL_USE,
        usage=Usage(input=10, output=5),
        model="m",
    )
    return SessionArchive(
        id="s1",
        workspace="/w",
        title="fix it",
        created_at=1.0,
        updated_at=2.0,
        checkpoints=(
            _cp("a", None, 1),
            _cp("b", "a", 2, answer),
            _cp("c", "b", 3, Message.tool_result(call_id="c1", name="read_file", text="hi")),
            _cp("x", "a", 4, Message.user("another way")),
        ),
        branches=(Branch("s1", "main", "c"), Branch("s1", "alt", "x")),
        labels=(Label("b", "here"),),
    )


def test_jsonl_has_a_header_then_messages_branches_and_labels() -> None:
    lines = [json.loads(line) for line in to_jsonl(_archive()).splitlines()]
    assert lines[0] == {
        "type": "session",
        "version": 1,
        "id": "s1",
        "workspace": "/w",
        "title": "fix it",
        "created_at": 1.0,
        "updated_at": 2.0,
    }
    assert [(ln["type"], ln.get("id") or ln.get("name") or ln.get("text")) for ln in lines[1:]] == [
        ("message", "a"),
        ("message", "b"),
        ("message", "c"),
        ("message", "x"),
        ("branch", "alt"),
        ("branch", "main"),
        ("label", "here"),
    ]
    assert lines[2]["parent_id"] == "a" and lines[2]["seq"] == 2
    assert lines[2]["message"]["parts"][0] == {"type": "thinking", "text": "hmm", "signature": "sig"}


def test_jsonl_reads_back_to_the_same_archive() -> None:
    archive = _archive()
    back = from_jsonl(to_jsonl(archive))
    assert back.checkpoints == archive.checkpoints
    assert sorted(back.branches, key=lambda b: b.name) == sorted(archive.branches, key=lambda b: b.name)
    assert back.labels == archive.labels
    assert to_jsonl(back) == to_jsonl(archive)


def test_the_thinking_level_kept_is_written_and_read_back_and_an_older_export_has_none() -> None:
    kept = dataclasses.replace(_archive(), thinking="low")
    header = json.loads(to_jsonl(kept).splitlines()[0])
    assert header["thinking"] == "low"
    assert from_jsonl(to_jsonl(kept)).thinking == "low"
    assert "thinking" not in json.loads(to_jsonl(_archive()).splitlines()[0])  # none kept: not written
    assert from_jsonl(to_jsonl(_archive())).thinking is None


def test_comparable_form_ignores_ids_and_clock_readings_only() -> None:
    text = to_jsonl(_archive())
    renamed = text.replace('"a"', '"A1"').replace('"s1"', '"other"').replace("101.0", "999.0")
    assert comparable_jsonl(renamed) == comparable_jsonl(text)
    changed = text.replace('"reading"', '"writing"')
    assert comparable_jsonl(changed) != comparable_jsonl(text)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", "the file is empty"),
        ("not json\n", "line 1: not JSON"),
        ("[1, 2]\n", "line 1: not a JSON object"),
        ('{"type": "message"}\n', "line 1: no session header"),
        (
            '{"type": "session", "version": 7, "id": "s", "workspace": "/w"}\n',
            "line 1: unknown export version 7",
        ),
        (
            '{"type": "session", "version": 1, "id": "s", "workspace": "/w"}\n',
            "line 1: 'created_at' is missing",
        ),
    ],
)
def test_bad_headers_are_named_by_line(text: str, expected: str) -> None:
    with pytest.raises(ConfigError, match=expected):
        from_jsonl(text)


def _with(*lines: Mapping[str, object]) -> str:
    header = {"type": "session", "version": 1, "id": "s", "workspace": "/w", "created_at": 1, "updated_at": 2}
    return "\n".join(json.dumps(line) for line in (header, *lines)) + "\n"


def _msg(cid: str, parent: str | None, seq: int, message: object = None) -> dict[str, object]:
    body = message if message is not None else {"role": "user", "parts": [{"type": "text", "text": cid}]}
    return {"type": "message", "id": cid, "parent_id": parent, "seq": seq, "created_at": 1, "message": body}


MAIN_A = {"type": "branch", "name": "main", "head_id": "a"}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            _with(_msg("a", None, 1, {"role": "robot", "parts": []})),
            "line 2: the message does not validate: role",
        ),
        (_with(_msg("a", None, 1, {"role": "user", "parts": [{"type": "text"}]})), "line 2: .*parts.0.text"),
        (_with(_msg("a", "ghost", 1)), "line 2: the parent ghost of checkpoint a is not on an earlier line"),
        (_with(_msg("a", None, 2), _msg("b", "a", 2)), "line 3: seq 2 is not greater"),
        (_with(_msg("a", None, 1), _msg("a", None, 2)), "line 3: checkpoint a appears twice"),
        (_with({"type": "weird"}), "line 2: unknown line type 'weird'"),
        (_with({**_msg("a", None, 1), "seq": "one"}), "line 2: 'seq' must be an integer"),
        (
            _with(_msg("a", None, 1), {"type": "branch", "name": "main", "head_id": "z"}),
            "line 3: branch 'main'",
        ),
        (_with(_msg("a", None, 1), MAIN_A, MAIN_A), "line 4: branch 'main' is named twice"),
        (_with(_msg("a", None, 1), MAIN_A, {"type": "label", "checkpoint_id": "q", "text": "t"}), "line 4:"),
        (_with(_msg("a", None, 1), _msg("b", None, 2), MAIN_A), "line 3: checkpoint b is on no branch"),
    ],
)
def test_bad_lines_are_named_by_line(text: str, expected: str) -> None:
    with pytest.raises(ConfigError, match=expected):
        from_jsonl(text)


def test_blank_lines_are_skipped() -> None:
    archive = from_jsonl("\n" + _with(_msg("a", None, 1), MAIN_A) + "\n\n")
    assert [cp.id for cp in archive.checkpoints] == ["a"]


def test_import_plan_appends_each_checkpoint_on_the_branch_that_owns_it() -> None:
    archive = SessionArchive(
        id="s1",
        workspace="/w",
        title=None,
        created_at=0,
        updated_at=0,
        checkpoints=(
            _cp("a", None, 1),
            _cp("b", "a", 2),
            _cp("x", "a", 3),
            _cp("c", "b", 4),
            _cp("r", None, 5),
        ),
        branches=(
            Branch("s1", "zeta", "x"),
            Branch("s1", "main", "c"),
            Branch("s1", "at-b", "b"),
            Branch("s1", "root2", "r"),
        ),
    )
    plan = [(s.checkpoint.id, s.branch, s.starts_branch) for s in import_plan(archive)]
    assert plan == [
        ("a", "main", True),
        ("b", "main", False),
        ("x", "zeta", True),
        ("c", "main", False),
        ("r", "root2", True),
    ]


def test_export_formats_come_from_names() -> None:
    assert format_from_name("s.md") == "md"
    assert format_from_name("S.HTML") == "html"
    assert format_from_name("out/s.jsonl") == "jsonl"
    assert parse_format("markdown") == "md"
    with pytest.raises(ConfigError, match=r"cannot tell the export format of s\.txt"):
        format_from_name("s.txt")
    with pytest.raises(ConfigError, match="unknown export format"):
        parse_format("pdf")
