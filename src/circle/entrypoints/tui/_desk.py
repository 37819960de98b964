"""The cards waiting for the person: approvals, questions and secrets, shown one at a time.

:class:`Desk` is both the :class:`~circle.application.ports.approver.Approver` the approval policy
asks and the :class:`~circle.application.ports.asker.Asker` the question tool and plan_exit ask.
Each call waits on a future until the screen answers the card (or the turn is cancelled, which
takes the card away).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal

from circle.application.ports.approver import ApprovalDecision, ApprovalRequest
from circle.application.ports.asker import Answer, Question

Previewer = Callable[[ApprovalRequest], Awaitable[str | None]]
DENIED = "the person denied it"
STOPPED = "the person denied it and stopped the turn: wait for them to say what to do instead"
SHOWN_DENIED = "denied"
"""What the refused call's row says (the model is told :data:`DENIED` or :data:`STOPPED`)."""


def refused(reason: str = DENIED) -> ApprovalDecision:
    """The person's refusal: ``reason`` for the model, :data:`SHOWN_DENIED` on the call's row."""
    return ApprovalDecision(allowed=False, reason=reason, shown=SHOWN_DENIED)


@dataclass(frozen=True, slots=True)
class SecretRequest:
    name: str
    why: str = ""


@dataclass(eq=False)
class Pending:
    kind: Literal["approval", "question", "secret"]
    approval: ApprovalRequest | None = None
    questions: tuple[Question, ...] = ()
    secret: SecretRequest | None = None
    preview: str | None = None
    future: asyncio.Future[object] = field(default_factory=lambda: asyncio.get_running_loop().create_future())


class Desk:
    """A queue of cards; ``changed`` is called whenever one comes or goes."""

    def __init__(
        self, *, changed: Callable[[], None] = lambda: None, previewer: Previewer | None = None
    ) -> None:
        self.waiting: list[Pending] = []
        self.changed = changed
        self.previewer = previewer

    @property
    def first(self) -> Pending | None:
        return self.waiting[0] if self.waiting else None

    async def _wait(self, pending: Pending) -> object:
        self.waiting.append(pending)
        pending.future.add_done_callback(lambda _: self._gone(pending))
        self.changed()
        return await pending.future

    def _gone(self, pending: Pending) -> None:
        if pending in self.waiting:
            self.waiting.remove(pending)
            self.changed()

    async def decide(self, request: ApprovalRequest) -> ApprovalDecision:
        preview = None
        if self.previewer is not None:
            try:
                preview = await self.previewer(request)
            except OSError:
                preview = None
        result = await self._wait(Pending("approval", approval=request, preview=preview))
        assert isinstance(result, ApprovalDecision)
        return result

    async def ask(self, questions: Sequence[Question]) -> list[Answer] | None:
        result = await self._wait(Pending("question", questions=tuple(questions)))
        return result if isinstance(result, list) else None

    async def secret(self, request: SecretRequest) -> str | None:
        result = await self._wait(Pending("secret", secret=request))
        return result if isinstance(result, str) else None

    def answer(self, pending: Pending, value: object) -> None:
        if not pending.future.done():
            pending.future.set_result(value)

    def dismiss_all(self) -> None:
        """Answer every card with its refusal (the turn was cancelled, or Circle is leaving)."""
        for pending in list(self.waiting):
            refusal: object = refused() if pending.kind == "approval" else None
            self.answer(pending, refusal)


__all__ = ["DENIED", "SHOWN_DENIED", "STOPPED", "Desk", "Pending", "Previewer", "SecretRequest", "refused"]
