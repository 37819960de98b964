"""Events and messages as JSON objects, in pi's RPC shapes (../fixtures/rpc), one per line."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping, Sequence
from typing import assert_never

from pydantic import JsonValue

from circle.application.events import (
    AgentEnded,
    AgentEvent,
    AgentStarted,
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
    ToolExecutionUpdated,
    TurnEnded,
    TurnStarted,
)
from circle.application.runtime import Runtime
from circle.application.session import AgentSession
from circle.domain.catalog import Prices as ModelPrices
from circle.domain.messages import (
    Message,
    StopReason,
    TextPart,
    ThinkingPart,
    ToolCallPart,
)

from ._compaction_json import compaction_end_json, compaction_result
from ._langchain_json import langchain_json, langchain_system
from ._message_json import API_NAMES, Origin, content_json, message_json, tool_details, usage_json
from ._stop_names import STOP_NAMES


class EventEncoder:
    """Agent events as pi's event lines, one list per event.

    A streamed answer becomes what pi's clients expect: ``message_start`` then a ``start`` update;
    each part's ``*_start``, ``*_delta`` and ``*_end`` with the answer so far (``partial``); then
    ``done``, or ``error`` for an answer cut by an abort or a failure, before ``message_end``.
    A message keeps the ``timestamp`` of its start. ``turn_end`` also carries pi's ``message`` (the
    turn's last answer, null when none came) and ``toolResults`` (the results after it).
    """

    def __init__(self, origin: Origin | None = None, *, clock: Callable[[], float] = time.time) -> None:
        self.origin = origin or Origin()
        self.clock = clock
        self._started: int | None = None
        self._retrying = 0
        """The attempt of the retry waited on or under way (0: none), for ``auto_retry_end``."""
        self._stamps: dict[int, int] = {}
        """Each message's ``timestamp`` by the message's id(), for ``agent_end``'s messages."""
        self._answer: JsonValue = None
        self._results: list[JsonValue] = []
        """The turn's last answer and the tool results after it, for pi's ``turn_end`` fields."""
        self._held: list[dict[str, JsonValue]] | None = None
        """An answer's ``message_start`` (and ``start``) until the next event: written before it,
        unless the answer fails first, when pi's ``message_start`` carries the failed answer."""
        self._open_calls: dict[int, int | None] = {}
        """The answer's tool calls still streaming: position in its parts -> the wire's index."""
        self._last_ended: int | None = None
        self._unstored: list[tuple[int | None, JsonValue]] = []
        """Failed answers (never stored) with the id() of the message ended before each, so that
        ``agent_end`` lists them where they came, as pi does."""

    def lines(self, event: AgentEvent) -> list[dict[str, JsonValue]]:
        """The lines ``event`` writes (an answer's ``message_start`` waits for the next event)."""
        if self._held is None or (isinstance(event, MessageEnded) and _failed(event.message)):
            return self._lines(event)
        held, self._held = self._held, None
        return [*held, *self._lines(event)]

    def _lines(self, event: AgentEvent) -> list[dict[str, JsonValue]]:
        origin = self.origin
        match event:
            case MessageStarted(role=role):
                self._started = round(self.clock() * 1000)
                first = event_json(event, origin=origin, timestamp=self._started)
                if role != "assistant":
                    return [first]
                self._open_calls = {}
                self._held = [first, self._update({"type": "start"}, first["message"])]
                return []
            case MessageUpdated():
                self._track_calls(event)
                return [
                    _update_json(event, origin=origin, timestamp=self._stamp(), open_calls=self._open_calls)
                ]
            case MessageEnded():
                return self._ended(event)
            case RetryScheduled():
                self._retrying = event.attempt
                started: dict[str, JsonValue] = {
                    "type": "auto_retry_start",
                    "attempt": event.attempt,
                    "maxAttempts": event.max_attempts,
                    "delayMs": event.delay_ms,
                    "errorMessage": event.error,
                }
                return [event_json(event), started]
            case AgentEnded(session_id=session_id, messages=messages):
                return [
                    {"type": "agent_end", "messages": self._run_messages(messages), "session_id": session_id}
                ]
            case TurnStarted():
                self._answer, self._results = None, []
                return [event_json(event, origin=origin)]
            case TurnEnded(error=error, aborted=aborted):
                final = error or ("Retry cancelled" if aborted else "the request failed")
                ended = self._retry_end(success=False, final_error=final) if self._retrying else []
                line = event_json(event, origin=origin)
                line["message"], line["toolResults"] = self._answer, list(self._results)
                return [*ended, line]
            case _:
                return [event_json(event, origin=origin)]

    def _retry_end(self, *, success: bool, final_error: str | None = None) -> list[dict[str, JsonValue]]:
        """pi's ``auto_retry_end`` once the retried request answered or the turn gave up."""
        if not self._retrying:
            return []
        ended: dict[str, JsonValue] = {
            "type": "auto_retry_end",
            "success": success,
            "attempt": self._retrying,
        }
        if final_error is not None:
            ended["finalError"] = final_error
        self._retrying = 0
        return [ended]

    def _ended(self, event: MessageEnded) -> list[dict[str, JsonValue]]:
        """A message's ``message_end``; an answer's ``done`` or ``error`` update before it, and
        pi's ``message_start`` of a failed answer whose start was still held."""
        origin, message = self.origin, event.message
        self._stamps[id(message)] = self._stamp()
        last = event_json(event, origin=origin, timestamp=self._stamps[id(message)])
        self._started = None
        body = last["message"]
        if message.role == "tool":
            self._results.append(body)
        if message.role != "assistant":
            self._last_ended = id(message)
            return [last]
        self._answer, self._results = body, []
        if _failed(message):
            if event.checkpoint_id is None:
                self._unstored.append((self._last_ended, body))
            reason = STOP_NAMES[message.stop_reason or StopReason.ERROR]
            closing: dict[str, JsonValue] = {"type": "error", "reason": reason, "error": body}
            held, self._held = self._held, None
            start: dict[str, JsonValue] = {"type": "message_start", "message": body}
            opening = [start] if held is not None else []
            return [*opening, self._update(closing, body), last]
        self._last_ended = id(message)
        reason = STOP_NAMES[message.stop_reason or StopReason.END]
        closing = {"type": "done", "reason": reason, "message": body}
        return [self._update(closing, body), last, *self._retry_end(success=True)]

    def _run_messages(self, messages: Sequence[Message]) -> list[JsonValue]:
        """The run's messages in pi's shape, with the failed answers never stored where they came."""
        stamps, self._stamps = self._stamps, {}
        unstored, self._unstored, self._last_ended = self._unstored, [], None
        listed: list[JsonValue] = [body for after, body in unstored if after is None]
        placed: set[int | None] = {None}
        for message in messages:
            listed.append(message_json(message, origin=self.origin, timestamp=stamps.get(id(message))))
            listed += [body for after, body in unstored if after == id(message)]
            placed.add(id(message))
        return listed + [body for after, body in unstored if after not in placed]

    def _track_calls(self, event: MessageUpdated) -> None:
        if event.kind != "toolcall":
            return
        if event.phase == "start":
            self._open_calls[event.content_index] = event.stream_index
        elif event.phase == "end":
            self._open_calls.pop(event.content_index, None)

    def _stamp(self) -> int:
        return self._started if self._started is not None else round(self.clock() * 1000)

    @staticmethod
    def _update(update: dict[str, JsonValue], message: JsonValue) -> dict[str, JsonValue]:
        if update["type"] == "start":
            update["partial"] = message
        return {"type": "message_update", "message": message, "assistantMessageEvent": update}


