"""InMemorySessionLease: the SessionLease port in a dict, for tests.

Several instances given one ``table`` play several Circle processes (pass each its own ``pid``).
Same rules as the SQLite lease: a released lease, a dead holder's of this host, or an expired one
of another host is taken with the next token; a live holder raises SessionBusyError naming its pid
and host (one of this host even past its expiry).
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from uuid import uuid4

from circle.application.ports.session_lease import Lease
from circle.domain.errors import SessionBusyError


def _busy(lease: Lease, *, took_over: bool = False) -> SessionBusyError:
    since = time.strftime("%H:%M:%S", time.localtime(lease.acquired_at))
    tail = ", which took it over: nothing was written" if took_over else ""
    return SessionBusyError(
        f"session {lease.session_id} is open in another Circle (pid {lease.pid} on host {lease.host},"
        f" since {since}){tail}"
    )


class InMemorySessionLease:
    """A SessionLease in memory.

    Attributes:
        table: session id -> the current lease (shared between instances playing processes).
        held: session id -> the token this instance holds.
        heartbeats: how many heartbeats ran.
        released: the session ids released, in order.
    """

    def __init__(
        self,
        table: dict[str, Lease] | None = None,
        *,
        clock: Callable[[], float] = time.time,
        ttl_s: float = 15.0,
        pid: int = 4242,
        host: str = "test-host",
        is_alive: Callable[[int, float], bool] = lambda pid, since: True,
    ) -> None:
        self.table: dict[str, Lease] = {} if table is None else table
        self._clock = clock
        self._is_alive = is_alive
        self.ttl_s = ttl_s
        self.pid = pid
        self.host = host
        self.owner = uuid4().hex
        self.held: dict[str, int] = {}
        self.heartbeats = 0
        self.released: list[str] = []

    def _ours(self, session_id: str) -> bool:
        lease = self.table.get(session_id)
        return lease is not None and lease.owner == self.owner and lease.token == self.held.get(session_id)

    def _free(self, lease: Lease, now: float) -> bool:
        if lease.expires_at <= 0.0:  # released
            return True
        if lease.host == self.host and lease.pid != self.pid:
            return not self._is_alive(lease.pid, lease.acquired_at)
        return lease.expires_at < now

    async def acquire(self, session_id: str) -> Lease:
        now = self._clock()
        current = self.table.get(session_id)
        token, since = 1, now
        if current is not None:
            if self._ours(session_id):
                token, since = current.token, current.acquired_at
            elif self._free(current, now):
                token = current.token + 1
            else:
                raise _busy(current)
        lease = Lease(
            session_id=session_id,
            token=token,
            owner=self.owner,
            pid=self.pid,
            host=self.host,
            acquired_at=since,
            expires_at=now + self.ttl_s,
        )
        self.table[session_id] = lease
        self.held[session_id] = token
        return lease

    async def heartbeat(self) -> None:
        self.heartbeats += 1
        now = self._clock()
        lost = [session_id for session_id in self.held if not self._ours(session_id)]
        for session_id in self.held:
            if session_id not in lost:
                self.table[session_id] = dataclasses.replace(
                    self.table[session_id], expires_at=now + self.ttl_s
                )
        for session_id in lost:
            del self.held[session_id]
        if lost:
            current = self.table.get(lost[0])
            if current is None:
                raise SessionBusyError(f"session {lost[0]} has no lease any more (deleted?)")
            raise _busy(current, took_over=True)

    async def release(self, session_id: str | None = None) -> None:
        for released in list(self.held) if session_id is None else [session_id]:
            if self._ours(released):
                self.table[released] = dataclasses.replace(self.table[released], expires_at=0.0)
            if self.held.pop(released, None) is not None:
                self.released.append(released)


__all__ = ["InMemorySessionLease"]
