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
from collections.abc import Iterable, Sequence

from .messages import Message, ToolCallPart, ToolResultPart

REPEAT_LIMIT = 3
EMPTY_LIMIT = 4

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


def _current_turn(messages: Sequence[Message]) -> Sequence[Message]:
    for index in range(len(messages) - 1, -1, -1):
        if messages[index].role == "user":
            return messages[index + 1 :]
    return messages


def _trailing_run(flags: Iterable[bool]) -> int:
    """How many flags are true from the start (the newest first), stopping at the first false one."""
    run = 0
    for flag in flags:
        if not flag:
            break
        run += 1
    return run


def loop_reminder(
    messages: Sequence[Message], *, repeat_limit: int = REPEAT_LIMIT, empty_limit: int = EMPTY_LIMIT
) -> str | None:
    """The reminder the next request should end with, or None when the turn is going somewhere.

    Args:
        messages: The conversation so far; only the current turn is read.
        repeat_limit: How many identical calls in a row earn a reminder.
        empty_limit: How many results in a row that found nothing earn a reminder.
    """
    turn = _current_turn(messages)
    calls = [call for message in turn for call in message.tool_calls]
    results = {r.tool_call_id: r for message in turn for r in message.tool_results}
    notes = []
    if calls:
        newest = calls[-1]
        last = call_key(newest)
        repeats = _trailing_run(
            call.name == newest.name and (call.arguments == newest.arguments or call_key(call) == last)
            for call in reversed(calls)
        )
        if repeats >= repeat_limit:
            notes.append(
                f"You have called {last[0]} with the same arguments {repeats} times in a row; "
                "the result will not change. Change course: try a different approach, or answer "
                "with what you know."
            )
    answered = (results[call.id] for call in reversed(calls) if call.id in results)
    empty = _trailing_run(found_nothing(result) for result in answered)
    if empty >= empty_limit:
        notes.append(
            f"Your last {empty} searches and reads found nothing. Change course: check the paths "
            "with ls or glob, widen the pattern, or answer with what you know."
        )
    return " ".join(notes) if notes else None


__all__ = ["EMPTY_LIMIT", "NOTHING_FOUND", "REPEAT_LIMIT", "call_key", "found_nothing", "loop_reminder"]
