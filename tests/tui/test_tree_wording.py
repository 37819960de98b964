"""/tree and /fork name the session and the messages as a person knows them (its title, what a
message says, when), never by an id; a message holding only thinking shows as thinking."""

from __future__ import annotations

from collections.abc import Callable

from textual.widgets import Static

from circle.domain.model import ThinkingDelta
from circle.entrypoints.tui._tree import NEW_SESSION
from circle.entrypoints.tui.app import CircleApp
from circle.entrypoints.tui.screens.picker import PickerScreen
from circle.entrypoints.tui.screens.tree import TreeScreen
from circle.entrypoints.tui.widgets.rows import TurnLine
from circle.testing import answer

from .conftest import SIZE, FakeBackend, main_screen, screen_lines, send, texts, until
from .test_branches import turns
from .test_stopped_answer import StallsAfter


async def test_the_tree_is_titled_by_the_sessions_title_and_branch_not_its_id(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.model.add(answer("one"), answer("two"))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await turns(pilot, app, "plan the parser change", "beta")
        session = screen.host.session.session_id
        await send(pilot, screen, "/tree")
        await until(pilot, lambda: isinstance(app.screen, TreeScreen) and bool(app.screen.rows))
        title = str(app.screen.query_one("#tree-title", Static).content)
        assert title == "Tree · on main · “plan the parser change”"
        assert not any(session in line for line in screen_lines(app))


async def test_fork_says_what_it_forked_in_words_not_ids(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.model.add(answer("one"), answer("two"))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await turns(pilot, app, "plan the parser change", "beta")
        source = screen.host.session.session_id
        await send(pilot, screen, "/fork")
        await until(pilot, lambda: isinstance(app.screen, PickerScreen))
        await pilot.press(*"beta", "enter")
        await until(pilot, lambda: "Forked" in texts(screen))
        forked = screen.host.session.session_id
        said = "Forked “plan the parser change” into a new session, up to before your “beta” ("
        assert said in texts(screen), texts(screen)
        await until(pilot, lambda: screen.composer.text == "beta")
        screen.composer.clear_all()
        await send(pilot, screen, "/fork")  # from the fork, at an answer
        await until(pilot, lambda: isinstance(app.screen, PickerScreen))
        await pilot.press(*"one", "enter")
        await until(pilot, lambda: screen.host.session.session_id != forked)
        await until(pilot, lambda: "up to circle’s “one” (" in texts(screen))
        shown = "\n".join(screen_lines(app))
        assert not any(session in shown for session in (source, forked, screen.host.session.session_id))


async def test_a_cut_thinking_only_message_shows_in_the_tree_as_thinking(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    words = " ".join(f"word{i}" for i in range(40))
    backend.model = StallsAfter([[ThinkingDelta(text=words[:100]), ThinkingDelta(text=words[100:])]])
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "think")
        await until(pilot, lambda: screen.busy.tokens == len(words) // 4)
        await pilot.press("escape")
        await until(pilot, lambda: not screen.host.session.is_busy and not screen.busy.display)
        await send(pilot, screen, "/tree")
        await until(pilot, lambda: isinstance(app.screen, TreeScreen) and bool(app.screen.rows))
        tree = app.screen
        assert isinstance(tree, TreeScreen)
        assert [row.who for row in tree.rows] == ["you", "circle"]
        assert tree.rows[1].text.startswith("thinking (cut): word0 word1 word2"), tree.rows[1].text
        await pilot.pause(0.2)
        assert any("circle thinking (cut): word0" in line for line in screen_lines(app))
        assert not any("(empty)" in line for line in screen_lines(app))


async def test_an_answer_of_reasoning_only_shows_in_the_tree_as_thinking(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.model.add(answer("", thinking="Weigh the two parsers first, then pick the streaming one."))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await turns(pilot, app, "think")
        await send(pilot, screen, "/tree")
        await until(pilot, lambda: isinstance(app.screen, TreeScreen) and bool(app.screen.rows))
        tree = app.screen
        assert isinstance(tree, TreeScreen)
        assert [row.text for row in tree.rows] == [
            "think",
            "thinking: Weigh the two parsers first, then pick the streaming one.",
        ]


async def test_new_and_resume_say_which_session_in_words(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    """/new said 'New session 0390d0cf…' and /resume 'Resumed session f8262936…': whole hex ids."""
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "plan the parser change")
        await until(pilot, lambda: bool(screen.conversation.query(TurnLine)))
        first = screen.host.session.session_id
        await send(pilot, screen, "/new")
        await until(pilot, lambda: any(NEW_SESSION in line for line in screen_lines(app)))
        await send(pilot, screen, f"/resume {first}")
        said = "Resumed “plan the parser change” · 2 messages"
        await until(pilot, lambda: any(said in line for line in screen_lines(app)))
        assert not any(first in line for line in screen_lines(app))
