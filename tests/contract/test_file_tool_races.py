"""The file tools on the real disk: hard links to credential files, and paths swapped while a tool runs.

A thread swaps a path between a real folder (or file) and a symlink for as long as the tool is called,
a few hundred times: no byte may land outside the workspace, and no credential may be read.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import os
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from pydantic import JsonValue

from circle.adapters.local.files import LocalFileSystem
from circle.adapters.local.search import RipgrepSearch
from circle.application.ports.approver import ApprovalDecision, ApprovalRequest
from circle.application.tools import builtin_tools
from circle.application.tools.base import ToolContext, ToolOutput
from circle.domain.errors import ToolError
from circle.testing import FakeProcessRunner

ROUNDS = 300
SECRET = "sk-live-SECRET-4242"
REFUSED = "is a credential file"


class InsideOnly:
    """An approver as accept-edits mode is: changes inside the workspace pass, others are refused."""

    def __init__(self) -> None:
        self.requests: list[ApprovalRequest] = []

    async def decide(self, request: ApprovalRequest) -> ApprovalDecision:
        self.requests.append(request)
        return ApprovalDecision(allowed=not request.outside_workspace, reason="outside the workspace")


@dataclass
class World:
    workspace: Path
    home: Path
    outside: Path
    ctx: ToolContext

    async def run(self, name: str, **arguments: JsonValue) -> ToolOutput:
        return await builtin_tools()[name].invoke(dict(arguments), self.ctx)


@pytest.fixture
def world(tmp_path: Path) -> World:
    root = Path(os.path.realpath(tmp_path))
    workspace, home, outside = root / "ws", root / "home", root / "outside"
    for folder in (workspace, home / ".ssh", outside):
        folder.mkdir(parents=True)
    (workspace / ".env").write_text(f"API_KEY={SECRET}\n")
    (home / ".ssh" / "id_rsa").write_text(f"KEY {SECRET}\n")
    (workspace / "main.py").write_text("print('API_KEY')\n")
    ctx = ToolContext(
        workspace=str(workspace),
        files=LocalFileSystem(),
        search=RipgrepSearch(),
        processes=FakeProcessRunner(),
        approver=InsideOnly(),
        home=str(home),
    )
    return World(workspace, home, outside, ctx)


@pytest.mark.parametrize("target", ["ws/.env", "home/.ssh/id_rsa"])
async def test_a_hard_link_to_a_credential_file_is_refused(world: World, target: str) -> None:
    os.link(world.workspace.parent / target, world.workspace / "notes.txt")
    async with asyncio.timeout(20):
        with pytest.raises(ToolError, match=REFUSED):
            await world.run("read_file", file_path="notes.txt")
        with pytest.raises(ToolError, match=REFUSED):
            await world.run("grep", pattern="API_KEY|KEY", path="notes.txt")
        found = await world.run("grep", pattern="KEY", output_mode="content")
        assert SECRET not in found.text and "main.py" in found.text
        assert "notes.txt" not in (await world.run("glob", pattern="*")).text


async def test_a_hard_link_to_an_ordinary_file_still_reads(world: World) -> None:
    (world.outside / "readme.txt").write_text("ordinary words\n")
    os.link(world.outside / "readme.txt", world.workspace / "copy.txt")
    async with asyncio.timeout(20):
        assert "ordinary words" in (await world.run("read_file", file_path="copy.txt")).text
        assert (await world.run("grep", pattern="ordinary")).text == "copy.txt"


@pytest.mark.parametrize("path", ["/proc/self/environ", "/proc/self/cmdline", "/proc/self/mem"])
async def test_process_files_are_refused_even_through_a_symlink(world: World, path: str) -> None:
    (world.workspace / "env.txt").symlink_to(path)
    async with asyncio.timeout(20):
        for written in (path, "env.txt"):
            with pytest.raises(ToolError, match=REFUSED):
                await world.run("read_file", file_path=written)
        with pytest.raises(ToolError, match=REFUSED):
            await world.run("read_file", file_path="/dev/fd/0")


@pytest.mark.parametrize("written", ["/proc/self/root{home}/.ssh/id_rsa", "/proc/self/cwd/notes.txt"])
async def test_credentials_named_through_proc_are_refused(
    world: World, written: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    os.link(world.home / ".ssh" / "id_rsa", world.workspace / "notes.txt")
    monkeypatch.chdir(world.workspace)
    async with asyncio.timeout(20):
        with pytest.raises(ToolError, match=REFUSED):
            await world.run("read_file", file_path=written.format(home=world.home))


async def test_a_credential_name_is_refused_before_its_file_is_looked_at(world: World) -> None:
    """A credential-named path whose stat fails (a symlink loop here; a folder it may not enter
    for another user) is refused by its name, not failed with the file system's error."""
    (world.workspace / "loop").symlink_to(world.workspace / "loop")
    os.symlink(".env.local", world.workspace / ".env.local")
    async with asyncio.timeout(20):
        for written in (".env.local", "loop/.env", "loop/id_rsa"):
            with pytest.raises(ToolError, match=REFUSED):
                await world.run("read_file", file_path=written)


@pytest.mark.parametrize("data", [b"a\nb\r", b"a\r\nb\n\nc\r\n", b"\xc3\xa9\xff\n", b"x" * 70_000 + b"\ny"])
async def test_read_file_cuts_lines_as_the_file_system_reads_them(world: World, data: bytes) -> None:
    (world.workspace / "f.txt").write_bytes(data)
    window = await world.ctx.files.read_lines(str(world.workspace / "f.txt"), offset=1, limit=2000)
    async with asyncio.timeout(20):
        text = (await world.run("read_file", file_path="f.txt")).text
    assert [line.split("\t", 1)[1][:2000] for line in text.split("\n")] == [
        line[:2000] for line in window.lines
    ]


