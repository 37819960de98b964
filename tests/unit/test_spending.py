"""What turns cost, and the session budget the loop keeps (ScriptedModel, InMemoryCatalog)."""

from __future__ import annotations

import pytest

from circle.application.events import BudgetWarned, ErrorReported, TurnEnded
from circle.application.spending import CostMeter
from circle.domain.catalog import ModelInfo, Prices
from circle.domain.messages import Message, StopReason, TextPart, Usage
from circle.domain.model import Finished, ModelEvent
from circle.testing import Call, InMemoryCatalog, answer

from ._harness import WORKSPACE, Harness

# A dollar per million input tokens, two per million output: 1000 in + 500 out cost $0.002.
SCRIPTED = ModelInfo(id="scripted", provider="test", prices=Prices(input=1, output=2))
OLDER = ModelInfo(id="older", provider="test", prices=Prices(input=10, output=10))
BIG = Usage(input=1000, output=500)
PRICED = InMemoryCatalog([SCRIPTED, OLDER])


def _tool_round() -> list[ModelEvent]:
    return answer("", Call("ls", {}), usage=BIG)


def _ended(h: Harness) -> list[TurnEnded]:
    return [e for e in h.sink.events if isinstance(e, TurnEnded)]


def _warnings(h: Harness) -> list[BudgetWarned]:
    return [e for e in h.sink.events if isinstance(e, BudgetWarned)]


async def test_a_turn_reports_its_cost_and_the_sessions() -> None:
    h = Harness(catalog=PRICED)
    h.model.add(answer("", Call("ls", {}), usage=BIG), answer("one", usage=BIG), answer("two", usage=BIG))
    session = await h.runtime().new_session()
    first = await session.prompt("a")
    second = await session.prompt("b")
    assert first.cost == pytest.approx(0.004) and first.session_cost == pytest.approx(0.004)
    assert second.cost == pytest.approx(0.002) and second.session_cost == pytest.approx(0.006)
    ended = _ended(h)
    assert [(e.cost, e.session_cost) for e in ended] == [
        (first.cost, first.session_cost),
        (second.cost, second.session_cost),
    ]
    assert PRICED.lookups[0] == "scripted"


async def test_the_session_cost_counts_stored_answers_at_their_own_models_prices() -> None:
    h = Harness(catalog=PRICED)
    info = await h.store.create_session(workspace=WORKSPACE)
    await h.store.append(info.id, Message.user("earlier"))
    earlier = Message(role="assistant", parts=(TextPart(text="hi"),), usage=Usage(input=1000), model="older")
    await h.store.append(info.id, earlier)
    h.model.add(answer("now", usage=BIG))
    result = await (await h.runtime().open_session(info.id)).prompt("again")
    assert result.cost == pytest.approx(0.002)
    assert result.session_cost == pytest.approx(0.002 + 0.01)


async def test_an_unpriced_model_costs_none_and_works() -> None:
    h = Harness()
    h.model.add(answer("fine", usage=BIG))
    result = await (await h.runtime().new_session()).prompt("hi")
    assert result.answer == "fine" and result.error is None
    assert (result.cost, result.session_cost) == (None, None)
    assert not _warnings(h)


async def test_the_budget_warns_once_at_80_percent_and_stops_the_turn_at_100() -> None:
    h = Harness(catalog=PRICED, budget_usd=0.005)
    h.model.add(*[_tool_round() for _ in range(5)])
    result = await (await h.runtime().new_session()).prompt("spend")
    assert len(h.model.requests) == 3  # spent before each: $0, $0.002, $0.004 (80%); then $0.006
    warnings = _warnings(h)
    assert len(warnings) == 1
    assert warnings[0].spent == pytest.approx(0.004) and warnings[0].limit == 0.005
    assert "of the session budget of $0.005 is spent" in warnings[0].message
    assert result.error is not None and result.error.code == "usage-limit"
    assert result.error.message == "the session budget of $0.005 is spent ($0.006)"
    assert result.session_cost == pytest.approx(0.006)
    assert any(isinstance(e, ErrorReported) and e.code == "usage-limit" for e in h.sink.events)
    assert _ended(h)[-1].error_code == "usage-limit"


