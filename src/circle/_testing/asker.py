"""A fake Asker: answers from a script, recording every set of questions it was asked."""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Sequence

from circle.application.ports.asker import Answer, Question


class ScriptedAsker:
    """Each ``ask`` takes the next scripted reply (a list of answers, or None for "dismissed").

    With the script used up it dismisses. ``asked`` holds every call's questions, in order.
    """

    def __init__(self, replies: Iterable[list[Answer] | None] = ()) -> None:
        self.replies: deque[list[Answer] | None] = deque(replies)
        self.asked: list[tuple[Question, ...]] = []

    async def ask(self, questions: Sequence[Question]) -> list[Answer] | None:
        self.asked.append(tuple(questions))
        return self.replies.popleft() if self.replies else None


__all__ = ["ScriptedAsker"]
