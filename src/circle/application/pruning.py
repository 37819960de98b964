"""Older tool output and images left out of requests (the policy is :mod:`circle.domain.context_prune`).

The stored conversation keeps every byte; only the outbound request changes. Each rewrite is
made once and reused (keyed by the message object, as :mod:`.media` does), so the encoders'
per-message caches keep working from one request to the next. The tool output and the images of
the last request's messages are kept summed (:func:`~circle.domain.prefix.seen_length`): while
they are under the window, nothing can be left out and the messages are not looked at again.
"""

from __future__ import annotations

from collections.abc import Sequence

from circle.domain.context_prune import MessageWeight, PruneWindow, prune_targets, pruned, weigh
from circle.domain.messages import Message
from circle.domain.prefix import seen_length

_Key = tuple[int, bool, bool]


class RequestPruner:
    def __init__(self, window: PruneWindow | None = None) -> None:
        self.window = window or PruneWindow()
        self._rewritten: dict[_Key, tuple[Message, Message]] = {}
        self._weights: dict[int, tuple[Message, MessageWeight]] = {}
        self._totals: tuple[tuple[Message, ...], list[tuple[int, int]]] = ((), [])
        """The last request's messages, and the tool output tokens and the messages with images
        of each of their first n + 1."""

    def apply(self, messages: Sequence[Message]) -> tuple[Message, ...]:
        output, images = self._summed(messages)
        if output <= self.window.recent_tokens and images <= self.window.recent_images:
            return tuple(messages)  # what prune_targets would find: nothing
        targets = prune_targets(messages, self.window, weights=self._weigh)
        if not targets:
            return tuple(messages)
        return tuple(
            self._one(m, stub=i in targets.stub_tools, drop=i in targets.drop_images)
            for i, m in enumerate(messages)
        )

    def _summed(self, messages: Sequence[Message]) -> tuple[int, int]:
        seen, totals = self._totals
        known = seen_length(seen, messages)
        totals = totals[:known]
        output, images = totals[-1] if totals else (0, 0)
        for message in messages[known:]:
            weight = self._weigh(message)
            output += weight.output_tokens if weight.has_results else 0
            images += weight.has_images
            totals.append((output, images))
        self._totals = (tuple(messages), totals)
        return output, images

    def _weigh(self, message: Message) -> MessageWeight:
        """A message's weight, worked out once (keyed by the object, which never changes)."""
        cached = self._weights.get(id(message))
        if cached is not None and cached[0] is message:
            return cached[1]
        weight = weigh(message)
        self._weights[id(message)] = (message, weight)
        return weight

    def _one(self, message: Message, *, stub: bool, drop: bool) -> Message:
        if not (stub or drop):
            return message
        key = (id(message), stub, drop)
        cached = self._rewritten.get(key)
        if cached is not None and cached[0] is message:
            return cached[1]
        result = pruned(message, stub_tools=stub, drop_images=drop)
        self._rewritten[key] = (message, result)
        return result

    def forget(self) -> None:
        """Drop every cached rewrite and weight (after a compaction replaced the history)."""
        self._rewritten.clear()
        self._weights.clear()
        self._totals = ((), [])


__all__ = ["RequestPruner"]
