"""What a session's model calls used, summed by the model that answered.

A session's totals are everything it paid for, which never goes down: the answers on the branch
shown, those of its other branches and of turns undone (still stored, off the path), those its
compactions summarized, and each compaction's own call (its usage is stored on the summary). A
compaction's carried copies (stored with its summary, at the summary's own time) are the same
answers again, so they are counted once, as their originals.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from .checkpoints import Checkpoint
from .compaction import is_summary
from .messages import Message, Usage

Spent = tuple[tuple[str | None, Usage], ...]
"""Usage summed by the model that answered (None: answers that name none), in a stable order."""


def session_spent(checkpoints: Sequence[Checkpoint]) -> Spent:
    """Everything the session's stored calls used, on all its branches, each call once."""
    spent: dict[str | None, Usage] = {}
    chain_time: float | None = None
    for checkpoint in sorted(checkpoints, key=lambda cp: cp.seq):
        message = checkpoint.message
        if is_summary(message):
            chain_time = checkpoint.created_at
        elif chain_time is not None and checkpoint.created_at == chain_time:
            continue  # a copy the compaction carried: its original is counted
        else:
            chain_time = None
            if message.role != "assistant":
                continue
        if message.usage is not None:
            spent[message.model] = spent.get(message.model, Usage()) + message.usage
    return _ordered(spent)


def answers_spent(messages: Iterable[Message]) -> Spent:
    """What the answers among ``messages`` used (the messages a session's totals count)."""
    spent: dict[str | None, Usage] = {}
    for message in messages:
        if message.role == "assistant" and message.usage is not None:
            spent[message.model] = spent.get(message.model, Usage()) + message.usage
    return _ordered(spent)


def stand_ins(spent: Spent) -> list[Message]:
    """One answer with no text for each model of ``spent``, carrying its usage (so prices apply)."""
    return [Message(role="assistant", parts=(), model=model, usage=usage) for model, usage in spent]


def spent_apart(total: Spent, shown: Spent) -> Spent:
    """What ``total`` has beyond ``shown``, by model (never below nothing)."""
    counted = dict(shown)
    apart = {model: _minus(usage, counted.get(model, Usage())) for model, usage in total}
    return _ordered({model: usage for model, usage in apart.items() if usage.total})


def _minus(a: Usage, b: Usage) -> Usage:
    return Usage(
        input=max(0, a.input - b.input),
        output=max(0, a.output - b.output),
        cache_read=max(0, a.cache_read - b.cache_read),
        cache_write=max(0, a.cache_write - b.cache_write),
    )


def _ordered(spent: dict[str | None, Usage]) -> Spent:
    return tuple(sorted(spent.items(), key=lambda item: (item[0] is not None, item[0] or "")))


__all__ = ["Spent", "answers_spent", "session_spent", "spent_apart", "stand_ins"]
