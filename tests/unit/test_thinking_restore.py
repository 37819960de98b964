"""A session opened again (circle -r, --session, --continue, /resume) goes on at the thinking level
it was left at (the one last chosen in it, after its last answer too), as it goes on in plan mode:
the level lives in the session, not only in the process that chose it."""

from __future__ import annotations

from circle.testing import answer

from ._harness import Harness


async def test_a_session_reopened_by_a_new_process_keeps_its_thinking_level() -> None:
    h = Harness()
    first = h.runtime()
    session = await first.new_session()
    await first.switch_thinking(session, "high")
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
    await first.switch_thinking(session, "low")
    h.model.add(answer("one"), answer("two"))
    await session.prompt("hi")
    await first.switch_thinking(session, None)
    await session.prompt("again")
    later = h.runtime()
    later.options.thinking = "max"  # the settings' level
    assert (await later.open_session(session.session_id)).loop.settings.thinking is None
    plain = await h.runtime().new_session()
    h.model.add(answer("three"))
    await plain.prompt("x")
    del h.store.states[plain.session_id]  # stored by an older Circle: no level kept, none asked at
    other = h.runtime()
    other.options.thinking = "medium"
    assert (await other.open_session(plain.session_id)).loop.settings.thinking == "medium"


async def test_a_level_chosen_after_the_last_answer_is_kept_for_a_new_process() -> None:
    h = Harness()
    first = h.runtime()
    session = await first.new_session()
    h.model.add(answer("one"), answer("two"))
    await session.prompt("hi")  # asked at off
    await first.switch_thinking(session, "high")  # and no message after it
    later = h.runtime()
    reopened = await later.open_session(session.session_id, tail=1)
    assert reopened.loop.settings.thinking == "high"
    await reopened.prompt("again")
    assert h.model.requests[-1].thinking == "high"


async def test_a_session_opened_again_in_the_same_process_has_its_own_level_not_the_one_left() -> None:
    h = Harness()
    rt = h.runtime()
    first = await rt.new_session()
    h.model.add(*(answer(str(n)) for n in range(4)))
    await first.prompt("at off")
    await rt.switch_thinking(first, "low")
    second = await rt.new_session()
    await rt.switch_thinking(second, "medium")
    await second.prompt("at medium")
    third = await rt.new_session()  # made at medium, then off for all its messages
    await rt.switch_thinking(third, None)
    await third.prompt("at off")
    assert (await rt.open_session(second.session_id)).loop.settings.thinking == "medium"
    again = await rt.open_session(first.session_id)  # left at medium: it goes on at its own low
    assert again.loop.settings.thinking == "low" and rt.options.thinking == "low"
    await again.prompt("now")
    assert h.model.requests[-1].thinking == "low"
    assert (await rt.open_session(third.session_id)).loop.settings.thinking is None


async def test_a_level_chosen_before_the_first_message_is_kept_with_it() -> None:
    h = Harness()
    rt = h.runtime()
    session = await rt.new_session()
    await rt.switch_thinking(session, "minimal")
    assert session.session_id not in h.store.states  # nothing stored before the first message
    h.model.add(answer("one"))
    await session.prompt("hi")
    assert (await h.runtime().open_session(session.session_id)).loop.settings.thinking == "minimal"


async def test_a_fork_goes_on_at_the_level_its_source_was_left_at() -> None:
    h = Harness()
    first = h.runtime()
    source = await first.new_session()
    await first.switch_thinking(source, "high")
    h.model.add(answer("one"), answer("two"))
    await source.prompt("hi")  # answered at high
    await first.switch_thinking(source, "low")  # and left at low
    later = h.runtime()  # a new process, as `circle --fork ID` is
    forked = await later.fork_session(source.session_id)
    assert forked.loop.settings.thinking == "low" and later.options.thinking == "low"
    await forked.prompt("again")
    assert h.model.requests[-1].thinking == "low"
    reopened = await h.runtime().open_session(forked.session_id)
    assert reopened.loop.settings.thinking == "low"