def event_json(
    event: AgentEvent, *, origin: Origin | None = None, timestamp: int | None = None
) -> dict[str, JsonValue]:
    """The main line of ``event`` (see :class:`EventEncoder` for the whole sequence pi expects)."""
    match event:
        case AgentStarted(session_id=session_id):
            return {"type": "agent_start", "session_id": session_id}
        case AgentEnded(session_id=session_id, messages=messages):
            listed: list[JsonValue] = [message_json(m, origin=origin) for m in messages]
            return {"type": "agent_end", "messages": listed, "session_id": session_id}
        case TurnStarted(session_id=session_id, message=message):
            return {"type": "turn_start", "message": message, "session_id": session_id}
        case MessageStarted(message=message, role=role):
            if message is None:
                model = origin.model() if origin is not None and role == "assistant" else None
                message = Message(role=role, parts=(), model=model)
            return {
                "type": "message_start",
                "message": message_json(message, timestamp=timestamp, origin=origin),
            }
        case MessageUpdated():
            return _update_json(event, origin=origin, timestamp=timestamp)
        case MessageEnded(message=message, checkpoint_id=checkpoint_id):
            body = message_json(message, timestamp=timestamp, origin=origin)
            return {"type": "message_end", "message": body, "checkpoint_id": checkpoint_id}
        case ToolExecutionStarted(tool_call_id=call_id, tool_name=name, args=args):
            return {"type": "tool_execution_start", "toolCallId": call_id, "toolName": name, "args": args}
        case ToolExecutionUpdated(tool_call_id=call_id, tool_name=name, args=args, partial=partial):
            told: list[JsonValue] = [{"type": "text", "text": partial}] if partial else []
            so_far: dict[str, JsonValue] = {"content": told, "details": {}}
            return {
                "type": "tool_execution_update",
                "toolCallId": call_id,
                "toolName": name,
                "args": args,
                "partialResult": so_far,
            }
        case ToolExecutionEnded(tool_call_id=call_id, tool_name=name, result=text, is_error=is_error):
            details = tool_details(event.diff)
            result: dict[str, JsonValue] = {"content": [{"type": "text", "text": text}], "details": details}
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
            if event.estimated:  # of usage's output tokens, those guessed (no endpoint counted them)
                data["estimated_output_tokens"] = event.estimated
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
            return compaction_end_json(event)
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


