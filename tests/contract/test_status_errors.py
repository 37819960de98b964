"""One mapping of error answers to Circle errors, the same through every model protocol.

Each case is served by the loopback gateway to the real Chat Completions, Responses and Anthropic
adapters; each must raise the same error class with the same parameter named.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator

import pytest

from circle._testing.gateway import GatewayResponse, ScriptedGateway
from circle.adapters.models.anthropic import AnthropicModel
from circle.adapters.models.openai_chat import OpenAIChatModel
from circle.adapters.models.openai_responses import OpenAIResponsesModel
from circle.application.ports.model_client import ModelClient
from circle.domain.errors import ContextOverflowError, ModelError, ModelHTTPError, RateLimitedError
from circle.domain.messages import Message
from circle.domain.model import ModelRequest
from circle.domain.settings import Endpoint, Protocol

REQUEST = ModelRequest(model="m", system="", messages=(Message.user("hi"),))
PROTOCOLS: tuple[Protocol, ...] = ("openai-chat", "openai-responses", "anthropic")
VLLM_TOO_LONG = (
    "'max_tokens' or 'max_completion_tokens' is too large: 30000. This model's maximum context length"
    " is 32768 tokens and your request has 3000 input tokens (30000 > 32768 - 3000)."
)

CASES: dict[str, tuple[int, dict[str, object], type[ModelError], str | None, str]] = {
    "overflow_422": (
        422,
        {"error": {"message": "prompt is too long: 210000 tokens > 200000 maximum"}},
        ContextOverflowError,
        None,
        "larger than the model's context (422)",
    ),
    "overflow_code": (
        400,
        {"error": {"message": "Too long.", "code": "context_length_exceeded"}},
        ContextOverflowError,
        None,
        "larger than the model's context",
    ),
    "answer_limit_is_not_an_overflow": (
        400,
        {"error": {"message": VLLM_TOO_LONG}},
        ModelHTTPError,
        None,
        "30000",
    ),
    "param_field": (
        400,
        {"error": {"message": "Unsupported value.", "param": "temperature"}},
        ModelHTTPError,
        "temperature",
        "answered 400",
    ),
    "param_prefix": (
        400,
        {
            "type": "error",
            "error": {"type": "invalid_request_error", "message": "max_tokens: 128000 > 64000"},
        },
        ModelHTTPError,
        "max_tokens",
        "answered 400",
    ),
    "overloaded_type": (
        503,
        {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}},
        ModelHTTPError,
        None,
        "overloaded (503)",
    ),
    "overloaded_529": (529, {"error": {"message": "busy"}}, ModelHTTPError, None, "overloaded (529)"),
    "rate_limited": (429, {"error": {"message": "slow down"}}, RateLimitedError, None, "rate limited"),
}


@pytest.fixture(scope="module")
def gateway() -> Iterator[ScriptedGateway]:
    with ScriptedGateway() as gw:
        yield gw


def client_for(protocol: Protocol, base_url: str) -> ModelClient:
    endpoint = Endpoint(base_url=base_url, protocol=protocol, api_key="k", model=None, timeout_s=10)
    match protocol:
        case "anthropic":
            return AnthropicModel(endpoint)
        case "openai-responses":
            return OpenAIResponsesModel(endpoint)
        case _:
            return OpenAIChatModel(endpoint)


async def answer_of(client: ModelClient) -> None:
    async with asyncio.timeout(10):
        async for _ in client.stream(REQUEST):
            pass


@pytest.mark.parametrize("protocol", PROTOCOLS)
@pytest.mark.parametrize("case", sorted(CASES))
async def test_every_protocol_maps_an_error_answer_alike(
    gateway: ScriptedGateway, protocol: Protocol, case: str
) -> None:
    status, body, expected, param, words = CASES[case]
    gateway.reset()
    gateway.enqueue(GatewayResponse(status, {"content-type": "application/json"}, json.dumps(body).encode()))
    client = client_for(protocol, gateway.base_url)
    try:
        with pytest.raises(ModelError) as caught:
            await answer_of(client)
    finally:
        await client.aclose()

    error = caught.value
    assert type(error) is expected, error
    assert words in error.message
    if isinstance(error, ModelHTTPError):
        assert error.status == status and error.param == param
