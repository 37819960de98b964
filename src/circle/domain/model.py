"""What goes to a model and what comes back: requests, tool specs, and the normalized stream.

Every wire protocol is translated into the same :data:`ModelEvent` vocabulary, and
:class:`AnswerAssembler` folds that stream into one assistant :class:`Message`; a non-streamed
answer is the collected stream, so both paths meet here.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pydantic import JsonValue

from .messages import Message, Part, StopReason, TextPart, ThinkingPart, ToolCallPart, Usage
from .thinking import ThinkingLevel


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """A tool as the model sees it: a name, a description and a JSON schema of its arguments."""

    name: str
    description: str
    parameters: dict[str, JsonValue]


@dataclass(frozen=True, slots=True)
class ModelRequest:
    model: str
    system: str
    messages: tuple[Message, ...]
    tools: tuple[ToolSpec, ...] = ()
    max_output_tokens: int | None = None
    """The most the answer may take, when the caller limits it (a summary); None: the model's limit."""
    thinking: ThinkingLevel | None = None
    output_limit: int | None = None
    """The model's output limit (the catalog's, or settings' ``models.<id>.output``), None when
    unknown: protocols that must name a limit (Anthropic) send it."""
    drop_parameters: frozenset[str] = frozenset()
    """Optional body parameters to leave out: the endpoint rejected them (see ``endpoint_hints``)."""


@dataclass(frozen=True, slots=True)
class TextDelta:
    text: str


@dataclass(frozen=True, slots=True)
class ThinkingDelta:
    """Reasoning text. A new ``provider_id`` (a Responses reasoning item) starts a new part."""

    text: str = ""
    signature: str | None = None
    redacted: str | None = None
    provider_id: str | None = None


@dataclass(frozen=True, slots=True)
class ToolCallStarted:
    index: int
    id: str
    name: str
    provider_id: str | None = None


@dataclass(frozen=True, slots=True)
class ToolCallDelta:
    index: int
    arguments: str


@dataclass(frozen=True, slots=True)
class ToolCallEnded:
    index: int


@dataclass(frozen=True, slots=True)
class UsageReported:
    usage: Usage


@dataclass(frozen=True, slots=True)
class Finished:
    stop_reason: StopReason
    model: str | None = None
    scope: str | None = None


@dataclass(frozen=True, slots=True)
class ResponseIdentified:
    """The provider named its response, when the wire first gives the id (a Chat Completions
    chunk's ``id``, a Responses ``resp_…``, a Messages ``msg_…``); it goes on the answer."""

    response_id: str


@dataclass(frozen=True, slots=True)
class RequestSent:
    """The request leaves the process now: the SDK is loaded and the body written.

    Carries no content; a watchdog's deadline for the answer to start counts from here, not
    from the local work before it (fakes may leave it out).
    """


@dataclass(frozen=True, slots=True)
class ResponseStarted:
    """The endpoint accepted the request and its answer began (a 200's headers came).

    Carries no content; it lets a watcher tell "no answer yet" from "a silent stream".
    """


@dataclass(frozen=True, slots=True)
class StreamRestarted:
    """The answer so far is void and starts again (a retry after a timeout or a dropped
    connection mid-answer): whatever was assembled from earlier events is dropped."""


ModelEvent = (
    TextDelta
    | ThinkingDelta
    | ToolCallStarted
    | ToolCallDelta
    | ToolCallEnded
    | UsageReported
    | Finished
    | ResponseIdentified
    | RequestSent
    | ResponseStarted
    | StreamRestarted
)


@dataclass
class _OpenCall:
    id: str
    name: str
    provider_id: str | None = None
    arguments: list[str] = field(default_factory=list)


