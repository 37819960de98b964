"""Older tool output and images left out of requests (the policy is :mod:`circle.domain.context_prune`).

The stored conversation keeps every byte; only the outbound request changes. Each rewrite is
made once and reused (keyed by the message object, as :mod:`.media` does), so the encoders'
per-message caches keep working from one request to the next.
"""

from __future__ import annotations

from collections.abc import Sequence

from circle.domain.context_prune import MessageWeight, PruneWindow, prune_targets, pruned, weigh
from circle.domain.messages import Message

_Key = tuple[int, bool, bool]


class RequestPruner:
    def __init__(self, window: PruneWindow | None = None) -> None:
        self.window = window or PruneWindow()
        self._rewritten: dict[_Key, tuple[Message, Message]] = {}
        self._weights: dict[int, tuple[Message, MessageWeight]] = {}

    def apply(self, messages: Sequence[Message]) -> tuple[Message, ...]:
        targets = prune_targets(messages, self.window, weights=self._weigh)
        if not targets:
            return tuple(messages)
        return tuple(
            self._one(m, stub=i in targets.stub_tools, drop=i in targets.drop_images)
            for i, m in enumerate(messages)
        )

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


__all__ = ["RequestPruner"]
