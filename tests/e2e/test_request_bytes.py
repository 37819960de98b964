"""What the first request of `circle -p` weighs, as the gateway receives it."""

from __future__ import annotations

import itertools
import json

from circle._testing.gateway import chat_text
from circle._testing.wire_scripts import anthropic_answer

from .conftest import Circle

FIRST_REQUEST_MAX_BYTES = 16_000
BUILTIN_TOOLS = 21


def test_the_first_request_with_every_tool_is_at_most_16_kb(cli: Circle) -> None:
    cli.gateway.enqueue(chat_text("ok"))

    done = cli.run("-p", "--yolo", "hi")

    assert done.returncode == 0, done.stderr
    body = next(request for request in cli.gateway.requests if request.method == "POST")
    assert len(body.json()["tools"]) == BUILTIN_TOOLS
    assert len(body.body) <= FIRST_REQUEST_MAX_BYTES, len(body.body)


def _marks(value: object) -> int:
    """How many cache breakpoints ``value`` carries."""
    if isinstance(value, dict):
        return ("cache_control" in value) + sum(_marks(v) for v in value.values())
    if isinstance(value, list):
        return sum(_marks(v) for v in value)
    return 0


def _unmarked(value: object) -> object:
    if isinstance(value, dict):
        return {k: _unmarked(v) for k, v in value.items() if k != "cache_control"}
    if isinstance(value, list):
        return [_unmarked(v) for v in value]
    return value


def test_anthropic_caching_pays_for_tools_and_system_once_and_extends_the_history(cli: Circle) -> None:
    rounds = 4
    for n in range(rounds):
        (cli.workspace / f"notes{n}.txt").write_text(f"note {n}\n")
        call = (f"toolu_{n}", "read_file", {"file_path": f"notes{n}.txt"})
        cli.gateway.enqueue(anthropic_answer(calls=[call]))
    cli.gateway.enqueue(anthropic_answer("done"))

    done = cli.run("-p", "--yolo", "read the notes", env=cli.env(CIRCLE_PROTOCOL="anthropic"))

    assert done.returncode == 0, done.stderr
    bodies = [r.json() for r in cli.gateway.requests if r.method == "POST"]
    assert len(bodies) == rounds + 1
    fixed = {json.dumps([b["tools"], b["system"]]) for b in bodies}
    assert len(fixed) == 1  # the same bytes every round: written to the cache once, read after
    first = bodies[0]
    assert "cache_control" in first["tools"][-1] and "cache_control" in first["system"][-1]
    for before, after in itertools.pairwise(bodies):
        assert _marks(after) <= 4
        assert "cache_control" in after["messages"][-1]["content"][-1]  # the newest turn is cached
        old = len(before["messages"])
        assert _unmarked(after["messages"][:old]) == _unmarked(before["messages"])  # a prefix: read back


def test_a_second_start_sends_the_same_request_from_the_kept_specs_even_after_the_cache_breaks(
    cli: Circle,
) -> None:
    kept = cli.home / "cache" / "tool_specs.json"
    bodies = []
    for run in range(3):
        if run == 2:
            kept.write_text('{"key": "broken')  # this start makes the specs again
        cli.gateway.reset()
        cli.gateway.enqueue(chat_text("ok"))
        done = cli.run("-p", "--yolo", "hi")
        assert done.returncode == 0, done.stderr
        bodies.append(next(r.body for r in cli.gateway.requests if r.method == "POST"))
        assert kept.exists()

    assert bodies[0] == bodies[1] == bodies[2]
    assert kept.read_text().startswith('{"key":"')  # written whole again
