"""What is known of a tool call whose result was never stored: Circle stopped (a crash, SIGKILL,
a power cut) before it could record it.

As a call runs, the loop marks it ``started`` (as its tool begins) and, when its result must wait
for other calls (adjacent ``task`` calls run together, their results stored once all have ended),
``finished`` as the tool returns (with a short outcome such as ``exit code 0``), each durably before
going on. A call run alone has its result stored as it returns, which says it finished: a mark in
between would cost a commit each round for a crash in that instant (which then reads as still
running). Reopening a session then tells the model what happened instead of one vague
"interrupted": the call never started, it was still running when Circle stopped (a command is
stopped with Circle), or it ran to the end and only its result was lost. The model can then avoid
running again what already ran.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

CallState = Literal["started", "finished"]
MAX_OUTCOME_CHARS = 120


@dataclass(frozen=True, slots=True)
class CallMark:
    """How far a tool call got: ``started``, or ``finished`` with its ``outcome``."""

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


def lost_result(mark: CallMark | None) -> str:
    """The result recorded for a call whose own result was lost, from its mark (None: none made)."""
    if mark is None:
        return "Not run: Circle stopped before this call started; nothing of it ran."
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


__all__ = ["CallMark", "CallState", "lost_result", "outcome_of"]
