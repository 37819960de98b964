"""The Chat Completions wire format, without the SDK: request bodies out, stream chunks in.

:class:`RequestEncoder` writes the JSON body of a request and keeps each message's serialized
form, so a long conversation costs only its new messages on every round. :class:`ChunkTranslator`
folds the parsed stream chunks (split by :class:`~._openai_common.SSEDecoder`) into
:data:`~circle.domain.model.ModelEvent` values.

Rules for what the wire may carry and is ignored on purpose: choices other than index 0,
``logprobs``, ``obfuscation``, ``moderation``, ``reasoning_details`` (the text also comes as
``reasoning``), SSE comments and any unknown field.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import Iterable
from typing import Any

from circle.domain.endpoint_hints import request_keys
from circle.domain.errors import ModelStreamError, ProviderProtocolError
from circle.domain.messages import (
    DocumentPart,
    ImagePart,
    Message,
    Part,
    StopReason,
    TextPart,
    ToolResultPart,
    Usage,
)
from circle.domain.model import (
    Finished,
    ModelEvent,
    ModelRequest,
    ResponseIdentified,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
    ToolCallEnded,
    ToolCallStarted,
    ToolSpec,
    UsageReported,
)
from circle.domain.prefix import seen_length
from circle.domain.thinking import reasoning_effort

from ._openai_common import stream_error_status
from ._status_errors import error_text

Wire = dict[str, Any]

_STOP_REASONS = {
    "stop": StopReason.END,
    "tool_calls": StopReason.TOOL_USE,
    "function_call": StopReason.TOOL_USE,
    "length": StopReason.MAX_TOKENS,
    "content_filter": StopReason.FILTERED,
}


def _dumps(value: object) -> str:
    return json.dumps(value, separators=(",", ":"))


def _data_url(media_type: str, data: str) -> str:
    return f"data:{media_type};base64,{data}"


def _content_parts(parts: Iterable[Part]) -> list[Wire]:
    out: list[Wire] = []
    for part in parts:
        if isinstance(part, TextPart):
            out.append({"type": "text", "text": part.text})
        elif isinstance(part, ImagePart):
            out.append({"type": "image_url", "image_url": {"url": _data_url(part.media_type, part.data)}})
        elif isinstance(part, DocumentPart):
            file = {"filename": part.name or "document", "file_data": _data_url(part.media_type, part.data)}
            out.append({"type": "file", "file": file})
    return out


def message_to_wire(message: Message) -> list[Wire]:
    """The wire messages of one message: a tool message gives one per result; an answer with no
    text and no tool call (thinking alone, which this protocol never sends back) gives none."""
    if message.role == "assistant":
        calls = [
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
            for c in message.tool_calls
        ]
        if not calls and not message.text.strip():
            return []
        wire: Wire = {"role": "assistant", "content": message.text or (None if calls else "")}
        if calls:
            wire["tool_calls"] = calls
        return [wire]
    results = message.tool_results
    out: list[Wire] = [{"role": "tool", "tool_call_id": r.tool_call_id, "content": r.text} for r in results]
    media = [p for r in results for p in r.content if not isinstance(p, TextPart)]
    if media:  # tool messages carry text only: the images follow as a user message
        intro = TextPart(text="The tool results above included these attachments.")
        out.append({"role": "user", "content": _content_parts([intro, *media])})
    rest = [p for p in message.parts if not isinstance(p, ToolResultPart)]
    if len(rest) == 1 and isinstance(rest[0], TextPart):
        out.append({"role": "user", "content": rest[0].text})
    elif content := _content_parts(rest):
        out.append({"role": "user", "content": content})
    return out


def tools_to_wire(tools: Iterable[ToolSpec]) -> list[Wire]:
    return [
        {
            "type": "function",
            "function": {"name": t.name, "description": t.description, "parameters": t.parameters},
        }
        for t in tools
    ]


class RequestEncoder:
    """Writes request bodies, keeping the JSON of messages it has already written.

    Messages are frozen, so a message object always has the same JSON; the cache is keyed by
    ``id(message)`` and holds the message itself, which keeps the id valid while cached. The JSON
    of the last request's messages is kept in order, and the part of it a request begins with is
    reused without looking at those messages again (:func:`~circle.domain.prefix.seen_length`).

    Args:
        limit: how many messages to keep (least recently used go first).
    """

    def __init__(self, *, limit: int = 4096) -> None:
        self._limit = limit
        self._messages: OrderedDict[int, tuple[Message, str]] = OrderedDict()
        self._tools: tuple[tuple[ToolSpec, ...], str] = ((), "[]")
        self._system: tuple[str, str] = ("", "")
        self._joined: tuple[tuple[Message, ...], list[str]] = ((), [])
        """The last request's messages, and the JSON of each."""

    def _message(self, message: Message) -> str:
        key = id(message)
        cached = self._messages.get(key)
        if cached is not None and cached[0] is message:
            self._messages.move_to_end(key)
            return cached[1]
        text = ",".join(_dumps(wire) for wire in message_to_wire(message))
        self._messages[key] = (message, text)
        if len(self._messages) > self._limit:
            self._messages.popitem(last=False)
        return text

    def encode(self, request: ModelRequest, *, model: str) -> bytes:
        """The JSON body of a streamed ``/chat/completions`` request, without dropped parameters."""
        head: Wire = {"model": model, "stream": True, "stream_options": {"include_usage": True}}
        if request.max_output_tokens is not None:
            head["max_tokens"] = request.max_output_tokens
        if request.thinking:
            head["reasoning_effort"] = reasoning_effort(request.thinking)
        for key in request_keys(request.drop_parameters) - {"model", "stream"}:
            head.pop(key, None)
        pieces = [_dumps(head)[:-1]]
        if request.tools:
            if self._tools[0] != request.tools:
                self._tools = (request.tools, _dumps(tools_to_wire(request.tools)))
            pieces.append(',"tools":' + self._tools[1])
        if request.system and self._system[0] != request.system:
            self._system = (request.system, _dumps({"role": "system", "content": request.system}))
        joined = self._joined_messages(request.messages)
        messages = [self._system[1] if request.system else "", joined]
        pieces.append(',"messages":[' + ",".join(m for m in messages if m) + "]}")
        return "".join(pieces).encode()

    def _joined_messages(self, messages: tuple[Message, ...]) -> str:
        """The JSON of ``messages``, comma-joined; the last request's is reused where they agree."""
        seen, texts = self._joined
        known = seen_length(seen, messages)
        texts = texts[:known]
        texts += [self._message(m) for m in messages[known:]]
        self._joined = (messages, texts)
        return ",".join(filter(None, texts))


