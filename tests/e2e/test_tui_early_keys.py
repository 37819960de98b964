"""Keys typed the moment `circle` starts, before its interface is up, are not lost: the real
`circle` in tmux, the terminal asked for its colours (OSC 11) as a person's terminal would be."""

from __future__ import annotations

import shlex

import pytest

from circle._testing.gateway import chat_text

from .conftest import Circle, circle_command
from .test_tui import Terminal, terminal  # noqa: F401  # the tmux fixture

pytestmark = pytest.mark.e2e


def test_a_message_typed_as_circle_starts_is_sent(cli: Circle, terminal: Terminal) -> None:  # noqa: F811
    cli.gateway.enqueue(chat_text("Heard you early."))
    env = cli.env(TERM="xterm-256color")
    env.pop("CIRCLE_THEME", None)
    env.pop("COLORFGBG", None)
    exports = " ".join(f"{key}={shlex.quote(value)}" for key, value in env.items())
    script = cli.workspace.parent / "run.sh"
    script.write_text(
        f"cd {shlex.quote(str(cli.workspace))} && env -i {exports} {shlex.quote(circle_command())}; "
        "echo EXIT=$?; sleep 30\n"
    )
    terminal.size = (80, 24)
    terminal.start(f"bash {shlex.quote(str(script))}")
    terminal.type("typed before the app")  # at once: Circle has not read its terminal yet
    terminal.keys("Enter")
    terminal.type("and a draft")
    screen = terminal.wait_for(lambda s: "Heard you early." in s, what="the answer", timeout=40)
    assert "› typed before the app" in screen
    terminal.wait_for(lambda s: "│and a draft" in s, what="the draft in the input box")
    posted = [r for r in cli.gateway.requests if r.method == "POST"]
    sent = posted[0].json()["messages"]
    assert sent[-1]["content"] == "typed before the app"
