"""LocalWorkspaceSnapshots on a real disk, and a command's changes put back through the real adapters."""

from __future__ import annotations

import os
import time
from pathlib import Path

from circle.adapters.local.files import LocalFileSystem
from circle.adapters.local.processes import LocalProcessRunner
from circle.adapters.local.search import RipgrepSearch
from circle.adapters.local.snapshots import LocalWorkspaceSnapshots
from circle.adapters.storage.file_journal import SqliteFileJournal
from circle.application.approvals import AllowAll
from circle.application.ports.file_journal import content_digest
from circle.application.ports.workspace_snapshots import changed_paths
from circle.application.rewind import Rewind
from circle.application.tools import builtin_tools
from circle.application.tools.base import ToolContext
from circle.application.turn_journal import TurnJournal

HOUR_AGO_NS = time.time_ns() - 3600 * 1_000_000_000


def make(path: Path, text: str, *, old: bool = True) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    if old:  # older than the racy window, so the manifest may cache it
        os.utime(path, ns=(HOUR_AGO_NS, HOUR_AGO_NS))
    return path


def rewrite_keeping_stat(path: Path, text: str) -> None:
    st = path.stat()
    path.write_text(text)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))


async def test_a_snapshot_covers_regular_files_and_leaves_out_the_skipped(tmp_path: Path) -> None:
    work = tmp_path / "work"
    make(work / "a.txt", "a")
    make(work / "sub" / "b.txt", "b")
    make(work / ".git" / "HEAD", "ref")
    make(work / "node_modules" / "x" / "i.js", "js")
    (work / "link").symlink_to(work / "a.txt")
    make(work / "big.bin", "x" * 100)
    snapshots = LocalWorkspaceSnapshots(tmp_path / "data", max_file_bytes=50)
    snap = await snapshots.snapshot(str(work))
    assert snap.complete
    assert dict(snap.files) == {
        str(work / "a.txt"): content_digest(b"a"),
        str(work / "sub/b.txt"): content_digest(b"b"),
    }
    assert (
        tmp_path / "data" / "blobs" / content_digest(b"a")[:2] / content_digest(b"a")[2:]
    ).read_bytes() == b"a"


async def test_unchanged_size_and_mtime_are_not_read_again_even_after_a_restart(tmp_path: Path) -> None:
    work = tmp_path / "work"
    kept = make(work / "kept.txt", "one")
    snapshots = LocalWorkspaceSnapshots(tmp_path / "data")
    first = await snapshots.snapshot(str(work))
    rewrite_keeping_stat(kept, "two")  # same size, same mtime: taken as unchanged (by design)
    assert (await snapshots.snapshot(str(work))).files == first.files
    restarted = LocalWorkspaceSnapshots(tmp_path / "data")
    assert (await restarted.snapshot(str(work))).files == first.files
    os.utime(kept, ns=(HOUR_AGO_NS, HOUR_AGO_NS + 1))
    assert (await restarted.snapshot(str(work))).files[str(kept)] == content_digest(b"two")


async def test_a_recently_modified_file_is_read_again(tmp_path: Path) -> None:
    work = tmp_path / "work"
    fresh = make(work / "fresh.txt", "one", old=False)
    snapshots = LocalWorkspaceSnapshots(tmp_path / "data")
    await snapshots.snapshot(str(work))
    rewrite_keeping_stat(fresh, "two")
    assert (await snapshots.snapshot(str(work))).files[str(fresh)] == content_digest(b"two")


async def test_a_workspace_over_the_file_limit_is_not_compared(tmp_path: Path) -> None:
    work = tmp_path / "work"
    for i in range(5):
        make(work / f"f{i}", str(i))
    snapshots = LocalWorkspaceSnapshots(tmp_path / "data", max_files=3)
    before = await snapshots.snapshot(str(work))
    assert not before.complete
    (work / "f0").unlink()
    assert changed_paths(before, await snapshots.snapshot(str(work))) == []


def context(work: Path, data: Path, journal: SqliteFileJournal) -> ToolContext:
    recorder = TurnJournal(
        journal, session_id="s", workspace=str(work), snapshots=LocalWorkspaceSnapshots(data)
    )
    recorder.begin("turn-1", label="do it")
    return ToolContext(
        workspace=str(work),
        files=LocalFileSystem(),
        search=RipgrepSearch(),
        processes=LocalProcessRunner(),
        approver=AllowAll(),
        journal=recorder,
    )


async def test_a_commands_changes_are_put_back_by_a_new_process(tmp_path: Path) -> None:
    work, data = (tmp_path / "work").resolve(), tmp_path / "data"
    make(work / "old.txt", "old\n")
    make(work / "src" / "edited.txt", "before\n")
    make(work / "same.txt", "same\n")
    journal = SqliteFileJournal(data / "circle.sqlite", blobs=data / "blobs")
    command = (
        "echo new > made.txt; mkdir -p deep && echo d > deep/d.txt; rm old.txt; echo after > src/edited.txt"
    )
    out = await builtin_tools()["execute"].invoke({"command": command}, context(work, data, journal))
    assert "[exit code 0]" in out.text
    await journal.aclose()
    make(work / "later.txt", "the person's\n", old=False)

    restarted = SqliteFileJournal(data / "circle.sqlite", blobs=data / "blobs")
    rewind = Rewind(restarted, LocalFileSystem())
    changes = await rewind.preview("s")
    assert sorted((Path(c.path).relative_to(work).as_posix(), c.action) for c in changes) == [
        ("deep/d.txt", "created"),
        ("made.txt", "created"),
        ("old.txt", "deleted"),
        ("src/edited.txt", "modified"),
    ]
    assert (await rewind.restore("s")).restored
    await restarted.aclose()
    assert (work / "old.txt").read_text() == "old\n"
    assert (work / "src" / "edited.txt").read_text() == "before\n"
    assert not (work / "made.txt").exists() and not (work / "deep" / "d.txt").exists()
    assert (work / "later.txt").read_text() == "the person's\n"
    assert (work / "same.txt").read_text() == "same\n"


async def test_a_file_changed_after_the_command_blocks_the_restore(tmp_path: Path) -> None:
    work, data = (tmp_path / "work").resolve(), tmp_path / "data"
    make(work / "a.txt", "a\n")
    journal = SqliteFileJournal(data / "circle.sqlite", blobs=data / "blobs")
    ctx = context(work, data, journal)
    await builtin_tools()["execute"].invoke({"command": "echo b > a.txt; echo c > c.txt"}, ctx)
    (work / "c.txt").write_text("the person's c\n")
    outcome = await Rewind(journal, LocalFileSystem()).restore("s")
    await journal.aclose()
    assert not outcome.restored
    assert [Path(c.path).name for c in outcome.conflicts] == ["c.txt"]
    assert (work / "a.txt").read_text() == "b\n" and (work / "c.txt").read_text() == "the person's c\n"
