"""The session's checkpoint tree as rows for /tree: one row a message, in the order and with the
guides of :func:`~circle.domain.checkpoint_tree.tree_order`, tagged with branch names and labels."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from circle.domain.checkpoint_tree import tree_order
from circle.domain.checkpoints import Branch, Checkpoint, Label
from circle.domain.compaction import is_summary
from circle.domain.messages import Message, ToolResultPart
from circle.entrypoints.tui import _format

WHO = {"user": "you", "assistant": "circle", "tool": "tool"}


def who(message: Message) -> str:
    """Who said ``message``, as /tree and /fork name it: ``you``, ``circle``, ``tool``, or what a
    user message is when no person wrote it (a job's ``notice``, the compaction's ``summary``)."""
    if message.role == "user":
        if is_summary(message):
            return "summary"
        if message.shown is not None and message.shown.source == "job":
            return "notice"
    return WHO.get(message.role, message.role)


def said(message: Message) -> str:
    """What ``message`` says in a list: a person's message as they typed it (chips and folded
    pastes, not the attached files' contents), a job's notice as its row says it (no brackets, no
    output file's path)."""
    if who(message) == "notice":
        from circle.application.jobs import notice_for_person

        return notice_for_person(message.text)
    return message.typed


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
        return f"{mark}{self.guides}{self.who:<6} {_format.one_line(self.text, width)}{tags}"


def _summary(message: Message) -> str:
    text = said(message).strip()
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
    return [
        TreeRow(
            checkpoint.id,
            guides,
            who(checkpoint.message),
            _summary(checkpoint.message),
            tuple(tags.get(checkpoint.id, ())),
            checkpoint.id == here,
        )
        for checkpoint, guides in tree_order(checkpoints)
    ]


__all__ = ["TreeRow", "said", "tree_rows", "who"]
