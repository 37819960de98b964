"""The loop's guards: a model answer watched for repetition, reminders, and tool calls mended.

The policies are in the domain (:mod:`~circle.domain.repetition`, :mod:`~circle.domain.loop_guard`,
:mod:`~circle.domain.tool_repair`); this module applies them to a stream, a request and a call.

- :func:`ask_model` streams one answer, feeding thinking and text to their own detector.
  Thinking that repeats itself closes the stream, drops that answer and sends the request again
  with a reminder (at most ``MAX_THINKING_RETRIES`` times); after that, or when the text repeats
  itself, the stream is closed and what came is kept, cut where the repetition began, as an
  incomplete answer with a note, so its tool calls do not run and the turn reports incomplete.
- An answer stopped by the person while it streams keeps its text and its thinking:
  :func:`ask_model` hands it to ``stopped`` (stop reason ``aborted``) to be stored like any answer,
  so a resumed session draws what the live view showed. Thinking after the last text may be cut
  short: it is kept unsigned (never sent back, see :func:`request_messages`); tool calls it had
  begun never ran and are dropped; nothing is kept when neither text nor thinking came.
- Tokens no endpoint counted (a stream stopped or failed before its count came, an answer cut
  where it repeated, an endpoint that reports no usage) are guessed from the characters streamed,
  :data:`CHARS_PER_TOKEN` a token (:func:`uncounted_tokens`), and handed to ``estimated``: the
  turn counts them, marked as guessed.
- :func:`request_messages` adds a loop reminder to the next request only; it is never stored. It
  leaves out answers that say nothing to the model (no text, no tool call: thinking cut by a stop),
  which no protocol accepts as an assistant message.
- :func:`check_call` mends a tool call or says why it cannot run; :func:`with_repair_note` tells
  the model what was mended, in one line before the tool's output.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import AsyncGenerator, Callable, Mapping, Sequence
from typing import Literal

from pydantic import JsonValue

from circle.domain.answer_parts import PartChange, PartTracker
from circle.domain.errors import CircleError
from circle.domain.loop_guard import loop_reminder
from circle.domain.messages import Message, Part, StopReason, TextPart, ThinkingPart, ToolCallPart, Usage
from circle.domain.model import ModelRequest, StreamRestarted, TextDelta, ThinkingDelta
from circle.domain.prefix import seen_length
from circle.domain.repetition import RepetitionDetector
from circle.domain.tool_repair import Repaired, RepairError, repair_call

from .events import MessageEnded, MessageStarted, MessageUpdated
from .ports.event_sink import EventSink
from .ports.model_client import ModelClient
from .tools.base import ToolOutput

log = logging.getLogger("circle.loop")

MAX_THINKING_RETRIES = 2
THINKING_REMINDER = "Your previous reasoning started repeating itself; think differently and continue."
REPEATED_TEXT_NOTE = "stopped: the answer started repeating itself"
REPEATED_THINKING_NOTE = "stopped: the reasoning kept repeating itself"
ABORTED_NOTE = "Request was aborted"
CHARS_PER_TOKEN = 4
"""How many characters streamed count as a token where the endpoint did not count them."""

Kind = Literal["text", "thinking"]


def request_messages(history: Sequence[Message], *, sendable: Sendable | None = None) -> tuple[Message, ...]:
    """The messages of the next request: the history without the answers that say nothing to the
    model (:func:`says_something`; ``sendable`` looks only at those added since it last did), and
    a loop reminder when one is due."""
    sent = (sendable or Sendable())(history)
    reminder = loop_reminder(sent)
    if reminder is None:
        return sent
    log.info("loop guard: %s", reminder)
    return (*sent, Message.user(reminder))


class Sendable:
    """The messages of a history that may be sent (:func:`says_something`), worked out for the
    messages added since the last history only (a long session's every request repeats it)."""

    def __init__(self) -> None:
        self._seen: tuple[Message, ...] = ()
        self._sent: list[Message] = []
        self._counts: list[int] = []
        """How many of the first 1, 2, … messages seen may be sent."""

    def __call__(self, history: Sequence[Message]) -> tuple[Message, ...]:
        seen = tuple(history)
        known = seen_length(self._seen, seen)
        counts = self._counts[:known]
        sent = self._sent[: counts[-1] if counts else 0]
        for message in seen[known:]:
            if message.role != "assistant" or says_something(message):
                sent.append(message)
            counts.append(len(sent))
        self._seen, self._sent, self._counts = seen, sent, counts
        return tuple(sent)


def says_something(answer: Message) -> bool:
    """True when ``answer`` has text or a tool call: what an assistant message may be sent with.
    Thinking alone (an answer stopped while the model thought) is the person's to see, not the
    model's to read again: unsigned, no protocol takes it back, and an empty message is refused."""
    return any(
        isinstance(part, ToolCallPart) or (isinstance(part, TextPart) and part.text.strip())
        for part in answer.parts
    )


async def ask_model(
    model: ModelClient,
    request: ModelRequest,
    *,
    events: EventSink,
    model_name: str,
    stopped: Callable[[Message], None] | None = None,
    estimated: Callable[[int], None] | None = None,
) -> Message:
    """Stream one answer from ``model``, guarded against repetition (see the module docstring).

    Args:
        model: The endpoint.
        request: What to send.
        events: Where the answer's start, parts and end go.
        model_name: The name the answer is stored under.
        stopped: Given the text and thinking already shown when the stream is cancelled, to
            store it (its ``message_end`` then comes from the store); without it, or when neither
            came, the stopped answer ends unstored.
        estimated: Given the output tokens guessed for each answer the endpoint did not count
            (see :func:`uncounted_tokens`), when there are any.
    """
    dropped = Usage()
    attempt = request
    retries = 0
    while True:
        message, repeated = await _stream(
            model, attempt, events, model_name=model_name, stopped=stopped, estimated=estimated
        )
        if repeated != "thinking" or retries == MAX_THINKING_RETRIES:
            break
        retries += 1
        void = message.model_copy(update={"stop_reason": StopReason.INCOMPLETE})
        events.emit(MessageEnded(message=void, checkpoint_id=None))  # never stored
        log.info("thinking repeated itself; asking again (%d/%d)", retries, MAX_THINKING_RETRIES)
        dropped = dropped + (message.usage or Usage())
        attempt = dataclasses.replace(request, messages=(*request.messages, Message.user(THINKING_REMINDER)))
    if request.thinking is not None:  # the session goes on at this level when opened again
        message = message.model_copy(update={"thinking": request.thinking})
    if not dropped.total:
        return message
    return message.model_copy(update={"usage": dropped + (message.usage or Usage())})


async def _stream(
    model: ModelClient,
    request: ModelRequest,
    events: EventSink,
    *,
    model_name: str,
    stopped: Callable[[Message], None] | None,
    estimated: Callable[[int], None] | None = None,
) -> tuple[Message, Kind | None]:
    """One streamed answer; stops early, and says which kind of content repeated, when one does.

    Every part's start, deltas and end are emitted with the answer so far; a stream that fails or
    is cancelled ends its message with that answer, stopped ``error`` or ``aborted``.
    """
    tracker = PartTracker()
    detectors = _detectors()
    repeated: Kind | None = None
    events.emit(MessageStarted(message=None, role="assistant"))
    stream = model.stream(request)
    try:
        async for event in stream:
            _emit_changes(events, tracker.add(event), tracker, model_name)
            match event:
                case TextDelta(text=text) if detectors["text"].feed(text):
                    repeated = "text"
                    break
                case ThinkingDelta(text=text) if text and detectors["thinking"].feed(text):
                    repeated = "thinking"
                    break
                case StreamRestarted():  # a retry: the answer starts again (the assembler forgot it)
                    detectors = _detectors()
                case _:
                    pass
        _emit_changes(events, tracker.finish(), tracker, model_name)
    except asyncio.CancelledError:
        _emit_changes(events, tracker.finish(), tracker, model_name)
        _guess(estimated, tracker.assembler.message(model=model_name), cut=True)
        kept = _stopped_answer(tracker.assembler.message(model=model_name))
        if kept is None or stopped is None:
            _close(events, tracker, model_name, StopReason.ABORTED, ABORTED_NOTE)
        else:
            if request.thinking is not None:  # as a finished answer is (see ask_model)
                kept = kept.model_copy(update={"thinking": request.thinking})
            stopped(kept)  # stored by the loop, which tells its end
        raise
    except Exception as exc:
        _guess(estimated, tracker.assembler.message(model=model_name), cut=True)
        reason = exc.message if isinstance(exc, CircleError) else f"{type(exc).__name__}: {exc}"
        _close(events, tracker, model_name, StopReason.ERROR, reason)
        raise
    finally:
        if isinstance(stream, AsyncGenerator):
            await stream.aclose()
    message = tracker.assembler.message(model=model_name)
    _guess(estimated, message, cut=repeated is not None)  # closed early: its count never came
    if repeated is None:
        return message, None
    cut = detectors[repeated].cut or 0
    note = REPEATED_TEXT_NOTE if repeated == "text" else REPEATED_THINKING_NOTE
    log.info("%s; kept %d characters", note, cut)
    return _cut(message, repeated, cut, note=note), repeated


def uncounted_tokens(answer: Message, *, cut: bool = False) -> int:
    """The output tokens of ``answer`` its endpoint did not count, guessed from its characters
    (its text, thinking and tool calls' arguments, :data:`CHARS_PER_TOKEN` a token): all of them
    less the count that came when the stream was ``cut`` (stopped, failed or closed early: its
    count, if any, was not its last); none when a finished answer was counted."""
    counted = answer.usage.output if answer.usage is not None else 0
    if counted and not cut:
        return 0
    chars = 0
    for part in answer.parts:
        if isinstance(part, (TextPart, ThinkingPart)):
            chars += len(part.text)
        elif isinstance(part, ToolCallPart):
            chars += len(part.arguments)
    return max(chars // CHARS_PER_TOKEN - counted, 0)


def _guess(estimated: Callable[[int], None] | None, answer: Message, *, cut: bool) -> None:
    if estimated is not None and (guessed := uncounted_tokens(answer, cut=cut)):
        estimated(guessed)


def _detectors() -> dict[Kind, RepetitionDetector]:
    return {"text": RepetitionDetector(), "thinking": RepetitionDetector()}


def _emit_changes(
    events: EventSink, changes: list[PartChange], tracker: PartTracker, model_name: str
) -> None:
    if not changes:
        return
    partial = tracker.assembler.message(model=model_name)
    for change in changes:
        events.emit(
            MessageUpdated(
                kind=change.kind,
                delta=change.delta,
                content_index=change.index,
                partial=partial,
                phase=change.phase,
                stream_index=change.stream_index,
            )
        )


def _close(events: EventSink, tracker: PartTracker, model_name: str, stop: StopReason, error: str) -> None:
    """End a message the stream did not finish: its open parts, then the message, never stored."""
    _emit_changes(events, tracker.finish(), tracker, model_name)
    partial = tracker.assembler.message(model=model_name)
    events.emit(
        MessageEnded(
            message=partial.model_copy(update={"stop_reason": stop, "error": error}), checkpoint_id=None
        )
    )


def _stopped_answer(partial: Message) -> Message | None:
    """What an answer stopped mid-stream keeps: its text and its thinking; None when neither came.

    A part ends when the next one starts, so thinking followed by text is whole (signed, where the
    protocol signs it) and goes back as a finished answer's would. Thinking after the last text
    may be cut short: it is kept for the person to see (a resumed session draws it as the live view
    did, ``cut``) without its signature, so no protocol sends it back; redacted thinking there, with
    nothing to show, is dropped. Tool calls never ran: they are dropped. Blank text is dropped.
    """
    kept: list[Part] = [
        part
        for part in partial.parts
        if (isinstance(part, ThinkingPart) and (part.text or part.redacted))
        or (isinstance(part, TextPart) and part.text.strip())
    ]
    last_text = max((i for i, part in enumerate(kept) if isinstance(part, TextPart)), default=-1)
    kept[last_text + 1 :] = [
        part.model_copy(update={"signature": None})
        for part in kept[last_text + 1 :]
        if isinstance(part, ThinkingPart) and part.text
    ]
    if not kept:
        return None
    update = {"parts": tuple(kept), "stop_reason": StopReason.ABORTED, "error": ABORTED_NOTE}
    return partial.model_copy(update=update)


def _cut(message: Message, kind: Kind, cut: int, *, note: str) -> Message:
    """The message with its ``kind`` content cut at ``cut`` characters, incomplete, with a note."""
    parts: list[Part] = []
    offset = 0
    cut_type: type[TextPart] | type[ThinkingPart] = TextPart if kind == "text" else ThinkingPart
    for part in message.parts:
        if not isinstance(part, cut_type):
            parts.append(part)
            continue
        keep = max(0, min(len(part.text), cut - offset))
        offset += len(part.text)
        if keep == len(part.text):
            parts.append(part)
        elif keep > 0:
            changes: dict[str, object] = {"text": part.text[:keep]}
            if isinstance(part, ThinkingPart):
                changes["signature"] = None  # the signature was for the whole text
            parts.append(part.model_copy(update=changes))
    return message.model_copy(
        update={"parts": tuple(parts), "stop_reason": StopReason.INCOMPLETE, "error": note}
    )


def check_call(call: ToolCallPart, schemas: Mapping[str, Mapping[str, JsonValue]]) -> Repaired | RepairError:
    """The call as it may run (name and arguments mended when clear), or why it may not."""
    checked = repair_call(call.name, call.arguments, schemas)
    if isinstance(checked, Repaired) and checked.notes:
        log.info("repaired a call to %s: %s", call.name, "; ".join(checked.notes))
    return checked


def with_repair_note(output: ToolOutput, checked: Repaired) -> ToolOutput:
    """The tool's output, after one line saying what was mended in the call (when anything was)."""
    if not checked.notes:
        return output
    note = f"(call repaired: {'; '.join(checked.notes)})"
    return dataclasses.replace(output, text=f"{note}\n{output.text}")


__all__ = [
    "CHARS_PER_TOKEN",
    "MAX_THINKING_RETRIES",
    "REPEATED_TEXT_NOTE",
    "REPEATED_THINKING_NOTE",
    "THINKING_REMINDER",
    "Sendable",
    "ask_model",
    "check_call",
    "request_messages",
    "says_something",
    "uncounted_tokens",
    "with_repair_note",
]
