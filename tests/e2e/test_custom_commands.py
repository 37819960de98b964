"""Print mode runs a custom command as the interface does: ``circle -p "/review x"`` sends the
template of .circle/commands/review.md (or ~/.circle/commands/NAME.md), filled."""

from __future__ import annotations

from typing import Any

from circle._testing.gateway import chat_text

from .conftest import Circle


def _user_content(cli: Circle) -> Any:
    requests = [r.json() for r in cli.gateway.requests if r.path.endswith("/chat/completions")]
    return [m for m in requests[-1]["messages"] if m["role"] == "user"][-1]["content"]


def test_print_mode_expands_a_custom_command(cli: Circle) -> None:
    commands = cli.workspace / ".circle" / "commands"
    commands.mkdir(parents=True)
    (commands / "review.md").write_text("---\ndescription: Review\n---\nReview $1, then $2.\n")
    (commands / "broken.md").write_text("---\ndescription: open\n")
    person = cli.home / "person"
    (person / ".circle" / "commands").mkdir(parents=True)
    (person / ".circle" / "commands" / "mine.md").write_text("Mine.\n")
    env = cli.env(HOME=str(person))
    cli.gateway.enqueue(chat_text("ok"))
    done = cli.run("-p", "/review a.py b.py", "--yolo", env=env)
    assert done.returncode == 0, done.stderr
    assert _user_content(cli) == "Review a.py, then b.py."
    cli.gateway.enqueue(chat_text("ok"))
    done = cli.run("-p", "/mine and more", "--yolo", env=env)
    assert _user_content(cli) == "Mine.\nand more"
    cli.gateway.enqueue(chat_text("ok"))
    done = cli.run("-p", "/broken x", "--yolo", env=env)
    assert done.returncode == 0, done.stderr
    assert "circle: warning: the command file " in done.stderr and "Traceback" not in done.stderr
    assert _user_content(cli) == "/broken x"
    cli.gateway.enqueue(chat_text("ok"))
    done = cli.run("-p", "/nothing here", "--yolo", env=env)
    assert _user_content(cli) == "/nothing here"