def _usage(raw: Wire) -> Usage:
    details = raw.get("prompt_tokens_details")
    cached = details.get("cached_tokens") if isinstance(details, dict) else None
    cached = int(cached or raw.get("prompt_cache_hit_tokens") or 0)
    prompt = int(raw.get("prompt_tokens") or 0)
    output = int(raw.get("completion_tokens") or 0)
    return Usage(input=max(prompt - cached, 0), output=output, cache_read=cached)


class ChunkTranslator:
    """Folds Chat Completions stream chunks (parsed JSON) into model events."""

    def __init__(self) -> None:
        self._index_of_wire: dict[int, int] = {}
        self._index_of_id: dict[str, int] = {}
        self._started = 0
        self._stop: StopReason | None = None
        self._model: str | None = None
        self._response_id: str | None = None

    def feed(self, chunk: object, *, event: str | None = None) -> list[ModelEvent]:
        """The events of one chunk; an error chunk before the finish raises ``ModelError``."""
        if not isinstance(chunk, dict):
            raise ProviderProtocolError(f"the endpoint sent a chunk that is not an object: {chunk!r:.200}")
        error = chunk.get("error")
        if (error or event == "error") and self._stop is None:
            raise ModelStreamError(
                f"the endpoint failed mid-answer: {error_text(error or chunk)}",
                status=stream_error_status(error or chunk),
            )
        events: list[ModelEvent] = []
        if isinstance(model := chunk.get("model"), str) and model:
            self._model = model
        if isinstance(response_id := chunk.get("id"), str) and response_id and self._response_id is None:
            self._response_id = response_id
            events.append(ResponseIdentified(response_id))
        for choice in chunk.get("choices") or ():
            if isinstance(choice, dict) and choice.get("index") in (0, None):
                self._choice(choice, events)
        usage = chunk.get("usage")
        groq = chunk.get("x_groq")
        if not isinstance(usage, dict) and isinstance(groq, dict):
            usage = groq.get("usage")
        if isinstance(usage, dict):
            events.append(UsageReported(usage=_usage(usage)))
        return events

    def finish(self) -> list[ModelEvent]:
        """``Finished`` when the stream said why it stopped; nothing for a cut stream."""
        return [] if self._stop is None else [Finished(stop_reason=self._stop, model=self._model)]

    def _choice(self, choice: Wire, events: list[ModelEvent]) -> None:
        delta = choice.get("delta") or choice.get("message") or {}
        if isinstance(delta, dict):
            reasoning = delta.get("reasoning_content") or delta.get("reasoning")
            if isinstance(reasoning, str) and reasoning:
                events.append(ThinkingDelta(text=reasoning))
            self._content(delta.get("content"), events)
            if isinstance(refusal := delta.get("refusal"), str) and refusal:
                events.append(TextDelta(text=refusal))
            for call in delta.get("tool_calls") or ():
                if isinstance(call, dict):
                    self._tool_call(call, events)
        finish = choice.get("finish_reason")
        if isinstance(finish, str) and finish:
            if self._stop is None:
                events += [ToolCallEnded(index=i) for i in range(self._started)]
            self._stop = _STOP_REASONS.get(finish, StopReason.END)

    def _content(self, content: object, events: list[ModelEvent]) -> None:
        if isinstance(content, str):
            if content:
                events.append(TextDelta(text=content))
            return
        for item in content if isinstance(content, list) else ():  # Mistral: a list of typed chunks
            if not isinstance(item, dict):
                continue
            if item.get("type") == "text" and isinstance(text := item.get("text"), str) and text:
                events.append(TextDelta(text=text))
            elif item.get("type") == "thinking":
                thinking = item.get("thinking")
                pieces = thinking if isinstance(thinking, list) else [{"text": thinking}]
                texts = [p.get("text") for p in pieces if isinstance(p, dict)]
                if text := "".join(t for t in texts if isinstance(t, str)):
                    events.append(ThinkingDelta(text=text))

    def _tool_call(self, call: Wire, events: list[ModelEvent]) -> None:
        wire = call.get("index") if isinstance(call.get("index"), int) else None
        call_id = call.get("id") if isinstance(call.get("id"), str) else ""
        if wire is not None:
            known = self._index_of_wire.get(wire)
        else:  # no index: a fragment continues the last call
            known = self._started - 1 if self._started else None
        function: Wire = call["function"] if isinstance(call.get("function"), dict) else {}
        if call_id and call_id in self._index_of_id:
            index = self._index_of_id[call_id]
        elif known is not None and not call_id:
            index = known
        else:  # a new call; also a new id under a known index (servers that reuse index 0)
            index, self._started = self._started, self._started + 1
            call_id = call_id or f"call_{index}"
            self._index_of_id[call_id] = index
            name = function.get("name")
            name = name if isinstance(name, str) else ""
            events.append(ToolCallStarted(index=index, id=call_id, name=name))
        if wire is not None:
            self._index_of_wire[wire] = index
        arguments = function.get("arguments")
        if isinstance(arguments, dict):
            arguments = _dumps(arguments)
        if isinstance(arguments, str) and arguments:
            events.append(ToolCallDelta(index=index, arguments=arguments))


__all__ = [
    "ChunkTranslator",
    "RequestEncoder",
    "message_to_wire",
    "tools_to_wire",
]
