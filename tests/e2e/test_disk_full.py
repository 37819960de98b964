"""A full disk under the data folder: one clear line (the disk is full, where, nothing stored was
lost), never a traceback, and the store intact once there is room again.

The disk is a small tmpfs the test mounts as root; where mounting is not allowed the tests skip.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import pytest

from circle._testing.gateway import ScriptedGateway, chat_text, chat_tool_calls

from .conftest import Circle


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 4 MB file system for the data folder."""
    where = tmp_path / "home"
    where.mkdir()
    if os.geteuid() != 0:
        pytest.skip("mounting a small file system needs root")
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(where)], capture_output=True, text=True
    )
    if mounted.returncode != 0:
        pytest.skip(f"mounting a small file system is not allowed here: {mounted.stderr.strip()}")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)


@pytest.fixture
def cli_on(small_disk: Path, tmp_path: Path, gateway: ScriptedGateway) -> Circle:
    workspace = tmp_path / "work"
    workspace.mkdir()
    return Circle(home=small_disk, workspace=workspace, gateway=gateway)


def _fill(disk: Path, *, leave_kib: int = 0) -> Path:
    filler = disk / "filler"
    subprocess.run(["dd", "if=/dev/zero", f"of={filler}", "bs=64k"], capture_output=True, check=False)
    os.truncate(filler, max(0, filler.stat().st_size - leave_kib * 1024))
    return filler


def _roles(cli: Circle) -> list[str]:
    with closing(sqlite3.connect(cli.home / "circle.sqlite")) as db:
        assert db.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        return [str(r) for (r,) in db.execute("SELECT role FROM checkpoints ORDER BY seq")]


def _says_disk_full(stderr: str, cli: Circle) -> None:
    assert "Traceback" not in stderr
    [line] = stderr.splitlines()
    assert line.startswith(f"circle: the disk holding {cli.home} is full: Circle could not "), line
    assert "nothing stored was lost" in line


def test_a_disk_full_at_start_is_one_clear_line(cli_on: Circle) -> None:
    cli_on.gateway.enqueue(chat_text("Hi."))
    assert cli_on.run("-p", "--yolo", "--session-id", "s1", "hello").returncode == 0
    filler = _fill(cli_on.home)

    done = cli_on.run("-p", "--yolo", "--session", "s1", "again")

    assert done.returncode == 1
    _says_disk_full(done.stderr, cli_on)
    filler.unlink()
    assert _roles(cli_on) == ["user", "assistant"]  # nothing stored was lost


def test_a_disk_filling_up_during_a_turn_is_one_clear_line(cli_on: Circle) -> None:
    cli_on.gateway.enqueue(chat_text("Hi."))
    assert cli_on.run("-p", "--yolo", "--session-id", "s1", "hello").returncode == 0
    (cli_on.workspace / "big.txt").write_text("".join(f"line {i} of a long file\n" for i in range(20000)))
    filler = _fill(cli_on.home, leave_kib=160)
    cli_on.gateway.enqueue(
        chat_tool_calls(
            [("c1", "execute", {"command": "head -c 2000000 /dev/urandom > big.bin; echo made"})]
        ),
        chat_text("Done."),
    )

    done = cli_on.run("-p", "--yolo", "--session", "s1", "make a big file")

    assert done.returncode == 1, done.stderr
    _says_disk_full(done.stderr, cli_on)
    filler.unlink()
    assert _roles(cli_on)[:3] == ["user", "assistant", "user"]  # what was stored is all there


async def test_a_file_content_kept_for_a_rewind_on_a_full_disk_is_one_clear_line(
    small_disk: Path, tmp_path: Path
) -> None:
    from circle.adapters.storage.file_journal import SqliteFileJournal
    from circle.domain.errors import StorageError

    journal = SqliteFileJournal(tmp_path / "circle.sqlite", blobs=small_disk / "blobs")
    _fill(small_disk)
    try:
        with pytest.raises(StorageError) as caught:
            await journal.put_blob(os.urandom(512 * 1024))
    finally:
        await journal.aclose()

    assert caught.value.message == (
        f"the disk holding {small_disk / 'blobs'} is full: Circle could not keep a file's content for"
        " a rewind there; nothing stored was lost (free some space and run it again)"
    )
