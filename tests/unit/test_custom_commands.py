"""Finding custom commands: the Markdown files in ~/.circle/commands and the project's
.circle/commands, a project's winning by name."""

from __future__ import annotations

from circle.application.context.commands import find_commands
from circle.testing import InMemoryFileSystem

WORKSPACE = "/work"
HOME = "/home/me"


async def test_commands_are_found_in_both_folders_the_projects_winning_by_name() -> None:
    files = InMemoryFileSystem()
    files.put(f"{HOME}/.circle/commands/review.md", "the person's review")
    files.put(f"{HOME}/.circle/commands/mine.md", "the person's own")
    files.put(f"{WORKSPACE}/.circle/commands/review.md", "the project's review")
    files.put(f"{WORKSPACE}/.circle/commands/fix-tests.md", "fix them")
    files.put(f"{WORKSPACE}/.circle/commands/notes.txt", "not a command")
    files.put(f"{WORKSPACE}/.circle/commands/.hidden.md", "hidden")
    found = await find_commands(files, workspace=WORKSPACE, home=HOME)
    assert [(c.name, c.source) for c in found] == [
        ("fix-tests", "project"),
        ("mine", "user"),
        ("review", "project"),
    ]
    assert found[2].path == f"{WORKSPACE}/.circle/commands/review.md"


async def test_no_folders_no_commands_and_no_home_skips_the_persons() -> None:
    files = InMemoryFileSystem()
    assert await find_commands(files, workspace=WORKSPACE, home=HOME) == ()
    files.put(f"{HOME}/.circle/commands/mine.md", "the person's own")
    assert await find_commands(files, workspace=WORKSPACE, home=None) == ()
