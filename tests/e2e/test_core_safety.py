"""Safety in the core, through the real `circle`: trust for every session, the data folder's modes,
project settings read per key, and the mode hooks are told."""

from __future__ import annotations

import stat
from pathlib import Path

from circle._testing.gateway import chat_text

from .conftest import Circle


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_the_data_folder_is_0700_and_the_store_and_its_files_0600(cli: Circle) -> None:
    cli.gateway.enqueue(chat_text("hi"))
    fresh = cli.home.parent / "fresh-home"
    done = cli.run("trust", str(cli.workspace), env=cli.env(CIRCLE_HOME=str(fresh)))
    assert done.returncode == 0, done.stderr
    done = cli.run("-p", "hello", env=cli.env(CIRCLE_HOME=str(fresh)))
    assert done.returncode == 0, done.stderr
    assert _mode(fresh) == 0o700
    stored = [p for p in fresh.iterdir() if p.name.startswith("circle.sqlite")]
    assert stored and all(_mode(p) == 0o600 for p in stored), [(p.name, oct(_mode(p))) for p in stored]


def test_an_older_data_folder_and_store_are_made_private(cli: Circle) -> None:
    older = cli.home.parent / "older-home"
    assert cli.run("trust", str(cli.workspace), env=cli.env(CIRCLE_HOME=str(older))).returncode == 0
    older.chmod(0o755)
    (older / "circle.sqlite").chmod(0o644)
    cli.gateway.enqueue(chat_text("hi"))
    done = cli.run("-p", "hello", env=cli.env(CIRCLE_HOME=str(older)))
    assert done.returncode == 0, done.stderr
    assert _mode(older) == 0o700
    assert _mode(older / "circle.sqlite") == 0o600
