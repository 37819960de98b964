"""A session opened again (circle -r, --session, --continue, /resume) goes on at the thinking level
its answers were asked at, as it goes on in plan mode: the level lives in the session, not only in
the process that chose it."""

from __future__ import annotations

from circle.testing import answer

from ._harness import Harness


async def test_a_session_reopened_by_a_new_process_keeps_its_thinking_level() -> None:
    h = Harness()
    first = h.runtime()
    session = await first.new_session()
    first.switch_thinking(session, "high")
    h.model.add(answer("one"), answer("two"))
    await session.prompt("hi")
    later = h.runtime()  # a new process: its options say nothing of thinking
    assert later.options.thinking is None
    reopened = await later.open_session(session.session_id)
    assert reopened.loop.settings.thinking == "high" and later.options.thinking == "high"
    await reopened.prompt("again")
    assert h.model.requests[-1].thinking == "high"


async def test_a_level_turned_off_is_kept_off_and_an_old_session_keeps_the_chosen_level() -> None:
    h = Harness()
    first = h.runtime()
    session = await first.new_session()
    first.switch_thinking(session, "low")
    h.model.add(answer("one"), answer("two"))
    await session.prompt("hi")
    first.switch_thinking(session, None)
    await session.prompt("again")
    later = h.runtime()
    later.options.thinking = "max"  # the settings' level
    assert (await later.open_session(session.session_id)).loop.settings.thinking is None
    plain = await h.runtime().new_session()  # never asked at a level: the settings' level stays
    h.model.add(answer("three"))
    await plain.prompt("x")
    other = h.runtime()
    other.options.thinking = "medium"
    assert (await other.open_session(plain.session_id)).loop.settings.thinking == "medium"
