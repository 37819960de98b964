"""A new session's welcome lists what Circle found for the folder: the instruction files it reads,
the skills, the custom commands, and the folder's latest sessions with when each was last used."""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest

from circle.domain.messages import Message
from circle.entrypoints.tui.app import CircleApp
from circle.entrypoints.tui.widgets.welcome import Welcome
from circle.testing import InMemorySessionStore

from .conftest import SIZE, WORKSPACE, FakeBackend, main_screen, screen_lines, until

SKILL = "---\nname: deploy\ndescription: Ship the site to production.\n---\nRun make deploy.\n"


def welcome_text(app: CircleApp) -> str:
    found = main_screen(app).conversation.query(Welcome)
    return str(found.first().content) if found else ""


async def test_the_welcome_lists_instruction_files_skills_and_recent_sessions(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.files.put(f"{WORKSPACE}/AGENTS.md", "Use tabs.\n")
    backend.files.put(f"{WORKSPACE}/.circle/skills/deploy/SKILL.md", SKILL)
    now = time.time()
    backend.store = InMemorySessionStore(clock=lambda: now - 2 * 3600)
    for number in range(1, 5):
        session = f"s{number}"
        await backend.store.create_session(workspace=WORKSPACE, session_id=session, title=f"task {number}")
        await backend.store.append(session, Message.user(f"do task {number}"))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        await until(pilot, lambda: "Recent" in welcome_text(app))
        shown = welcome_text(app)
        assert shown.startswith(f"Circle in {WORKSPACE}. Type a message")
        lines = shown.splitlines()
        assert any(line.startswith("Instructions") and "AGENTS.md" in line for line in lines)
        assert any(line.startswith("Skills") and "deploy" in line for line in lines)
        recent = [line for line in lines if "task " in line]
        assert len(recent) == 3 and all("2h ago" in line and "1 message" in line for line in recent)
        assert any("/resume picks one" in line for line in screen_lines(app))


async def test_the_welcome_says_when_instruction_files_are_not_read(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.files.put(f"{WORKSPACE}/AGENTS.md", "Use tabs.\n")
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        assert app.host is not None
        app.host.runtime.options.prompt = type(app.host.runtime.options.prompt)(context_files=False)
        welcome = main_screen(app).conversation.query_one(Welcome)
        await welcome.fill(app.host)
        await until(pilot, lambda: "none read (--no-context-files)" in welcome_text(app))
        assert "AGENTS.md" not in welcome_text(app)


@pytest.mark.parametrize(("width", "height"), [(80, 24), (50, 16)])
async def test_the_welcome_lists_the_custom_commands_found_at_80_and_50_columns(
    make_app: Callable[..., CircleApp], backend: FakeBackend, width: int, height: int
) -> None:
    backend.files.put(f"{WORKSPACE}/.circle/commands/review.md", "Review the change: $ARGUMENTS\n")
    backend.files.put(f"{WORKSPACE}/.circle/commands/fix-tests.md", "Fix the failing tests.\n")
    backend.files.put(f"{WORKSPACE}/.circle/commands/notes.txt", "not a command\n")
    backend.files.put(f"{WORKSPACE}/.circle/commands/broken.md", "---\ndescription: open\n")
    backend.files.put(f"{WORKSPACE}/.circle/commands/help.md", "A built-in's name.\n")
    app = make_app()
    async with app.run_test(size=(width, height)) as pilot:
        await until(pilot, lambda: app.host is not None)
        await until(pilot, lambda: "Commands" in welcome_text(app))
        lines = welcome_text(app).splitlines()
        row = next(index for index, line in enumerate(lines) if line.startswith("Commands"))
        assert lines[row] == "Commands".ljust(14) + "/fix-tests, /review", lines
        under = []
        for line in lines[row + 1 :]:
            if line[:14].strip():
                break
            under.append(line[14:])
        assert under == [], lines  # they run: no note that they do not
        assert all(len(line) <= width - 2 for line in lines[row:]), lines  # within the padding
        assert "notes" not in welcome_text(app)
        shown = screen_lines(app)
        assert any(line.strip().startswith("Commands") and "/review" in line for line in shown)


async def test_the_welcome_has_no_commands_row_when_there_are_none(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.files.put(f"{WORKSPACE}/.circle/skills/deploy/SKILL.md", SKILL)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        await until(pilot, lambda: "Skills" in welcome_text(app))
        assert "Commands" not in welcome_text(app)
