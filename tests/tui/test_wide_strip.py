"""The strip cuts a job's line by the width it has, not at 60 characters: at 140x40 a command of
some 100 characters read ``⚙ job-1: sleep 300; echo …-strip-to-s…``, cut at 60 with 70 columns
left empty beside it."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from circle.entrypoints.tui.app import CircleApp
from circle.testing import Call, FakeProcessRunner, Hang, answer

from .conftest import FakeBackend, main_screen, screen_lines, send, until

LONG = "sleep 300; echo a-rather-long-command-line-for-the-strip-to-show-here-and-then-some-more-of-it-to-end"


async def strip_line(
    make_app: Callable[..., CircleApp], backend: FakeBackend, size: tuple[int, int]
) -> list[str]:
    """The screen's lines from the strip's job line on, once a background job runs ``LONG``."""
    backend.mode = "auto"
    backend.processes = FakeProcessRunner({LONG: Hang("working…\n")}, files=backend.files)
    backend.model.add(answer("", Call("execute", {"command": LONG, "background": True})), answer("Started."))
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "start it")
        await until(pilot, lambda: screen.strip.display and "job-1" in str(screen.strip.content))
        await pilot.pause(0.1)
        lines = screen_lines(app)
    at = next(index for index, line in enumerate(lines) if "⚙ job-1: sleep 300" in line)
    return [line.rstrip() for line in lines[at:]]


async def test_a_jobs_line_shows_whole_where_the_width_holds_it(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    lines = await strip_line(make_app, backend, (140, 40))
    assert lines[0].endswith(f"⚙ job-1: {LONG}"), lines[0]


@pytest.mark.parametrize("size", [(80, 24), (50, 16)])
async def test_a_jobs_line_is_cut_at_the_width_on_one_line(
    make_app: Callable[..., CircleApp], backend: FakeBackend, size: tuple[int, int]
) -> None:
    lines = await strip_line(make_app, backend, size)
    shown = lines[0]
    assert shown.endswith("…") and size[0] - 6 <= len(shown) <= size[0] - 2, shown
    assert not "".join(lines[1:2]).strip(), lines[1:2]
