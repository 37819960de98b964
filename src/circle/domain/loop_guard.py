"""Loop guard: a model that repeats the same tool call, or keeps finding nothing, is told to change course.

:func:`loop_reminder` reads the current turn (the messages after the last person's message) and
returns a reminder for the next request, or None. It fires when

- the same call (name and arguments, compared as canonical JSON) was made ``repeat_limit`` or
  more times in a row, or
- the last ``empty_limit`` or more results in a row found nothing: a search with no match, a
  file or folder that does not exist.

The reminder goes into the next request only; it is never stored, and it is worked out afresh
for every request, so it stops once the model does something else.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence

from .messages import Message, ToolCallPart, ToolResultPart

REPEAT_LIMIT = 3
EMPTY_LIMIT = 4
RUN_CAP = 10
"""Runs are counted this far and no further: a reminder says "10 times or more", and a long turn
of one call repeated costs each request ten rounds' reading, not the whole turn's."""

NOTHING_FOUND = (
    "no matches for ",
    "no files match ",
    "file not found: ",
    "no such file or folder: ",
    "no such folder: ",
)
"""How a result that found nothing begins (grep, glob, read_file, ls)."""


def call_key(call: ToolCallPart) -> tuple[str, str]:
    """A call's name and its arguments as canonical JSON (raw text when they are not JSON)."""
    arguments = call.parsed_arguments()
    if arguments is None:
        return call.name, call.arguments.strip()
    return call.name, json.dumps(arguments, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def found_nothing(result: ToolResultPart) -> bool:
    """True for a result that says the search found nothing or the path does not exist."""
    first, _, rest = result.text.lstrip().partition("\n")
    second = rest.partition("\n")[0]
    return first.startswith(NOTHING_FOUND) or second.startswith(NOTHING_FOUND)


def _calls_newest_first(messages: Sequence[Message]) -> Iterator[tuple[ToolCallPart, ToolResultPart | None]]:
    """The current turn's calls, newest first, each with its result (None while it has none).

    The history is read backwards and only as far as the caller takes calls, so a check that
    stops at its first break costs what the newest rounds hold, not the whole turn.
    """
    results: dict[str, ToolResultPart] = {}
    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        if message.role == "user":
            return
        parts = message.parts
        for part in parts:  # a result comes after its call: seen first here
            if isinstance(part, ToolResultPart):
                results[part.tool_call_id] = part
        for at in range(len(parts) - 1, -1, -1):
            part = parts[at]
            if isinstance(part, ToolCallPart):
                yield part, results.get(part.id)


class _Walk:
    """:func:`_calls_newest_first` walked once for every check that reads it: each iteration
    gives the calls already taken, then takes more from the history as far as it is read."""

    def __init__(self, messages: Sequence[Message]) -> None:
        self._source = _calls_newest_first(messages)
        self._taken: list[tuple[ToolCallPart, ToolResultPart | None]] = []

    def __iter__(self) -> Iterator[tuple[ToolCallPart, ToolResultPart | None]]:
        yield from self._taken
        for pair in self._source:
            self._taken.append(pair)
            yield pair


def _trailing_run(flags: Iterable[bool]) -> int:
    """How many flags are true from the start (the newest first), stopping at the first false one
    or at :data:`RUN_CAP`."""
    run = 0
    for flag in flags:
        if not flag or run == RUN_CAP:
            break
        run += 1
    return run


def _times(run: int) -> str:
    return f"{run} times or more" if run == RUN_CAP else f"{run} times"


def loop_reminder(
    messages: Sequence[Message], *, repeat_limit: int = REPEAT_LIMIT, empty_limit: int = EMPTY_LIMIT
) -> str | None:
    """The reminder the next request should end with, or None when the turn is going somewhere.

    Args:
        messages: The conversation so far; only the newest calls of the current turn are read.
        repeat_limit: How many identical calls in a row earn a reminder.
        empty_limit: How many results in a row that found nothing earn a reminder.
    """
    notes = []
    walk = _Walk(messages)
    newest = next(iter(walk), None)
    if newest is not None:
        last_call = newest[0]
        last = call_key(last_call)
        repeats = _trailing_run(
            call.name == last_call.name and (call.arguments == last_call.arguments or call_key(call) == last)
            for call, _ in walk
        )
        if repeats >= repeat_limit:
            notes.append(
                f"You have called {last[0]} with the same arguments {_times(repeats)} in a row; "
                "the result will not change. Change course: try a different approach, or answer "
                "with what you know."
            )
    answered = (result for _, result in walk if result is not None)
    empty = _trailing_run(found_nothing(result) for result in answered)
    if empty >= empty_limit:
        notes.append(
            f"Your last {empty}{' or more' if empty == RUN_CAP else ''} searches and reads found "
            "nothing. Change course: check the paths with ls or glob, widen the pattern, or answer "
            "with what you know."
        )
    return " ".join(notes) if notes else None


__all__ = [
    "EMPTY_LIMIT",
    "NOTHING_FOUND",
    "REPEAT_LIMIT",
    "RUN_CAP",
    "call_key",
    "found_nothing",
    "loop_reminder",
]
