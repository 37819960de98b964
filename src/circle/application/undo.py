"""Undo and redo of the person's last message: its messages and the files its turn changed.

``undo`` takes the conversation back to before the person's last message: the branch's head moves
to that message's parent (the store keeps every checkpoint, so nothing stored is lost and the tree
still shows them), the turn's file changes are rewound (checked, all or none, as
:class:`~.rewind.Rewind` does), and the conversation the model is sent next no longer holds them.
The answers taken out still count in the session's costs. ``redo`` does it all again, as long as
nothing was sent since: the files go back to how the turn left them and the head comes back.

When a file changed since the turn, nothing is undone and the conflicts are returned; likewise a
redo whose files changed since the undo.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from circle.domain.checkpoints import Checkpoint
from circle.domain.messages import Message

from .rewind import Change, Rewind
from .session import AgentSession


@dataclass(frozen=True, slots=True)
class UndoStep:
    """One undo, kept so that it can be done again."""

    branch: str
    head_before: str
    head_after: str | None
    turns: tuple[int, ...]
    """The journal turns whose files were put back, newest first."""
    removed: tuple[Message, ...]


@dataclass(frozen=True, slots=True)
class UndoOutcome:
    """What an undo or a redo did: the person's message it was about, the messages taken out (or
    brought back), the files changed; or (``done`` False) the conflicts that stopped it."""

    done: bool
    text: str = ""
    """The person's message as they typed it (its row's text, not the notices and files sent with it)."""
    messages: int = 0
    files: int = 0
    conflicts: tuple[Change, ...] = ()


@dataclass
class Undo:
    """Undo and redo for the sessions of one interface; ``rewind`` None: no journal, messages only."""

    rewind: Rewind | None
    steps: dict[str, list[UndoStep]] = field(default_factory=dict)
    """Per session, the undos that redo can do again, last one last."""

    async def undo(self, session: AgentSession) -> UndoOutcome | None:
        """Take back the person's last message and what followed; None when there is none."""
        conversation = session.conversation
        store, session_id = conversation.store, conversation.session_id
        history = await conversation.history()  # none before the first message
        start = _last_user(history)
        if start is None:
            return None
        removed = history[start:]
        ids = {cp.id for cp in removed}
        journal_turns = [] if self.rewind is None else await self.rewind.turns(session_id)
        turns = [t.number for t in journal_turns if t.turn_id in ids and t.restored_at is None]
        files, done = 0, list[int]()
        for number in turns:
            assert self.rewind is not None
            outcome = await self.rewind.restore(session_id, number)
            if not outcome.restored:
                for again in reversed(done):  # all or none: the turns already put back are redone
                    await self.rewind.reapply(session_id, again)
                return UndoOutcome(False, removed[0].message.typed, conflicts=outcome.conflicts)
            files += len(outcome.changes)
            done.append(number)
        head_after = history[start - 1].id if start else None
        await store.move_branch(session_id, conversation.branch, head_id=head_after)
        await conversation.reload()
        messages = tuple(cp.message for cp in removed)
        session.loop.window.retired = await conversation.spent_apart()  # the turns undone still count
        step = UndoStep(conversation.branch, history[-1].id, head_after, tuple(turns), messages)
        self.steps.setdefault(session_id, []).append(step)
        return UndoOutcome(True, removed[0].message.typed, messages=len(removed), files=files)

    async def redo(self, session: AgentSession) -> UndoOutcome | None:
        """Do the last undo again; None when there is none, or a message was sent since it."""
        conversation = session.conversation
        store, session_id = conversation.store, conversation.session_id
        steps = self.steps.get(session_id, [])
        if not steps:
            return None
        step = steps[-1]
        history = await store.history(session_id, branch=conversation.branch)
        head = history[-1].id if history else None
        if step.branch != conversation.branch or head != step.head_after:
            steps.clear()  # the conversation went on since: what was undone stays in the tree
            return None
        files = 0
        for number in reversed(step.turns):
            assert self.rewind is not None
            outcome = await self.rewind.reapply(session_id, number)
            if not outcome.restored:
                return UndoOutcome(False, step.removed[0].typed, conflicts=outcome.conflicts)
            files += len(outcome.changes)
        await store.move_branch(session_id, conversation.branch, head_id=step.head_before)
        await conversation.reload()
        session.loop.window.retired = await conversation.spent_apart()
        steps.pop()
        return UndoOutcome(True, step.removed[0].typed, messages=len(step.removed), files=files)


def _last_user(history: list[Checkpoint]) -> int | None:
    """The index of the person's last message (a user message, not a tool result)."""
    return next((i for i in range(len(history) - 1, -1, -1) if history[i].message.role == "user"), None)


__all__ = ["Undo", "UndoOutcome", "UndoStep"]
