"""Print mode asks on the terminal before a change: driven through a real tmux pane."""

from __future__ import annotations

import shlex
import shutil
import subprocess
import time
from collections.abc import Iterator

import pytest

from circle._testing.gateway import chat_text, chat_tool_calls

from .conftest import Circle, circle_command

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="needs the Debian package tmux")


@pytest.fixture
def tmux_socket(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    socket = str(tmp_path_factory.mktemp("tmux") / "sock")
    yield socket
    subprocess.run(["tmux", "-S", socket, "kill-server"], capture_output=True, check=False)


def _screen(socket: str) -> str:
    return subprocess.run(["tmux", "-S", socket, "capture-pane", "-p"], capture_output=True, text=True).stdout


def _wait_for(socket: str, text: str, timeout: float = 20) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        screen = _screen(socket)
        if text in screen:
            return screen
        time.sleep(0.05)
    raise AssertionError(f"{text!r} never appeared; the screen was:\n{_screen(socket)}")


@pytest.mark.parametrize(("key", "made"), [("y", True), ("n", False)])
def test_a_change_asks_and_the_answer_counts(cli: Circle, tmux_socket: str, key: str, made: bool) -> None:
    cli.run("trust", str(cli.workspace))
    cli.gateway.enqueue(
        chat_tool_calls([("c1", "write_file", {"file_path": "x.txt", "content": "hi\n"})]),
        chat_text("Finished."),
    )
    env = " ".join(f"{k}={shlex.quote(v)}" for k, v in cli.env().items() if k.startswith("CIRCLE_"))
    command = f"env {env} {circle_command()} -p 'make x.txt'; echo EXIT=$?; sleep 60"
    subprocess.run(
        [
            "tmux",
            "-S",
            tmux_socket,
            "new-session",
            "-d",
            "-x",
            "120",
            "-y",
            "20",
            "-c",
            str(cli.workspace),
            command,
        ],
        check=True,
    )
    _wait_for(tmux_socket, "allow write_file: write x.txt? [y/N]")
    subprocess.run(["tmux", "-S", tmux_socket, "send-keys", key, "Enter"], check=True)
    screen = _wait_for(tmux_socket, "EXIT=")
    assert "EXIT=0" in screen and "Finished." in screen
    assert (cli.workspace / "x.txt").exists() is made
    if not made:
        assert "the person said no" in cli.gateway.requests[-1].json()["messages"][-1]["content"]
