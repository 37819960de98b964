"""The session's checkpoint tree as rows for /tree: one row a message, depth first in the order
they were written. A message with one reply continues at the same depth; where a message has
several (the branches), each starts under it with ``├─`` / ``└─`` guides, as a file tree does."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from circle.domain.checkpoints import Branch, Checkpoint, Label
from circle.domain.messages import Message, ToolResultPart
from circle.entrypoints.tui import _format

WHO = {"user": "you", "assistant": "circle", "tool": "tool"}


@dataclass(frozen=True, slots=True)
class TreeRow:
    """One message of the tree: its checkpoint, the guides before it, and what it says."""

    checkpoint_id: str
    guides: str
    who: str
    text: str
    tags: tuple[str, ...]
    here: bool

    def line(self, width: int = 90) -> str:
        mark = "● " if self.here else "  "
        tags = "".join(f"  [{tag}]" for tag in self.tags)
        return f"{mark}{self.guides}{self.who:<7}{_format.one_line(self.text, width)}{tags}"


def _summary(message: Message) -> str:
    text = message.text.strip()
    if message.role == "tool":
        results = [p for p in message.parts if isinstance(p, ToolResultPart)]
        name = results[0].tool_name if results else "tool"
        return f"{name} result"
    calls = ", ".join(call.name for call in message.tool_calls)
    if calls:
        return f"{text}  → {calls}" if text else f"→ {calls}"
    return text or "(empty)"


def tree_rows(
    checkpoints: list[Checkpoint],
    *,
    branches: list[Branch],
    labels: list[Label],
    here: str | None,
) -> list[TreeRow]:
    """The rows of the tree; ``here`` is the checkpoint the conversation is at (the marked row)."""
    tags: dict[str, list[str]] = defaultdict(list)
    for branch in branches:
        if branch.head_id is not None and len(branches) > 1:
            tags[branch.head_id].append(branch.name)
    for label in labels:
        tags[label.checkpoint_id].append(label.text)
    children: dict[str | None, list[Checkpoint]] = defaultdict(list)
    for checkpoint in sorted(checkpoints, key=lambda c: c.seq):
        children[checkpoint.parent_id].append(checkpoint)
    rows: list[TreeRow] = []
    stack: list[tuple[Checkpoint, str, str]] = []  # checkpoint, its guides, the guides under it

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
        message = checkpoint.message
        rows.append(
            TreeRow(
                checkpoint.id,
                guides,
                WHO.get(message.role, message.role),
                _summary(message),
                tuple(tags.get(checkpoint.id, ())),
                checkpoint.id == here,
            )
        )
        push(children[checkpoint.id], rest)
    return rows


__all__ = ["TreeRow", "tree_rows"]
