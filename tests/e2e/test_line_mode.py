"""Line mode (`circle --line`, or prompts piped without -p) through the installed command."""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import time

from circle._testing.gateway import chat_text, chat_tool_calls

from .conftest import Circle, circle_command


def _trust(cli: Circle) -> None:
    assert cli.run("trust", str(cli.workspace)).returncode == 0


def test_piped_prompts_run_one_a_line_and_each_answer_is_printed(cli: Circle) -> None:
    _trust(cli)
    cli.gateway.enqueue(chat_text("One."), chat_text("Two."))
    done = cli.run(stdin="first question\n\nsecond question\n")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "One.\nTwo.\n"
    second = cli.gateway.requests[-1].json()["messages"]
    assert [m["content"] for m in second if m["role"] == "user"] == ["first question", "second question"]


def test_line_flag_and_a_message_on_the_command_line_go_first(cli: Circle) -> None:
    _trust(cli)
    cli.gateway.enqueue(chat_text("A."), chat_text("B."))
    done = cli.run("--line", "from the command line", stdin="from stdin\n")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "A.\nB.\n"


def test_quit_ends_the_session_and_leaves_later_lines_unread(cli: Circle) -> None:
    _trust(cli)
    cli.gateway.enqueue(chat_text("A."))
    done = cli.run("--line", stdin="one\n/quit\nnever sent\n")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "A.\n"
    assert len([r for r in cli.gateway.requests if r.method == "POST"]) == 1


def test_an_untrusted_folder_asks_once_and_remembers(untrusted: Circle) -> None:
    cli = untrusted
    cli.gateway.enqueue(chat_text("Trusted now."), chat_text("Still trusted."))
    first = cli.run("--line", stdin="y\nhello\n")
    assert first.returncode == 0, first.stderr
    assert first.stdout == "Trusted now.\n"
    assert "is not trusted yet" in first.stderr
    second = cli.run("--line", stdin="hello again\n")
    assert second.returncode == 0, second.stderr
    assert second.stdout == "Still trusted.\n"
    assert "not trusted" not in second.stderr


def test_declining_trust_refuses_naming_circle_trust(untrusted: Circle) -> None:
    cli = untrusted
    done = cli.run("--line", stdin="n\nhello\n")
    assert done.returncode == 1
    assert f"run `circle trust {cli.workspace}` first" in done.stderr
    assert not [r for r in cli.gateway.requests if r.method == "POST"]


def test_first_run_asks_for_the_endpoint_line_by_line_and_saves_it(untrusted: Circle) -> None:
    cli = untrusted
    env = cli.env()
    for name in ("CIRCLE_BASE_URL", "CIRCLE_API_KEY", "CIRCLE_MODEL"):
        env.pop(name)
    cli.gateway.enqueue(chat_text("Set up."), chat_text("Again."))
    answers = f"{cli.gateway.base_url}\nsk-line-key\n\ny\nhello\n"
    first = cli.run("--line", env=env, stdin=answers)
    assert first.returncode == 0, first.stderr
    assert first.stdout == "Set up.\n"
    settings = json.loads((cli.home / "settings.json").read_text())
    assert settings["endpoint"]["base_url"] == cli.gateway.base_url
    assert settings["model"]
    credentials = cli.home / "credentials.json"
    assert json.loads(credentials.read_text())["api_key"] == "sk-line-key"
    assert oct(credentials.stat().st_mode & 0o777) == "0o600"
    assert cli.gateway.requests[-1].headers.get("authorization") == "Bearer sk-line-key"
    again = cli.run("--line", env=env, stdin="hello\n")
    assert again.returncode == 0, again.stderr
    assert again.stdout == "Again.\n"


def test_setup_with_an_unreachable_endpoint_is_one_clear_line(cli: Circle) -> None:
    env = cli.env()
    for name in ("CIRCLE_BASE_URL", "CIRCLE_API_KEY", "CIRCLE_MODEL"):
        env.pop(name)
    done = cli.run("--line", env=env, stdin="http://127.0.0.1:9/v1\nkey\n")
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines()[-1].startswith("circle: ")
    assert not (cli.home / "settings.json").exists()


def test_from_a_pipe_a_call_that_would_ask_is_not_run(cli: Circle) -> None:
    _trust(cli)
    cli.gateway.enqueue(
        chat_tool_calls([("c1", "write_file", {"path": "x.txt", "content": "x"})]),
        chat_text("I could not write it."),
    )
    done = cli.run("--line", stdin="write x.txt\n")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "I could not write it.\n"
    assert not (cli.workspace / "x.txt").exists()
    result = next(m for m in cli.gateway.requests[-1].json()["messages"] if m["role"] == "tool")
    assert "was not approved" in result["content"]


