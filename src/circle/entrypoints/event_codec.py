"""Events and messages as JSON objects, in pi's RPC shapes (../fixtures/rpc), one per line."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import assert_never

from pydantic import JsonValue

from circle.application.events import (
    AgentEvent,
    BudgetWarned,
    CompactionEnded,
    CompactionStarted,
    ErrorReported,
    MessageEnded,
    MessageStarted,
    MessageUpdated,
    RetryScheduled,
    Steered,
    SubagentEvent,
    ToolExecutionEnded,
    ToolExecutionStarted,
    TurnEnded,
    TurnStarted,
)
from circle.domain.messages import (
    DocumentPart,
    ImagePart,
    Message,
    StopReason,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolResultPart,
    Usage,
)

_STOP_NAMES = {
    StopReason.END: "stop",
    StopReason.TOOL_USE: "toolUse",
    StopReason.MAX_TOKENS: "length",
    StopReason.FILTERED: "filtered",
    StopReason.EMPTY: "empty",
    StopReason.INCOMPLETE: "incomplete",
}


def usage_json(usage: Usage) -> dict[str, JsonValue]:
    return {
        "input": usage.input,
        "output": usage.output,
        "cache_read": usage.cache_read,
        "cache_write": usage.cache_write,
    }


def _content(part: TextPart | ThinkingPart | ImagePart | DocumentPart | ToolCallPart) -> dict[str, JsonValue]:
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


def message_json(message: Message) -> dict[str, JsonValue]:
    if message.role == "tool":
        result: ToolResultPart = message.tool_results[0]
        return {
            "role": "toolResult",
            "toolCallId": result.tool_call_id,
            "toolName": result.tool_name,
            "content": [_content(p) for p in result.content],
            "isError": result.is_error,
        }
    content: list[JsonValue] = [_content(p) for p in message.parts if not isinstance(p, ToolResultPart)]
    if message.role == "user":
        return {"role": "user", "content": content}
    data: dict[str, JsonValue] = {"role": "assistant", "content": content, "model": message.model}
    if message.usage is not None:
        data["usage"] = usage_json(message.usage)
    if message.stop_reason is not None:
        data["stopReason"] = _STOP_NAMES[message.stop_reason]
    return data


def event_json(event: AgentEvent) -> dict[str, JsonValue]:
    match event:
        case TurnStarted(session_id=session_id, message=message):
            return {"type": "turn_start", "message": message, "session_id": session_id}
        case MessageStarted(message=message, role=role):
            body = message_json(message) if message else {"role": role, "content": []}
            return {"type": "message_start", "message": body}
        case MessageUpdated(kind=kind, delta=delta, content_index=index):
            update: dict[str, JsonValue] = {"type": f"{kind}_delta", "contentIndex": index, "delta": delta}
            return {"type": "message_update", "assistantMessageEvent": update}
        case MessageEnded(message=message, checkpoint_id=checkpoint_id):
            return {"type": "message_end", "message": message_json(message), "checkpoint_id": checkpoint_id}
        case ToolExecutionStarted(tool_call_id=call_id, tool_name=name, args=args):
            return {"type": "tool_execution_start", "toolCallId": call_id, "toolName": name, "args": args}
        case ToolExecutionEnded(tool_call_id=call_id, tool_name=name, result=text, is_error=is_error):
            result: dict[str, JsonValue] = {"content": [{"type": "text", "text": text}], "details": {}}
            return {
                "type": "tool_execution_end",
                "toolCallId": call_id,
                "toolName": name,
                "result": result,
                "isError": is_error,
            }
        case TurnEnded():
            data: dict[str, JsonValue] = {
                "type": "turn_end",
                "session_id": event.session_id,
                "answer": event.answer,
                "usage": usage_json(event.usage),
                "cost": {"turn": event.cost, "session": event.session_cost},
            }
            if event.incomplete:
                data["incomplete"] = True
            if event.aborted:
                data["aborted"] = True
            if event.error is not None:
                data["error"] = {"code": event.error_code, "message": event.error}
            return data
        case Steered(message=message, session_id=session_id):
            return {"type": "steer", "message": message, "session_id": session_id}
        case BudgetWarned(spent=spent, limit=limit, message=message):
            return {"type": "budget_warning", "spent_usd": spent, "limit_usd": limit, "message": message}
        case RetryScheduled(kind=kind, attempt=attempt, max_attempts=most, delay_ms=delay, error=error):
            return {
                "type": "retry",
                "kind": kind,
                "attempt": attempt,
                "max_attempts": most,
                "delay_ms": delay,
                "error": error,
            }
        case ErrorReported(code=code, message=message):
            return {"type": "error", "code": code, "message": message}
        case CompactionStarted(session_id=session_id, reason=reason):
            return {"type": "compaction_start", "reason": reason, "session_id": session_id}
        case CompactionEnded():
            return _compaction_end(event)
        case SubagentEvent(run_id=run_id, subagent_type=kind, description=description, event=inner):
            subagent: dict[str, JsonValue] = {
                "id": run_id,
                "type": kind,
                "description": description,
                "parentToolCallId": event.parent_call_id,
            }
            return {"type": "subagent", "subagent": subagent, "event": event_json(inner)}
        case _:
            assert_never(event)


def _compaction_end(event: CompactionEnded) -> dict[str, JsonValue]:
    data: dict[str, JsonValue] = {
        "type": "compaction_end",
        "reason": event.reason,
        "session_id": event.session_id,
        "summarized": event.summarized,
        "kept": event.kept,
        "tokens_before": event.tokens_before,
        "tokens_after": event.tokens_after,
        "summary_checkpoint_id": event.summary_checkpoint_id,
        "history_file": event.history_file,
        "will_retry": event.will_retry,
    }
    if event.error is not None:
        data["error"] = event.error
    return data


def dumps(data: dict[str, JsonValue]) -> str:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


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
        metadata["stop_reason"] = _STOP_NAMES[message.stop_reason]
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
