"""The Anthropic Messages wire format, without the SDK: request bodies out, stream events in.

:class:`RequestEncoder` writes the JSON body of a request, keeping each message's blocks as
JSON so a long conversation costs only its new messages on every round.
:class:`StreamTranslator` folds the parsed stream events into
:data:`~circle.domain.model.ModelEvent` values.

Rules for what is left out of a request on purpose: thinking without a signature (written by
another protocol, which Anthropic cannot verify), thinking whose message has another
``scope`` (another endpoint, key or model signed it), thinking whose fingerprint the endpoint
rejected before, empty text, and parts a role cannot carry.

Rules for what the stream may carry and is ignored on purpose: ``ping``, SSE comments, events
after ``message_stop``, unknown event types (forward compatibility), ``citations_delta``,
``stop_details``, ``input_transformations``, and every block that is not text, thinking,
redacted_thinking or tool_use: the server's own tools (``server_tool_use``,
``web_search_tool_result`` and other ``*_tool_result``), ``compaction``, ``fallback`` and any
future kind. Those ran on the server; Circle does not send them back (so ``pause_turn``, a
paused server tool loop, is reported as incomplete rather than resumed). Text that resumes
after such a block is set apart by a blank line; a ``fallback`` block names the model that
served the answer (as the SDK does).
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from collections import OrderedDict
from collections.abc import Collection, Iterable
from typing import Any, Literal, NamedTuple

from circle.domain.endpoint_hints import request_keys
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
    UsageReported,
)
from circle.domain.thinking import anthropic_output

Wire = dict[str, Any]


_CACHE_CONTROL = ',"cache_control":{"type":"ephemeral"}}'
_BAD_ID = re.compile(r"[^a-zA-Z0-9_-]")
_STOP_REASONS = {
    "end_turn": StopReason.END,
    "stop_sequence": StopReason.END,
    "tool_use": StopReason.TOOL_USE,
    "max_tokens": StopReason.MAX_TOKENS,
    "model_context_window_exceeded": StopReason.MAX_TOKENS,
    "refusal": StopReason.FILTERED,
    "pause_turn": StopReason.INCOMPLETE,  # the server tool loop paused; Circle does not resume it yet
}


def _dumps(value: object) -> str:
    return json.dumps(value, separators=(",", ":"))


def fingerprint(payload: str) -> str:
    """A short, stable name for a signed thinking payload (its signature or redacted data)."""
    return hashlib.sha256(payload.encode()).hexdigest()[:32]


def thinking_scope(base_url: str, api_key: str | None, model: str) -> str:
    """The identity that signs thinking: a short hash of the URL, the key and the model."""
    return hashlib.sha256(_dumps([base_url, api_key or "", model]).encode()).hexdigest()[:16]


class _Block(NamedTuple):
    """One content block as JSON; thinking blocks carry the fingerprint of their payload."""

    json: str
    kind: Literal["thinking", "result", "other"] = "other"
    fingerprint: str | None = None


def _source(part: ImagePart | DocumentPart) -> Wire:
    if part.media_type.startswith("text/"):
        text = base64.b64decode(part.data).decode("utf-8", errors="replace")
        return {"type": "text", "media_type": "text/plain", "data": text}
    return {"type": "base64", "media_type": part.media_type, "data": part.data}


def _content(part: Part) -> Wire | None:
    if isinstance(part, TextPart):
        return {"type": "text", "text": part.text} if part.text else None
    if isinstance(part, ImagePart):
        return {"type": "image", "source": _source(part)}
    if isinstance(part, DocumentPart):
        block = {"type": "document", "source": _source(part)}
        return {**block, "title": part.name} if part.name else block
    return None


def _tool_result(result: ToolResultPart) -> Wire:
    content = [block for part in result.content if (block := _content(part)) is not None]
    wire: Wire = {"type": "tool_result", "tool_use_id": _BAD_ID.sub("_", result.tool_call_id)}
    if content:
        wire["content"] = content
    wire["is_error"] = result.is_error
    return wire


def _assistant_block(part: Part) -> _Block | None:
    block: Wire
    if isinstance(part, ThinkingPart):
        if part.redacted is not None:
            block = {"type": "redacted_thinking", "data": part.redacted}
            return _Block(_dumps(block), "thinking", fingerprint(part.redacted))
        if part.signature:
            block = {"type": "thinking", "thinking": part.text, "signature": part.signature}
            return _Block(_dumps(block), "thinking", fingerprint(part.signature))
        return None  # unsigned thinking came from another protocol: Anthropic cannot verify it
    if isinstance(part, ToolCallPart):
        block = {
            "type": "tool_use",
            "id": _BAD_ID.sub("_", part.id),
            "name": part.name,
            "input": part.parsed_arguments() or {},
        }
        return _Block(_dumps(block))
    if isinstance(part, TextPart) and part.text:
        return _Block(_dumps({"type": "text", "text": part.text}))
    return None


def message_blocks(message: Message) -> tuple[str, tuple[_Block, ...]]:
    """The wire role and the content blocks of one message (tool results are user blocks)."""
    blocks: list[_Block] = []
    if message.role == "assistant":
        blocks = [block for part in message.parts if (block := _assistant_block(part)) is not None]
        return "assistant", tuple(blocks)
    for part in message.parts:
        if isinstance(part, ToolResultPart):
            blocks.append(_Block(_dumps(_tool_result(part)), "result"))
        elif (content := _content(part)) is not None:
            blocks.append(_Block(_dumps(content)))
    return "user", tuple(blocks)


def _with_cache_control(blocks: list[_Block]) -> None:
    """Mark the last block that may carry a cache breakpoint (thinking blocks may not)."""
    for index in range(len(blocks) - 1, -1, -1):
        if blocks[index].kind != "thinking":
            block = blocks[index]
            blocks[index] = block._replace(json=block.json[:-1] + _CACHE_CONTROL)
            return


class RequestEncoder:
    """Writes request bodies, keeping the JSON blocks of messages it has already written.

    Messages are frozen, so a message object always has the same blocks; the cache is keyed by
    ``id(message)`` and holds the message itself, which keeps the id valid while cached.

    Args:
        limit: how many messages to keep (least recently used go first).
    """

    def __init__(self, *, limit: int = 4096) -> None:
        self._limit = limit
        self._messages: OrderedDict[int, tuple[Message, str, tuple[_Block, ...]]] = OrderedDict()
        self._tools: tuple[object, str] = ((), "")
        self._system: tuple[str, str] = ("", "")

    def _blocks(self, message: Message) -> tuple[str, tuple[_Block, ...]]:
        key = id(message)
        cached = self._messages.get(key)
        if cached is not None and cached[0] is message:
            self._messages.move_to_end(key)
            return cached[1], cached[2]
        role, blocks = message_blocks(message)
        self._messages[key] = (message, role, blocks)
        if len(self._messages) > self._limit:
            self._messages.popitem(last=False)
        return role, blocks

    def _wire_messages(
        self, messages: Iterable[Message], *, scope: str, forget: Collection[str], sent: set[str]
    ) -> list[tuple[str, list[_Block]]]:
        """Messages as alternating (role, blocks), historical thinking filtered as the rules say."""
        wire: list[tuple[str, list[_Block]]] = []
        merged: list[list[_Block]] = []
        for message in messages:
            role, blocks = self._blocks(message)
            if any(b.fingerprint for b in blocks):
                foreign = message.scope is not None and message.scope != scope
                blocks = tuple(
                    b for b in blocks if not b.fingerprint or not (foreign or b.fingerprint in forget)
                )
                sent.update(b.fingerprint for b in blocks if b.fingerprint)
            if not blocks:
                continue
            if wire and wire[-1][0] == role:
                wire[-1][1].extend(blocks)
                merged.append(wire[-1][1])
            else:
                wire.append((role, list(blocks)))
        for joined in merged:  # tool results must come first in a user message
            joined.sort(key=lambda b: b.kind != "result")
        return wire

    def encode(
        self, request: ModelRequest, *, model: str, scope: str, forget: Collection[str] = ()
    ) -> tuple[bytes, frozenset[str]]:
        """The JSON body of a streamed ``/v1/messages`` request, and the thinking it sends back.

        Args:
            request: what to ask.
            model: the model to name.
            scope: the current :func:`thinking_scope`; thinking of other scopes is left out.
            forget: fingerprints of thinking payloads to leave out (the endpoint rejected them).

        Returns:
            The body, and the fingerprints of the historical thinking blocks in it.
        """
        max_tokens, budget = anthropic_output(
            request.thinking, room=request.max_output_tokens, limit=request.output_limit
        )
        head: Wire = {"model": model, "max_tokens": max_tokens, "stream": True}
        if budget is not None:
            head["thinking"] = {"type": "enabled", "budget_tokens": budget}
        for key in request_keys(request.drop_parameters) - {"model", "stream", "max_tokens"}:
            head.pop(key, None)
        pieces = [_dumps(head)[:-1]]
        if request.system:
            if self._system[0] != request.system:
                system = [{"type": "text", "text": request.system, "cache_control": {"type": "ephemeral"}}]
                self._system = (request.system, _dumps(system))
            pieces.append(',"system":' + self._system[1])
        if request.tools:
            if self._tools[0] is not request.tools and self._tools[0] != request.tools:
                tools = [
                    {"name": t.name, "description": t.description, "input_schema": t.parameters}
                    for t in request.tools
                ]
                tools[-1] = {**tools[-1], "cache_control": {"type": "ephemeral"}}
                self._tools = (request.tools, _dumps(tools))
            pieces.append(',"tools":' + self._tools[1])
        sent: set[str] = set()
        wire = self._wire_messages(request.messages, scope=scope, forget=forget, sent=sent)
        # cache breakpoints: the newest message and the previous turn of the same role
        for index in (len(wire) - 1, len(wire) - 3):
            if index >= 0:
                _with_cache_control(wire[index][1])
        texts = [
            '{"role":"' + role + '","content":[' + ",".join(b.json for b in blocks) + "]}"
            for role, blocks in wire
        ]
        pieces.append(',"messages":[' + ",".join(texts) + "]}")
        return "".join(pieces).encode(), frozenset(sent)


class StreamTranslator:
    """Folds Messages stream events (parsed JSON) into model events.

    Args:
        scope: the :func:`thinking_scope` to report in :class:`Finished`.
    """

    def __init__(self, *, scope: str | None = None) -> None:
        self._scope = scope
        self._ignored: set[int] = set()
        self._wrote_text = False  # the current text part has text
        self._server_gap = False  # and a server block came after it
        self._tools: dict[int, object] = {}  # open tool_use blocks: their input until deltas come
        self._usage: dict[str, int] = {}
        self._stop: StopReason | None = None
        self._model: str | None = None
        self.done = False

    def feed(self, data: Wire) -> list[ModelEvent]:
        """The events of one server-sent event (``error`` events are the adapter's to raise)."""
        if self.done:
            return []
        kind, index = data.get("type"), data.get("index")
        if kind == "message_start" and isinstance(message := data.get("message"), dict):
            if isinstance(model := message.get("model"), str) and model:
                self._model = model
            self._add_usage(message.get("usage"))
            if isinstance(response_id := message.get("id"), str) and response_id:
                return [ResponseIdentified(response_id)]
        elif kind == "content_block_start" and isinstance(index, int):
            return self._start(index, data.get("content_block"))
        elif kind == "content_block_delta" and isinstance(index, int):
            return self._delta(index, data.get("delta"))
        elif kind == "content_block_stop" and isinstance(index, int):
            return self._stop_block(index)
        elif kind == "message_delta":
            delta = data.get("delta")
            reason = delta.get("stop_reason") if isinstance(delta, dict) else None
            if isinstance(reason, str) and reason:
                self._stop = _STOP_REASONS.get(reason, StopReason.END)
            self._add_usage(data.get("usage"))
        elif kind == "message_stop":
            return self._finish()
        return []

    def _add_usage(self, usage: object) -> None:
        """Usage counts are cumulative: the latest value of each wins."""
        if isinstance(usage, dict):
            self._usage.update({k: v for k, v in usage.items() if isinstance(v, int)})

    def _start(self, index: int, block: object) -> list[ModelEvent]:
        if not isinstance(block, dict):
            return []
        kind = block.get("type")
        if kind in ("thinking", "redacted_thinking", "tool_use"):  # a new part: no separator needed
            self._wrote_text = self._server_gap = False
        if kind == "text":
            text = block.get("text")
            return self._text(text) if isinstance(text, str) and text else []
        if kind == "thinking":
            text, signature = block.get("thinking"), block.get("signature")
            text = text if isinstance(text, str) else ""
            signature = signature if isinstance(signature, str) and signature else None
            return [ThinkingDelta(text=text, signature=signature)] if text or signature else []
        if kind == "redacted_thinking" and isinstance(data := block.get("data"), str):
            return [ThinkingDelta(redacted=data)]
        if kind == "tool_use":
            call_id, name = block.get("id"), block.get("name")
            call_id = call_id if isinstance(call_id, str) and call_id else f"toolu_{index}"
            self._tools[index] = block.get("input")
            return [ToolCallStarted(index=index, id=call_id, name=name if isinstance(name, str) else "")]
        if kind == "fallback" and isinstance(to := block.get("to"), dict):  # served by another model
            self._model = to.get("model") if isinstance(to.get("model"), str) else self._model
        self._ignored.add(index)  # the server's own blocks, compaction, fallback, future kinds
        self._server_gap = self._wrote_text
        return []

    def _text(self, text: str) -> list[ModelEvent]:
        """A text delta; text resumed after a server tool block is set apart by a blank line."""
        separated = "\n\n" + text if self._server_gap else text
        self._wrote_text, self._server_gap = True, False
        return [TextDelta(text=separated)]

    def _delta(self, index: int, delta: object) -> list[ModelEvent]:
        if not isinstance(delta, dict) or index in self._ignored:
            return []
        kind = delta.get("type")
        if kind == "text_delta" and isinstance(text := delta.get("text"), str) and text:
            return self._text(text)
        if kind == "thinking_delta" and isinstance(text := delta.get("thinking"), str) and text:
            return [ThinkingDelta(text=text)]
        if kind == "signature_delta" and isinstance(signature := delta.get("signature"), str) and signature:
            return [ThinkingDelta(signature=signature)]
        if kind == "input_json_delta" and index in self._tools:
            partial = delta.get("partial_json")
            if isinstance(partial, str) and partial:
                self._tools[index] = None
                return [ToolCallDelta(index=index, arguments=partial)]
        return []

    def _stop_block(self, index: int) -> list[ModelEvent]:
        if index not in self._tools:
            return []
        given = self._tools.pop(index)  # a whole input in the start block (non-streamed answers)
        events: list[ModelEvent] = [ToolCallEnded(index=index)]
        return [ToolCallDelta(index=index, arguments=_dumps(given)), *events] if given else events

    def _finish(self) -> list[ModelEvent]:
        events: list[ModelEvent] = [ToolCallEnded(index=i) for i in self._tools]  # cut by max_tokens
        self._tools.clear()
        self.done = True
        usage = Usage(
            input=self._usage.get("input_tokens", 0),
            output=self._usage.get("output_tokens", 0),
            cache_read=self._usage.get("cache_read_input_tokens", 0),
            cache_write=self._usage.get("cache_creation_input_tokens", 0),
        )
        stop = self._stop or StopReason.END
        return [*events, UsageReported(usage=usage), Finished(stop, model=self._model, scope=self._scope)]


__all__ = [
    "RequestEncoder",
    "StreamTranslator",
    "Wire",
    "fingerprint",
    "message_blocks",
    "thinking_scope",
]
