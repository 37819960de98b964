"""Token estimates of requests, each message weighed once however many requests carry it.

A request's estimate (:func:`circle.domain.budget.request_tokens`) adds up every message and
every tool schema; made afresh for each request, a long turn pays for its whole history on
every round. A :class:`TokenTally` keeps each message's estimate by the message object (messages
are frozen, so an object always weighs the same), the tool list's by the list, and the sum of the
last request's messages, so a round weighs and adds what it added
(:func:`~circle.domain.prefix.seen_length`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from circle.domain.budget import message_tokens, text_tokens, tools_tokens
from circle.domain.messages import Message
from circle.domain.model import ToolSpec
from circle.domain.prefix import seen_length


class TokenTally:
    """Request estimates equal to ``request_tokens``, with weights kept between requests.

    Args:
        weigh: a message's tokens (:func:`~circle.domain.budget.message_tokens`; tests count calls).
    """

    def __init__(self, *, weigh: Callable[[Message], int] = message_tokens) -> None:
        self._weigh = weigh
        self._messages: dict[int, tuple[Message, int]] = {}
        self._tools: tuple[Sequence[ToolSpec] | None, int] = (None, 0)
        self._system: tuple[str | None, int] = (None, 0)
        self._sums: tuple[tuple[Message, ...], list[int]] = ((), [])
        """The last request's messages, and the sum of each of their first n + 1."""

    def message(self, message: Message) -> int:
        """The tokens of ``message``, weighed on its first request only."""
        kept = self._messages.get(id(message))
        if kept is not None and kept[0] is message:
            return kept[1]
        tokens = self._weigh(message)
        self._messages[id(message)] = (message, tokens)
        return tokens

    def request(self, system: str, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> int:
        """The tokens of a request of ``system``, ``messages`` and ``tools``."""
        if self._system[0] != system:
            self._system = (system, text_tokens(system))
        if self._tools[0] is not tools:
            self._tools = (tools, tools_tokens(tools))
        return self._system[1] + self._tools[1] + self._messages_sum(messages)

    def _messages_sum(self, messages: Sequence[Message]) -> int:
        seen, sums = self._sums
        known = seen_length(seen, messages)
        sums = sums[:known]
        total = sums[-1] if sums else 0
        for message in messages[known:]:
            total += self.message(message)
            sums.append(total)
        self._sums = (tuple(messages), sums)
        return total

    def forget(self) -> None:
        """Drop every kept weight (after a compaction replaced the history)."""
        self._messages.clear()
        self._sums = ((), [])


__all__ = ["TokenTally"]
