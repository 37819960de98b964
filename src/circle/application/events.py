"""The agent's events, in the past tense. Sinks turn them into text, JSON or widgets.

The JSON names (``to_json`` in the entrypoints) follow pi's RPC events so a pi client can read them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from pydantic import JsonValue

from circle.domain.messages import Message, Usage


@dataclass(frozen=True, slots=True)
class AgentStarted:
    """The work a prompt (or a job notice) started begins: its turns, follow-ups and job turns."""

    session_id: str


@dataclass(frozen=True, slots=True)
class AgentEnded:
    """That work has ended; ``messages`` are the ones it added to the conversation, oldest first."""

    session_id: str
    messages: tuple[Message, ...]


@dataclass(frozen=True, slots=True)
class TurnStarted:
    session_id: str
    message: str | None


@dataclass(frozen=True, slots=True)
class MessageStarted:
    """A message begins: a person's or a tool's (complete), or the model's (empty so far)."""

    message: Message | None
    role: Literal["user", "assistant", "tool"]


DeltaKind = Literal["text", "thinking", "toolcall"]
PartPhase = Literal["start", "delta", "end"]


@dataclass(frozen=True, slots=True)
class MessageUpdated:
    """The model's answer grows: a part of ``kind`` starts, gets ``delta``, or ends (``delta`` is
    empty at its start and end). ``content_index`` is the part's position in ``partial.parts``,
    the answer so far; a tool call's start names its ``stream_index``, the wire's index of it."""

    kind: DeltaKind
    delta: str
    content_index: int
    partial: Message | None = None
    phase: PartPhase = "delta"
    stream_index: int | None = None


@dataclass(frozen=True, slots=True)
class MessageEnded:
    message: Message
    checkpoint_id: str | None


@dataclass(frozen=True, slots=True)
class ToolExecutionStarted:
    tool_call_id: str
    tool_name: str
    args: dict[str, JsonValue]


@dataclass(frozen=True, slots=True)
class ToolExecutionUpdated:
    """A running call's output so far (all of it, not what was added), as a command prints it."""

    tool_call_id: str
    tool_name: str
    args: dict[str, JsonValue]
    partial: str


@dataclass(frozen=True, slots=True)
class ToolExecutionEnded:
    tool_call_id: str
    tool_name: str
    result: str
    is_error: bool
    diff: str | None = None
    """The unified diff a file tool's change made (secrets masked), for display."""
    shown: str | None = None
    """What a person reads in place of ``result`` (see :attr:`ToolResultPart.shown`)."""
    aborted: bool = False
    """The call was stopped before it finished (the turn was cancelled): its result says it was
    interrupted and ``is_error`` is set, but nothing failed. A call stopped while its approval
    waited for an answer never ran: it ends not ``aborted``, its result saying it was not run."""


@dataclass(frozen=True, slots=True)
class TurnEnded:
    session_id: str
    answer: str
    """The turn's last answer; for a turn stopped while the model answered, the text it had sent."""
    usage: Usage
    incomplete: bool = False
    aborted: bool = False
    error: str | None = None
    error_code: str | None = None
    cost: float | None = None
    """What this turn's model answers cost in US dollars; None when the model's price is unknown."""
    session_cost: float | None = None
    """What the session's answers cost so far, this turn included; None when a price is unknown."""
    estimated: int = 0
    """Of ``usage``'s output tokens, those guessed from what streamed: no endpoint counted them
    (a stream stopped or failed before its count came). The cost counts them too."""


@dataclass(frozen=True, slots=True)
class Steered:
    """The model read a steering message the person sent while the turn ran."""

    session_id: str
    message: str


@dataclass(frozen=True, slots=True)
class BudgetWarned:
    """The session's spending nears its budget (``spent`` is 80% or more of ``limit``), or, with
    ``spent`` None, the budget cannot be enforced because the model has no known price."""

    spent: float | None
    limit: float
    message: str


@dataclass(frozen=True, slots=True)
class RetryScheduled:
    """A model request failed and is sent again after ``delay_ms``; the answer streamed so far,
    if any, is void (the new attempt starts it again). ``attempt`` counts retries of ``kind``."""

    kind: str
    attempt: int
    max_attempts: int
    delay_ms: int
    error: str


@dataclass(frozen=True, slots=True)
class ErrorReported:
    code: str
    message: str


CompactionReason = Literal["threshold", "overflow", "manual"]


@dataclass(frozen=True, slots=True)
class CompactionStarted:
    """Older messages are being summarized: the context passed its threshold, the endpoint said it
    overflowed, or someone asked (/compact, the compact_conversation tool)."""

    session_id: str
    reason: CompactionReason


@dataclass(frozen=True, slots=True)
class CompactionEnded:
    """A compaction finished (``error`` None) or failed and changed nothing.

    ``summarized`` messages became one summary, ``kept`` stayed (pinned ones included);
    ``history_file`` holds the full text of what was summarized; ``will_retry`` is True when the
    request that overflowed is sent again.
    """

    session_id: str
    reason: CompactionReason
    summarized: int = 0
    kept: int = 0
    tokens_before: int = 0
    tokens_after: int = 0
    summary_checkpoint_id: str | None = None
    history_file: str | None = None
    error: str | None = None
    will_retry: bool = False
    summary: str = ""
    """The summary's text (empty when the compaction failed)."""
    read_files: tuple[str, ...] = ()
    modified_files: tuple[str, ...] = ()
    """The files the summarized messages' tool calls read (and did not change), and changed."""


@dataclass(frozen=True, slots=True)
class SubagentEvent:
    """An event of a subagent's own loop (its text deltas left out), tagged with its run: which
    subagent works on what. ``event`` is never itself a SubagentEvent (subagents start none)."""

    run_id: str
    subagent_type: str
    description: str
    event: AgentEvent
    parent_call_id: str | None = None
    """The ``task`` call of the session's own turn that runs this subagent, when one does."""


AgentEvent = (
    AgentStarted
    | AgentEnded
    | TurnStarted
    | MessageStarted
    | MessageUpdated
    | MessageEnded
    | ToolExecutionStarted
    | ToolExecutionUpdated
    | ToolExecutionEnded
    | TurnEnded
    | Steered
    | BudgetWarned
    | RetryScheduled
    | ErrorReported
    | CompactionStarted
    | CompactionEnded
    | SubagentEvent
)

__all__ = [
    "AgentEnded",
    "AgentEvent",
    "AgentStarted",
    "BudgetWarned",
    "CompactionEnded",
    "CompactionReason",
    "CompactionStarted",
    "DeltaKind",
    "ErrorReported",
    "MessageEnded",
    "MessageStarted",
    "MessageUpdated",
    "PartPhase",
    "RetryScheduled",
    "ToolExecutionEnded",
    "ToolExecutionStarted",
    "ToolExecutionUpdated",
    "TurnEnded",
    "TurnStarted",
]
