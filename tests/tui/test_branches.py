"""/tree as a tree to walk and label, /fork giving the person's message back, /undo and /redo."""

from __future__ import annotations

from collections.abc import Callable

from textual.pilot import Pilot

from circle.entrypoints.tui.app import CircleApp
from circle.entrypoints.tui.screens.main import MainScreen
from circle.entrypoints.tui.screens.picker import PickerScreen
from circle.entrypoints.tui.screens.tree import TreeScreen
from circle.testing import Call, answer

from .conftest import SIZE, FakeBackend, main_screen, screen_lines, send, texts, until


async def turns(pilot: Pilot[object], app: CircleApp, *said: str) -> MainScreen:
    await until(pilot, lambda: app.host is not None)
    screen = main_screen(app)
    for text in said:
        await send(pilot, screen, text)
        await until(pilot, lambda: not screen.busy.display and not screen.host.session.is_busy)
    return screen


def shown(app: CircleApp) -> str:
    return "\n".join(screen_lines(app))


async def test_tree_goes_on_from_a_picked_message_and_labels_it(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.model.add(answer("one"), answer("two"), answer("three"))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await turns(pilot, app, "alpha", "beta")
        await send(pilot, screen, "/tree")
        await until(pilot, lambda: isinstance(app.screen, TreeScreen) and bool(app.screen.rows))
        tree = app.screen
        assert isinstance(tree, TreeScreen)
        assert [row.who for row in tree.rows] == ["you", "circle", "you", "circle"]
        assert tree.current is not None and tree.current.text == "two" and tree.current.here
        await pilot.press("up", "up", "enter")  # "one": the answer to alpha
        await until(pilot, lambda: app.screen is screen and "Going on from here" in texts(screen))
        assert [m.text for m in screen.host.session.conversation.messages] == ["alpha", "one"]
        assert "beta" not in texts(screen)

        await send(pilot, screen, "gamma")
        await until(pilot, lambda: "› gamma" in shown(app) and not screen.host.session.is_busy)
        await send(pilot, screen, "/tree")
        await until(pilot, lambda: isinstance(app.screen, TreeScreen) and bool(app.screen.rows))
        tree = app.screen
        assert isinstance(tree, TreeScreen)
        assert [row.guides + row.who for row in tree.rows] == [
            "you", "circle", "├─ you", "│  circle", "└─ you", "   circle",
        ]  # fmt: skip
        assert tree.current is not None and tree.current.text == "three"
        await pilot.press("l", *"side quest", "enter")
        await until(pilot, lambda: "[side quest]" in shown(app))
        assert "[branch-1]" in shown(app) and "[main]" in shown(app)
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is screen)
        labels = await screen.host.runtime.ports.store.labels(screen.host.session.session_id)
        assert [label.text for label in labels] == ["side quest"]


async def test_fork_at_your_message_puts_its_text_back_in_the_input(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.model.add(answer("one"), answer("two"))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await turns(pilot, app, "alpha", "beta")
        source = screen.host.session.session_id
        await send(pilot, screen, "/fork")
        await until(pilot, lambda: isinstance(app.screen, PickerScreen))
        await pilot.press(*"beta", "enter")
        await until(pilot, lambda: screen.host.session.session_id != source)
        await until(pilot, lambda: screen.composer.text == "beta")
        assert [m.text for m in screen.host.session.conversation.messages] == ["alpha", "one"]
        assert screen.focused is screen.composer


async def test_undo_takes_the_turn_out_of_the_view_and_the_request_and_redo_brings_it_back(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.mode = "auto"
    backend.files.put("/work/a.txt", "before\n")
    backend.model.add(
        answer("first"),
        answer("", Call("write_file", {"file_path": "a.txt", "content": "after\n"})),
        answer("Changed."),
        answer("redone answer"),
    )
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await turns(pilot, app, "hello", "change a")
        assert backend.files.files["/work/a.txt"] == b"after\n"
        await send(pilot, screen, "/undo")
        await until(pilot, lambda: "Undone 'change a'" in texts(screen))
        await until(pilot, lambda: "› hello" in shown(app) and "› change a" not in shown(app))
        assert backend.files.files["/work/a.txt"] == b"before\n"
        assert [m.text for m in screen.host.session.conversation.messages] == ["hello", "first"]

        await send(pilot, screen, "/redo")
        await until(pilot, lambda: "Redone 'change a'" in texts(screen))
        await until(pilot, lambda: "› change a" in shown(app))
        assert backend.files.files["/work/a.txt"] == b"after\n"

        await send(pilot, screen, "/undo")  # the first 'Undone' line, said after 'hello', stays
        await until(pilot, lambda: texts(screen).count("Undone") == 2 and "› change a" not in shown(app))
        assert "Redone" not in texts(screen)  # said after the turn taken back: it goes with it
        await send(pilot, screen, "next")
        await until(pilot, lambda: "› next" in shown(app) and not screen.host.session.is_busy)
        sent = [m.text for m in backend.model.requests[-1].messages if m.text]
        assert sent == ["hello", "first", "next"]
        await send(pilot, screen, "/redo")
        await until(pilot, lambda: "Nothing to redo" in texts(screen))


async def test_tree_at_your_message_goes_on_from_before_it_with_its_text_in_the_input(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.model.add(answer("one"), answer("two"))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await turns(pilot, app, "alpha", "beta")
        await send(pilot, screen, "/tree")
        await until(pilot, lambda: isinstance(app.screen, TreeScreen) and bool(app.screen.rows))
        await pilot.press("up", "enter")  # "beta"
        await until(
            pilot, lambda: app.screen is screen and "Going on from before your message" in texts(screen)
        )
        assert [m.text for m in screen.host.session.conversation.messages] == ["alpha", "one"]
        assert screen.composer.text == "beta" and screen.focused is screen.composer


async def test_the_fork_list_names_who_said_it_as_the_tree_does(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.model.add(answer("one"))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await turns(pilot, app, "alpha")
        await send(pilot, screen, "/fork")
        await until(pilot, lambda: isinstance(app.screen, PickerScreen))
        picker = app.screen
        assert isinstance(picker, PickerScreen)
        assert [label.split()[0] for _, label in picker.items] == ["circle", "you"]
        await pilot.press("escape")


async def test_the_tree_says_a_jobs_notice_as_its_row_does(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    from circle.testing import FakeProcessRunner, Hang

    backend.mode = "auto"
    runner = FakeProcessRunner({"make": Hang("")}, files=backend.files)
    backend.processes = runner
    backend.model.add(
        answer("", Call("execute", {"command": "make", "background": True})),
        answer("Started."),
        answer("Built."),
    )
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await turns(pilot, app, "build in the background")
        runner.started[0].finish(0, "compiled\nlinked\n")
        await until(pilot, lambda: "Built." in texts(screen) and not screen.host.session.is_busy)
        await send(pilot, screen, "/tree")
        await until(pilot, lambda: isinstance(app.screen, TreeScreen) and bool(app.screen.rows))
        tree = app.screen
        assert isinstance(tree, TreeScreen)
        [notice] = [row for row in tree.rows if row.who == "notice"]
        assert notice.text == "job-1 (make) exited with code 0\ncompiled\nlinked"  # as its row says it
        line = next(line for line in screen_lines(app) if "notice" in line)
        assert "job-1 (make) exited with code 0" in line and "[" not in line and ".log" not in line
