"""Messages and usage as JSON objects in pi's shapes: ``message_json`` for events, ``usage_json``
with Circle's token names and pi's beside them."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import assert_never

from pydantic import JsonValue

from circle.domain.catalog import Prices as ModelPrices
from circle.domain.messages import (
    DocumentPart,
    ImagePart,
    Message,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolResultPart,
    Usage,
)
from circle.domain.partial_json import partial_object
from circle.domain.pricing import CostParts, cost_parts

from ._stop_names import STOP_NAMES

Prices = Callable[[str | None], ModelPrices | None]
"""A model's prices (None when unknown), by its id."""


def _openai(_model: str | None) -> str:
    return "openai"


def _unpriced(_model: str | None) -> ModelPrices | None:
    return None


def _no_model() -> str | None:
    return None


@dataclass(frozen=True, slots=True)
class Origin:
    """Where answers come from, as pi names it: the wire ``api``, the ``provider`` and the prices."""

    api: str = "openai-completions"
    provider: Callable[[str | None], str] = _openai
    prices: Prices = _unpriced
    model: Callable[[], str | None] = _no_model
    """The model asked now: an answer's ``model`` before its first chunk names it."""


API_NAMES = {"anthropic": "anthropic-messages", "openai-chat": "openai-completions"}
"""Circle's protocol names -> pi's ``api`` names (``openai-responses`` is the same in both)."""


def usage_json(
    usage: Usage, prices: ModelPrices | None = None, *, priced: CostParts | None = None
) -> dict[str, JsonValue]:
    """Tokens in Circle's names and in pi's beside them (``cacheRead``, ``totalTokens``, ``cost``
    in US dollars, zero where the price is unknown). ``priced`` gives the cost when it is known
    already (a session's answers, each at its own model's prices); else ``prices`` make it."""
    parts = priced or cost_parts(usage, prices) or CostParts()
    return {
        "input": usage.input,
        "output": usage.output,
        "cache_read": usage.cache_read,
        "cache_write": usage.cache_write,
        "cacheRead": usage.cache_read,
        "cacheWrite": usage.cache_write,
        "totalTokens": usage.total,
        "cost": {
            "input": parts.input,
            "output": parts.output,
            "cacheRead": parts.cache_read,
            "cacheWrite": parts.cache_write,
            "total": parts.total,
        },
    }


def content_json(
    part: TextPart | ThinkingPart | ImagePart | DocumentPart | ToolCallPart,
) -> dict[str, JsonValue]:
    match part:
        case TextPart(text=text):
            return {"type": "text", "text": text}
        case ThinkingPart(text=text):
            return {"type": "thinking", "thinking": text}
        case ImagePart(media_type=media, data=data):
            return {"type": "image", "mimeType": media, "data": data}
        case DocumentPart(media_type=media, data=data, name=name):
            return {"type": "document", "mimeType": media, "data": data, "name": name}
        case ToolCallPart(id=call_id, name=name):
            args: JsonValue = part.parsed_arguments() or {}
            return {"type": "toolCall", "id": call_id, "name": name, "arguments": args}
        case _:
            assert_never(part)


def tool_details(diff: str | None) -> dict[str, JsonValue]:
    """A tool result's ``details`` in pi's edit tool's shape: the change's unified ``diff`` and the
    ``firstChangedLine`` in the new file (empty for a call that changed no file)."""
    if diff is None:
        return {}
    details: dict[str, JsonValue] = {"diff": diff}
    if (line := _first_changed_line(diff)) is not None:
        details["firstChangedLine"] = line
    return details


def _first_changed_line(diff: str) -> int | None:
    line: int | None = None
    for text in diff.splitlines():
        if text.startswith("@@"):
            match = _HUNK.match(text)
            line = int(match.group(1)) if match else None
        elif line is None or text.startswith(("---", "+++")):
            continue
        elif text.startswith(("+", "-")):
            return max(line, 1)
        else:
            line += 1
    return None


_HUNK = re.compile(r"@@ -\d+(?:,\d+)? \+(\d+)")


STREAM_FIELDS: dict[str, tuple[str, str | None]] = {
    "openai-completions": ("partialArgs", "streamIndex"),
    "anthropic-messages": ("partialJson", "index"),
    "openai-responses": ("partialJson", None),
}
"""pi's names, by ``api``, for a streaming tool call's raw arguments so far and its index in the
wire's stream (pi's Responses adapter keeps no index)."""


def message_json(
    message: Message,
    *,
    timestamp: int | None = None,
    origin: Origin | None = None,
    open_calls: Mapping[int, int | None] | None = None,
) -> dict[str, JsonValue]:
    """``message`` in pi's shape; ``timestamp`` (ms since the epoch) and ``origin`` when known.

    ``open_calls`` names the tool calls of a partial answer still streaming (their position in
    its parts -> the wire's index of each): those carry the arguments read so far and pi's
    scratch fields, the raw text so far and the index (see :data:`STREAM_FIELDS`).
    """
    origin = origin or Origin()
    data = _message_body(message, origin)
    if open_calls and isinstance(content := data.get("content"), list):
        _mark_open_calls(content, message, open_calls, api=origin.api)
    if timestamp is not None:
        data["timestamp"] = timestamp
    return data


def _mark_open_calls(
    content: list[JsonValue], message: Message, open_calls: Mapping[int, int | None], *, api: str
) -> None:
    raw_name, index_name = STREAM_FIELDS.get(api, STREAM_FIELDS["openai-completions"])
    for position, stream_index in open_calls.items():
        if position >= min(len(content), len(message.parts)):
            continue
        part, block = message.parts[position], content[position]
        if not isinstance(part, ToolCallPart) or not isinstance(block, dict):
            continue
        block["arguments"] = partial_object(part.arguments)
        block[raw_name] = part.arguments
        if index_name is not None and stream_index is not None:
            block[index_name] = stream_index


def _message_body(message: Message, origin: Origin) -> dict[str, JsonValue]:
    if message.role == "tool":
        result: ToolResultPart = message.tool_results[0]
        return {
            "role": "toolResult",
            "toolCallId": result.tool_call_id,
            "toolName": result.tool_name,
            "content": [content_json(p) for p in result.content],
            "isError": result.is_error,
            "details": tool_details(result.diff),
        }
    content: list[JsonValue] = [content_json(p) for p in message.parts if not isinstance(p, ToolResultPart)]
    if message.role == "user":
        return {"role": "user", "content": content}
    data: dict[str, JsonValue] = {
        "role": "assistant",
        "content": content,
        "api": origin.api,
        "provider": origin.provider(message.model),
        "model": message.model,
        "usage": usage_json(message.usage or Usage(), origin.prices(message.model)),
    }
    if message.response_id is not None:
        data["responseId"] = message.response_id
    if message.stop_reason is not None:
        data["stopReason"] = STOP_NAMES[message.stop_reason]
    if message.error is not None:
        data["errorMessage"] = message.error
    return data


__all__ = [
    "API_NAMES",
    "STREAM_FIELDS",
    "Origin",
    "Prices",
    "content_json",
    "message_json",
    "tool_details",
    "usage_json",
]