async def test_a_session_already_over_budget_makes_no_request() -> None:
    h = Harness(catalog=PRICED, budget_usd=0.001)
    info = await h.store.create_session(workspace=WORKSPACE)
    spent = Message(role="assistant", parts=(TextPart(text="x"),), usage=BIG, model="scripted")
    await h.store.append(info.id, Message.user("earlier"))
    await h.store.append(info.id, spent)
    h.model.add(answer("never"))
    result = await (await h.runtime().open_session(info.id)).prompt("more")
    assert h.model.requests == []
    assert result.error is not None and "budget of $0.001 is spent ($0.002)" in result.error.message


async def test_a_budget_on_an_unpriced_model_warns_once_and_goes_on() -> None:
    h = Harness(budget_usd=0.01)
    h.model.add(_tool_round(), answer("done", usage=BIG))
    result = await (await h.runtime().new_session()).prompt("go")
    assert result.answer == "done" and result.error is None
    warnings = _warnings(h)
    assert len(warnings) == 1 and warnings[0].spent is None
    assert "scripted has no known price" in warnings[0].message


async def test_no_budget_no_warning_however_much_is_spent() -> None:
    h = Harness(catalog=PRICED)
    h.model.add(_tool_round(), _tool_round(), answer("done", usage=Usage(input=10**9)))
    result = await (await h.runtime().new_session()).prompt("go")
    assert result.error is None and result.cost == pytest.approx(0.004 + 1000)
    assert not _warnings(h)


async def test_an_answer_from_a_model_the_catalog_cannot_price_counts_at_the_sessions_prices() -> None:
    h = Harness(catalog=PRICED)
    events = answer("hi", usage=BIG)
    events[-1] = Finished(stop_reason=StopReason.END, model="gateway-alias")
    h.model.add(events)
    result = await (await h.runtime().new_session()).prompt("hi")
    stored = (await h.store.history(result.session_id))[-1].message
    assert stored.model == "gateway-alias"
    assert result.cost == pytest.approx(0.002) and result.session_cost == pytest.approx(0.002)


SMALL = Usage(input=10, output=5)  # $0.00002 at SCRIPTED's prices


def _delegating_turn() -> list[list[ModelEvent]]:
    """The main agent's task call, the subagent's two answers (a tool round, then its report), the end."""
    task = Call("task", {"description": "look", "prompt": "look around", "subagent_type": "explore"})
    return [
        answer("", task, usage=SMALL),
        answer("", Call("ls", {}), usage=SMALL),
        answer("nothing here", usage=SMALL),
        answer("done", usage=SMALL),
    ]


async def test_a_subagents_answers_count_in_the_turns_usage_and_cost_and_the_sessions() -> None:
    h = Harness(catalog=PRICED)
    h.model.add(*_delegating_turn(), answer("again", usage=SMALL))
    session = await h.runtime().new_session()
    first = await session.prompt("delegate")
    second = await session.prompt("once more")
    assert len(h.model.requests) == 5
    assert first.answer == "done" and first.usage == Usage(input=40, output=20)
    assert first.cost == pytest.approx(0.00008) and first.session_cost == pytest.approx(0.00008)
    assert second.usage == SMALL
    assert second.cost == pytest.approx(0.00002) and second.session_cost == pytest.approx(0.0001)
    ended = _ended(h)
    assert [(e.usage, e.cost) for e in ended] == [(first.usage, first.cost), (second.usage, second.cost)]


async def test_a_subagents_tokens_count_without_a_price_and_its_cost_stays_unknown() -> None:
    h = Harness()
    h.model.add(*_delegating_turn())
    result = await (await h.runtime().new_session()).prompt("delegate")
    assert result.usage == Usage(input=40, output=20)
    assert (result.cost, result.session_cost) == (None, None)


def test_nothing_spent_costs_nothing_when_priced_and_is_unknown_when_not() -> None:
    """A turn cancelled before any answer says "cost unknown" for an unpriced model, as every other
    line does, and $0.00 for a priced one."""
    priced = CostMeter("scripted", SCRIPTED, catalog=PRICED)
    unpriced = CostMeter("scripted", ModelInfo(id="scripted", provider="test"))
    assert priced.total_cost([], Usage()) == 0.0
    assert unpriced.total_cost([], Usage()) is None
    assert unpriced.total_cost([Message.user("hi")], Usage()) is None