_EXCHANGE = 2  # RENAME_EXCHANGE


def _exchanger() -> ctypes._CFuncPtr | None:  # type: ignore[name-defined]
    libc = ctypes.CDLL(None, use_errno=True)
    return getattr(libc, "renameat2", None)


def _swap(a: Path, b: Path, renameat2: ctypes._CFuncPtr | None) -> None:  # type: ignore[name-defined]
    """Exchange the names ``a`` and ``b`` (at once where the kernel can, else in three renames)."""
    if renameat2 is not None and renameat2(-100, bytes(a), -100, bytes(b), _EXCHANGE) == 0:
        return
    spare = a.with_name(a.name + ".spare")
    with contextlib.suppress(OSError):
        os.rename(a, spare)
        os.rename(b, a)
        os.rename(spare, b)


@contextlib.contextmanager
def swapping(a: Path, b: Path) -> Iterator[None]:
    """Swap ``a`` and ``b`` over and over in a thread until the block ends."""
    stop = threading.Event()
    renameat2 = _exchanger()

    def loop() -> None:
        while not stop.is_set():
            _swap(a, b, renameat2)

    thread = threading.Thread(target=loop, daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join(timeout=10)


async def test_writes_swapped_toward_a_folder_outside_land_nowhere_outside(world: World) -> None:
    (world.workspace / "sub").mkdir()
    (world.workspace / "sub-link").symlink_to(world.outside)
    outcomes: dict[str, int] = {}
    async with asyncio.timeout(120):
        with swapping(world.workspace / "sub", world.workspace / "sub-link"):
            for n in range(ROUNDS):
                try:
                    await world.run("write_file", file_path=f"sub/f{n}.txt", content=f"round {n}\n")
                    outcome = "written"
                except ToolError as exc:
                    outcome = "changed" if "changed while it was being written" in exc.message else "refused"
                except OSError:
                    outcome = "crashed"
                outcomes[outcome] = outcomes.get(outcome, 0) + 1
    assert sorted(p.name for p in world.outside.iterdir()) == []
    assert outcomes.get("written", 0) > 0 and "crashed" not in outcomes, outcomes


async def test_reads_swapped_toward_a_credential_read_no_credential(world: World) -> None:
    (world.workspace / "data").mkdir()
    (world.workspace / "data" / "f.txt").write_text("plain words\n")
    (world.workspace / ".ssh").mkdir()
    (world.workspace / ".ssh" / "f.txt").write_text(f"{SECRET}\n")
    (world.workspace / "data-link").symlink_to(world.workspace / ".ssh")
    (world.workspace / "g.txt").write_text("plain words\n")
    (world.workspace / "g-link").symlink_to(world.workspace / ".env")
    reads = 0
    seen: list[str] = []
    async with asyncio.timeout(120):
        with (
            swapping(world.workspace / "data", world.workspace / "data-link"),
            swapping(world.workspace / "g.txt", world.workspace / "g-link"),
        ):
            for _ in range(ROUNDS):
                for path in ("data/f.txt", "g.txt"):
                    try:
                        seen.append((await world.run("read_file", file_path=path)).text)
                        reads += 1
                    except ToolError as exc:
                        seen.append(exc.message)
    assert not [text for text in seen if SECRET in text]
    assert reads > 0


async def test_reads_swapped_with_a_hard_link_to_a_credential_read_no_credential(world: World) -> None:
    """Swapped between the check and the read, a plain file and a second name of ``.env`` (no
    symlink anywhere): the read is of the file judged, or nothing."""
    (world.workspace / "r.txt").write_text("plain words\n")
    os.link(world.workspace / ".env", world.workspace / "r-link")
    outcomes: dict[str, int] = {}
    async with asyncio.timeout(120):
        with swapping(world.workspace / "r.txt", world.workspace / "r-link"):
            for _ in range(ROUNDS):
                try:
                    text = (await world.run("read_file", file_path="r.txt")).text
                    outcome = "leaked" if SECRET in text else "read"
                except ToolError as exc:
                    outcome = "refused" if REFUSED in exc.message else "changed"
                outcomes[outcome] = outcomes.get(outcome, 0) + 1
    assert "leaked" not in outcomes and outcomes.get("read", 0) > 0, outcomes


async def test_patches_swapped_toward_a_folder_outside_land_nowhere_outside(world: World) -> None:
    (world.workspace / "sub").mkdir()
    (world.workspace / "sub-link").symlink_to(world.outside)
    outcomes: dict[str, int] = {}
    async with asyncio.timeout(120):
        with swapping(world.workspace / "sub", world.workspace / "sub-link"):
            for n in range(ROUNDS):
                patch = f"*** Begin Patch\n*** Add File: sub/p{n}.txt\n+round {n}\n*** End Patch\n"
                try:
                    await world.run("apply_patch", patch=patch)
                    outcome = "written"
                except ToolError:
                    outcome = "refused"
                except OSError:
                    outcome = "crashed"
                outcomes[outcome] = outcomes.get(outcome, 0) + 1
    assert sorted(p.name for p in world.outside.iterdir()) == []
    assert outcomes.get("written", 0) > 0 and "crashed" not in outcomes, outcomes