def test_line_mode_refuses_print_and_rpc_flags(cli: Circle) -> None:
    for args in (["--line", "-p", "hi"], ["--line", "--mode", "json", "hi"]):
        done = cli.run(*args)
        assert done.returncode == 2, args
        assert "Traceback" not in done.stderr


class Terminal:
    """`circle --line` on a pseudo-terminal: what it wrote so far, and lines typed to it."""

    def __init__(self, cli: Circle, *, env: dict[str, str] | None = None) -> None:
        self.leader, follower = pty.openpty()
        self.proc = subprocess.Popen(
            [circle_command(), "--line"],
            cwd=cli.workspace,
            env=env or cli.env(),
            stdin=follower,
            stdout=follower,
            stderr=follower,
            close_fds=True,
        )
        os.close(follower)
        self.seen = b""

    def read_until(self, text: bytes, timeout: float = 20) -> bytes:
        """Everything written up to and with ``text``."""
        deadline = time.monotonic() + timeout
        while text not in self.seen:
            if time.monotonic() > deadline:
                raise AssertionError(f"{text!r} never came; saw {self.seen.decode(errors='replace')}")
            ready, _, _ = select.select([self.leader], [], [], 0.1)
            if ready:
                try:
                    self.seen += os.read(self.leader, 4096)
                except OSError:
                    break
        return self.seen[: self.seen.index(text) + len(text)]

    def type(self, line: str) -> None:
        os.write(self.leader, line.encode() + b"\n")

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        os.close(self.leader)


def test_at_a_terminal_a_command_is_asked_line_by_line(cli: Circle) -> None:
    _trust(cli)
    cli.gateway.enqueue(
        chat_tool_calls([("c1", "execute", {"command": "touch made-by-circle"})]),
        chat_text("Made it."),
    )
    term = Terminal(cli)
    try:
        term.read_until(b"> ")
        term.type("make the file")
        assert b"touch made-by-circle" in term.read_until(b"allow?")
        term.type("y")
        term.read_until(b"Made it.")
        term.read_until(b"> ")
        term.type("/quit")
        assert term.proc.wait(timeout=20) == 0
    finally:
        term.close()
    assert (cli.workspace / "made-by-circle").exists()


def test_at_a_terminal_a_padded_command_is_shown_whole_and_its_first_line_is_next_to_the_question(
    cli: Circle,
) -> None:
    _trust(cli)
    padded = "touch first" + "\n" * 60 + "; touch second # \x1b[2K\r\x1b[1A\u202e"
    cli.gateway.enqueue(chat_tool_calls([("c1", "execute", {"command": padded})]), chat_text("Left it."))
    term = Terminal(cli)
    try:
        term.read_until(b"> ")
        term.type("make the files")
        asked = term.read_until(b"allow?").decode()
        block = asked[asked.index("wants to run:") :]
        assert block.splitlines()[1:] == [
            "  touch first",
            "  ⋯ 59 blank lines",
            "  ; touch second # \\x1b[2K\\x0d\\x1b[1A\\u202e",
            "circle: its first line: touch first  (+60 more lines), all shown above",
            "allow?",
        ]
        assert "\x1b[1A" not in asked and "\u202e" not in asked and "\n\n\n" not in asked
        term.type("n")
        term.read_until(b"Left it.")
        term.read_until(b"> ")
        term.type("/quit")
        assert term.proc.wait(timeout=20) == 0
    finally:
        term.close()
    assert not (cli.workspace / "first").exists()


def test_at_a_terminal_setup_reads_the_key_without_echo(untrusted: Circle) -> None:
    cli = untrusted
    env = cli.env()
    for name in ("CIRCLE_BASE_URL", "CIRCLE_API_KEY", "CIRCLE_MODEL"):
        env.pop(name)
    cli.gateway.enqueue(chat_text("Set up."))
    term = Terminal(cli, env=env)
    try:
        term.read_until(b"base URL")
        term.type(cli.gateway.base_url)
        term.read_until(b"not shown as typed): ")
        term.type("sk-typed-at-the-terminal")
        term.read_until(b"model (")
        term.type("")
        term.read_until(b"trust it?")
        term.type("y")
        term.read_until(b"> ")
        term.type("echoed again")
        term.read_until(b"echoed again")
        term.read_until(b"Set up.")
        term.read_until(b"> ")
        term.type("/quit")
        assert term.proc.wait(timeout=20) == 0
    finally:
        term.close()
    assert b"sk-typed" not in term.seen
    assert json.loads((cli.home / "credentials.json").read_text())["api_key"] == "sk-typed-at-the-terminal"
