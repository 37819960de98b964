"""The full-screen interface as a person uses it: the real `circle` in a tmux terminal, against the
loopback gateway. Type a prompt, answer the trust question, approve a command, read the answer and
the footer's cost, leave, and find the command that reopens the session."""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
import time
import uuid
from collections.abc import Callable, Iterator

import pytest

from circle._testing.gateway import chat_text, chat_tool_calls
from circle.entrypoints.tui.widgets.cards import READY_S

from ._processes import circles_and_theirs, left_running
from .conftest import Circle, circle_command

pytestmark = pytest.mark.e2e
TMUX = shutil.which("tmux")


class Terminal:
    """A detached tmux session (110x34 unless told) running one command."""

    def __init__(self, name: str) -> None:
        assert TMUX is not None
        self.name = name
        self.socket = f"circle-test-{name}"
        self.size = (110, 34)
        self.pane: int | None = None
        """The pane's first process: the `circle` it runs is this one or below it."""

    def tmux(self, *args: str) -> str:
        assert TMUX is not None
        done = subprocess.run([TMUX, "-L", self.socket, *args], capture_output=True, text=True, timeout=10)
        return done.stdout

    def start(self, command: str) -> None:
        columns, rows = self.size
        self.tmux("new-session", "-d", "-s", self.name, "-x", str(columns), "-y", str(rows), command)
        found = self.tmux("list-panes", "-t", self.name, "-F", "#{pane_pid}").split()
        self.pane = int(found[0]) if found else None

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-t", self.name)

    def keys(self, *keys: str) -> None:
        self.tmux("send-keys", "-t", self.name, *keys)

    def type(self, text: str) -> None:
        self.tmux("send-keys", "-t", self.name, "-l", text)

    def wait_for(self, found: Callable[[str], bool], *, timeout: float = 20, what: str = "") -> str:
        deadline = time.monotonic() + timeout
        screen = ""
        while time.monotonic() < deadline:
            screen = self.screen()
            if found(screen):
                return screen
            time.sleep(0.1)
        raise AssertionError(f"the screen never showed {what}:\n{screen}")

    def close(self, *, within: float = 10) -> None:
        """Close the terminal; the `circle` it ran, and what that started, must be gone ``within``
        seconds (else they are killed, and the test fails naming them)."""
        ours = circles_and_theirs(self.pane) if self.pane is not None else []
        self.tmux("kill-server")
        left = left_running(ours, within=within)
        for proc in left:
            proc.kill()
        if left:
            named = "; ".join(f"{p.pid} {p.command}" for p in left)
            raise AssertionError(f"still running {within:g} s after the terminal closed: {named}")


@pytest.fixture
def terminal() -> Iterator[Terminal]:
    if TMUX is None:
        pytest.skip("tmux is not installed")
    term = Terminal(uuid.uuid4().hex[:8])
    yield term
    term.close()


def test_a_turn_with_an_approved_command_in_the_terminal(untrusted: Circle, terminal: Terminal) -> None:
    cli = untrusted
    cli.home.mkdir(parents=True, exist_ok=True)
    prices = {"input": 1000, "output": 2000}
    (cli.home / "settings.json").write_text(json.dumps({"models": {"test-model": {"prices": prices}}}))
    cli.gateway.enqueue(
        chat_tool_calls([("call_1", "execute", {"command": "echo made > made.txt"})], usage=(100, 20)),
        chat_text("All done: made.txt holds the word.", usage=(150, 30)),
    )
    env = cli.env(TERM="xterm-256color", CIRCLE_THEME="dark")
    exports = " ".join(f"{key}={shlex.quote(value)}" for key, value in env.items())
    script = cli.workspace.parent / "run.sh"
    script.write_text(
        f"cd {shlex.quote(str(cli.workspace))} && env -i {exports} {shlex.quote(circle_command())}; "
        "echo EXIT=$?; sleep 30\n"
    )
    terminal.start(f"bash {shlex.quote(str(script))}")

    terminal.wait_for(lambda s: "Do you trust the files in this folder?" in s, what="the trust question")
    terminal.keys("1")
    terminal.wait_for(lambda s: "thinking off" in s, what="the footer")
    terminal.type("make the file please")
    terminal.keys("Enter")

    screen = terminal.wait_for(lambda s: "Run this command?" in s, what="the approval card")
    assert "echo made > made.txt" in screen
    assert "Allow for this session" in screen
    assert not (cli.workspace / "made.txt").exists()
    time.sleep(READY_S + 0.2)  # a key the moment the card shows is not taken as its answer
    terminal.keys("1")

    screen = terminal.wait_for(lambda s: "All done: made.txt holds the word." in s, what="the answer")
    assert (cli.workspace / "made.txt").read_text() == "made\n"
    screen = terminal.wait_for(lambda s: "✓" in s and "tokens · $" in s, what="the turn line")
    footer = [line for line in screen.splitlines() if "test-model" in line and "thinking" in line]
    assert footer, screen
    assert re.search(r"300 tokens · \$0\.\d+", footer[0]), footer[0]

    terminal.keys("C-c")
    terminal.keys("C-c")
    screen = terminal.wait_for(lambda s: "EXIT=" in s, what="the exit")
    found = re.search(r"circle --session (\S+)", screen)
    assert found, screen
    assert "EXIT=130" in screen
    listed = cli.run("sessions")
    assert found.group(1) in listed.stdout


