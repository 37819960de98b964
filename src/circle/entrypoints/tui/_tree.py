"""The session's checkpoint tree as rows for /tree: one row a message, in the order and with the
guides of :func:`~circle.domain.checkpoint_tree.tree_order`, tagged with branch names and labels;
and the words /tree and /fork name a session and a message by (its title, what it says, when),
never an id."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from circle.application.ports.session_store import SessionInfo
from circle.domain.checkpoint_tree import tree_order
from circle.domain.checkpoints import Branch, Checkpoint, Label
from circle.domain.compaction import is_summary
from circle.domain.messages import Message, ThinkingPart, ToolResultPart
from circle.entrypoints.tui import _format
from circle.entrypoints.tui._recent import relative_when

WHO = {"user": "you", "assistant": "circle", "tool": "tool"}
THINKING_WORDS = 60
"""The characters of a thinking-only message's thinking its row starts with."""
TITLE_WIDTH = 60
QUOTED_WIDTH = 40


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
    return text or _thought(message) or "(empty)"


def _thought(message: Message) -> str:
    """A message holding only thinking, as such: ``thinking: first words``, ``thinking (cut): …``
    when the answer stopped while it streamed, ``thinking (hidden)`` when the provider sent it
    encrypted; "" for a message with no thinking."""
    parts = [part for part in message.parts if isinstance(part, ThinkingPart)]
    if not parts:
        return ""
    cut = " (cut)" if message.stop_reason is not None and not message.stop_reason.is_complete else ""
    words = " ".join(part.text for part in parts).strip()
    if not words:
        return f"thinking{cut or ' (hidden)'}"
    return f"thinking{cut}: {_format.one_line(words, THINKING_WORDS)}"


def session_name(info: SessionInfo | None) -> str:
    """The session as a person knows it: its name, else its title (its first message)."""
    name = (info.name or info.title or "") if info is not None else ""
    return f"“{_format.one_line(name, TITLE_WIDTH)}”" if name.strip() else "this session"


NEW_SESSION = "New session: it is stored with its first message"
"""What /new says (its id said nothing to a person, and no session is stored before a message)."""


def resumed_line(info: SessionInfo | None) -> str:
    """What /resume says it opened: ``Resumed “plan the parser change” · 12 messages`` (it said
    the session's whole hex id)."""
    count = info.message_count if info is not None else 0
    return f"Resumed {session_name(info)} · {count} message{'' if count == 1 else 's'}"


def tree_title(info: SessionInfo | None, *, branch: str) -> str:
    """/tree's title: ``Tree · on branch-2 · “plan the parser change”`` (the branch first: a
    narrow terminal cuts the title's end)."""
    return f"Tree · on {branch} · {session_name(info)}"


def fork_line(info: SessionInfo | None, picked: Checkpoint | None, *, before: bool, now: float) -> str:
    """What /fork says it did: from which session, up to which message (who said it, its first
    words, when), ``before`` for up to just before the person's message picked."""
    source = session_name(info)
    if picked is None:
        return f"Forked {source} into a new session"
    words = _format.one_line(_summary(picked.message), QUOTED_WIDTH)
    when = relative_when(picked.created_at, now)
    if before:
        if picked.parent_id is None:
            return f"Forked {source} into a new session, before its first message"
        return f"Forked {source} into a new session, up to before your “{words}” ({when})"
    speaker = who(picked.message)
    said_by = "your" if speaker == "you" else f"{speaker}’s"
    return f"Forked {source} into a new session, up to {said_by} “{words}” ({when})"


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


__all__ = [
    "NEW_SESSION",
    "TreeRow",
    "fork_line",
    "resumed_line",
    "said",
    "session_name",
    "tree_rows",
    "tree_title",
    "who",
]
