"""Events and messages as JSON objects, in pi's RPC shapes (../fixtures/rpc), one per line."""

from __future__ import annotations

import json
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
