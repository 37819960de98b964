"""At 50 columns the welcome's lines and a picker's rows keep to their column: a session's line
and a job's row are cut with "…" at the width (a session's title rather than its count when there
is room), a list wraps under its column, never back under the label; widened, they show whole."""

from __future__ import annotations

import time
from collections.abc import Callable

from textual.widgets import OptionList

from circle.domain.messages import Message
from circle.entrypoints.tui.app import CircleApp
from circle.entrypoints.tui.screens.picker import PickerScreen
from circle.entrypoints.tui.widgets.conversation import TurnLine
from circle.entrypoints.tui.widgets.welcome import LABEL_WIDTH
from circle.testing import Call, FakeProcessRunner, Hang, InMemorySessionStore, answer

from .conftest import WORKSPACE, FakeBackend, main_screen, screen_lines, send, until

SKILLS = [f"skill-number-{n}" for n in range(6)]
COMMAND = "tail -f /var/log/a-rather-long-name-of-a-log-file.log | grep --line-buffered error"


def skill(name: str) -> str:
    return f"---\nname: {name}\ndescription: Does {name}.\n---\nDo it.\n"


def welcome_lines(app: CircleApp) -> list[str]:
    """The welcome's lines as the screen shows them, from its label column on."""
    shown = [line[1:].rstrip(" ▁▂▃▄▅▆▇█") for line in screen_lines(app)]
    start = next(index for index, line in enumerate(shown) if line.startswith("Skills"))
    end = next(index for index, line in enumerate(shown) if "/resume picks" in line)
    return shown[start : end + 1]


async def test_the_welcomes_lines_keep_to_their_column_at_50_columns(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    for name in SKILLS:
        backend.files.put(f"{WORKSPACE}/.circle/skills/{name}/SKILL.md", skill(name))
    now = time.time()
    backend.store = InMemorySessionStore(clock=lambda: now - 2 * 3600)
    for number in range(1, 3):
        session = f"s{number}"
        title = f"task {number} with a title long enough to wrap even at eighty columns"
        await backend.store.create_session(workspace=WORKSPACE, session_id=session, title=title)
        await backend.store.append(session, Message.user(f"do task {number}"))
    app = make_app()
    async with app.run_test(size=(50, 30)) as pilot:
        await until(pilot, lambda: app.host is not None)
        await until(pilot, lambda: any("/resume picks" in line for line in screen_lines(app)))
        await pilot.pause(0.1)
        lines = welcome_lines(app)
        assert lines[0].startswith("Skills")
        labels = [line for line in lines if line[:LABEL_WIDTH].strip()]
        assert [line.split()[0] for line in labels] == ["Skills", "Recent"], lines
        recent = [line for line in lines if "task " in line]
        assert len(recent) == 2, lines
        assert all(line.endswith("…") and len(line) <= 48 for line in recent), lines
        listed = lines[: next(index for index, line in enumerate(lines) if line.startswith("Recent"))]
        assert len(listed) > 1 and all(len(line) <= 48 for line in listed), lines
        assert " ".join(line[LABEL_WIDTH:].strip() for line in listed).endswith(", ".join(SKILLS))
        await pilot.resize_terminal(80, 30)  # room for the count too: the title gives way
        await until(pilot, lambda: any("…  · 1 message" in line for line in screen_lines(app)))
        await pilot.resize_terminal(140, 30)
        whole = "wrap even at eighty"  # as far as the session's title goes anywhere
        await until(pilot, lambda: any(whole in line for line in screen_lines(app)))
        assert welcome_lines(app)[0].endswith(", ".join(SKILLS))


async def test_the_jobs_pickers_rows_are_cut_at_50_columns_and_whole_when_widened(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.mode = "auto"
    backend.processes = FakeProcessRunner({COMMAND: Hang("working…\n")}, files=backend.files)
    backend.model.add(answer("", Call("execute", {"command": COMMAND, "background": True})), answer("ok"))
    app = make_app()
    async with app.run_test(size=(50, 16)) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "watch")
        await until(pilot, lambda: bool(screen.conversation.query(TurnLine)))
        await send(pilot, screen, "/jobs")
        await until(pilot, lambda: isinstance(app.screen, PickerScreen))
        picker = app.screen
        await until(pilot, lambda: picker.query_one(OptionList).option_count == 1)
        await pilot.pause(0.1)
        assert picker.query_one(OptionList).virtual_size.height == 1  # one line for its one row
        rows = [line for line in screen_lines(app) if "job-1  running" in line]  # the picker's row
        assert len(rows) == 1 and rows[0].rstrip(" │").endswith("…"), screen_lines(app)
        await pilot.resize_terminal(140, 45)
        await until(pilot, lambda: any("--line-buffered error" in line for line in screen_lines(app)))
        await pilot.press("escape")
