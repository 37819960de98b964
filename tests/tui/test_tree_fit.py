"""/tree over a long session fits the rows above the input box at any size: its keys line always
shows, its rows scroll with the highlighted one in sight, and its border is the only one drawn
there (the input box's no longer shows beside it), also after a resize while it is open."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from textual.pilot import Pilot
from textual.widgets import OptionList

from circle.domain.messages import Message, TextPart
from circle.entrypoints.tui.app import CircleApp
from circle.entrypoints.tui.screens.tree import KEYS, SHORT_KEYS, TreeScreen

from .conftest import WORKSPACE, FakeBackend, main_screen, screen_lines, send, until

TURNS = 32
BORDER = set("╭╮╰╯│─")


def said(index: int, branch: str = "") -> Message:
    if index % 2 == 0:
        return Message.user(f"{branch}question {index}")
    return Message(role="assistant", parts=(TextPart(text=f"{branch}answer {index}"),))


async def long_session(backend: FakeBackend) -> str:
    """32 turns on main, and two branches going on from earlier answers."""
    store = backend.store
    info = await store.create_session(workspace=WORKSPACE, title="plan the parser change")
    ids = [(await store.append(info.id, said(index))).id for index in range(2 * TURNS)]
    for name, at, count in (("branch-1", 19, 6), ("branch-2", 41, 4)):
        await store.create_branch(info.id, name, head_id=ids[at])
        for index in range(count):
            await store.append(info.id, said(index, f"{name} "), branch=name)
    return info.id


def tree_box(app: CircleApp) -> list[str]:
    """The tree's lines, its top border to its bottom one."""
    lines = screen_lines(app)
    top = next(index for index, line in enumerate(lines) if "╭" in line)
    bottom = next(index for index, line in enumerate(lines) if index > top and "╰" in line)
    return lines[top : bottom + 1]


def assert_fits(app: CircleApp) -> None:
    box = tree_box(app)
    shown = "\n".join(screen_lines(app))
    assert any(KEYS in line or SHORT_KEYS in line for line in box), shown
    edge = box[0].rindex("╮")
    assert not any(set(line[edge + 1 :]) & BORDER for line in box), shown  # no border beside it
    assert box[-1].count("╰") == 1 and box[-1][edge] == "╯", shown
    tree = app.screen
    assert isinstance(tree, TreeScreen)
    options = tree.query_one(OptionList)
    at, top = options.highlighted, options.scroll_offset.y
    assert at is not None and top <= at < top + options.scrollable_content_region.height, shown
    assert options.scrollable_content_region.height >= 1


async def open_tree(pilot: Pilot[object], app: CircleApp) -> TreeScreen:
    await until(pilot, lambda: app.host is not None)
    await send(pilot, main_screen(app), "/tree")
    await until(pilot, lambda: isinstance(app.screen, TreeScreen) and bool(app.screen.rows))
    await pilot.pause(0.3)
    tree = app.screen
    assert isinstance(tree, TreeScreen)
    return tree


@pytest.mark.parametrize("size", [(50, 16), (80, 24), (140, 40)])
async def test_the_tree_of_a_long_session_fits_with_its_keys_line(
    make_app: Callable[..., CircleApp], backend: FakeBackend, size: tuple[int, int]
) -> None:
    app = make_app(session=await long_session(backend))
    async with app.run_test(size=size) as pilot:
        tree = await open_tree(pilot, app)
        assert len(tree.rows) == 2 * TURNS + 10
        assert_fits(app)
        for _ in range(30):  # up the tree: its rows scroll, the keys line stays
            await pilot.press("up")
        await pilot.pause(0.1)
        assert_fits(app)
        await pilot.press("l")  # the label input takes a row from the list, not the keys line
        await pilot.pause(0.2)
        assert_fits(app)


async def test_the_tree_fits_again_when_the_terminal_is_made_small_while_it_is_open(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    app = make_app(session=await long_session(backend))
    async with app.run_test(size=(140, 40)) as pilot:
        await open_tree(pilot, app)
        assert_fits(app)
        await pilot.resize_terminal(50, 16)
        await pilot.pause(0.3)
        assert_fits(app)
        assert any(SHORT_KEYS in line for line in tree_box(app))
        await pilot.press("up", "up", "up")
        await pilot.pause(0.1)
        assert_fits(app)
