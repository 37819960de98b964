"""What is known of a tool call whose result was never stored: Circle stopped (a crash, SIGKILL,
a power cut) before it could record it.

As a call runs, the loop marks it ``started`` (as its tool begins), ``asking`` while its approval
waits for the person's answer (``started`` again once they allow it), and, when its result must wait
for other calls (adjacent ``task`` calls run together, their results stored once all have ended),
``finished`` as the tool returns (with a short outcome such as ``exit code 0``), each durably before
going on. A call run alone has its result stored as it returns, which says it finished: a mark in
between would cost a commit each round for a crash in that instant (which then reads as still
running). Reopening a session then tells the model what happened instead of one vague
"interrupted": the call never started, its approval card was still unanswered (it did nothing,
as when the turn is stopped at the card), it was still running when Circle stopped (a command is
stopped with Circle), or it ran to the end and only its result was lost. The model can then avoid
running again what already ran.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

CallState = Literal["started", "asking", "finished"]
MAX_OUTCOME_CHARS = 120


@dataclass(frozen=True, slots=True)
class CallMark:
    """How far a tool call got: ``started``, ``asking`` (its approval waits for the person), or
    ``finished`` with its ``outcome``."""

    call_id: str
    state: CallState
    outcome: str = ""


def outcome_of(text: str, *, is_error: bool) -> str:
    """A short account of a finished call: its closing ``[…]`` line (a command's exit code), if any."""
    lines = text.rstrip().splitlines()
    last = lines[-1].strip() if lines else ""
    if last.startswith("[") and last.endswith("]"):
        return last[1:-1][:MAX_OUTCOME_CHARS]
    return "it reported an error" if is_error else "it succeeded"


UNANSWERED_LOST = (
    "Not run: Circle stopped while this call waited for the person's approval; nothing of it ran."
)
"""The result recorded for a call whose approval was never answered (Circle was killed at its card)."""
UNANSWERED_LOST_SHOWN = "not run: Circle stopped before you answered"
"""What a person reads on that call's row."""


def lost_result(mark: CallMark | None) -> str:
    """The result recorded for a call whose own result was lost, from its mark (None: none made)."""
    if mark is None:
        return "Not run: Circle stopped before this call started; nothing of it ran."
    if mark.state == "asking":
        return UNANSWERED_LOST
    if mark.state == "started":
        return (
            "Interrupted: Circle stopped while this call was still running (a command it ran was"
            " stopped with Circle); its result was lost. It may have done part of its work: check"
            " before running it again."
        )
    return (
        f"Result lost: the call ran to the end ({mark.outcome or 'no outcome known'}), but Circle"
        " stopped before its result was stored. It was not run again: run it again only if you"
        " need its output."
    )


def lost_shown(mark: CallMark | None) -> str | None:
    """What that call's row says, when not its result: the card's call, that it was not run."""
    return UNANSWERED_LOST_SHOWN if mark is not None and mark.state == "asking" else None


__all__ = [
    "UNANSWERED_LOST",
    "UNANSWERED_LOST_SHOWN",
    "CallMark",
    "CallState",
    "lost_result",
    "lost_shown",
    "outcome_of",
]
