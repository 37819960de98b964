"""What the first request of `circle -p` weighs, as the gateway receives it."""

from __future__ import annotations

from circle._testing.gateway import chat_text

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
