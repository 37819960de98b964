"""How long an answer may be, as the installed `circle` asks an Anthropic endpoint for it."""

from __future__ import annotations

import json

import pytest

from circle._testing.gateway import GatewayResponse
from circle._testing.wire_scripts import anthropic_answer

from .conftest import Circle


def anthropic(cli: Circle, *args: str) -> list[dict[str, object]]:
    done = cli.run("-p", "--yolo", *args, "hi", env=cli.env(CIRCLE_PROTOCOL="anthropic"))
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "hello"
    return [r.json() for r in cli.gateway.requests if r.method == "POST"]


@pytest.mark.parametrize(("level", "budget"), [("medium", 10_000), ("high", 24_000), ("max", 48_000)])
def test_each_thinking_level_reaches_its_budget_within_the_models_output_limit(
    cli: Circle, level: str, budget: int
) -> None:
    cli.gateway.enqueue(anthropic_answer("hello"))
    (body,) = anthropic(cli, "--model", "claude-sonnet-4-5", "--thinking", level)
    assert body["max_tokens"] == 64_000
    assert body["thinking"] == {"type": "enabled", "budget_tokens": budget}


def test_max_tokens_follows_the_catalog_and_the_settings(cli: Circle) -> None:
    cli.gateway.enqueue(anthropic_answer("hello"), anthropic_answer("hello"))
    (body,) = anthropic(cli, "--model", "claude-3-haiku-20240307")
    assert body["max_tokens"] == 4_096 and "thinking" not in body

    cli.home.mkdir(parents=True, exist_ok=True)
    settings = {"models": {"claude-sonnet-4-5": {"output": 20_000}}}
    (cli.home / "settings.json").write_text(json.dumps(settings))
    cli.gateway.reset()
    cli.gateway.enqueue(anthropic_answer("hello"))
    (body,) = anthropic(cli, "--model", "claude-sonnet-4-5", "--thinking", "high")
    assert body["max_tokens"] == 20_000
    assert body["thinking"] == {"type": "enabled", "budget_tokens": 18_976}


def test_a_refused_max_tokens_is_lowered_to_what_the_endpoint_allows_and_sent_once_more(cli: Circle) -> None:
    message = "max_tokens: 64000 > 32000, which is the maximum allowed number of output tokens for claude-x"
    error = {"type": "error", "error": {"type": "invalid_request_error", "message": message}}
    refused = GatewayResponse(400, {"content-type": "application/json"}, json.dumps(error).encode())
    cli.gateway.enqueue(refused, anthropic_answer("hello"))
    first, second = anthropic(cli, "--model", "claude-sonnet-4-5", "--thinking", "max")
    assert first["max_tokens"] == 64_000
    assert second["max_tokens"] == 32_000
    assert second["thinking"] == {"type": "enabled", "budget_tokens": 30_976}
