"""A tool call's arguments read while they stream, as pi's streaming parser reads them."""

from __future__ import annotations

import pytest

from circle.domain.answer_parts import PartTracker
from circle.domain.model import ToolCallStarted
from circle.domain.partial_json import partial_object


@pytest.mark.parametrize(
    ("text", "read"),
    [
        ("", {}),
        ("{", {}),
        ('{"command"', {}),
        ('{"command": ', {}),
        ('{"command": "ls -l', {"command": "ls -l"}),
        ('{"a": 1, "b', {"a": 1}),
        ('{"a": 1,', {"a": 1}),
        ('{"a": [1, 2', {"a": [1, 2]}),
        ('{"a": {"b": "x\\\\', {"a": {"b": "x\\"}}),
        ('{"a": "tab\\', {"a": "tab"}),
        ('{"a": 1}', {"a": 1}),
        ("[1, 2", {}),
        ("not json", {}),
    ],
)
def test_a_cut_object_reads_as_what_it_holds_so_far(text: str, read: dict[str, object]) -> None:
    assert partial_object(text) == read


def test_a_tool_calls_start_names_its_index_in_the_wire_stream() -> None:
    tracker = PartTracker()
    [start] = tracker.add(ToolCallStarted(index=3, id="c1", name="ls"))
    assert (start.phase, start.index, start.stream_index) == ("start", 0, 3)