class AnswerAssembler:
    """Folds a stream of :data:`ModelEvent` into the assistant message it describes.

    Parts keep the order in which they started. A stream that ends without :class:`Finished`
    yields a message whose stop reason is ``incomplete``; :class:`StreamRestarted` forgets
    everything assembled so far.
    """

    def __init__(self) -> None:
        self._reset()

    def _reset(self) -> None:
        self._parts: list[TextPart | ThinkingPart | _OpenCall] = []
        self._calls: dict[int, _OpenCall] = {}
        self._usage = Usage()
        self._stop: StopReason | None = None
        self._model: str | None = None
        self._scope: str | None = None
        self._response_id: str | None = None

    def add(self, event: ModelEvent) -> None:
        match event:
            case StreamRestarted():
                self._reset()
            case TextDelta(text=text) if text:  # an empty one starts no part
                last = self._parts[-1] if self._parts else None
                if isinstance(last, TextPart):
                    self._parts[-1] = TextPart(text=last.text + text)
                else:
                    self._parts.append(TextPart(text=text))
            case ThinkingDelta():
                self._add_thinking(event)
            case ToolCallStarted(index=index, id=call_id, name=name, provider_id=provider_id):
                call = _OpenCall(id=call_id, name=name, provider_id=provider_id)
                self._calls[index] = call
                self._parts.append(call)
            case ToolCallDelta(index=index, arguments=arguments):
                if index in self._calls:
                    self._calls[index].arguments.append(arguments)
            case ToolCallEnded():
                pass
            case UsageReported(usage=usage):
                self._usage = usage
            case Finished(stop_reason=stop, model=model, scope=scope):
                self._stop = stop
                self._model = model or self._model
                self._scope = scope or self._scope
            case ResponseIdentified(response_id=response_id):
                self._response_id = response_id

    def _add_thinking(self, event: ThinkingDelta) -> None:
        last = self._parts[-1] if self._parts else None
        same_item = event.provider_id is None or (
            isinstance(last, ThinkingPart) and last.provider_id == event.provider_id
        )
        open_part = isinstance(last, ThinkingPart) and last.redacted is None and last.signature is None
        if open_part and isinstance(last, ThinkingPart) and event.redacted is None and same_item:
            self._parts[-1] = ThinkingPart(
                text=last.text + event.text,
                signature=event.signature or last.signature,
                provider_id=last.provider_id or event.provider_id,
            )
        else:
            self._parts.append(
                ThinkingPart(
                    text=event.text,
                    signature=event.signature,
                    redacted=event.redacted,
                    provider_id=event.provider_id,
                )
            )

    @property
    def part_count(self) -> int:
        """How many parts the answer has so far; a new part is always the last."""
        return len(self._parts)

    @property
    def usage(self) -> Usage:
        return self._usage

    @property
    def finished(self) -> bool:
        return self._stop is not None

    def message(self, *, model: str | None = None, error: str | None = None) -> Message:
        parts: list[Part] = []
        for part in self._parts:
            if isinstance(part, _OpenCall):
                parts.append(
                    ToolCallPart(
                        id=part.id,
                        name=part.name,
                        arguments="".join(part.arguments),
                        provider_id=part.provider_id,
                    )
                )
            elif not (isinstance(part, TextPart) and part.text == ""):
                parts.append(part)
        stop = self._stop or StopReason.INCOMPLETE
        if stop is StopReason.END and not parts:
            stop = StopReason.EMPTY
        if stop is StopReason.END and any(isinstance(p, ToolCallPart) for p in parts):
            stop = StopReason.TOOL_USE
        return Message(
            role="assistant",
            parts=tuple(parts),
            stop_reason=stop,
            usage=self._usage,
            model=self._model or model,
            error=error,
            scope=self._scope,
            response_id=self._response_id,
        )


__all__ = [
    "AnswerAssembler",
    "Finished",
    "ModelEvent",
    "ModelRequest",
    "RequestSent",
    "ResponseIdentified",
    "ResponseStarted",
    "StreamRestarted",
    "TextDelta",
    "ThinkingDelta",
    "ToolCallDelta",
    "ToolCallEnded",
    "ToolCallStarted",
    "ToolSpec",
    "UsageReported",
]
