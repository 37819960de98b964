"""What /tree, /undo and /redo ask of the open session: the tree's rows, going on from a message,
labels, and undo with redo. The screens draw; this reads and moves the session."""

from __future__ import annotations

import posixpath

from circle.application.rewind import Rewind
from circle.application.undo import Undo, UndoOutcome
from circle.domain.errors import ConfigError
from circle.entrypoints.tui import _format
from circle.entrypoints.tui._host import Host
from circle.entrypoints.tui._tree import TreeRow, tree_rows


async def rows(host: Host) -> list[TreeRow]:
    """The session's tree, the conversation's last message marked (none before its first)."""
    if not host.session.conversation.stored:
        return []
    store, session_id = host.runtime.ports.store, host.session.session_id
    history = await store.history(session_id, branch=host.session.conversation.branch)
    return tree_rows(
        await store.checkpoints(session_id),
        branches=await store.branches(session_id),
        labels=await store.labels(session_id),
        here=history[-1].id if history else None,
    )


async def go_on_from(host: Host, checkpoint_id: str) -> tuple[str, str]:
    """Open the session at ``checkpoint_id``: along the branch it heads, else on a new branch. At
    a message of the person's, from just before it, with its text to put back in the input box
    (as /fork does). Returns the line to show and that text ("" for none)."""
    if host.session.is_busy:
        raise ConfigError("the conversation can move only between turns (esc cancels the turn)")
    store, session_id = host.runtime.ports.store, host.session.session_id
    picked = next((c for c in await store.checkpoints(session_id) if c.id == checkpoint_id), None)
    again = ""
    if picked is not None and picked.message.role == "user" and picked.parent_id is not None:
        checkpoint_id, again = picked.parent_id, picked.message.typed
    session = await host.runtime.open_session(session_id, at_checkpoint=checkpoint_id)
    await host.switch_to(session)
    where = "before your message" if again else "here"
    return f"Going on from {where}, on branch {session.conversation.branch}", again


async def label(host: Host, checkpoint_id: str, text: str) -> None:
    await host.runtime.ports.store.add_label(checkpoint_id, text)


def make_undo(host: Host) -> Undo:
    """Undo and redo for the interface's sessions (messages only when no journal is kept)."""
    journal = host.runtime.ports.journal
    return Undo(None if journal is None else Rewind(journal, host.runtime.ports.files))


def said(host: Host, outcome: UndoOutcome | None, *, redo: bool) -> tuple[str, str]:
    """The line an undo or a redo leaves, and its kind."""
    verb = "redo" if redo else "undo"
    if outcome is None:
        if redo:
            return "Nothing to redo: /redo follows an /undo, before a new message.", "warning"
        return "Nothing to undo: the conversation has no message of yours.", "warning"
    if not outcome.done:
        shown = ", ".join(posixpath.relpath(c.path, host.workspace) for c in outcome.conflicts)
        return f"Not done: {shown} changed since; nothing was {verb}ne", "warning"
    files = f", {outcome.files} file{'s' if outcome.files != 1 else ''}" if outcome.files else ""
    count = f"{outcome.messages} message{'s' if outcome.messages != 1 else ''}{files}"
    quoted = _format.one_line(outcome.text, 50)
    if redo:
        return f"Redone {quoted!r}: {count} back", "info"
    return f"Undone {quoted!r}: {count} taken back · /redo brings them back", "info"


__all__ = ["go_on_from", "label", "make_undo", "rows", "said"]
