"""The SessionLease contract (the in-memory fake and SQLite alike) and, on SQLite, the fencing token."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from circle._testing.lease import InMemorySessionLease
from circle.adapters.storage.compaction_store import SqliteCompactionStore
from circle.adapters.storage.session_lock import SqliteSessionLease, pid_alive
from circle.adapters.storage.sqlite_store import SqliteSessionStore
from circle.application.ports.session_lease import Lease, SessionLease
from circle.domain.errors import SessionBusyError, StorageError
from circle.domain.messages import Message

Holder = InMemorySessionLease | SqliteSessionLease


class Clock:
    def __init__(self) -> None:
        self.now = 1_700_000_000.0

    def __call__(self) -> float:
        return self.now


@dataclass
class Processes:
    """Lease holders on one table or file, each playing a Circle process of its own."""

    make: Callable[..., Holder]
    clock: Clock
    stores: list[SqliteSessionStore]

    def process(
        self, pid: int, *, host: str = "here", alive: Callable[[int, float], bool] = lambda pid, since: True
    ) -> Holder:
        return self.make(pid=pid, host=host, is_alive=alive)


@pytest.fixture(params=["in-memory", "sqlite"])
async def processes(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Processes]:
    clock = Clock()
    stores: list[SqliteSessionStore] = []
    table: dict[str, Lease] = {}

    def make(**kwargs: object) -> Holder:
        if request.param == "in-memory":
            return InMemorySessionLease(table, clock=clock, **kwargs)  # type: ignore[arg-type]
        store = SqliteSessionStore(tmp_path / "circle.sqlite", clock=clock)
        stores.append(store)
        return SqliteSessionLease(store, clock=clock, **kwargs)  # type: ignore[arg-type]

    yield Processes(make, clock, stores)
    for store in stores:
        await store.aclose()


async def test_a_free_session_is_acquired_with_the_first_token(processes: Processes) -> None:
    holder: SessionLease = processes.process(100)

    lease = await holder.acquire("s1")

    assert (lease.session_id, lease.token, lease.pid, lease.host) == ("s1", 1, 100, "here")
    assert lease.expires_at == processes.clock.now + 15
    assert (await holder.acquire("s1")).token == 1  # again: renewed, not taken anew


async def test_a_live_holder_keeps_the_session_and_is_named(processes: Processes) -> None:
    first, second = processes.process(100), processes.process(200)
    await first.acquire("s1")

    with pytest.raises(SessionBusyError) as caught:
        await second.acquire("s1")

    assert "session s1 is open in another Circle (pid 100 on host here, since " in caught.value.message
    assert caught.value.code == "session-busy" and isinstance(caught.value, StorageError)
    assert (await second.acquire("s2")).token == 1  # other sessions are free


async def test_an_expired_lease_is_taken_over_with_a_higher_token(processes: Processes) -> None:
    first, second = processes.process(100, host="elsewhere"), processes.process(200)
    await first.acquire("s1")
    processes.clock.now += 10
    await first.heartbeat()  # renewed at +10: lasts until +25
    processes.clock.now += 14

    with pytest.raises(SessionBusyError):
        await second.acquire("s1")
    processes.clock.now += 2
    taken = await second.acquire("s1")

    assert (taken.token, taken.pid) == (2, 200)
    with pytest.raises(SessionBusyError, match="pid 200 on host here"):
        await first.heartbeat()
    with pytest.raises(SessionBusyError):
        await first.acquire("s1")


async def test_a_live_holder_on_this_host_keeps_its_lease_past_the_ttl(processes: Processes) -> None:
    """A heartbeat starved by CPU load lets the expiry pass; the holder's pid still runs here."""
    first, second = processes.process(100), processes.process(200)
    await first.acquire("s1")
    processes.clock.now += 600  # no heartbeat for ten minutes

    with pytest.raises(SessionBusyError, match="pid 100 on host here"):
        await second.acquire("s1")
    await first.heartbeat()  # still its own
    assert (await first.acquire("s1")).token == 1


async def test_a_dead_holder_on_this_host_is_taken_over_at_once(processes: Processes) -> None:
    await processes.process(100).acquire("s1")
    survivor = processes.process(200, alive=lambda pid, since: pid != 100)

    assert (await survivor.acquire("s1")).token == 2


async def test_a_holder_on_another_host_is_not_judged_by_pid(processes: Processes) -> None:
    await processes.process(100, host="elsewhere").acquire("s1")
    here = processes.process(200, alive=lambda pid, since: False)

    with pytest.raises(SessionBusyError, match="pid 100 on host elsewhere"):
        await here.acquire("s1")


async def test_a_released_lease_is_free_at_once_and_tokens_keep_growing(processes: Processes) -> None:
    first, second = processes.process(100), processes.process(200)
    await first.acquire("s1")
    await first.acquire("s2")

    await first.release("s1")
    assert (await second.acquire("s1")).token == 2
    await first.release()
    assert (await second.acquire("s2")).token == 2
    await second.release()
    assert (await first.acquire("s1")).token == 3
    await first.heartbeat()


