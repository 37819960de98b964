"""The apply_patch format: parsing into operations and placing hunks in a file's text."""

from __future__ import annotations

import pytest

from circle.domain.errors import ToolError
from circle.domain.patch import AddFile, Chunk, DeleteFile, UpdateFile, apply_to, parse_patch


def patch(*lines: str) -> str:
    return "\n".join(["*** Begin Patch", *lines, "*** End Patch"]) + "\n"


def chunks(*lines: str) -> tuple[Chunk, ...]:
    operation = parse_patch(patch("*** Update File: f", *lines))[0]
    assert isinstance(operation, UpdateFile)
    return operation.chunks


def test_parses_every_operation_in_order() -> None:
    parsed = parse_patch(
        patch(
            "*** Add File: new.txt",
            "+one",
            "+",
            "*** Delete File: old.txt",
            "*** Update File: a.py",
            "*** Move to: b.py",
            "@@ def f():",
            " keep",
            "-gone",
            "+added",
            "*** End of File",
        )
    )
    assert parsed == (
        AddFile("new.txt", "one\n\n", line=2),
        DeleteFile("old.txt", line=5),
        UpdateFile(
            "a.py",
            "b.py",
            (Chunk(("def f():",), (" keep"[1:], "gone"), ("keep", "added"), end_of_file=True, line=8),),
            line=6,
        ),
    )


def test_markers_may_be_padded_and_wrapped_in_a_heredoc() -> None:
    text = "\n <<'EOF'\n *** Begin Patch \n  *** Delete File: x \n*** End Patch \nEOF\n"
    assert parse_patch(text) == (DeleteFile("x", line=4),)
    crlf = "*** Begin Patch\r\n*** Add File: a\r\n+x\r\n*** End Patch\r\n"
    assert parse_patch(crlf) == (AddFile("a", "x\n", line=2),)


def test_the_first_hunk_may_leave_out_its_marker_and_several_context_lines_stack() -> None:
    first = chunks("-a", "+b", "@@", "-c", "+d")
    assert [(c.old_lines, c.new_lines, c.line) for c in first] == [(("a",), ("b",), 3), (("c",), ("d",), 5)]
    stacked = chunks("@@ class A", "@@     def f():", " x", "", "+y")
    assert stacked[0].context == ("class A", "    def f():")
    assert stacked[0].old_lines == ("x", "") and stacked[0].new_lines == ("x", "", "y")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "line 1: the patch must begin with '\\*\\*\\* Begin Patch'"),
        ("*** Begin Patch\n*** Add File: a\n+x\n", "line 3: the patch must end with"),
        ("\n\n*** Begin Patch\n*** End Patch", "line 4: the patch changes no files"),
        (patch("*** Frobnicate File: foo"), "line 2: expected '\\*\\*\\* Add File: <path>'.*Frobnicate"),
        (patch("*** Add File: a", "no plus"), "line 3: .*each line of an added file starts with '\\+'"),
        (patch("*** Add File: "), "line 2: '\\*\\*\\* Add File:' needs a path"),
        (patch("*** Update File: a"), "line 2: .*has no hunks"),
        (patch("*** Update File: a", "*** Move to:  "), "line 3: '\\*\\*\\* Move to:' needs a path"),
        (patch("*** Update File: a", "@@", "*** End of File"), "line 4: a hunk needs lines"),
        (patch("*** Update File: a", "@@", "?what"), "line 4: a hunk needs lines.*got '\\?what'"),
        (patch("*** Update File: a", "-x", "junk"), "line 4: expected an @@ line"),
    ],
)
def test_malformed_patches_name_the_line(text: str, message: str) -> None:
    with pytest.raises(ToolError, match=message):
        parse_patch(text)


def test_hunks_apply_in_order_and_keep_a_final_newline() -> None:
    text = "a\nb\nc\nd\n"
    assert apply_to(text, chunks("@@", "-b", "+B", "@@", " c", "-d", "+D")) == "a\nB\nc\nD\n"
    assert apply_to("only", chunks("@@", "-only", "+x")) == "x\n"
    assert apply_to("a\nb\n", chunks("@@", "-a", "-b")) == ""


def test_context_is_found_exactly_then_ignoring_whitespace_then_punctuation() -> None:
    assert apply_to("x  \ny\n", chunks("@@", "-x", "+z")) == "z\ny\n"
    assert apply_to("    x\n", chunks("@@", "-x", "+z")) == "z\n"
    assert apply_to("say \u201chi\u201d \u2014 ok\n", chunks("@@", '-say "hi" - ok', "+bye")) == "bye\n"
    # An exact match later in the file wins over a loose one earlier.
    assert apply_to("x \nx\n", chunks("@@", "-x", "+z")) == "x \nz\n"


def test_context_lines_narrow_the_search_and_hunks_move_forward() -> None:
    text = "def f():\n    v = 1\ndef g():\n    v = 1\n"
    out = apply_to(text, chunks("@@ def g():", "-    v = 1", "+    v = 2"))
    assert out == "def f():\n    v = 1\ndef g():\n    v = 2\n"
    with pytest.raises(ToolError, match="@@ line 'def h\\(\\):' was not found"):
        apply_to(text, chunks("@@ def h():", "-    v = 1", "+x"))


def test_end_of_file_hunks_match_only_at_the_end() -> None:
    text = "a\nb\na\nb\n"
    assert apply_to(text, chunks("@@", " a", "-b", "+c", "*** End of File")) == "a\nb\na\nc\n"
    with pytest.raises(ToolError, match="not found at the end of the file"):
        apply_to("a\nb\nc\n", chunks("@@", "-a", "+z", "*** End of File"))


def test_pure_additions_go_at_the_end_or_after_their_context_line() -> None:
    assert apply_to("a\nb", chunks("@@", "+c")) == "a\nb\nc\n"
    assert apply_to("a\n\n", chunks("@@", "+c")) == "a\nc\n\n"
    assert apply_to("class A:\n    x = 1\n", chunks("@@ class A:", "+    y = 0")) == (
        "class A:\n    y = 0\n    x = 1\n"
    )


def test_a_trailing_empty_line_in_a_hunk_matches_the_final_newline() -> None:
    assert apply_to("a\nb\n", chunks("@@", " b", "-", "+c")) == "a\nb\nc\n"


def test_crlf_files_keep_their_line_endings() -> None:
    assert apply_to("a\r\nb\r\n", chunks("@@", "-b", "+c")) == "a\r\nc\r\n"


def test_missing_lines_are_quoted_with_the_hunk_line() -> None:
    with pytest.raises(ToolError, match=r"hunk at patch line 3: these lines were not found.*\nnope\nalso"):
        apply_to("a\n", chunks("@@", "-nope", " also"))
