"""Credential files found by what a path is: hard links by inode, /proc paths, and swaps after the check."""

from __future__ import annotations

import pytest
from pydantic import JsonValue

from circle.application.credential_files import CACHE_SECONDS, CredentialFiles
from circle.application.tools import builtin_tools
from circle.application.tools.base import ToolContext, ToolOutput
from circle.domain.errors import ToolError
from circle.testing import (
    FakeClock,
    FakeProcessRunner,
    InMemoryFileSystem,
    InMemoryTextSearch,
    ScriptedApprover,
)

W = "/w"
HOME = "/home/me"
DATA = "/data/circle"
REFUSED = "is a credential file"


def _files() -> InMemoryFileSystem:
    return InMemoryFileSystem(
        {
            f"{W}/.env": "API_KEY=sk-live-1234\n",
            f"{W}/src/main.py": "print('API_KEY')\n",
            f"{HOME}/.ssh/id_rsa": "-----BEGIN KEY----- API_KEY\n",
            f"{DATA}/credentials.json": '{"API_KEY": "sk-data"}\n',
            "/elsewhere/readme.txt": "API_KEY is read from the environment\n",
        }
    )


def _context(files: InMemoryFileSystem) -> ToolContext:
    return ToolContext(
        workspace=W,
        files=files,
        search=InMemoryTextSearch(files),
        processes=FakeProcessRunner(),
        approver=ScriptedApprover(allow={"write_file"}),
        home=HOME,
        data_dir=DATA,
    )


async def run(ctx: ToolContext, name: str, **arguments: JsonValue) -> ToolOutput:
    return await builtin_tools()[name].invoke(dict(arguments), ctx)


@pytest.mark.parametrize("target", [f"{W}/.env", f"{HOME}/.ssh/id_rsa", f"{DATA}/credentials.json"])
async def test_a_hard_link_to_a_credential_file_is_refused_to_read_file_and_grep(target: str) -> None:
    files = _files()
    files.hardlink(f"{W}/notes.txt", target)
    ctx = _context(files)
    with pytest.raises(ToolError, match=f"notes.txt {REFUSED}"):
        await run(ctx, "read_file", file_path="notes.txt")
    with pytest.raises(ToolError, match=REFUSED):
        await run(ctx, "grep", pattern="API_KEY", path="notes.txt")
    found = await run(ctx, "grep", pattern="API_KEY", output_mode="content")
    assert found.text == "src/main.py:1:print('API_KEY')"
    assert "notes.txt" not in (await run(ctx, "glob", pattern="*")).text
    listing = (await run(ctx, "ls")).text
    assert "notes.txt  (" in listing and "credential file: not readable" in listing.split("notes.txt")[1]


async def test_a_hard_link_to_an_ordinary_file_still_reads() -> None:
    files = _files()
    files.hardlink(f"{W}/copy.txt", "/elsewhere/readme.txt")
    ctx = _context(files)
    assert "API_KEY is read" in (await run(ctx, "read_file", file_path="copy.txt")).text
    assert (await run(ctx, "grep", pattern="environment")).text == "copy.txt"


async def test_a_hard_link_named_like_nothing_in_a_hidden_folder_is_found() -> None:
    files = _files()
    files.put(f"{W}/node_modules/pkg/.git/.env.production", "TOKEN=1\n")
    files.hardlink(f"{W}/build.log", f"{W}/node_modules/pkg/.git/.env.production")
    with pytest.raises(ToolError, match=REFUSED):
        await run(_context(files), "read_file", file_path="build.log")


@pytest.mark.parametrize(
    "path", ["/proc/self/environ", "/proc/1/cmdline", "/proc/self/fd/0", "/dev/fd/3", "/proc/self/cwd/.env"]
)
async def test_process_files_are_refused_as_written_and_through_a_symlink(path: str) -> None:
    files = _files()
    files.put(path, "CIRCLE_API_KEY=sk-circle\n")
    files.symlink(f"{W}/env.txt", path)
    ctx = _context(files)
    with pytest.raises(ToolError, match=REFUSED):
        await run(ctx, "read_file", file_path=path)
    with pytest.raises(ToolError, match=REFUSED):
        await run(ctx, "read_file", file_path="env.txt")
    assert await ctx.is_credential(path) and await ctx.is_credential("env.txt")


async def test_files_with_one_link_are_never_searched_for() -> None:
    files = _files()
    clock = FakeClock()
    known = CredentialFiles(files, workspace=W, home=HOME, data_dir=DATA, clock=clock.monotonic)
    assert not await known.is_credential(f"{W}/src/main.py")
    assert known.searches == 0
    files.hardlink(f"{W}/a.txt", "/elsewhere/readme.txt")
    assert not await known.is_credential(f"{W}/a.txt")
    assert not await known.is_credential(f"{W}/a.txt")
    assert known.searches == 1
    files.hardlink(f"{W}/b.txt", f"{W}/.env")
    clock.advance(CACHE_SECONDS + 1)
    assert await known.is_credential(f"{W}/b.txt")
    assert known.searches == 2


async def test_a_workspace_too_large_to_look_through_refuses_hard_links() -> None:
    files = _files()
    for n in range(30):
        files.put(f"{W}/many/f{n}.txt", "x")
    files.hardlink(f"{W}/a.txt", "/elsewhere/readme.txt")
    known = CredentialFiles(files, workspace=W, home=None, data_dir=None)
    assert not await known.is_credential(f"{W}/a.txt")
    small = CredentialFiles(files, workspace=W, home=None, data_dir=None, workspace_limit=10)
    assert await small.is_credential(f"{W}/a.txt")
    assert not await small.is_credential(f"{W}/many/f1.txt")
