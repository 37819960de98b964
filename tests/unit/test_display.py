import pytest

from circle.application.tools import builtin_tools
from circle.domain import display
from circle.domain.display import ShownLine, command_lines, escape_for_display, more_lines, one_line
from circle.domain.errors import ApprovalDeniedError
from circle.testing import ScriptedApprover

from ._harness import Harness


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("rm -rf x", "rm -rf x"),
        ("echo hi\x1b[2J", "echo hi\\x1b[2J"),
        ("ls \u202eexe.txt", "ls \\u202eexe.txt"),
        ("a\u200bb", "a\\u200bb"),
        ("x\u2066y\u2069", "x\\u2066y\\u2069"),
        ("line1\nline2\tx", "line1\nline2\tx"),
        ("caf\u00e9 \u65e5\u672c", "caf\u00e9 \u65e5\u672c"),
        ("bell\x07\x00", "bell\\x07\\x00"),
        ("\ufeffbom", "\\ufeffbom"),
        ("a\rb\x1b[1A", "a\\x0db\\x1b[1A"),
        ("a\x7fb\x85c\x9bd", "a\\x7fb\\x85c\\x9bd"),
        ("one\u2028two\u2029three", "one\\u2028two\\u2029three"),
        ("\u202a\u202b\u202c\u202d", "\\u202a\\u202b\\u202c\\u202d"),
        ("\u200c\u200d\u200e\u200f\u2060", "\\u200c\\u200d\\u200e\\u200f\\u2060"),
        ("tag\U000e0041", "tag\\U000e0041"),
        ("\u3164\u115f", "\\u3164\\u115f"),
    ],
)
def test_what_would_hide_is_escaped(raw: str, shown: str) -> None:
    assert escape_for_display(raw) == shown


async def test_the_approval_summary_never_carries_raw_bidi_or_controls() -> None:
    approver = ScriptedApprover(allow=())
    h = Harness(approver=approver)
    with pytest.raises(ApprovalDeniedError):
        await builtin_tools()["execute"].invoke({"command": "touch \u202egnp.exe\x1b[0m"}, h.context())
    summary = approver.requests[0].summary
    assert "\u202e" not in summary and "\x1b" not in summary and "\\u202e" in summary


def test_newlines_are_written_as_escapes_where_one_line_is_shown() -> None:
    assert escape_for_display("a\nb\tc", newlines=False) == "a\\nb\tc"


def test_blank_line_padding_folds_into_one_marker_that_counts_it() -> None:
    lines = command_lines("ls -la" + "\n" * 60 + "; rm -rf build")
    assert lines == (
        ShownLine("ls -la"),
        ShownLine("⋯ 59 blank lines", blank_lines=59),
        ShownLine("; rm -rf build"),
    )
    assert more_lines("ls -la" + "\n" * 60 + "; rm -rf build") == "(+60 more lines)"


def test_a_single_blank_line_and_a_final_newline_stay_as_they_are() -> None:
    assert command_lines("cd src\n\nmake\n") == (ShownLine("cd src"), ShownLine(""), ShownLine("make"))
    assert more_lines("make\n") == ""
    assert more_lines("a\nb") == "(+1 more line)"


def test_lines_of_blanks_count_as_blank_and_a_long_run_of_blanks_inside_a_line_is_folded() -> None:
    lines = command_lines("ls" + "\n   \t" * 5 + "\necho hi" + " " * 300 + "&& rm -rf ~")
    assert lines[1] == ShownLine("⋯ 5 blank lines", blank_lines=5)
    assert lines[2].text == "echo hi ⟨300 spaces⟩ && rm -rf ~"
    assert command_lines("a" + "\u00a0" * 40 + "b")[0].text == "a ⟨40 blank characters⟩ b"


def test_carriage_returns_and_other_breaks_are_not_line_breaks_but_escapes() -> None:
    assert command_lines("echo safe\rrm -rf ~\u2028x") == (ShownLine("echo safe\\x0drm -rf ~\\u2028x"),)


def test_one_line_joins_the_lines_and_keeps_the_count_when_it_cuts() -> None:
    padded = "ls -la" + "\n" * 60 + "; rm -rf build"
    assert one_line(padded, count_lines=True) == "ls -la ⏎ ; rm -rf build  (+60 more lines)"
    assert one_line(padded) == "ls -la ⏎ ; rm -rf build"
    cut = one_line("x" * 200 + "\ny", 40, count_lines=True)
    assert cut == "x" * 23 + "…  (+1 more line)" and len(cut) == 40
    assert one_line("touch \x1b[2K\r\x1b[1Als") == "touch \\x1b[2K\\x0d\\x1b[1Als"


def test_lines_are_counted_as_a_person_counts_them() -> None:
    assert display.count_lines("") == 0
    assert display.count_lines("one") == 1
    assert display.count_lines("one\n") == 1
    assert display.count_lines("one\ntwo\n") == 2
    assert display.count_lines("one\n\n") == 2
    assert display.lines_said(1) == "1 line" and display.lines_said(201) == "201 lines"
