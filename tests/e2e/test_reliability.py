"""Retries as a person sees them: the `retry` JSON event, the stderr line, a spent quota, a timeout."""

from __future__ import annotations

import json

from circle._testing.faults import Faults, delayed
from circle._testing.gateway import chat_error, chat_text

from .conftest import Circle

CHAT = Faults("openai-chat")


def posts(cli: Circle) -> list[dict[str, object]]:
    return [r.json() for r in cli.gateway.requests if r.method == "POST"]


def test_json_mode_reports_a_retry_as_an_event(cli: Circle) -> None:
    cli.gateway.enqueue(
        chat_error(503, "Service Unavailable", headers={"retry-after": "0"}), chat_text("Fine.")
    )

    done = cli.run("-p", "--yolo", "--mode", "json", "hello", env=cli.env(CIRCLE_PROTOCOL="openai-chat"))

    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    [retry] = [e for e in events if e["type"] == "retry"]
    assert retry == {
        "type": "retry",
        "kind": "server",
        "attempt": 1,
        "max_attempts": 6,
        "delay_ms": 0,
        "error": "the endpoint answered 503: Service Unavailable",
    }
    assert events[-2]["type"] == "turn_end" and events[-2]["answer"] == "Fine."
    assert events[-1]["type"] == "agent_end"


def test_print_mode_says_it_retries_a_timeout_on_stderr(cli: Circle) -> None:
    cli.gateway.enqueue(delayed(chat_text("late"), 3.0), chat_text("On time."))
    env = cli.env(CIRCLE_PROTOCOL="openai-chat", CIRCLE_LLM_TIMEOUT="0.6")

    done = cli.run("-p", "--yolo", "hello", env=env)

    assert done.returncode == 0, done.stderr
    assert done.stdout == "On time.\n"
    assert "circle: Retrying… · timeout 1/10 · " in done.stderr
    assert "no answer within 600ms (CIRCLE_LLM_TIMEOUT)" in done.stderr


def test_a_spent_quota_stops_the_turn_at_once(cli: Circle) -> None:
    spent = chat_error(429, "You exceeded your current quota.", headers={"retry-after": "7200"})
    cli.gateway.enqueue(spent, chat_text("never sent"))

    done = cli.run("-p", "--yolo", "hello", env=cli.env(CIRCLE_PROTOCOL="openai-chat"))

    assert done.returncode == 1
    assert "the quota is spent; it resets in 2h" in done.stderr
    assert "Retrying" not in done.stderr
    assert len(posts(cli)) == 1


def test_a_rejected_parameter_is_dropped_and_the_request_sent_again(cli: Circle) -> None:
    cli.gateway.enqueue(CHAT.rejected("stream_options"), chat_text("Without it."))

    done = cli.run("-p", "--yolo", "hello", env=cli.env(CIRCLE_PROTOCOL="openai-chat"))

    assert done.returncode == 0, done.stderr
    assert done.stdout == "Without it.\n"
    first, second = posts(cli)
    assert "stream_options" in first and "stream_options" not in second


def test_a_bad_stall_timeout_is_a_usage_error(cli: Circle) -> None:
    done = cli.run("-p", "--yolo", "hello", env=cli.env(CIRCLE_LLM_STALL_TIMEOUT="soon"))

    assert done.returncode != 0
    assert "CIRCLE_LLM_STALL_TIMEOUT must be a positive number of seconds" in done.stderr
