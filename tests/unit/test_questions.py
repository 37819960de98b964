"""The question tool: answered by the person when there is one, handed back to the model when not."""

from __future__ import annotations

import pytest
from pydantic import JsonValue

from circle._testing.asker import ScriptedAsker
from circle.application.ports.asker import Answer, Question
from circle.application.tools import builtin_tools
from circle.application.tools.base import ToolOutput
from circle.domain.errors import ToolError
from circle.testing import Call, answer

from ._harness import Harness

QUESTIONS: list[JsonValue] = [
    {"question": "Which database?", "options": ["Postgres", "SQLite"]},
    {"question": "Which extras?", "options": ["auth", "admin", "api"], "multiple": True},
    {"question": "What should the service be called?"},
]


async def ask(h: Harness, questions: list[JsonValue], asker: ScriptedAsker | None = None) -> ToolOutput:
    ctx = h.context()
    ctx.asker = asker
    return await builtin_tools()["question"].invoke({"questions": questions}, ctx)


async def test_without_a_person_the_questions_go_back_to_the_model() -> None:
    out = await ask(Harness(), QUESTIONS)
    assert not out.is_error
    assert out.text == (
        "Nobody can answer here; ask the person in your answer:\n"
        "1. Which database?\n   - Postgres\n   - SQLite\n"
        "2. Which extras? (more than one may be chosen)\n   - auth\n   - admin\n   - api\n"
        "3. What should the service be called?"
    )


async def test_with_a_person_the_answers_are_the_result() -> None:
    asker = ScriptedAsker(
        [[Answer(chosen=("SQLite",)), Answer(chosen=("auth", "api")), Answer(text="ledger")]]
    )
    out = await ask(Harness(), QUESTIONS, asker)
    assert out.text == (
        "The person answered:\n"
        "1. Which database?\n   -> SQLite\n"
        "2. Which extras?\n   -> auth; api\n"
        "3. What should the service be called?\n   -> ledger"
    )
    assert asker.asked == [
        (
            Question("Which database?", options=("Postgres", "SQLite")),
            Question("Which extras?", options=("auth", "admin", "api"), multiple=True),
            Question("What should the service be called?"),
        )
    ]


async def test_dismissed_questions_say_so() -> None:
    out = await ask(Harness(), QUESTIONS[:1], ScriptedAsker([None]))
    assert "dismissed" in out.text


@pytest.mark.parametrize(
    ("questions", "message"),
    [
        ([], "questions: Tuple should have at least 1 item"),
        ([{"question": f"q{i}"} for i in range(5)], "questions: Tuple should have at most 4 items"),
        ([{"question": "q", "options": ["only"]}], "questions.0.options"),
        ([{"question": "q", "options": [str(i) for i in range(9)]}], "questions.0.options"),
        ([{"question": ""}], "questions.0.question"),
    ],
)
async def test_bad_questions_are_refused(questions: list[JsonValue], message: str) -> None:
    with pytest.raises(ToolError, match=message):
        await ask(Harness(), questions)


async def test_the_turn_waits_for_the_answers() -> None:
    h = Harness()
    asker = ScriptedAsker([[Answer(chosen=("Postgres",))]])
    h.model.add(answer("", Call("question", {"questions": QUESTIONS[:1]})), answer("Postgres it is."))
    runtime = h.runtime()
    runtime.ports.asker = asker
    session = await runtime.new_session()
    result = await session.prompt("set up a database")
    assert result.answer == "Postgres it is."
    sent = h.model.requests[1].messages[-1].tool_results[0]
    assert sent.text.endswith("-> Postgres") and len(asker.asked) == 1
