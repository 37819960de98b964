"""What the loop does to keep a long session inside the model's context window.

Before each request, :class:`ContextKeeper` prunes it (older tool output stubbed, older images left
out: :mod:`.pruning`) and, when it still passes the budget, compacts the conversation
(:mod:`.compaction`). The request is counted as the endpoint last counted it: the newest answer's
input and output tokens plus an estimate of what came after
(:func:`~circle.domain.budget.reported_tokens`), or the estimate where that is larger or no answer
reported usage; a compaction then measures what it keeps at the same ratio of counted to
estimated tokens. Answers a compaction carried over reported the conversation before it, so they
are not trusted (nor, in a resumed session that was compacted, the answers it was opened with).
An endpoint that says the request overflowed gets one compaction and one
retry; ``compact_conversation`` and /compact compact on request. Every compaction is announced by
:class:`~.events.CompactionStarted` and :class:`~.events.CompactionEnded`; a failed one changes
nothing and the turn goes on (an overflow then stands).

It also remembers the answers a compaction took out of the conversation, so costs still count them.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence

from circle.domain.budget import (
    RequestBudget,
    messages_tokens,
    reported_tokens,
    text_tokens,
    tools_tokens,
)
from circle.domain.compaction import is_summary
from circle.domain.errors import CircleError
from circle.domain.messages import Message, ToolCallPart, Usage
from circle.domain.model import ToolSpec

from .compaction import CompactionOutcome, Compactor
from .conversation import Conversation
from .events import CompactionEnded, CompactionReason, CompactionStarted
from .ports.event_sink import EventSink
from .pruning import RequestPruner
from .token_tally import TokenTally
from .tools.compaction import COMPACT_CONVERSATION

log = logging.getLogger("circle.compaction")


def requested_compaction(calls: Sequence[ToolCallPart]) -> str | None:
    """The instructions of a ``compact_conversation`` call among ``calls`` ("" for none given);
    None when no call asks for a compaction."""
    for call in calls:
        if call.name == COMPACT_CONVERSATION:
            arguments = call.parsed_arguments() or {}
            instructions = arguments.get("instructions")
            return instructions if isinstance(instructions, str) else ""
    return None


class ContextKeeper:
    """The loop's context window: pruning, automatic and requested compaction, retired answers.

    Args:
        events: where compaction events go.
        budget: the request budget.
        compactor: compacts; None: requests are pruned but never compacted.
    """

    def __init__(self, *, events: EventSink, budget: RequestBudget, compactor: Compactor | None) -> None:
        self.events = events
        self.budget = budget
        self.compactor = compactor
        self.pruner = RequestPruner()
        self.tally = TokenTally()
        """Each message's estimate, kept across requests (dropped with the pruner's, at a compaction)."""
        self.retired: list[Message] = []
        self.turn_retired: list[Message] = []
        self.turn_start = 0
        self._gave_up = False
        self._stale: tuple[Message, ...] | None = None
        self.automatic = True
        """False: no compaction when the threshold is passed (an overflow and requests still compact)."""

    def start_turn(self, index: int) -> None:
        self.turn_start = index
        self.turn_retired = []
        self._gave_up = False

    def session_messages(self, conversation: Conversation) -> list[Message]:
        """Every answer the session paid for: those compacted away, then the conversation (with
        what its answers not read yet used, while a session opened by its tail has some)."""
        return [*self.retired, *conversation.unread_spending(), *conversation.messages]

    def session_usage(self, conversation: Conversation) -> Usage:
        """The tokens of :meth:`session_messages`' answers (what the session's totals show)."""
        return _answers_usage(self.session_messages(conversation))

    def turn_usage(self, conversation: Conversation) -> Usage:
        """The tokens of :meth:`turn_messages`' answers (a compaction's call in the turn too)."""
        return _answers_usage(self.turn_messages(conversation))

    def turn_messages(self, conversation: Conversation) -> list[Message]:
        return [*self.turn_retired, *conversation.messages[self.turn_start :]]

    def prune(self, messages: Sequence[Message]) -> tuple[Message, ...]:
        return self.pruner.apply(messages)

    async def before_request(
        self,
        conversation: Conversation,
        *,
        system: str,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec],
    ) -> bool:
        """Compact when the request (as it would be sent) passes the budget. True if it did."""
        if self.compactor is None or self._gave_up or not self.automatic:
            return False
        tokens = max(self.tally.request(system, messages, tools), self.reported(conversation) or 0)
        if not self.budget.over(tokens):
            return False
        fixed = _fixed(system, tools)
        scale = self._scale(conversation, fixed)
        if not self.compactor.plan(conversation.messages, fixed_tokens=fixed, scale=scale).summarize:
            return False
        done = await self.compact(conversation, reason="threshold", system=system, tools=tools)
        self._gave_up = done is None
        return done is not None

    def reported(self, conversation: Conversation) -> int | None:
        """The conversation's tokens as the endpoint counted them (see the module docstring)."""
        messages = conversation.messages
        if self._stale is None:
            self._stale = tuple(messages) if any(is_summary(m) for m in messages) else ()
        since = 0
        if self._stale:
            held = {id(m) for m in self._stale}
            since = next((i + 1 for i in range(len(messages) - 1, -1, -1) if id(messages[i]) in held), 0)
        return reported_tokens(messages, since=since)

    def _scale(self, conversation: Conversation, fixed: int) -> float:
        """The endpoint's tokens for each estimated one in this conversation (at least 1)."""
        reported = self.reported(conversation)
        estimate = fixed + messages_tokens(conversation.messages)
        return max(1.0, reported / estimate) if reported and estimate else 1.0

    async def compact(
        self,
        conversation: Conversation,
        *,
        reason: CompactionReason,
        system: str = "",
        tools: Sequence[ToolSpec] = (),
        instructions: str | None = None,
    ) -> CompactionOutcome | None:
        """Compact now, with events; None when nothing was compacted (the end event says why)."""
        if self.compactor is None:
            return None
        await conversation.load()  # a session opened by its tail: its tokens are all of it
        session_id = conversation.session_id
        fixed = _fixed(system, tools)
        counted = self.reported(conversation) or 0
        scale = self._scale(conversation, fixed)
        self.events.emit(CompactionStarted(session_id=session_id, reason=reason))
        try:
            outcome = await self.compactor.compact(
                conversation,
                fixed_tokens=fixed,
                instructions=instructions or None,
                shrink=reason != "threshold",
                scale=scale,
            )
        except CircleError as exc:
            log.warning("compaction failed: %s", exc.message)
            self.events.emit(CompactionEnded(session_id=session_id, reason=reason, error=exc.message))
            return None
        if outcome is None:
            self.events.emit(
                CompactionEnded(session_id=session_id, reason=reason, error="nothing to compact")
            )
            return None
        self._account(outcome, conversation)
        files = outcome.files
        self.events.emit(
            CompactionEnded(
                session_id=session_id,
                reason=reason,
                summarized=outcome.summarized,
                kept=outcome.kept,
                tokens_before=max(outcome.plan.tokens_before + math.ceil(fixed * scale), counted),
                tokens_after=outcome.tokens_after,
                summary_checkpoint_id=outcome.record.summary_checkpoint_id,
                history_file=outcome.record.history_file,
                will_retry=reason == "overflow",
                summary=outcome.summary_answer.text,
                read_files=files.read,
                modified_files=files.modified,
            )
        )
        return outcome

    def _account(self, outcome: CompactionOutcome, conversation: Conversation) -> None:
        self._stale = tuple(conversation.messages)  # their usage counted the conversation before
        self.retired.extend(outcome.retired())
        self.turn_retired.extend(outcome.retired(self.turn_start))
        self.turn_start = outcome.moved(self.turn_start)
        self.pruner.forget()
        self.tally.forget()


def _fixed(system: str, tools: Sequence[ToolSpec]) -> int:
    return text_tokens(system) + tools_tokens(tools)


def _answers_usage(messages: Sequence[Message]) -> Usage:
    return sum((m.usage for m in messages if m.role == "assistant" and m.usage is not None), Usage())


__all__ = ["ContextKeeper", "requested_compaction"]
