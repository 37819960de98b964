"""SessionLease on circle.sqlite: one writer per session, held by heartbeats and fenced by a token.

The ``leases`` table has a row per session that was ever leased: the holder (an owner id made per
lease object, its pid and host), a fencing token and an expiry. Acquiring takes the row when it is
free (released; held by a process of this host that is gone, whatever its expiry; or, held from
another host, expired) and raises the token by
one; a holder renews its expiry with :meth:`SqliteSessionLease.heartbeat` (the runtime does every
5 s against a 15 s TTL). Acquiring fences the store to the token: every append then checks, inside
its own write transaction, that the row still carries that token, so a holder paused past its
expiry whose lease another Circle took over writes nothing (:class:`SessionBusyError`). Releasing
expires the row but keeps it, so tokens never go back.
"""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Callable
from typing import TYPE_CHECKING
from uuid import uuid4

from circle.application.ports.session_lease import Lease
from circle.domain.errors import SessionBusyError

from . import _sql as sql

if TYPE_CHECKING:
    from .sqlite_store import SqliteSessionStore

TTL_S = 15.0
"""How long a lease lasts without a heartbeat."""

_START_SLACK_S = 2.0
"""How much later than its lease a holder's start may read (boot time and clock ticks are coarse)."""

_LeaseTuple = tuple[str, int, str, int, float, float]  # owner, pid, host, token, acquired_at, expires_at


def _started_at(pid: int) -> float | None:
    """When the process started, in seconds since the epoch, where /proc tells (Linux); else None."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        with open("/proc/stat", encoding="ascii") as machine:
            boot = next(float(line.split()[1]) for line in machine if line.startswith("btime "))
        return boot + int(fields[19]) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, StopIteration):
        return None


def pid_alive(pid: int, since: float | None = None) -> bool:
    """Whether a process with this id runs on this host (one we may not signal counts as running).

    Args:
        pid: the process id.
        since: when that process took a lease: a process of that id started later is another one,
            the id reused after the holder died (known where /proc tells start times).
    """
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # PermissionError: it exists, as another user's
        return True
    started = _started_at(pid) if since is not None else None
    return started is None or since is None or started <= since + _START_SLACK_S


def _holder(row: _LeaseTuple) -> str:
    _, pid, host, _, acquired_at, _ = row
    return f"pid {pid} on host {host}, since {time.strftime('%H:%M:%S', time.localtime(acquired_at))}"


def busy_error(session_id: str, row: _LeaseTuple) -> SessionBusyError:
    """The one line for a session another live Circle holds."""
    return SessionBusyError(f"session {session_id} is open in another Circle ({_holder(row)})")


def lost_lease_error(session_id: str, row: _LeaseTuple | None) -> SessionBusyError:
    """The one line for a holder whose lease is gone: taken over, or the session deleted."""
    if row is None:
        return SessionBusyError(f"session {session_id} has no lease any more (deleted?): nothing was written")
    return SessionBusyError(
        f"session {session_id} is open in another Circle ({_holder(row)}), which took it over:"
        " nothing was written"
    )


class SqliteSessionLease:
    """The leases this process holds, on the file (and connection) of ``store``.

    Args:
        store: the session store to fence; the leases live in its file.
        ttl_s: how long a lease lasts from its last heartbeat.
        clock: seconds since the epoch.
        pid: this process's id, as other Circles see it.
        host: this host's name.
        is_alive: whether a pid of this host that took a lease at a time still runs: a dead
            holder's lease is taken at once, a live one's never.
    """

    def __init__(
        self,
        store: SqliteSessionStore,
        *,
        ttl_s: float = TTL_S,
        clock: Callable[[], float] = time.time,
        pid: int | None = None,
        host: str | None = None,
        is_alive: Callable[[int, float], bool] = pid_alive,
    ) -> None:
        self._store = store
        self._db = store.database
        self._clock = clock
        self._is_alive = is_alive
        self.ttl_s = ttl_s
        self.pid = os.getpid() if pid is None else pid
        self.host = host or socket.gethostname()
        self.owner = uuid4().hex
        self.held: dict[str, int] = {}
        """Session id -> the token held."""

    def _free(self, row: _LeaseTuple, now: float) -> bool:
        """Released, or its holder gone. Another process of this host is judged by its process
        alone: a live one keeps the lease even past its expiry (its heartbeat starved by load).
        A holder of another host, or another lease object of this process, by its expiry."""
        _, pid, host, _, acquired_at, expires_at = row
        if expires_at <= 0.0:  # released
            return True
        if host == self.host and pid != self.pid:
            return not self._is_alive(pid, acquired_at)
        return expires_at < now

    async def acquire(self, session_id: str) -> Lease:
        """Take or renew the session's lease. Raises SessionBusyError naming a live holder."""
        now = self._clock()
        with self._db.writing() as connection:
            row: _LeaseTuple | None = connection.execute(sql.LEASE, {"session_id": session_id}).fetchone()
            token, since = 1, now
            if row is not None:
                if row[0] == self.owner and self.held.get(session_id) == row[3]:
                    token, since = row[3], row[4]  # ours still: renew
                elif self._free(row, now):
                    token = int(row[3]) + 1
                else:
                    raise busy_error(session_id, row)
            connection.execute(
                sql.TAKE_LEASE,
                {
                    "session_id": session_id,
                    "owner": self.owner,
                    "pid": self.pid,
                    "host": self.host,
                    "token": token,
                    "now": since,
                    "expires_at": now + self.ttl_s,
                },
            )
        self.held[session_id] = token
        self._store.fence(session_id, token)
        return Lease(
            session_id=session_id,
            token=token,
            owner=self.owner,
            pid=self.pid,
            host=self.host,
            acquired_at=since,
            expires_at=now + self.ttl_s,
        )

    def _renew(self, session_ids: list[str], expires_at: float) -> list[tuple[str, _LeaseTuple | None]]:
        """Set the expiry of the held leases; those no longer ours, with their rows now."""
        lost: list[tuple[str, _LeaseTuple | None]] = []
        with self._db.writing() as connection:
            for session_id in session_ids:
                params = {
                    "session_id": session_id,
                    "owner": self.owner,
                    "token": self.held[session_id],
                    "expires_at": expires_at,
                }
                if connection.execute(sql.RENEW_LEASE, params).rowcount == 0:
                    lost.append((session_id, connection.execute(sql.LEASE, params).fetchone()))
        return lost

    async def heartbeat(self) -> None:
        """Extend every held lease by the TTL. Raises SessionBusyError for one that was taken over
        (the store stays fenced to the old token, so its appends keep failing)."""
        if not self.held:
            return
        lost = self._renew(list(self.held), self._clock() + self.ttl_s)
        for session_id, _ in lost:
            del self.held[session_id]
        if lost:
            raise lost_lease_error(*lost[0])

    async def release(self, session_id: str | None = None) -> None:
        """Expire the session's lease (None: every held one) so the next Circle takes it at once."""
        session_ids = list(self.held) if session_id is None else [s for s in (session_id,) if s in self.held]
        if not session_ids:
            return
        self._renew(session_ids, 0.0)
        for released in session_ids:
            del self.held[released]
            self._store.fence(released, None)


__all__ = ["TTL_S", "SqliteSessionLease", "busy_error", "lost_lease_error", "pid_alive"]
