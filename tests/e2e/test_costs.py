"""What turns cost and the session budget, end to end: models.dev prices, settings.json overrides."""

from __future__ import annotations

import json
from typing import Any

import pytest

from circle._testing.gateway import chat_text, chat_tool_calls

from .conftest import Circle

# gpt-4o-mini on models.dev: $0.15 per million input tokens, $0.60 per million output tokens.
MINI_INPUT, MINI_OUTPUT = 0.15, 0.6


def _events(stdout: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stdout.splitlines()]


def _turn_end(stdout: str) -> dict[str, Any]:
    ends = [e for e in _events(stdout) if e["type"] == "turn_end"]
    assert len(ends) == 1, stdout
    return ends[0]


def _settings(cli: Circle, data: dict[str, Any]) -> None:
    cli.home.mkdir(parents=True, exist_ok=True)
    (cli.home / "settings.json").write_text(json.dumps(data))


def test_a_known_model_reports_what_the_turn_cost(cli: Circle) -> None:
    cli.gateway.enqueue(chat_text("Hi.", usage=(12000, 3000)))
    done = cli.run("-p", "--mode", "json", "--yolo", "hello", env=cli.env(CIRCLE_MODEL="gpt-4o-mini"))
    assert done.returncode == 0, done.stderr
    end = _turn_end(done.stdout)
    expected = (12000 * MINI_INPUT + 3000 * MINI_OUTPUT) / 1e6
    assert end["usage"]["input"] == 12000 and end["usage"]["output"] == 3000
    assert end["cost"]["turn"] == pytest.approx(expected)
    assert end["cost"]["session"] == pytest.approx(expected)


def test_the_session_cost_adds_up_earlier_turns(cli: Circle) -> None:
    env = cli.env(CIRCLE_MODEL="gpt-4o-mini")
    cli.gateway.enqueue(chat_text("One.", usage=(1000, 100)), chat_text("Two.", usage=(2000, 200)))
    first = cli.run("-p", "--yolo", "--session-id", "s-costs", "one", env=env)
    assert first.returncode == 0, first.stderr
    second = cli.run("-p", "--mode", "json", "--yolo", "--session", "s-costs", "two", env=env)
    assert second.returncode == 0, second.stderr
    end = _turn_end(second.stdout)
    assert end["cost"]["turn"] == pytest.approx((2000 * MINI_INPUT + 200 * MINI_OUTPUT) / 1e6)
    assert end["cost"]["session"] == pytest.approx((3000 * MINI_INPUT + 300 * MINI_OUTPUT) / 1e6)


def test_an_unknown_model_works_and_its_cost_is_null(cli: Circle) -> None:
    cli.gateway.enqueue(chat_text("Fine."))
    done = cli.run("-p", "--mode", "json", "--yolo", "hello", env=cli.env(CIRCLE_MODEL="my-own-llm-7b"))
    assert done.returncode == 0, done.stderr
    assert _turn_end(done.stdout)["cost"] == {"turn": None, "session": None}


def test_a_models_override_in_settings_changes_the_price(cli: Circle) -> None:
    _settings(cli, {"models": {"gpt-4o-mini": {"prices": {"input": 1000, "output": 2000}}}})
    cli.gateway.enqueue(chat_text("Dear.", usage=(10, 5)))
    done = cli.run("-p", "--mode", "json", "--yolo", "hi", env=cli.env(CIRCLE_MODEL="gpt-4o-mini"))
    assert done.returncode == 0, done.stderr
    assert _turn_end(done.stdout)["cost"]["turn"] == pytest.approx((10 * 1000 + 5 * 2000) / 1e6)


def test_a_tiny_budget_stops_the_turn_with_exit_1_and_one_clear_line(cli: Circle) -> None:
    cli.gateway.enqueue(chat_tool_calls([("c1", "ls", {})]), chat_text("never asked"))
    done = cli.run(
        "-p", "--yolo", "--max-budget-usd", "0.0000001", "look", env=cli.env(CIRCLE_MODEL="gpt-4o-mini")
    )
    assert done.returncode == 1
    # the first answer: 10 input and 5 output tokens, $0.0000045
    assert done.stderr.strip() == "circle: the session budget of $0.0000001 is spent ($0.0000045)"
    assert done.stdout == ""
    assert len([r for r in cli.gateway.requests if r.path.endswith("/chat/completions")]) == 1


def test_the_budget_from_settings_warns_then_stops_in_json(cli: Circle) -> None:
    _settings(cli, {"budget_usd": 0.000005})  # one answer is $0.0000045: 90% of it
    cli.gateway.enqueue(
        chat_tool_calls([("c1", "ls", {})]), chat_tool_calls([("c2", "ls", {})]), chat_text("never")
    )
    done = cli.run("-p", "--mode", "json", "--yolo", "look", env=cli.env(CIRCLE_MODEL="gpt-4o-mini"))
    assert done.returncode == 1
    events = _events(done.stdout)
    warnings = [e for e in events if e["type"] == "budget_warning"]
    assert len(warnings) == 1
    assert warnings[0]["spent_usd"] == pytest.approx(0.0000045) and warnings[0]["limit_usd"] == 0.000005
    end = _turn_end(done.stdout)
    assert end["error"]["code"] == "usage-limit"
    assert end["cost"]["session"] == pytest.approx(0.000009)


def test_print_mode_warns_on_stderr_when_a_budget_cannot_be_enforced(cli: Circle) -> None:
    cli.gateway.enqueue(chat_text("Answered."))
    done = cli.run("-p", "--yolo", "--max-budget-usd", "1", "hi", env=cli.env(CIRCLE_MODEL="my-own-llm"))
    assert done.returncode == 0, done.stderr
    assert done.stdout == "Answered.\n"
    assert done.stderr.startswith("circle: warning: my-own-llm has no known price")
    assert len(done.stderr.splitlines()) == 1


def test_sessions_lists_what_each_session_cost(cli: Circle) -> None:
    # answers are priced by the model the endpoint says wrote them, as OpenAI names it
    priced_answer = chat_text("Priced.", usage=(1000, 500), model="gpt-4o-mini-2024-07-18")
    cli.gateway.enqueue(priced_answer, chat_text("Unpriced."))
    priced = cli.run("-p", "--yolo", "--session-id", "s-priced", "a", env=cli.env(CIRCLE_MODEL="gpt-4o-mini"))
    assert priced.returncode == 0, priced.stderr
    unpriced = cli.run("-p", "--yolo", "--session-id", "s-unpriced", "b", env=cli.env(CIRCLE_MODEL="mystery"))
    assert unpriced.returncode == 0, unpriced.stderr
    listing = cli.run("sessions")
    assert listing.returncode == 0, listing.stderr
    lines = {line.split()[0]: line for line in listing.stdout.splitlines()}
    assert "$0.00045" in lines["s-priced"]  # 1000 * 0.15 + 500 * 0.6 per million
    assert "$" not in lines["s-unpriced"].split("msgs")[1].split()[0]


def test_a_negative_budget_is_a_usage_error(cli: Circle) -> None:
    done = cli.run("-p", "--max-budget-usd", "-1", "hi")
    assert done.returncode == 2
    assert "--max-budget-usd" in done.stderr
