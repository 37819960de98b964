"""Messages and their parts, usage and stop reasons: the vocabulary every layer speaks.

A conversation is a list of :class:`Message`. A person's message and a tool's results are
``user`` and ``tool`` messages; the model's answer is an ``assistant`` message whose parts are
text, thinking and tool calls. Values are frozen; the store never rewrites a stored message.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping, Sequence
from enum import StrEnum
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue

from .thinking import ThinkingLevel


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class StopReason(StrEnum):
    """Why a model answer ended."""

    END = "end"
    TOOL_USE = "tool_use"
    MAX_TOKENS = "max_tokens"
    FILTERED = "filtered"
    EMPTY = "empty"
    INCOMPLETE = "incomplete"
    ABORTED = "aborted"
    """Stopped by the person while it streamed: the text already shown (with the finished thinking
    before it) is stored with this reason and sent back as the assistant's message; thinking cut
    short and tool calls are dropped, and nothing is stored when no text came."""
    ERROR = "error"
    """The request failed while it streamed (never stored: the partial answer is dropped)."""

    @property
    def is_complete(self) -> bool:
        """True for the reasons after which the answer can be acted on."""
        return self in (StopReason.END, StopReason.TOOL_USE)


class Usage(_Frozen):
    """Tokens of one call. ``input`` counts uncached input only; cache reads and writes are apart."""

    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            input=self.input + other.input,
            output=self.output + other.output,
            cache_read=self.cache_read + other.cache_read,
            cache_write=self.cache_write + other.cache_write,
        )

    @property
    def total(self) -> int:
        return self.input + self.output + self.cache_read + self.cache_write


class TextPart(_Frozen):
    type: Literal["text"] = "text"
    text: str


class ThinkingPart(_Frozen):
    """Reasoning text. ``signature`` and ``redacted`` are kept verbatim to send back."""

    type: Literal["thinking"] = "thinking"
    text: str = ""
    signature: str | None = None
    redacted: str | None = None
    provider_id: str | None = None


class ImagePart(_Frozen):
    type: Literal["image"] = "image"
    media_type: str
    data: str = Field(description="base64")


class DocumentPart(_Frozen):
    type: Literal["document"] = "document"
    media_type: str
    data: str = Field(description="base64")
    name: str | None = None


class ToolCallPart(_Frozen):
    """A tool call as the model wrote it. ``arguments`` is the raw JSON text, valid or not."""

    type: Literal["tool_call"] = "tool_call"
    id: str
    name: str
    arguments: str = "{}"
    provider_id: str | None = None

    def parsed_arguments(self) -> dict[str, JsonValue] | None:
        """The arguments as an object, or None when they are not a JSON object."""
        try:
            value = json.loads(self.arguments or "{}")
        except (ValueError, RecursionError):  # not JSON, or nested past the parser's depth
            return None
        return value if isinstance(value, dict) else None


ResultContent = Annotated[TextPart | ImagePart | DocumentPart, Field(discriminator="type")]


class ToolResultPart(_Frozen):
    type: Literal["tool_result"] = "tool_result"
    tool_call_id: str
    tool_name: str
    content: tuple[ResultContent, ...] = ()
    is_error: bool = False
    diff: str | None = None
    """The unified diff a file tool's change made, for display only (never sent to the model): a
    redrawn conversation shows it, since the file as it was is gone by then."""
    shown: str | None = None
    """What a person reads on the call's row in place of the text written for the model (denied;
    moved to the background), for display only; None: the text itself."""

    @property
    def text(self) -> str:
        return "\n".join(p.text for p in self.content if isinstance(p, TextPart))


Part = Annotated[
    TextPart | ThinkingPart | ImagePart | DocumentPart | ToolCallPart | ToolResultPart,
    Field(discriminator="type"),
]

Role = Literal["user", "assistant", "tool"]


class Aside(_Frozen):
    """Something that went with a person's message that they did not type: plan mode turned on or
    off (``plan-on``, ``plan-off``), or a command they ran (``command``, with what it printed)."""

    kind: Literal["plan-on", "plan-off", "command"]
    text: str
    """The notice the model reads, or the command line."""
    output: str = ""
    exit_code: int | None = None

    def note(self) -> str:
        """What the model reads of it, before the person's text."""
        if self.kind != "command":
            return self.text
        opening = f'<command ran-by="person" exit-code="{self.exit_code}">'
        return f"{opening}\n$ {self.text}\n{self.output}</command>"


class Shown(_Frozen):
    """How a user message is shown, apart from the text the model reads.

    Attributes:
        source: ``person`` for what a person sent, ``job`` for a background job's notice.
        typed: What the person typed, long pastes folded as the input box showed them.
        asides: What went with it, in the order sent (before the attached files and the text).
        files: The files attached to it (shown as chips, not their contents).
    """

    source: Literal["person", "job"] = "person"
    typed: str = ""
    asides: tuple[Aside, ...] = ()
    files: tuple[str, ...] = ()


