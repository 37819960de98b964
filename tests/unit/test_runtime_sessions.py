"""The runtime holds a lease on every session it opens, renews it, and gives it up on closing."""

from __future__ import annotations

import asyncio

import pytest

from circle._testing.lease import InMemorySessionLease
from circle.application.ports.session_lease import Lease
from circle.application.runtime import Runtime
from circle.domain.errors import SessionBusyError, StorageError
from circle.domain.messages import Message
from circle.testing import Call, Hang, answer

from ._harness import Harness


def _runtime(harness: Harness, lease: InMemorySessionLease, *, every: float = 5.0) -> Runtime:
    runtime = harness.runtime()
    runtime.ports.lease = lease
    runtime.options.lease_heartbeat_s = every
    return runtime


async def test_new_open_and_forked_sessions_are_leased_and_released_on_close() -> None:
    harness = Harness()
    lease = InMemorySessionLease()
    runtime = _runtime(harness, lease)
    made = await runtime.new_session(session_id="s1")
    await made.conversation.append(Message.user("hi"))
    forked = await runtime.fork_session("s1", new_session_id="f1")

    assert set(lease.held) == {"s1", "f1"}
    assert made.session_id == "s1" and forked.session_id == "f1"
    assert [m.text for m in forked.conversation.messages] == ["hi"]
    await runtime.aclose()
    assert lease.held == {} and sorted(lease.released) == ["f1", "s1"]


async def test_a_session_open_in_another_process_is_refused() -> None:
    table: dict[str, Lease] = {}
    harness = Harness()
    await harness.store.create_session(workspace="/w", session_id="s1")
    await InMemorySessionLease(table, pid=1).acquire("s1")
    runtime = _runtime(harness, InMemorySessionLease(table, pid=2))

    with pytest.raises(SessionBusyError, match="pid 1 on host test-host"):
        await runtime.open_session("s1")
    assert harness.store.stored == {}  # nothing written, not even an interrupted result


async def test_the_lease_is_renewed_while_the_session_is_open() -> None:
    harness = Harness()
    harness.model.add(answer("done"))
    lease = InMemorySessionLease()
    runtime = _runtime(harness, lease, every=0.01)
    session = await runtime.new_session()

    await asyncio.sleep(0.1)
    await session.prompt("hello")

    assert lease.heartbeats >= 3
    await runtime.aclose()
    beats = lease.heartbeats
    await asyncio.sleep(0.05)
    assert lease.heartbeats == beats  # stopped


async def test_a_named_new_session_is_leased_before_it_is_made() -> None:
    """Between making a session and leasing it, another Circle could open it first: with its id
    given, the lease comes first, so a taken id is refused and nothing is made."""
    table: dict[str, Lease] = {}
    harness = Harness()
    await harness.store.create_session(workspace="/w", session_id="s0")
    await InMemorySessionLease(table, pid=1).acquire("s1")  # another Circle opening s1 as it is made
    runtime = _runtime(harness, InMemorySessionLease(table, pid=2))

    with pytest.raises(SessionBusyError, match="pid 1 on host test-host"):
        await runtime.new_session(session_id="s1")
    with pytest.raises(SessionBusyError):
        await runtime.fork_session("s0", new_session_id="s1")
    assert await harness.store.get_session("s1") is None


async def test_a_session_left_for_another_is_given_up_so_another_circle_may_open_it() -> None:
    """Found in tmux: after /fork and /resume, `circle -r` in another terminal was refused every
    session the first Circle had moved on from ("is open in another Circle", exit 1)."""
    table: dict[str, Lease] = {}
    harness = Harness()
    runtime = _runtime(harness, InMemorySessionLease(table, pid=1))
    first = await runtime.new_session(session_id="s1")
    await first.conversation.append(Message.user("hi"))
    forked = await runtime.fork_session("s1", new_session_id="f1")

    assert await runtime.leave(first)

    other = _runtime(harness, InMemorySessionLease(table, pid=2))
    reopened = await other.open_session("s1")  # another Circle opens it
    assert reopened.session_id == "s1"
    with pytest.raises(SessionBusyError, match="pid 1"):
        await other.open_session(forked.session_id)  # the one moved on to stays held
    assert runtime.sessions == [forked]


async def test_a_session_left_while_it_works_keeps_its_lease() -> None:
    """A background job's end, or a turn's, is stored in the session it ran in: it stays held."""
    harness = Harness()
    harness.processes.script = {"sleep 100": Hang()}
    harness.model.add(answer("", Call("execute", {"command": "sleep 100"})))
    lease = InMemorySessionLease()
    runtime = _runtime(harness, lease)
    first = await runtime.new_session(session_id="s1")
    turn = asyncio.create_task(first.prompt("wait"))
    async with asyncio.timeout(5):
        while not harness.processes.calls:  # its command runs
            await asyncio.sleep(0.001)
    await runtime.new_session(session_id="s2")

    assert not await runtime.leave(first)
    assert set(lease.held) == {"s1", "s2"}
    first.cancel()
    await asyncio.wait_for(turn, 5)


async def test_the_same_session_opened_again_keeps_its_lease_when_the_old_one_is_left() -> None:
    """/tree goes on in the same session on another branch: a new session object, the same id."""
    harness = Harness()
    lease = InMemorySessionLease()
    runtime = _runtime(harness, lease)
    first = await runtime.new_session(session_id="s1")
    await first.conversation.append(Message.user("hi"))
    again = await runtime.open_session("s1")

    assert await runtime.leave(first)
    assert set(lease.held) == {"s1"} and runtime.sessions == [again]


class _BusyStoreLease(InMemorySessionLease):
    """A lease whose store is busy when one is given up."""

    async def release(self, session_id: str | None = None) -> None:
        raise StorageError("database is locked")


async def test_a_lease_that_cannot_be_given_up_now_does_not_stop_the_switch() -> None:
    """The person's /fork or /resume has happened: the old lease then expires after its TTL."""
    harness = Harness()
    runtime = _runtime(harness, _BusyStoreLease())
    first = await runtime.new_session(session_id="s1")
    await runtime.new_session(session_id="s2")

    assert await runtime.leave(first)
