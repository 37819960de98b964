"""Costs in dollars, session totals and budgets."""

from __future__ import annotations

import pytest

from circle.domain.catalog import Prices, prices
from circle.domain.messages import Message, TextPart, Usage
from circle.domain.pricing import Budget, BudgetStatus, check_budget, cost, format_usd, session_cost

GPT_4O_MINI = prices(0.15, 0.6, cache_read=0.075)


def _answer(model: str | None, usage: Usage | None) -> Message:
    return Message(role="assistant", parts=(TextPart(text="ok"),), usage=usage, model=model)


def test_cost_is_each_kind_of_token_at_its_price_per_million() -> None:
    usage = Usage(input=1_000_000, output=500_000, cache_read=2_000_000, cache_write=100_000)
    assert cost(usage, Prices(input=3, output=15, cache_read=0.3, cache_write=3.75)) == pytest.approx(
        3 + 7.5 + 0.6 + 0.375
    )
    assert cost(Usage(input=1000, output=500), GPT_4O_MINI) == pytest.approx(0.00045)


def test_an_unknown_price_is_no_cost_not_zero() -> None:
    assert cost(Usage(input=10), None) is None
    assert cost(Usage(), Prices()) == 0.0


def test_a_missing_cache_price_counts_at_the_input_price() -> None:
    assert GPT_4O_MINI.cache_write == 0.15
    assert prices(1, 2) == Prices(input=1, output=2, cache_read=1, cache_write=1)


def test_session_cost_prices_each_answer_at_its_own_model() -> None:
    table: dict[str | None, Prices] = {
        "cheap": Prices(input=1, output=1),
        "dear": Prices(input=10, output=10),
    }
    messages = [
        Message.user("hi"),
        _answer("cheap", Usage(input=1_000_000)),
        Message.tool_result(call_id="c", name="ls", text="x"),
        _answer("dear", Usage(output=100_000)),
        _answer("dear", None),
    ]
    assert session_cost(messages, table.get) == pytest.approx(2.0)
    assert session_cost([], table.get) == 0.0


def test_session_cost_is_unknown_when_one_answer_is_unpriced() -> None:
    table: dict[str | None, Prices] = {"cheap": Prices(input=1, output=1)}
    messages = [_answer("cheap", Usage(input=5)), _answer("mystery", Usage(input=5))]
    assert session_cost(messages, table.get) is None


@pytest.mark.parametrize(
    ("spent", "status"),
    [
        (0.0, BudgetStatus.OK),
        (0.79, BudgetStatus.OK),
        (0.8, BudgetStatus.WARN),
        (0.99, BudgetStatus.WARN),
        (1.0, BudgetStatus.STOP),
        (3.0, BudgetStatus.STOP),
    ],
)
def test_a_budget_warns_from_80_percent_and_stops_at_100(spent: float, status: BudgetStatus) -> None:
    assert check_budget(spent, 1.0) is status
    assert Budget(1.0).check(spent) is status


def test_a_zero_budget_allows_nothing() -> None:
    assert check_budget(0.0, 0.0) is BudgetStatus.STOP


@pytest.mark.parametrize(
    ("amount", "text"),
    [
        (0, "$0.00"),
        (12.5, "$12.50"),
        (1234.5, "$1,234.50"),
        (0.5, "$0.50"),
        (0.0123, "$0.012"),
        (0.00045, "$0.00045"),
        (0.0000001, "$0.0000001"),
        (0.0000045, "$0.0000045"),
    ],
)
def test_dollars_are_written_for_people(amount: float, text: str) -> None:
    assert format_usd(amount) == text


def test_a_sessions_cost_by_kind_adds_up_to_its_total() -> None:
    from circle.domain.pricing import session_cost_parts

    prices = Prices(input=3, output=15, cache_read=0.3, cache_write=3.75)
    answers = [
        Message(role="assistant", parts=(), usage=Usage(input=100, output=20, cache_read=50, cache_write=10)),
        Message(role="assistant", parts=(), usage=Usage(input=7, output=3)),
    ]
    parts = session_cost_parts(answers, lambda _model: prices)
    assert parts is not None and parts.total == session_cost(answers, lambda _model: prices)
    kinds = parts.input + parts.output + parts.cache_read + parts.cache_write
    assert kinds == pytest.approx(parts.total)
    assert parts.cache_write == pytest.approx(10 * 3.75 / 1e6)
    assert session_cost_parts(answers, lambda _model: None) is None
