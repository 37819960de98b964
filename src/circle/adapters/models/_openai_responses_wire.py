"""The Responses API wire format, without the SDK: request bodies out, stream events in.

:class:`RequestEncoder` writes the JSON body of a ``/responses`` request, keeping each message's
serialized items so a long conversation costs only its new messages. :class:`EventTranslator`
folds parsed stream events into :data:`~circle.domain.model.ModelEvent` values; a non-streamed
answer goes through it as the items its stream would have carried, so both paths meet there.

Reasoning items: a :class:`~circle.domain.messages.ThinkingPart` with a ``provider_id`` is one,
its ``signature`` the encrypted content. The API refuses a reasoning item not followed by the
item it produced, so one is sent only when the next part of its answer is text or a tool call:
one ending an (incomplete) answer, or followed by an item Circle does not keep (a hosted web
search), stays out. Thinking without a ``provider_id`` (another protocol's) is not sent.

Ignored on purpose: event types :meth:`EventTranslator.feed` does not handle (``created``,
``in_progress``, ``queued``, ``content_part.*``, ``reasoning_summary_part.*``, the ``*.done`` of
deltas, hosted tool progress such as ``web_search_call.*``, annotations), output items other
than messages, reasoning and function calls, ``phase``, ``obfuscation``, ``logprobs``,
``[DONE]`` and unknown fields.
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
    ThinkingPart,
    ToolCallPart,
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
from circle.domain.thinking import reasoning_effort

from ._openai_common import stream_error_status
from ._status_errors import error_text

Wire = dict[str, Any]

_ENCRYPTED_REASONING = "reasoning.encrypted_content"
_INCOMPLETE_REASONS = {"max_output_tokens": StopReason.MAX_TOKENS, "content_filter": StopReason.FILTERED}
_ATTACHMENTS_INTRO = "The tool results above included these attachments."


def _dumps(value: object) -> str:
    return json.dumps(value, separators=(",", ":"))


def _data_url(media_type: str, data: str) -> str:
    return f"data:{media_type};base64,{data}"


def _user_content(parts: Iterable[Part]) -> list[Wire]:
    out: list[Wire] = []
    for part in parts:
        if isinstance(part, TextPart):
            out.append({"type": "input_text", "text": part.text})
        elif isinstance(part, ImagePart):
            out.append({"type": "input_image", "image_url": _data_url(part.media_type, part.data)})
        elif isinstance(part, DocumentPart):
            url = _data_url(part.media_type, part.data)
            out.append({"type": "input_file", "filename": part.name or "document", "file_data": url})
    return out


def _reasoning_item(part: ThinkingPart, provider_id: str) -> Wire:
    summary = [{"type": "summary_text", "text": part.text}] if part.text else []
    item: Wire = {"type": "reasoning", "id": provider_id, "summary": summary}
    if part.signature:
        item["encrypted_content"] = part.signature
    return item


def _is_item(part: Part | None) -> bool:
    """True for the parts that become an output item a reasoning item can precede."""
    return isinstance(part, ToolCallPart) or (isinstance(part, TextPart) and bool(part.text))


def _assistant_items(parts: tuple[Part, ...]) -> list[Wire]:
    items: list[Wire] = []
    for index, part in enumerate(parts):
        if isinstance(part, ThinkingPart):
            following = parts[index + 1] if index + 1 < len(parts) else None
            if part.provider_id and _is_item(following):
                items.append(_reasoning_item(part, part.provider_id))
        elif isinstance(part, TextPart) and part.text:
            content = [{"type": "output_text", "text": part.text}]
            items.append({"type": "message", "role": "assistant", "content": content})
        elif isinstance(part, ToolCallPart):
            call: Wire = {
                "type": "function_call",
                "call_id": part.id,
                "name": part.name,
                "arguments": part.arguments or "{}",
            }
            if part.provider_id:
                call["id"] = part.provider_id
            items.append(call)
    return items


def message_to_items(message: Message) -> list[Wire]:
    """The input items of one message, in the order of its parts."""
    if message.role == "assistant":
        return _assistant_items(message.parts)
    results = message.tool_results
    items: list[Wire] = [
        {"type": "function_call_output", "call_id": r.tool_call_id, "output": r.text} for r in results
    ]
    media = [p for r in results for p in r.content if not isinstance(p, TextPart)]
    if media:  # function_call_output carries text here: the attachments follow as a user message
        content = _user_content([TextPart(text=_ATTACHMENTS_INTRO), *media])
        items.append({"type": "message", "role": "user", "content": content})
    if content := _user_content(p for p in message.parts if not isinstance(p, ToolResultPart)):
        items.append({"type": "message", "role": "user", "content": content})
    return items


def tools_to_wire(tools: Iterable[ToolSpec]) -> list[Wire]:
    return [
        {
            "type": "function",
            "name": t.name,
            "description": t.description,
            "parameters": t.parameters,
            "strict": False,
        }
        for t in tools
    ]


class RequestEncoder:
    """Writes request bodies, keeping the JSON of messages it has already written.

    Messages are frozen, so a message object always has the same JSON; the cache is keyed by
    ``id(message)`` and holds the message itself, which keeps the id valid while cached.

    Args:
        limit: how many messages to keep (least recently used go first).
    """

    def __init__(self, *, limit: int = 4096) -> None:
        self._limit = limit
        self._messages: OrderedDict[int, tuple[Message, str, bool]] = OrderedDict()
        self._tools: tuple[tuple[ToolSpec, ...], str] = ((), "[]")
        self._system: tuple[str, str] = ("", '""')

    def _message(self, message: Message) -> tuple[str, bool]:
        """The message's items as JSON (without brackets), and whether one is a reasoning item."""
        key = id(message)
        cached = self._messages.get(key)
        if cached is not None and cached[0] is message:
            self._messages.move_to_end(key)
            return cached[1], cached[2]
        items = message_to_items(message)
        text = ",".join(_dumps(item) for item in items)
        reasoning = any(item.get("type") == "reasoning" for item in items)
        self._messages[key] = (message, text, reasoning)
        if len(self._messages) > self._limit:
            self._messages.popitem(last=False)
        return text, reasoning

    def encode(self, request: ModelRequest, *, model: str) -> bytes:
        """The JSON body of a streamed, unstored ``/responses`` request."""
        encoded = [self._message(m) for m in request.messages]
        head: Wire = {"model": model, "stream": True, "store": False}
        if request.thinking or any(reasoning for _, reasoning in encoded):
            head["include"] = [_ENCRYPTED_REASONING]
        if request.thinking:
            head["reasoning"] = {"effort": reasoning_effort(request.thinking), "summary": "auto"}
        if request.max_output_tokens is not None:
            head["max_output_tokens"] = request.max_output_tokens
        for key in request_keys(request.drop_parameters) - {"model", "stream"}:
            head.pop(key, None)
        pieces = [_dumps(head)[:-1]]
        if request.system:
            if self._system[0] != request.system:
                self._system = (request.system, _dumps(request.system))
            pieces.append(',"instructions":' + self._system[1])
        if request.tools:
            if self._tools[0] != request.tools:
                self._tools = (request.tools, _dumps(tools_to_wire(request.tools)))
            pieces.append(',"tools":' + self._tools[1])
        pieces.append(',"input":[' + ",".join(text for text, _ in encoded if text) + "]}")
        return "".join(pieces).encode()


