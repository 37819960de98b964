"""Messages as LangChain message dicts (what ``messages_to_dict`` writes), for ``get_messages``."""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import JsonValue

from circle.domain.messages import (
    DocumentPart,
    ImagePart,
    Message,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolResultPart,
)

from ._stop_names import STOP_NAMES


def langchain_json(message: Message) -> list[dict[str, JsonValue]]:
    """``message`` as LangChain message dicts (``{"type", "data"}``, what ``messages_to_dict``
    writes): a person's as ``human``, an answer as ``ai`` (tool calls and token usage included),
    each tool result as a ``tool`` message of its own."""
    if message.role == "tool":
        return [
            _langchain(
                "tool",
                _lc_content(r.content),
                tool_call_id=r.tool_call_id,
                name=r.tool_name,
                artifact=None,
                status="error" if r.is_error else "success",
            )
            for r in message.tool_results
        ]
    content = _lc_content([p for p in message.parts if not isinstance(p, ToolCallPart | ToolResultPart)])
    if message.role == "user":
        return [_langchain("human", content, example=False)]
    calls: list[JsonValue] = [
        {"name": c.name, "args": c.parsed_arguments() or {}, "id": c.id, "type": "tool_call"}
        for c in message.tool_calls
    ]
    usage: JsonValue = None
    if message.usage is not None:
        u = message.usage
        usage = {
            "input_tokens": u.input + u.cache_read + u.cache_write,
            "output_tokens": u.output,
            "total_tokens": u.input + u.cache_read + u.cache_write + u.output,
            "input_token_details": {"cache_read": u.cache_read, "cache_creation": u.cache_write},
        }
    metadata: dict[str, JsonValue] = {"model_name": message.model}
    if message.stop_reason is not None:
        metadata["stop_reason"] = STOP_NAMES[message.stop_reason]
    return [
        _langchain(
            "ai",
            content,
            response_metadata=metadata,
            example=False,
            tool_calls=calls,
            invalid_tool_calls=[],
            usage_metadata=usage,
        )
    ]


def langchain_system(text: str) -> dict[str, JsonValue]:
    return _langchain("system", text)


def _langchain(kind: str, content: JsonValue, **fields: JsonValue) -> dict[str, JsonValue]:
    data: dict[str, JsonValue] = {
        "content": content,
        "additional_kwargs": {},
        "response_metadata": {},
        "type": kind,
        "name": None,
        "id": None,
    }
    data.update(fields)
    return {"type": kind, "data": data}


def _lc_content(parts: Sequence[object]) -> JsonValue:
    """A plain string when every part is text, else LangChain's content blocks."""
    if all(isinstance(p, TextPart) for p in parts):
        return "".join(p.text for p in parts if isinstance(p, TextPart))
    blocks: list[JsonValue] = []
    for part in parts:
        match part:
            case TextPart(text=text):
                blocks.append({"type": "text", "text": text})
            case ThinkingPart(text=text):
                blocks.append({"type": "thinking", "thinking": text})
            case ImagePart(media_type=media, data=data):
                blocks.append({"type": "image_url", "image_url": {"url": f"data:{media};base64,{data}"}})
            case DocumentPart(media_type=media, data=data, name=name):
                blocks.append(
                    {
                        "type": "file",
                        "source_type": "base64",
                        "mime_type": media,
                        "data": data,
                        "filename": name,
                    }
                )
    return blocks


__all__ = ["langchain_json", "langchain_system"]
