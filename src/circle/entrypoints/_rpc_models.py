"""RPC commands about the model and its thinking: list, set and cycle them, in pi's shapes
(a model is pi's ``Model``: id, name, api, provider, baseUrl, reasoning, input, contextWindow,
maxTokens, cost per million tokens)."""

from __future__ import annotations

from typing import TYPE_CHECKING, get_args

from pydantic import JsonValue

from circle.domain.catalog import ModelInfo, similar_models
from circle.domain.errors import CircleError
from circle.domain.thinking import UNKNOWN_OUTPUT_ROOM, ThinkingLevel, parse_level

from ._rpc_io import Command, Handler, RpcError, text_field
from .event_codec import API_NAMES

if TYPE_CHECKING:
    from .rpc import RpcServer

LEVELS: tuple[str, ...] = ("off", *get_args(ThinkingLevel))
"""The thinking levels in the order ``cycle_thinking_level`` goes through them."""


def model_json(server: RpcServer, model: str) -> JsonValue:
    """``model`` as pi's Model: what the catalog knows of it (0 where a price is unknown)."""
    runtime = server.runtime
    info: ModelInfo = runtime.ports.catalog.lookup(model)
    protocol = runtime.options.protocol
    prices = info.prices
    return {
        "id": model,
        "name": info.name or model,
        "api": API_NAMES.get(protocol, protocol),
        "provider": info.provider or server.encoder.origin.provider(model),
        "baseUrl": server.endpoint[0] or None,
        "reasoning": info.reasoning,
        "input": ["text", "image"] if info.reads_images else ["text"],
        "contextWindow": info.context_window,
        "maxTokens": info.max_output or UNKNOWN_OUTPUT_ROOM,
        "cost": {  # US dollars per million tokens; 0 where the price is unknown, as pi counts it
            "input": prices.input if prices else 0.0,
            "output": prices.output if prices else 0.0,
            "cacheRead": prices.cache_read if prices else 0.0,
            "cacheWrite": prices.cache_write if prices else 0.0,
        },
    }


async def list_models(server: RpcServer) -> list[str]:
    """What the endpoint lists (asked each time; kept for ``set_model`` and ``cycle_model``)."""
    from ._setup import probe

    base_url, key = server.endpoint
    found = await probe(base_url, key or "")
    server.endpoint_models = list(found.models)
    return server.endpoint_models


async def _known_models(server: RpcServer) -> list[str]:
    if server.endpoint_models is not None:
        return server.endpoint_models
    try:
        return await list_models(server)
    except CircleError:
        return []  # an endpoint that lists nothing may still have the model


async def get_available_models(server: RpcServer, command: Command) -> JsonValue:
    return {"models": [model_json(server, model) for model in await list_models(server)]}


async def set_model(server: RpcServer, command: Command) -> JsonValue:
    model = text_field(command, "modelId").strip()
    server.not_busy("switch the model")
    listed = await _known_models(server)
    if listed and model not in listed:
        near = similar_models(model, listed)
        hint = f"did you mean {', '.join(near)}? " if near else ""
        raise RpcError(f"Model not found: {model} ({hint}get_available_models lists the endpoint's)")
    await server.runtime.switch_model(server.session, model)
    server.apply_settings()
    return model_json(server, model)


async def cycle_model(server: RpcServer, command: Command) -> JsonValue:
    """The endpoint's next model after the current one; null when it lists one model or none."""
    server.not_busy("switch the model")
    listed = await _known_models(server)
    current = server.runtime.options.model
    if len(listed) < 2 and (not listed or listed[0] == current):
        return None
    following = listed[(listed.index(current) + 1) % len(listed)] if current in listed else listed[0]
    await server.runtime.switch_model(server.session, following)
    server.apply_settings()
    return {
        "model": model_json(server, following),
        "thinkingLevel": server.runtime.options.thinking or "off",
        "isScoped": False,
    }


async def set_thinking_level(server: RpcServer, command: Command) -> JsonValue:
    server.not_busy("change the thinking level")
    try:
        level = parse_level(text_field(command, "level"))
    except ValueError as exc:
        raise RpcError(str(exc)) from None
    sent = await server.runtime.switch_thinking(server.session, level)
    return {"thinkingLevel": level or "off", "sent": sent is not None}


async def cycle_thinking_level(server: RpcServer, command: Command) -> JsonValue:
    """The next level (off, minimal, low, medium, high, max, then off); null when the model does not
    reason."""
    server.not_busy("change the thinking level")
    runtime = server.runtime
    info = runtime.ports.catalog.lookup(runtime.options.model)
    if info.known and not info.reasoning:
        return None
    current = runtime.options.thinking or "off"
    following = LEVELS[(LEVELS.index(current) + 1) % len(LEVELS)]
    await runtime.switch_thinking(server.session, parse_level(following))
    return {"level": following}


COMMANDS: dict[str, Handler] = {
    "get_available_models": get_available_models,
    "set_model": set_model,
    "cycle_model": cycle_model,
    "set_thinking_level": set_thinking_level,
    "cycle_thinking_level": cycle_thinking_level,
}

__all__ = ["COMMANDS", "LEVELS", "list_models", "model_json"]