def test_pid_alive_knows_this_process_and_a_gone_one() -> None:
    import subprocess
    import sys

    child = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True
    )
    assert pid_alive(os.getpid())
    assert not pid_alive(int(child.stdout))
    assert not pid_alive(0)


def test_pid_alive_knows_a_reused_pid_is_not_the_holder() -> None:
    """A process that started after the lease was taken cannot be the Circle that took it."""
    import subprocess
    import sys
    import time

    if not os.path.exists(f"/proc/{os.getpid()}/stat"):
        pytest.skip("no /proc here: a process's start time is not known")
    before = time.time()
    with subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"]) as child:
        try:
            assert pid_alive(child.pid, since=time.time() + 1)  # started before that lease
            assert not pid_alive(child.pid, since=before - 60)  # the lease is older than it
        finally:
            child.kill()


# the fencing token: only the SQLite store can promise it


async def _two_processes(
    tmp_path: Path, clock: Clock
) -> tuple[SqliteSessionStore, SqliteSessionLease, SqliteSessionStore, SqliteSessionLease]:
    path = tmp_path / "circle.sqlite"
    store_a, store_b = SqliteSessionStore(path, clock=clock), SqliteSessionStore(path, clock=clock)
    await store_a.create_session(workspace="/w", session_id="s1")
    lease_a = SqliteSessionLease(
        store_a, clock=clock, pid=100, host="there", is_alive=lambda pid, since: True
    )
    lease_b = SqliteSessionLease(store_b, clock=clock, pid=200, host="here", is_alive=lambda pid, since: True)
    return store_a, lease_a, store_b, lease_b


async def test_a_holder_paused_past_its_lease_cannot_write_after_a_takeover(tmp_path: Path) -> None:
    clock = Clock()
    store_a, lease_a, store_b, lease_b = await _two_processes(tmp_path, clock)
    await lease_a.acquire("s1")
    kept = await store_a.append("s1", Message.user("from a"))
    with pytest.raises(SessionBusyError, match=r"is open in another Circle \(pid 100 on host there"):
        await lease_b.acquire("s1")

    clock.now += 16  # a, on another host, is paused: no heartbeat
    await lease_b.acquire("s1")
    with pytest.raises(SessionBusyError, match=r"pid 200 on host here.*took it over: nothing was written"):
        await store_a.append("s1", Message.user("stale write"))
    from_b = await store_b.append("s1", Message.user("from b"))

    assert [cp.message.text for cp in await store_b.history("s1")] == ["from a", "from b"]
    assert from_b.parent_id == kept.id
    info = await store_b.get_session("s1")
    assert info is not None and info.message_count == 2
    await store_a.aclose()
    await store_b.aclose()


async def test_an_unfenced_store_and_a_released_lease_write_freely(tmp_path: Path) -> None:
    clock = Clock()
    store_a, lease_a, store_b, lease_b = await _two_processes(tmp_path, clock)
    await lease_b.acquire("s1")

    await store_a.append("s1", Message.user("a holds no lease: not fenced"))
    await lease_b.release()
    await lease_a.acquire("s1")
    await store_a.append("s1", Message.user("a holds it now"))
    await store_b.append("s1", Message.user("b released: no longer fenced"))

    assert len(await store_a.history("s1")) == 3
    await store_a.aclose()
    await store_b.aclose()


async def test_a_deleted_session_loses_its_lease(tmp_path: Path) -> None:
    clock = Clock()
    store_a, lease_a, store_b, _ = await _two_processes(tmp_path, clock)
    await lease_a.acquire("s1")

    await store_b.delete_session("s1")

    with pytest.raises(SessionBusyError, match="no lease any more"):
        await lease_a.heartbeat()
    assert lease_a.held == {}
    await store_a.aclose()
    await store_b.aclose()


async def test_a_holder_paused_past_its_lease_cannot_compact_after_a_takeover(tmp_path: Path) -> None:
    clock = Clock()
    store_a, lease_a, store_b, lease_b = await _two_processes(tmp_path, clock)
    compactions_a = SqliteCompactionStore(
        tmp_path / "circle.sqlite", clock=clock, fences=store_a.fenced_token
    )
    await lease_a.acquire("s1")
    first = await store_a.append("s1", Message.user("from a"))
    clock.now += 16  # a, on another host, is paused: no heartbeat
    await lease_b.acquire("s1")
    with pytest.raises(SessionBusyError, match=r"pid 200 on host here.*took it over: nothing was written"):
        await compactions_a.commit(
            "s1",
            summary=Message.user("a stale summary"),
            carried=[],
            replaced_ids=[first.id],
            previous_head_id=first.id,
        )
    assert [cp.message.text for cp in await store_b.history("s1")] == ["from a"]
    assert await compactions_a.compactions("s1") == []
    await compactions_a.aclose()
    await store_a.aclose()
    await store_b.aclose()
