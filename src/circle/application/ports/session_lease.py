"""SessionLease: one Circle process at a time writes a session, by a heartbeat lease.

A lease names its holder (an owner id, the pid and the host) and carries a fencing token that
grows by one at every takeover; the store refuses a write whose holder's token is no longer the
lease's, so a holder paused past its expiry cannot write after another took over.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True, slots=True)
class Lease:
    """A held lease on one session."""

    session_id: str
    token: int
    owner: str
    pid: int
    host: str
    acquired_at: float
    expires_at: float


class SessionLease(Protocol):
    """Leases held by this process. Errors are :class:`~circle.domain.errors.StorageError`;
    a session held by another live Circle is :class:`~circle.domain.errors.SessionBusyError`.
    """

    async def acquire(self, session_id: str) -> Lease:
        """Take the session's lease: free, released, expired or held by a dead process on this
        host; again for one already held renews it. Raises SessionBusyError naming the holder."""
        ...

    async def heartbeat(self) -> None:
        """Extend every held lease. Raises SessionBusyError for one another Circle took over
        (it is no longer held)."""
        ...

    async def release(self, session_id: str | None = None) -> None:
        """Give up the session's lease (None: every held one); the next holder's token is higher."""
        ...


__all__ = ["Lease", "SessionLease"]