def _failed(message: Message) -> bool:
    return message.role == "assistant" and message.stop_reason in (StopReason.ABORTED, StopReason.ERROR)


def _update_json(
    event: MessageUpdated,
    *,
    origin: Origin | None,
    timestamp: int | None,
    open_calls: Mapping[int, int | None] | None = None,
) -> dict[str, JsonValue]:
    update: dict[str, JsonValue] = {
        "type": f"{event.kind}_{event.phase}",
        "contentIndex": event.content_index,
    }
    partial = event.partial
    if event.phase == "delta":
        update["delta"] = event.delta
    elif event.phase == "end" and partial is not None and event.content_index < len(partial.parts):
        part = partial.parts[event.content_index]
        if isinstance(part, ToolCallPart):
            update["toolCall"] = content_json(part)
        elif isinstance(part, TextPart | ThinkingPart):
            update["content"] = part.text
    data: dict[str, JsonValue] = {"type": "message_update"}
    if partial is not None:
        body = message_json(partial, timestamp=timestamp, origin=origin, open_calls=open_calls)
        data["message"] = body
        update["partial"] = body
    data["assistantMessageEvent"] = update
    return data


def dumps(data: dict[str, JsonValue]) -> str:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def session_origin(runtime: Runtime, session: Callable[[], AgentSession]) -> Origin:
    """The origin of the answers in ``runtime``'s current session (``session`` gives it): the api
    of the protocol, the provider the catalog names (else the protocol's family), the prices the
    session counts with."""
    protocol = runtime.options.protocol
    family = "anthropic" if protocol == "anthropic" else "openai"

    def provider(model: str | None) -> str:
        return runtime.ports.catalog.lookup(model or runtime.options.model).provider or family

    def prices(model: str | None) -> ModelPrices | None:
        return session().loop.costs.prices_for(model)

    def model() -> str | None:
        return session().loop.settings.model

    return Origin(api=API_NAMES.get(protocol, protocol), provider=provider, prices=prices, model=model)


__all__ = [
    "API_NAMES",
    "EventEncoder",
    "Origin",
    "compaction_result",
    "dumps",
    "event_json",
    "langchain_json",
    "langchain_system",
    "message_json",
    "session_origin",
    "usage_json",
]