def test_first_run_sets_up_the_endpoint_in_the_terminal(cli: Circle, terminal: Terminal) -> None:
    env = cli.env(TERM="xterm-256color", CIRCLE_THEME="light")
    for key in ("CIRCLE_BASE_URL", "CIRCLE_API_KEY", "CIRCLE_MODEL"):
        env.pop(key)
    exports = " ".join(f"{key}={shlex.quote(value)}" for key, value in env.items())
    script = cli.workspace.parent / "run.sh"
    script.write_text(
        f"cd {shlex.quote(str(cli.workspace))} && env -i {exports} {shlex.quote(circle_command())} --yolo; "
        "echo EXIT=$?; sleep 30\n"
    )
    terminal.start(f"bash {shlex.quote(str(script))}")
    terminal.wait_for(lambda s: "Set up a model endpoint" in s, what="the setup screen")
    terminal.type(cli.gateway.base_url)
    terminal.wait_for(lambda s: cli.gateway.base_url in s, what="the base URL typed")
    terminal.keys("Enter")
    terminal.wait_for(lambda s: "sk-… (leave empty" in s, what="the key field")
    terminal.type("sk-first-run")
    terminal.wait_for(lambda s: "•" * 12 in s, what="the key typed, masked")
    terminal.keys("Enter")
    terminal.wait_for(lambda s: "Pick the model" in s and "scripted" in s, what="the models")
    terminal.keys("Enter")
    terminal.wait_for(lambda s: "scripted · thinking" in s, what="the session screen")
    settings = json.loads((cli.home / "settings.json").read_text())
    assert settings["endpoint"]["base_url"] == cli.gateway.base_url
    assert settings["model"] == "scripted"
    credentials = cli.home / "credentials.json"
    assert json.loads(credentials.read_text()) == {"api_key": "sk-first-run"}
    assert credentials.stat().st_mode & 0o777 == 0o600
    terminal.type("/quit")
    terminal.keys("Enter")
    screen = terminal.wait_for(lambda s: "EXIT=" in s, what="the exit")
    assert "EXIT=0" in screen


def test_a_padded_command_is_shown_whole_on_the_card_in_an_80x24_terminal(
    cli: Circle, terminal: Terminal
) -> None:
    assert cli.run("trust", str(cli.workspace)).returncode == 0
    padded = "touch first" + "\n" * 60 + "; touch second # \x1b[2K\r\x1b[1A"
    cli.gateway.enqueue(chat_tool_calls([("call_1", "execute", {"command": padded})]), chat_text("Left it."))
    env = cli.env(TERM="xterm-256color", CIRCLE_THEME="dark")
    exports = " ".join(f"{key}={shlex.quote(value)}" for key, value in env.items())
    script = cli.workspace.parent / "run.sh"
    script.write_text(
        f"cd {shlex.quote(str(cli.workspace))} && env -i {exports} {shlex.quote(circle_command())}; "
        "sleep 30\n"
    )
    terminal.size = (80, 24)
    terminal.start(f"bash {shlex.quote(str(script))}")
    terminal.wait_for(lambda s: "thinking off" in s, what="the footer")
    terminal.type("make the files")
    terminal.keys("Enter")
    screen = terminal.wait_for(lambda s: "3. Deny" in s, what="the approval card and its options")
    assert "$ touch first  (+60 more lines)" in screen
    assert "⋯ 59 blank lines" in screen
    assert "; touch second # \\x1b[2K\\x0d\\x1b[1A" in screen
    assert "execute  touch first ⏎ ; touch second" in screen
    time.sleep(READY_S + 0.2)  # a key the moment the card shows is not taken as its answer
    terminal.keys("n")
    terminal.wait_for(lambda s: "Left it." in s, what="the answer")
    assert not (cli.workspace / "first").exists() and not (cli.workspace / "second").exists()
