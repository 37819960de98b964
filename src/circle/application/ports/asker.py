"""Asker: puts the model's questions to the person and waits for the answers.

Only where a person can answer (the TUI, a library caller that gives one); print, JSON and RPC
modes have none, and the question tool then hands the questions back to the model as text.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True, slots=True)
class Question:
    """One question.

    Attributes:
        question: The question as the person reads it.
        options: The choices offered (none: the person types an answer).
        multiple: The person may pick more than one option.
    """

    question: str
    options: tuple[str, ...] = ()
    multiple: bool = False


@dataclass(frozen=True, slots=True)
class Answer:
    """The person's answer to one question.

    Attributes:
        chosen: The options picked (one at most unless the question allows several).
        text: What the person typed, instead of or besides picking.
    """

    chosen: tuple[str, ...] = ()
    text: str = ""

    def describe(self) -> str:
        """The answer in one line: the choices, then the typed text."""
        said = [*self.chosen, *([self.text.strip()] if self.text.strip() else [])]
        return "; ".join(said) if said else "(no answer)"


class Asker(Protocol):
    async def ask(self, questions: Sequence[Question]) -> list[Answer] | None:
        """One answer a question, in order; None when the person dismissed them without answering."""
        ...


__all__ = ["Answer", "Asker", "Question"]
