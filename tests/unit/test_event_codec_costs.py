"""The JSON shapes of costs and budget warnings (``--mode json``)."""

from __future__ import annotations

from circle.application.events import BudgetWarned, TurnEnded
from circle.domain.messages import Usage
from circle.entrypoints.event_codec import event_json


def test_turn_end_carries_the_turn_and_session_cost() -> None:
    event = TurnEnded(session_id="s", answer="a", usage=Usage(input=1), cost=0.5, session_cost=1.5)
    assert event_json(event)["cost"] == {"turn": 0.5, "session": 1.5}


def test_an_unknown_cost_is_null() -> None:
    event = TurnEnded(session_id="s", answer="a", usage=Usage())
    assert event_json(event)["cost"] == {"turn": None, "session": None}


def test_a_budget_warning_names_what_is_spent_of_what() -> None:
    event = BudgetWarned(spent=0.8, limit=1.0, message="$0.80 of the session budget of $1.00 is spent")
    assert event_json(event) == {
        "type": "budget_warning",
        "spent_usd": 0.8,
        "limit_usd": 1.0,
        "message": "$0.80 of the session budget of $1.00 is spent",
    }


def test_turn_end_says_how_many_output_tokens_were_guessed() -> None:
    event = TurnEnded(
        session_id="s", answer="a", usage=Usage(input=10, output=98), aborted=True, estimated=98
    )
    assert event_json(event)["estimated_output_tokens"] == 98
    counted = TurnEnded(session_id="s", answer="a", usage=Usage(input=10, output=5))
    assert "estimated_output_tokens" not in event_json(counted)
