"""Tool results' ``details`` in pi's edit tool's shape: the change's diff and its first changed line."""

from __future__ import annotations

from circle.domain.file_diff import unified_diff
from circle.entrypoints._message_json import tool_details


def test_a_call_that_changed_no_file_has_empty_details() -> None:
    assert tool_details(None) == {}


def test_the_first_changed_line_is_counted_in_the_new_file() -> None:
    before = "".join(f"line {n}\n" for n in range(1, 21))
    after = before.replace("line 12\n", "line twelve\n")
    diff = unified_diff(before, after, "a.txt")
    assert tool_details(diff) == {"diff": diff, "firstChangedLine": 12}


def test_a_new_file_and_an_emptied_one_start_at_line_one() -> None:
    assert tool_details(unified_diff("", "new\n", "n.txt"))["firstChangedLine"] == 1
    assert tool_details(unified_diff("gone\n", "", "g.txt"))["firstChangedLine"] == 1


def test_a_deletion_after_context_names_the_line_it_left() -> None:
    diff = unified_diff("a\nb\nc\nd\n", "a\nb\nd\n", "x.txt")
    assert tool_details(diff)["firstChangedLine"] == 3
