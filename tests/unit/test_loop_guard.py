"""The loop guard's policy: repeated calls and fruitless searches earn a reminder."""

from __future__ import annotations

import json
from collections.abc import Mapping

from circle.domain.loop_guard import RUN_CAP, call_key, found_nothing, loop_reminder
from circle.domain.messages import Message, StopReason, ToolCallPart, ToolResultPart


def call(name: str, arguments: str, call_id: str) -> ToolCallPart:
    return ToolCallPart(id=call_id, name=name, arguments=arguments)


class Turn:
    """Builds a conversation: a person's prompt, then rounds of calls and their results."""

    def __init__(self, prompt: str = "fix the bug") -> None:
        self.messages = [Message.user(prompt)]
        self._n = 0

    def round(self, *calls: tuple[str, Mapping[str, object], str]) -> Turn:
        parts = []
        results = []
        for name, arguments, result in calls:
            self._n += 1
            parts.append(call(name, json.dumps(arguments), f"c{self._n}"))
            results.append(Message.tool_result(call_id=f"c{self._n}", name=name, text=result))
        self.messages.append(Message(role="assistant", parts=tuple(parts), stop_reason=StopReason.TOOL_USE))
        self.messages.extend(results)
        return self


def test_the_same_call_three_times_in_a_row_earns_a_reminder() -> None:
    turn = Turn()
    for _ in range(2):
        turn.round(("read_file", {"file_path": "a.py", "offset": 1}, "1\tprint()"))
    assert loop_reminder(turn.messages) is None
    turn.round(("read_file", {"offset": 1, "file_path": "a.py"}, "1\tprint()"))
    reminder = loop_reminder(turn.messages)
    assert reminder is not None
    assert "called read_file with the same arguments 3 times" in reminder
    assert "will not change" in reminder and "Change course" in reminder


def test_identical_calls_in_one_answer_count_too() -> None:
    same = ("execute", {"command": "pytest"}, "1 failed")
    assert loop_reminder(Turn().round(same, same, same).messages) is not None


def test_a_different_call_in_between_breaks_the_run() -> None:
    same = ("execute", {"command": "pytest"}, "1 failed")
    turn = Turn().round(same).round(same).round(("read_file", {"file_path": "a.py"}, "x")).round(same)
    assert loop_reminder(turn.messages) is None


def test_different_arguments_are_different_calls() -> None:
    turn = Turn()
    for n in range(5):
        turn.round(("read_file", {"file_path": "a.py", "offset": 1 + n * 100}, "text"))
    assert loop_reminder(turn.messages) is None


def test_four_searches_in_a_row_that_find_nothing_earn_a_reminder() -> None:
    turn = Turn()
    turn.round(("grep", {"pattern": "parse_config"}, "no matches for parse_config"))
    turn.round(("glob", {"pattern": "**/config*.py"}, "no files match **/config*.py"))
    turn.round(("read_file", {"file_path": "src/config.py"}, "file not found: src/config.py"))
    assert loop_reminder(turn.messages) is None
    turn.round(("ls", {"path": "src/settings"}, "no such folder: src/settings"))
    reminder = loop_reminder(turn.messages)
    assert reminder is not None and "last 4 searches and reads found nothing" in reminder


def test_a_search_that_finds_something_resets_the_count() -> None:
    turn = Turn()
    for n in range(3):
        turn.round(("grep", {"pattern": f"name{n}"}, f"no matches for name{n}"))
    turn.round(("grep", {"pattern": "name"}, "src/a.py"))
    turn.round(("grep", {"pattern": "other"}, "no matches for other"))
    assert loop_reminder(turn.messages) is None


def test_only_the_current_turn_counts() -> None:
    same = ("execute", {"command": "make"}, "ok")
    turn = Turn().round(same, same)
    turn.messages.append(Message(role="assistant", parts=(), stop_reason=StopReason.END))
    turn.messages.append(Message.user("again please"))
    turn.round(same)
    assert loop_reminder(turn.messages) is None


def test_both_reminders_can_apply_at_once() -> None:
    nothing = ("grep", {"pattern": "zzz"}, "no matches for zzz")
    reminder = loop_reminder(Turn().round(nothing, nothing, nothing, nothing).messages)
    assert reminder is not None
    assert "3 times" not in reminder and "4 times in a row" in reminder and "found nothing" in reminder


def test_call_keys_ignore_key_order_and_spacing_and_keep_bad_json_raw() -> None:
    assert call_key(call("x", '{"a": 1, "b": [1, 2]}', "1")) == call_key(call("x", '{"b":[1,2],"a":1}', "2"))
    assert call_key(call("x", '{"a": ', "1")) == ("x", '{"a":')


def test_only_results_that_say_nothing_was_found_count_as_empty() -> None:
    def result(text: str) -> ToolResultPart:
        return Message.tool_result(call_id="c", name="t", text=text).tool_results[0]

    assert found_nothing(result("no matches for foo"))
    assert found_nothing(result("(call repaired: argument path → file_path)\nfile not found: a.py"))
    assert not found_nothing(result("src/a.py:3:no matches for this line"))
    assert not found_nothing(result("a.py is empty"))


class TailOnly(list[Message]):
    """A long history that refuses to be read further back than its newest ``tail`` messages."""

    def __init__(self, messages: list[Message], tail: int) -> None:
        super().__init__(messages)
        self.oldest_allowed = len(messages) - tail

    def __getitem__(self, index):  # type: ignore[no-untyped-def]
        if isinstance(index, int):
            position = index if index >= 0 else len(self) + index
            assert position >= self.oldest_allowed, f"read message {position} of {len(self)}"
        else:
            raise AssertionError("sliced the whole history")
        return super().__getitem__(index)

    def __iter__(self):  # type: ignore[no-untyped-def]
        raise AssertionError("walked the whole history")

    def __reversed__(self):  # type: ignore[no-untyped-def]
        for position in range(len(self) - 1, -1, -1):
            yield self[position]


def test_a_long_turn_is_read_only_as_far_back_as_the_newest_runs_go() -> None:
    turn = Turn()
    for n in range(300):
        turn.round(("read_file", {"file_path": f"f{n}.py"}, "1\tprint()"))
    for _ in range(3):
        turn.round(("grep", {"pattern": "x"}, "no matches for x"))

    reminder = loop_reminder(TailOnly(turn.messages, tail=10))

    assert reminder is not None and "grep with the same arguments 3 times" in reminder


def test_a_long_run_of_the_same_call_is_counted_only_as_far_as_the_reminder_needs() -> None:
    turn = Turn()
    for _ in range(300):
        turn.round(("read_file", {"file_path": "a.py"}, "1\tprint()"))

    reminder = loop_reminder(TailOnly(turn.messages, tail=2 * RUN_CAP + 2))

    assert reminder is not None and f"the same arguments {RUN_CAP} times or more in a row" in reminder
