"""InMemoryCallLog: the CallLog port in a dict, for tests."""

from __future__ import annotations

from circle.domain.call_marks import CallMark


class InMemoryCallLog:
    """Marks in memory.

    Attributes:
        marks_by_session: session id -> call id -> its mark.
    """

    def __init__(self) -> None:
        self.marks_by_session: dict[str, dict[str, CallMark]] = {}

    async def started(self, session_id: str, call_id: str) -> None:
        self.marks_by_session.setdefault(session_id, {})[call_id] = CallMark(call_id, "started")

    async def asking(self, session_id: str, call_id: str) -> None:
        self.marks_by_session.setdefault(session_id, {})[call_id] = CallMark(call_id, "asking")

    async def finished(self, session_id: str, call_id: str, *, outcome: str) -> None:
        self.marks_by_session.setdefault(session_id, {})[call_id] = CallMark(call_id, "finished", outcome)

    async def marks(self, session_id: str) -> dict[str, CallMark]:
        return dict(self.marks_by_session.get(session_id, {}))

    async def aclose(self) -> None:
        return None


__all__ = ["InMemoryCallLog"]
