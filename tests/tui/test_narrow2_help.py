"""/help lays its rows out at the width: at 50 columns every description shows beside or under
its name; at 80 the names column is as wide as the names need (a name too long for it has a line
of its own), never as wide as the longest; a resize lays it out again."""

from __future__ import annotations

from collections.abc import Callable

from textual.pilot import Pilot

from circle.entrypoints.tui import _slash
from circle.entrypoints.tui.app import CircleApp

from .conftest import main_screen, screen_lines, send, texts, until


async def help_lines(pilot: Pilot[object], app: CircleApp) -> list[str]:
    """The lines /help shows, from its title to a line past /quit's."""
    main_screen(app).conversation.scroll_end(animate=False)
    await pilot.pause(0.1)
    shown = [line[:-2].rstrip() for line in screen_lines(app)]
    start = next(index for index, line in enumerate(shown) if line.strip() == "Commands:")
    end = next(index for index, line in enumerate(shown) if "/quit" in line)
    return shown[start : end + 2]


def words(lines: list[str]) -> str:
    return " ".join(" ".join(lines).split())


async def test_help_shows_every_description_at_50_columns_and_a_narrow_names_column_at_80(
    make_app: Callable[..., CircleApp],
) -> None:
    app = make_app()
    async with app.run_test(size=(50, 70)) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "/help")
        await until(pilot, lambda: "/quit" in texts(screen))
        lines = await help_lines(pilot, app)
        said = words(lines)
        for name, what in _slash.help_rows():
            assert " ".join(what.split()) in said, (what, lines)
            assert name in said
        assert all(len(line) <= 48 for line in lines), lines
        await pilot.resize_terminal(80, 40)
        lines = await help_lines(pilot, app)
        models = next(line for line in lines if "/models [MODEL]" in line)
        start = models.index("switch the model")
        assert start <= 2 + len("/compact [INSTRUCTIONS]") + 2, lines  # not past the longest name
        thinking = next(index for index, line in enumerate(lines) if "/thinking [" in line)
        assert "set the thinking level" in lines[thinking + 1][start:], lines
        for _name, what in _slash.help_rows():
            assert " ".join(what.split()) in words(lines), (what, lines)


async def test_a_completion_too_long_for_the_line_ends_in_an_ellipsis(
    make_app: Callable[..., CircleApp],
) -> None:
    """Found in tmux at 80 columns: /fork's description was cut mid-sentence with nothing to say
    that more was left out ('… (yours comes back to')."""
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.host is not None)
        await pilot.press("slash", *"fo")
        await until(pilot, lambda: any("/fork" in line for line in screen_lines(app)))
        fork = next(line for line in screen_lines(app) if "/fork" in line)
        assert fork.rstrip(" │").endswith("…"), fork
