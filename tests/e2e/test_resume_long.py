"""A long session resumed in the terminal: the real `circle --session ID` of a session stored by the
real store shows its last turns, draws earlier ones on scroll-up, and its next message sends the
model the whole history (read back from the loopback gateway)."""

from __future__ import annotations

import asyncio
import re
import shlex
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from circle._testing.gateway import chat_text
from circle.adapters.storage.sqlite_store import SqliteSessionStore
from circle.domain.messages import Message, TextPart

from .conftest import Circle, circle_command
from .test_tui import TMUX, Terminal

pytestmark = pytest.mark.e2e
COUNT = 3_000


@pytest.fixture
def terminal() -> Iterator[Terminal]:
    if TMUX is None:
        pytest.skip("tmux is not installed")
    term = Terminal(uuid.uuid4().hex[:8])
    yield term
    term.close()


def _stored(home: Path, workspace: Path) -> str:
    async def fill() -> str:
        store = SqliteSessionStore(home / "circle.sqlite")
        info = await store.create_session(workspace=str(workspace), title="long")
        for index in range(COUNT):
            text = f"question {index}" if index % 2 == 0 else f"answer {index}"
            message = (
                Message.user(text)
                if index % 2 == 0
                else Message(role="assistant", parts=(TextPart(text=text),))
            )
            await store.append(info.id, message)
        await store.aclose()
        return info.id

    return asyncio.run(fill())


def _questions(screen: str) -> list[int]:
    return [int(number) for number in re.findall(r"question (\d+)", screen)]


def test_a_long_resumed_session_sends_all_of_itself_with_its_next_message(
    cli: Circle, terminal: Terminal
) -> None:
    session = _stored(cli.home, cli.workspace)
    cli.gateway.enqueue(chat_text("Read all of it."))
    exports = " ".join(
        f"{k}={shlex.quote(v)}" for k, v in cli.env(TERM="xterm-256color", CIRCLE_THEME="dark").items()
    )
    script = cli.workspace.parent / "run.sh"
    script.write_text(
        f"cd {shlex.quote(str(cli.workspace))} && env -i {exports} {shlex.quote(circle_command())}"
        f" --session {session}; sleep 30\n"
    )
    terminal.start(f"bash {shlex.quote(str(script))}")
    terminal.wait_for(lambda s: f"answer {COUNT - 1}" in s and "thinking off" in s, what="the last turn")

    first = min(_questions(terminal.screen()))
    for _ in range(20):  # up past the turns drawn first: the earlier ones are drawn as they come
        terminal.keys("PageUp")
        if min(_questions(terminal.screen()), default=first) < first - 100:
            break
        time.sleep(0.2)
    assert min(_questions(terminal.screen()), default=first) < first - 100, terminal.screen()
    terminal.keys("End")
    terminal.type("one more")
    terminal.keys("Enter")
    terminal.wait_for(lambda s: "Read all of it." in s, what="the answer")

    sent = [m for m in cli.gateway.requests[-1].json()["messages"] if m["role"] != "system"]
    texts = [m["content"] if isinstance(m["content"], str) else m["content"][0]["text"] for m in sent]
    stored = [f"question {i}" if i % 2 == 0 else f"answer {i}" for i in range(COUNT)]
    assert texts == [*stored, "one more"]
