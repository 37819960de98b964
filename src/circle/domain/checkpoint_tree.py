"""A session's checkpoints in the order a tree is read: depth first, each message after its parent,
replies in the order they were written. A message with one reply continues at the same depth;
where a message has several (the branches), each starts under it with ``├─`` / ``└─`` guides and
``│`` down the side, as a file tree does. `circle sessions show` and /tree both draw from it."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from .checkpoints import Checkpoint


def tree_order(checkpoints: Iterable[Checkpoint]) -> list[tuple[Checkpoint, str]]:
    """Each checkpoint with the guides to draw before it (no recursion: a long chain is fine)."""
    children: dict[str | None, list[Checkpoint]] = defaultdict(list)
    for checkpoint in sorted(checkpoints, key=lambda c: c.seq):
        children[checkpoint.parent_id].append(checkpoint)
    order: list[tuple[Checkpoint, str]] = []
    stack: list[tuple[Checkpoint, str, str]] = []  # the checkpoint, its guides, the guides under it

    def push(below: list[Checkpoint], rest: str) -> None:
        if len(below) == 1:
            stack.append((below[0], rest, rest))
            return
        for index in range(len(below) - 1, -1, -1):
            last = index == len(below) - 1
            stack.append((below[index], rest + ("└─ " if last else "├─ "), rest + ("   " if last else "│  ")))

    push(children[None], "")
    while stack:
        checkpoint, guides, rest = stack.pop()
        order.append((checkpoint, guides))
        push(children[checkpoint.id], rest)
    return order


__all__ = ["tree_order"]