class Message(_Frozen):
    """One message of a conversation."""

    role: Role
    parts: tuple[Part, ...]
    stop_reason: StopReason | None = None
    usage: Usage | None = None
    model: str | None = None
    error: str | None = None
    scope: str | None = None
    """An opaque fingerprint of the endpoint, key and model that wrote this answer (for signed thinking)."""
    shown: Shown | None = None
    """How a user message is shown when that is not its text as it is (see :class:`Shown`)."""
    response_id: str | None = None
    """The id the provider gave the response that wrote this answer, when its wire names one."""
    thinking: ThinkingLevel | None = None
    """The thinking level this answer was asked at; None when none was sent."""

    @classmethod
    def user(
        cls, text: str, *, media: Sequence[ImagePart | DocumentPart] = (), shown: Shown | None = None
    ) -> Message:
        """A person's message: its text, then any images and PDFs attached to it."""
        return cls(role="user", parts=(TextPart(text=text), *media), shown=shown)

    @classmethod
    def tool_result(
        cls, *, call_id: str, name: str, text: str, is_error: bool = False, shown: str | None = None
    ) -> Message:
        part = ToolResultPart(
            tool_call_id=call_id,
            tool_name=name,
            content=(TextPart(text=text),),
            is_error=is_error,
            shown=shown,
        )
        return cls(role="tool", parts=(part,))

    @property
    def text(self) -> str:
        """The text parts joined, for display and answers; a tool message's results' text."""
        if self.role == "tool":
            return "\n".join(result.text for result in self.tool_results)
        return "".join(p.text for p in self.parts if isinstance(p, TextPart))

    @property
    def typed(self) -> str:
        """What a person's message says as they sent it (their row shows it; /fork gives it back):
        the text typed, without the notices and files that went to the model with it; any other
        message's :attr:`text`."""
        shown = self.shown
        if self.role == "user" and shown is not None and shown.source == "person" and shown.typed:
            return shown.typed
        return self.text

    @property
    def tool_calls(self) -> tuple[ToolCallPart, ...]:
        return tuple([p for p in self.parts if isinstance(p, ToolCallPart)])  # a list first: faster

    @property
    def tool_results(self) -> tuple[ToolResultPart, ...]:
        return tuple([p for p in self.parts if isinstance(p, ToolResultPart)])  # a list first: faster


INTERRUPTED = "Interrupted:"
"""How the result of a call stopped before it finished begins (see :func:`was_interrupted`)."""
INTERRUPTED_RESULT = f"{INTERRUPTED} the tool call did not finish (Circle stopped before it had a result)."
NOT_RUN_RESULT = "Not run: the answer that asked for this call was incomplete."
STOPPED_RESULT = "Not run: the person stopped the turn before this call."
UNANSWERED_RESULT = "Not run: the person stopped the turn while this call waited for their approval."
"""The result of a call stopped while its approval waited for an answer: it never ran."""
UNANSWERED_SHOWN = "not run: the turn stopped before you answered"
"""What a person reads on that call's row."""


def was_interrupted(result: ToolResultPart) -> bool:
    """The call was stopped before it finished (the person stopped the turn, or Circle stopped):
    its stored result is :data:`INTERRUPTED_RESULT`, or a lost running call's record, which begins
    the same way. A redrawn conversation shows it as stopped, as the live one did."""
    return result.is_error and result.text.startswith(INTERRUPTED)


def unanswered_tool_calls(messages: list[Message]) -> list[ToolCallPart]:
    """Tool calls of the last assistant message that have no result after it."""
    for index in range(len(messages) - 1, -1, -1):
        if messages[index].role == "assistant":
            answered = {r.tool_call_id for m in messages[index + 1 :] for r in m.tool_results}
            return [c for c in messages[index].tool_calls if c.id not in answered]
        if messages[index].role == "user":
            return []
    return []


PARTIAL_OUTPUT_CHARS = 8_000
"""How much of a stopped call's output so far its result keeps (its end)."""


def output_so_far(output: str, *, limit: int = PARTIAL_OUTPUT_CHARS) -> str:
    """The end of a stopped call's output so far: its last ``limit`` characters, from a line's start."""
    output = output.rstrip()
    if len(output) <= limit:
        return output
    cut = output[-limit:]
    return cut[cut.find("\n") + 1 :] if "\n" in cut else cut


def close_unanswered(
    messages: list[Message],
    *,
    text: str = INTERRUPTED_RESULT,
    outputs: Mapping[str, str] | None = None,
    waiting: Collection[str] = (),
    unbegun: Collection[str] = (),
) -> list[Message]:
    """Error results for every unanswered tool call, so the next request is valid everywhere;
    ``outputs``: a stopped call's output so far by its id, kept in its result (for the model) and
    shown on its row; ``waiting``: the ids of calls stopped while their approval waited for an
    answer, which never ran (:data:`UNANSWERED_RESULT`, shown as :data:`UNANSWERED_SHOWN`);
    ``unbegun``: the ids of the calls after them the stop came before, which never ran either
    (:data:`STOPPED_RESULT`, as when the turn ends after a call)."""
    closed = []
    for call in unanswered_tool_calls(messages):
        if call.id in waiting:
            result = Message.tool_result(
                call_id=call.id, name=call.name, text=UNANSWERED_RESULT, is_error=True, shown=UNANSWERED_SHOWN
            )
            closed.append(result)
            continue
        if call.id in unbegun:
            closed.append(
                Message.tool_result(call_id=call.id, name=call.name, text=STOPPED_RESULT, is_error=True)
            )
            continue
        said = output_so_far((outputs or {}).get(call.id, ""))
        full = f"{text}\nIts output before it was stopped:\n{said}" if said else text
        shown = said or None
        closed.append(
            Message.tool_result(call_id=call.id, name=call.name, text=full, is_error=True, shown=shown)
        )
    return closed


__all__ = [
    "INTERRUPTED",
    "INTERRUPTED_RESULT",
    "NOT_RUN_RESULT",
    "PARTIAL_OUTPUT_CHARS",
    "STOPPED_RESULT",
    "UNANSWERED_RESULT",
    "UNANSWERED_SHOWN",
    "Aside",
    "DocumentPart",
    "ImagePart",
    "Message",
    "Part",
    "ResultContent",
    "Role",
    "Shown",
    "StopReason",
    "TextPart",
    "ThinkingPart",
    "ToolCallPart",
    "ToolResultPart",
    "Usage",
    "close_unanswered",
    "output_so_far",
    "unanswered_tool_calls",
    "was_interrupted",
]
