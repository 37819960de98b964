"""How much of a sequence a caller has already seen: the part of the last one the new one begins with.

A conversation's requests repeat its history and add a round to it, so what a request's
preparation works out for each message (a rewrite, an estimate, its JSON) is kept for the part of
the history the next request begins with, and only the rest is looked at. The next one may also
end without the last message of the one before (a reminder sent once, never stored), so that
message is left out of the comparison when the whole does not match.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")


def seen_length(previous: tuple[T, ...], current: Sequence[T]) -> int:
    """How many items ``current`` begins with from ``previous``: all of them, all but the last, or
    none. Items compare by identity first, as tuples do, so a grown history costs one pass in C."""
    for length in (len(previous), len(previous) - 1):
        if 0 < length <= len(current):
            head = current[:length]
            if (head if isinstance(head, tuple) else tuple(head)) == previous[:length]:
                return length
    return 0


__all__ = ["seen_length"]
