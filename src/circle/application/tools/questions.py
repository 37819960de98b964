"""question: the model asks the person, and the turn waits for the answers.

With an :class:`~circle.application.ports.asker.Asker` (the TUI) the answers come back as the
result. Where nobody can answer (print, JSON and RPC modes) the result hands the questions back
to the model, formatted, so that it asks them in its answer and ends the turn.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import Field

from circle.application.ports.asker import Answer, Question

from .base import BuiltinTool, ToolArgs, ToolContext, ToolOutput

QUESTION = "question"
NOBODY_TO_ASK = "Nobody can answer here; ask the person in your answer:"
DISMISSED = (
    "The person dismissed the questions without answering. Go on with what they asked, or ask "
    "again in your answer if you cannot."
)


class QuestionItem(ToolArgs):
    question: str = Field(min_length=1, description="The question, complete and self-contained.")
    options: tuple[str, ...] | None = Field(
        None, min_length=2, max_length=8, description="2 to 8 choices; leave out for a free answer."
    )
    multiple: bool = Field(False, description="The person may pick more than one option.")


class QuestionArgs(ToolArgs):
    questions: tuple[QuestionItem, ...] = Field(min_length=1, max_length=4, description="1 to 4 questions.")


def to_questions(items: Sequence[QuestionItem]) -> tuple[Question, ...]:
    return tuple(Question(i.question, options=i.options or (), multiple=i.multiple) for i in items)


def format_questions(questions: Sequence[Question]) -> str:
    """The questions numbered, each option on a line of its own."""
    lines = []
    for number, q in enumerate(questions, start=1):
        several = " (more than one may be chosen)" if q.multiple and q.options else ""
        lines.append(f"{number}. {q.question}{several}")
        lines.extend(f"   - {option}" for option in q.options)
    return "\n".join(lines)


def format_answers(questions: Sequence[Question], answers: Sequence[Answer]) -> str:
    lines = ["The person answered:"]
    for number, (q, answer) in enumerate(zip(questions, answers, strict=False), start=1):
        lines.append(f"{number}. {q.question}\n   -> {answer.describe()}")
    for number in range(len(answers) + 1, len(questions) + 1):
        lines.append(f"{number}. {questions[number - 1].question}\n   -> (no answer)")
    return "\n".join(lines)


async def _question(args: QuestionArgs, ctx: ToolContext) -> ToolOutput:
    questions = to_questions(args.questions)
    if ctx.asker is None:
        return ToolOutput(f"{NOBODY_TO_ASK}\n{format_questions(questions)}")
    answers = await ctx.asker.ask(questions)
    if answers is None:
        return ToolOutput(DISMISSED)
    return ToolOutput(format_answers(questions, answers))


QUESTION_TOOL = BuiltinTool(QUESTION, QuestionArgs, _question)

__all__ = [
    "DISMISSED",
    "NOBODY_TO_ASK",
    "QUESTION",
    "QUESTION_TOOL",
    "QuestionArgs",
    "QuestionItem",
    "format_answers",
    "format_questions",
    "to_questions",
]
