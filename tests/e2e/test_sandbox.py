"""`circle -p --sandbox …` for real under bubblewrap, against the loopback gateway."""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from circle._testing.gateway import chat_text, chat_tool_calls
from circle.adapters.local.sandbox import check_bwrap

from .conftest import Circle


@pytest.fixture(scope="module", autouse=True)
def _needs_bwrap() -> None:
    problem = "bwrap is not on PATH" if shutil.which("bwrap") is None else check_bwrap()
    if problem is not None:
        pytest.skip(f"needs the Debian package bubblewrap ({problem})")


@pytest.fixture
def outside() -> Iterator[Path]:
    """A folder outside the workspace and outside /tmp, so the sandbox shows it read-only."""
    try:
        folder = Path(tempfile.mkdtemp(prefix="circle-sandbox-e2e-", dir="/var/tmp"))
    except OSError as exc:
        pytest.skip(f"needs a writable /var/tmp ({exc.strerror})")
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def _chats(cli: Circle) -> list[dict[str, object]]:
    return [r.json() for r in cli.gateway.requests if r.path.endswith("/chat/completions")]


def _tool_results(cli: Circle) -> list[str]:
    messages = _chats(cli)[-1]["messages"]
    assert isinstance(messages, list)
    return [m["content"] for m in messages if m["role"] == "tool"]


def _settings(cli: Circle, **values: object) -> None:
    cli.home.mkdir(parents=True, exist_ok=True)
    (cli.home / "settings.json").write_text(json.dumps(values))


def test_workspace_write_keeps_commands_to_the_workspace(cli: Circle, outside: Path) -> None:
    target = outside / "outside.txt"
    command = f"touch inside.txt; touch {target}"
    cli.gateway.enqueue(chat_tool_calls([("c1", "execute", {"command": command})]), chat_text("Tried."))
    done = cli.run("-p", "--yolo", "--sandbox", "workspace-write", "touch both")
    assert done.returncode == 0, done.stderr
    assert (cli.workspace / "inside.txt").exists()
    assert not target.exists()
    [result] = _tool_results(cli)
    assert f"touch: cannot touch '{target}': Read-only file system" in result
    assert result.endswith("[exit code 1]")
    messages = _chats(cli)[0]["messages"]
    assert isinstance(messages, list)
    system = messages[0]["content"]
    assert "- Commands run in a sandbox: the file system is read-only except the workspace" in system


def test_hooks_run_outside_the_sandbox(cli: Circle, outside: Path) -> None:
    hook_log = outside / "hook.log"
    cli.home.mkdir(parents=True, exist_ok=True)
    hook = {"type": "command", "command": f"echo ran >> {hook_log}"}
    (cli.home / "hooks.json").write_text(
        json.dumps({"hooks": {"PreToolUse": [{"matcher": "execute", "hooks": [hook]}]}})
    )
    command = f"echo sandboxed >> {hook_log}"
    cli.gateway.enqueue(chat_tool_calls([("c1", "execute", {"command": command})]), chat_text("Done."))
    done = cli.run("-p", "--yolo", "--sandbox", "workspace-write", "log it")
    assert done.returncode == 0, done.stderr
    assert hook_log.read_text() == "ran\n"
    assert "Read-only file system" in _tool_results(cli)[0]


def test_settings_choose_the_sandbox_and_the_flag_beats_them(cli: Circle) -> None:
    _settings(cli, sandbox="read-only")
    cli.gateway.enqueue(
        chat_tool_calls([("c1", "execute", {"command": "touch first.txt"})]), chat_text("Tried.")
    )
    done = cli.run("-p", "--yolo", "touch it")
    assert done.returncode == 0, done.stderr
    assert not (cli.workspace / "first.txt").exists()
    assert "Read-only file system" in _tool_results(cli)[0]
    cli.gateway.enqueue(
        chat_tool_calls([("c1", "execute", {"command": "touch second.txt"})]), chat_text("Done.")
    )
    done = cli.run("-p", "--yolo", "--sandbox", "off", "touch it")
    assert done.returncode == 0, done.stderr
    assert (cli.workspace / "second.txt").exists()


def test_without_bwrap_circle_refuses_and_runs_nothing(cli: Circle, tmp_path: Path) -> None:
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    cli.gateway.enqueue(chat_tool_calls([("c1", "execute", {"command": "touch ran.txt"})]), chat_text("x"))
    done = cli.run("-p", "--yolo", "--sandbox", "workspace-write", "touch it", env=cli.env(PATH=str(empty)))
    assert done.returncode == 1
    assert done.stderr == (
        "circle: cannot sandbox commands (workspace-write): bubblewrap (bwrap) is not installed: "
        "apt-get install bubblewrap; nothing was run\n"
    )
    assert _chats(cli) == [], "no model was asked"
    assert not (cli.workspace / "ran.txt").exists()


def test_an_unknown_sandbox_mode_is_bad_usage(cli: Circle) -> None:
    done = cli.run("-p", "--sandbox", "everything", "hi")
    assert done.returncode == 2
    assert "unknown sandbox mode 'everything'" in done.stderr
    assert cli.gateway.requests == []