def _usage(raw: Wire) -> Usage:
    details = raw.get("input_tokens_details")
    details = details if isinstance(details, dict) else {}
    cached = int(details.get("cached_tokens") or 0)
    written = int(details.get("cache_write_tokens") or 0)
    total = int(raw.get("input_tokens") or 0)
    output = int(raw.get("output_tokens") or 0)
    uncached = max(total - cached - written, 0)
    return Usage(input=uncached, output=output, cache_read=cached, cache_write=written)


def _object(value: object, what: str) -> Wire:
    if not isinstance(value, dict):
        raise ProviderProtocolError(f"the endpoint sent {what} that is not an object: {value!r:.200}")
    return value


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""


def _message_texts(content: object) -> list[str]:
    entries = content if isinstance(content, list) else []
    texts = [_text(e.get("text") or e.get("refusal")) for e in entries if isinstance(e, dict)]
    return [t for t in texts if t]


def _joined(pieces: object, kind: str) -> str:
    """The texts of the ``kind`` entries of a list (summary or content of an item), apart."""
    items = pieces if isinstance(pieces, list) else []
    texts = [_text(p.get("text")) for p in items if isinstance(p, dict) and p.get("type") == kind]
    return "\n\n".join(t for t in texts if t)


class EventTranslator:
    """Folds Responses API stream events (parsed JSON) into model events.

    Tool calls are indexed by their ``output_index``. After the terminal event (completed,
    incomplete or failed) :attr:`done` is true and further events are ignored.
    """

    def __init__(self) -> None:
        self._ids: dict[int, str] = {}  # output index -> item id
        self._calls: dict[int, bool] = {}  # output index of a started call -> its arguments came
        self._ended: set[int] = set()
        self._streamed: set[int] = set()  # items whose text came as deltas
        self._summary: dict[int, int] = {}  # reasoning item -> summary part of its last delta
        self._model: str | None = None
        self._response_id: str | None = None
        self._announced = False
        self._done = False

    @property
    def done(self) -> bool:
        return self._done

    def feed(self, event: object, *, name: str | None = None) -> list[ModelEvent]:
        """The events of one stream event; ``error`` and ``response.failed`` raise ``ModelError``."""
        event = _object(event, "an event")
        kind = event.get("type") if isinstance(event.get("type"), str) else name
        if self._done:
            return []
        match kind:
            case "response.output_item.added":
                return self._item_added(event)
            case "response.output_item.done":
                return self._item_added(event) + self._item_done(event)
            case "response.output_text.delta" | "response.refusal.delta":
                return self._text_delta(event)
            case "response.reasoning_summary_text.delta" | "response.reasoning_text.delta":
                return self._thinking_delta(event)
            case "response.function_call_arguments.delta":
                return self._arguments_delta(event)
            case "response.completed" | "response.incomplete" | "response.failed":
                return self._terminal(kind, event)
            case "error":
                error = event.get("error") or event
                raise ModelStreamError(
                    f"the endpoint failed mid-answer: {error_text(error)}", status=stream_error_status(error)
                )
            case _:  # created, in_progress, queued and the rest: ignored by rule (module docstring)
                self._note_model(event)
                return self._identified()

    def feed_response(self, response: object) -> list[ModelEvent]:
        """The events of a non-streamed answer: its output items, then its status."""
        response = _object(response, "an answer")
        status = response.get("status")
        if status in ("completed", "incomplete", "failed"):
            return self.feed({"type": f"response.{status}", "response": response})
        if response.get("error"):
            error = response["error"]
            status = stream_error_status(error)
            raise ModelStreamError(f"the endpoint failed: {error_text(error)}", status=status)
        return []

    def _index(self, event: Wire) -> int:
        index = event.get("output_index")
        if not isinstance(index, int):
            raise ProviderProtocolError(f"the endpoint sent {event.get('type')} without its output_index")
        return index

    def _item_added(self, event: Wire) -> list[ModelEvent]:
        item = _object(event.get("item"), "an output item")
        index = self._index(event)
        if isinstance(item_id := item.get("id"), str) and item_id:
            self._ids.setdefault(index, item_id)
        if item.get("type") != "function_call" or index in self._calls:
            return []
        self._calls[index] = False
        call_id = _text(item.get("call_id")) or f"call_{index}"
        return [
            ToolCallStarted(
                index=index, id=call_id, name=_text(item.get("name")), provider_id=self._ids.get(index)
            )
        ]

    def _item_done(self, event: Wire) -> list[ModelEvent]:
        item: Wire = event["item"]
        index = self._index(event)
        kind = item.get("type")
        events: list[ModelEvent] = []
        if kind == "function_call":
            if not self._calls[index] and (arguments := _text(item.get("arguments"))):
                events.append(ToolCallDelta(index=index, arguments=arguments))
            self._calls[index] = True
            if index not in self._ended:
                self._ended.add(index)
                events.append(ToolCallEnded(index=index))
        elif kind == "reasoning":
            text = ""
            if index not in self._streamed:
                summary = _joined(item.get("summary"), "summary_text")
                text = summary or _joined(item.get("content"), "reasoning_text")
            signature = _text(item.get("encrypted_content")) or None
            if text or signature:
                events.append(ThinkingDelta(text=text, signature=signature, provider_id=self._ids.get(index)))
        elif kind == "message" and index not in self._streamed:
            events += [TextDelta(text=text) for text in _message_texts(item.get("content"))]
        return events

    def _text_delta(self, event: Wire) -> list[ModelEvent]:
        delta = _text(event.get("delta"))
        self._streamed.add(self._index(event))
        return [TextDelta(text=delta)] if delta else []

    def _thinking_delta(self, event: Wire) -> list[ModelEvent]:
        delta = _text(event.get("delta"))
        if not delta:
            return []
        index = self._index(event)
        part = event.get("summary_index")
        if isinstance(part, int):
            if index in self._streamed and part != self._summary.get(index, part):
                delta = "\n\n" + delta  # a new summary part, as in the done item's joined summary
            self._summary[index] = part
        self._streamed.add(index)
        item_id = _text(event.get("item_id")) or self._ids.get(index)
        return [ThinkingDelta(text=delta, provider_id=item_id)]

    def _arguments_delta(self, event: Wire) -> list[ModelEvent]:
        index = self._index(event)
        if index not in self._calls:
            raise ProviderProtocolError(f"the endpoint sent arguments for an unannounced call ({index})")
        delta = _text(event.get("delta"))
        if not delta:
            return []
        self._calls[index] = True
        return [ToolCallDelta(index=index, arguments=delta)]

    def _note_model(self, event: Wire) -> Wire:
        response = event.get("response")
        response = response if isinstance(response, dict) else {}
        if isinstance(model := response.get("model"), str) and model:
            self._model = model
        if isinstance(response_id := response.get("id"), str) and response_id:
            self._response_id = self._response_id or response_id
        return response

    def _identified(self) -> list[ModelEvent]:
        """``ResponseIdentified`` the first time the response's id is known."""
        if self._response_id is None or self._announced:
            return []
        self._announced = True
        return [ResponseIdentified(self._response_id)]

    def _terminal(self, kind: str, event: Wire) -> list[ModelEvent]:
        response = self._note_model(event)
        if kind == "response.failed":
            error = response.get("error") or "the response failed without details"
            raise ModelStreamError(
                f"the endpoint failed mid-answer: {error_text(error)}", status=stream_error_status(error)
            )
        events: list[ModelEvent] = self._identified()
        seen = set(self._ids) | set(self._calls) | self._streamed
        for index, item in enumerate(response.get("output") or ()):  # items the stream left out
            if index not in seen and isinstance(item, dict):
                done = {"output_index": index, "item": item}
                events += self._item_added(done) + self._item_done(done)
        events += [ToolCallEnded(index=i) for i in sorted(set(self._calls) - self._ended)]
        self._ended.update(self._calls)
        if isinstance(usage := response.get("usage"), dict):
            events.append(UsageReported(usage=_usage(usage)))
        if kind == "response.incomplete":
            details = response.get("incomplete_details")
            reason = details.get("reason") if isinstance(details, dict) else None
            stop = _INCOMPLETE_REASONS.get(str(reason), StopReason.INCOMPLETE)
        else:
            stop = StopReason.TOOL_USE if self._calls else StopReason.END
        self._done = True
        return [*events, Finished(stop_reason=stop, model=self._model)]


__all__ = ["EventTranslator", "RequestEncoder", "message_to_items", "tools_to_wire"]
