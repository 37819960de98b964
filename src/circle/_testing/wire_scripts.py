"""Scripted answers in the Responses and Anthropic Messages wire formats, for ScriptedGateway.

The Chat Completions builders live in :mod:`circle._testing.gateway`; these follow the event
sequences of the real recordings (../shared/fixtures/providers), trimmed to what a turn needs.
"""

from __future__ import annotations

import json
from typing import Any

from .gateway import GatewayResponse

_SSE_HEADERS = {"content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache"}
Calls = list[tuple[str, str, dict[str, Any]]]


def _event(kind: str, data: dict[str, Any]) -> bytes:
    return f"event: {kind}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n".encode()


def _halves(text: str) -> list[str]:
    middle = max(1, len(text) // 2)
    return [piece for piece in (text[:middle], text[middle:]) if piece]


def responses_answer(
    text: str = "", calls: Calls | None = None, *, usage: tuple[int, int] = (10, 5), model: str = "scripted"
) -> GatewayResponse:
    """A streamed Responses API answer: optional text, then function calls ``(call_id, name, args)``."""
    calls = calls or []
    chunks = [
        _event("response.created", {"type": "response.created", "response": {"id": "resp_1", "model": model}})
    ]
    output: list[dict[str, Any]] = []
    if text:
        item: dict[str, Any] = {"type": "message", "id": "msg_1", "role": "assistant", "content": []}
        chunks.append(_event("response.output_item.added", {"output_index": 0, "item": item}))
        for piece in _halves(text):
            delta = {"item_id": "msg_1", "output_index": 0, "content_index": 0, "delta": piece}
            chunks.append(_event("response.output_text.delta", delta))
        done = {**item, "content": [{"type": "output_text", "text": text, "annotations": []}]}
        chunks.append(_event("response.output_item.done", {"output_index": 0, "item": done}))
        output.append(done)
    for offset, (call_id, name, args) in enumerate(calls, start=len(output)):
        arguments = json.dumps(args)
        call: dict[str, Any] = {
            "type": "function_call",
            "id": f"fc_{offset}",
            "call_id": call_id,
            "name": name,
        }
        chunks.append(
            _event("response.output_item.added", {"output_index": offset, "item": {**call, "arguments": ""}})
        )
        for piece in _halves(arguments):
            delta = {"item_id": f"fc_{offset}", "output_index": offset, "delta": piece}
            chunks.append(_event("response.function_call_arguments.delta", delta))
        chunks.append(
            _event(
                "response.output_item.done",
                {"output_index": offset, "item": {**call, "arguments": arguments}},
            )
        )
        output.append({**call, "arguments": arguments})
    tokens = {
        "input_tokens": usage[0],
        "output_tokens": usage[1],
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens_details": {"reasoning_tokens": 0},
    }
    final = {"id": "resp_1", "model": model, "status": "completed", "output": output, "usage": tokens}
    chunks.append(_event("response.completed", {"type": "response.completed", "response": final}))
    return GatewayResponse(200, dict(_SSE_HEADERS), b"", chunks)


def anthropic_answer(
    text: str = "",
    calls: Calls | None = None,
    *,
    thinking: str = "",
    usage: tuple[int, int] = (10, 5),
    model: str = "scripted",
) -> GatewayResponse:
    """A streamed Messages API answer: optional signed thinking, text, then tool_use blocks."""
    calls = calls or []
    message: dict[str, Any] = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [],
        "stop_reason": None,
        "usage": {"input_tokens": usage[0], "output_tokens": 1},
    }
    chunks = [_event("message_start", {"type": "message_start", "message": message})]
    index = 0

    def block(start: dict[str, Any], deltas: list[dict[str, Any]]) -> None:
        nonlocal index
        chunks.append(
            _event(
                "content_block_start", {"type": "content_block_start", "index": index, "content_block": start}
            )
        )
        for delta in deltas:
            chunks.append(
                _event("content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta})
            )
        chunks.append(_event("content_block_stop", {"type": "content_block_stop", "index": index}))
        index += 1

    if thinking:
        block(
            {"type": "thinking", "thinking": "", "signature": ""},
            [
                {"type": "thinking_delta", "thinking": thinking},
                {"type": "signature_delta", "signature": "c2ln"},
            ],
        )
    if text:
        block({"type": "text", "text": ""}, [{"type": "text_delta", "text": p} for p in _halves(text)])
    for call_id, name, args in calls:
        pieces = [{"type": "input_json_delta", "partial_json": p} for p in ["", *_halves(json.dumps(args))]]
        block({"type": "tool_use", "id": call_id, "name": name, "input": {}}, pieces)
    stop = "tool_use" if calls else "end_turn"
    chunks.append(
        _event(
            "message_delta",
            {"type": "message_delta", "delta": {"stop_reason": stop}, "usage": {"output_tokens": usage[1]}},
        )
    )
    chunks.append(_event("message_stop", {"type": "message_stop"}))
    return GatewayResponse(200, dict(_SSE_HEADERS), b"", chunks)


__all__ = ["anthropic_answer", "responses_answer"]
