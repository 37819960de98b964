"""CallLog: how far each tool call got, kept durably so a crash loses no more than its result.

See :mod:`circle.domain.call_marks` for what the marks are for.
"""

from __future__ import annotations

from typing import Protocol

from circle.domain.call_marks import CallMark


class CallLog(Protocol):
    """Marks of a session's tool calls, each written before the caller goes on."""

    async def started(self, session_id: str, call_id: str) -> None:
        """The call's tool begins."""
        ...

    async def asking(self, session_id: str, call_id: str) -> None:
        """The call's approval waits for the person's answer (``started`` again once they allow it)."""
        ...

    async def finished(self, session_id: str, call_id: str, *, outcome: str) -> None:
        """The call's tool returned (its result not yet stored)."""
        ...

    async def marks(self, session_id: str) -> dict[str, CallMark]:
        """The session's marks by call id."""
        ...

    async def aclose(self) -> None: ...


__all__ = ["CallLog"]
