"""The strip under the footer gives a job one line, cut to the width with ``…``: at 50x16 a long
command's line went on over two (``⚙ job-1: sleep 300; echo`` / ``a-rather-long-…``)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from circle.entrypoints.tui.app import CircleApp
from circle.testing import Call, FakeProcessRunner, Hang, answer

from .conftest import FakeBackend, main_screen, screen_lines, send, until

LONG = "sleep 300; echo a-rather-long-command-line-for-the-strip-to-show-here"


@pytest.mark.parametrize("size", [(50, 16), (40, 16), (80, 24)])
async def test_a_long_jobs_line_in_the_strip_is_cut_to_one_line(
    make_app: Callable[..., CircleApp], backend: FakeBackend, size: tuple[int, int]
) -> None:
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
        shown = lines[at].rstrip()
        assert shown.endswith("…"), shown
        assert len(shown) <= size[0] - 2, shown
        assert not lines[at + 1].strip() if at + 1 < len(lines) else True, lines[at + 1]
