"""How the interface answers in a long resumed session of Markdown list answers, against another tree.

Not a test: run it by hand,
`.venv/bin/python bench/bench_long_markdown.py --base /tmp/base-tree [--runs 3] [--turns 60]`.
The real ``circle`` runs in a pseudo-terminal (140x45, bench/_pty_screen.py) against a scripted
loopback gateway, once with this tree's ``src`` and once with ``--base``'s (a ``git worktree`` of
an older commit), in turn, so both see the same load. Figures are medians:

- ``key after --session``: ``circle --session ID`` of a stored session of ``--turns`` turns, each
  answer a 30-item Markdown list; a key typed as soon as the footer shows, until it shows;
- ``resize``: the terminal made 100 columns wide, until the input box is drawn at that width; then
  a key typed;
- ``/undo``: enter on ``/undo`` until the rows are drawn again with its line; then a key typed;
- ``/redo``: enter on ``/redo`` and 30 ms later a key: until the key shows, and until the line does
  (the rows above the screen are drawn a slice at a time after it, keys handled between them);
- ``key while a list streams``: keys typed one by one while a 99-item list answer streams in.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import fcntl
import os
import signal
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import time
from pathlib import Path

from _pty_screen import PtyScreen, trial_env

from circle._testing.gateway import GatewayResponse, RecordedRequest, ScriptedGateway, chat_text

PY = sys.executable
CIRCLE = str(Path(PY).parent / "circle")
READY = "bench-model"
KEYS = "ZQXJKVWYBGMPFHDLNRTSCUOIAE"
LAST = "that was the whole list"


def list_answer(turn: int, items: int) -> str:
    body = "\n".join(
        f"- item {n} of answer {turn}: a few words to read, **bold** and `code`" for n in range(items)
    )
    return f"Answer {turn} has a list:\n\n{body}\n\nend of answer {turn}"


def make_session(home: Path, work: Path, turns: int) -> str:
    from circle.adapters.storage.sqlite_store import SqliteSessionStore
    from circle.domain.messages import Message, TextPart

    async def fill() -> str:
        store = SqliteSessionStore(home / "circle.sqlite")
        info = await store.create_session(workspace=str(work.resolve()), title="lists")
        for turn in range(turns):
            await store.append(info.id, Message.user(f"question {turn}"))
            text = list_answer(turn, 30)
            await store.append(info.id, Message(role="assistant", parts=(TextPart(text=text),)))
        await store.aclose()
        return info.id

    return asyncio.run(fill())


class Script:
    def __init__(self, text: str, *, seconds: float) -> None:
        pieces = max(1, len(text) // 12)
        self.stream = dataclasses.replace(chat_text(text, pieces=pieces), interval_s=seconds / pieces)

    def __call__(self, request: RecordedRequest) -> GatewayResponse:
        return self.stream


def resize(term: PtyScreen, columns: int, rows: int) -> None:
    fcntl.ioctl(term.fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
    term.screen.resize(rows, columns)
    os.kill(term.pid, signal.SIGWINCH)


def key_after(term: PtyScreen, key: str, sent: float, *, timeout: float = 30) -> float:
    """Seconds from ``sent`` until ``key`` (a letter nothing else on the screen has) shows."""
    before = term.text().count(key)
    term.send(key.encode())
    deadline = time.perf_counter() + timeout
    while term.text().count(key) <= before:
        if term.closed or time.perf_counter() > deadline:
            raise SystemExit(f"{key!r} never showed:\n{term.text()}")
        term.pump(deadline - time.perf_counter())
    return time.perf_counter() - sent


def _box_at(text: str, columns: int) -> bool:
    """The input box's top border is drawn across ``columns`` (the screen laid out anew)."""
    return any(
        line.rstrip().endswith("╮") and len(line.rstrip()) in (columns - 1, columns)
        for line in text.splitlines()
    )


def resumed(env: dict[str, str], work: Path, session: str, turns: int) -> dict[str, float]:
    term = PtyScreen([CIRCLE, "--session", session], env=env, cwd=work)
    got: dict[str, float] = {}
    try:
        term.until(lambda text: READY in text, what="the footer", timeout=60)
        got["key after --session"] = key_after(term, "Z", time.perf_counter())
        term.until(lambda text: f"end of answer {turns - 1}" in text, what="the last answer", timeout=60)
        term.send(b"\x7f")
        term.settle()
        sent = time.perf_counter()
        resize(term, 100, 45)
        got["resize"] = (
            term.until(lambda text: _box_at(text, 100), what="the input box at 100", timeout=60) - sent
        )
        got["key after resize"] = key_after(term, "Q", time.perf_counter())
        term.send(b"\x7f")
        term.settle()
        term.send(b"/undo")
        term.until(lambda text: "/undo" in text)
        term.settle()
        sent = term.send(b"\r")
        got["/undo"] = term.until(lambda text: "Undone" in text, what="the undo line", timeout=60) - sent
        got["key after /undo"] = key_after(term, "X", time.perf_counter())
        term.send(b"\x7f/redo")
        term.until(lambda text: "/redo" in text)
        term.settle()
        sent = term.send(b"\r")
        term.pump(0.03)  # not read together with the enter (the base tree wiped such a key)
        got["key typed with /redo"] = key_after(term, "W", sent)
        got["/redo"] = term.until(lambda text: "Redone" in text, what="the redo line", timeout=60) - sent
    finally:
        term.close()
    return got


def streamed(env: dict[str, str], work: Path) -> list[float]:
    term = PtyScreen([CIRCLE], env=env, cwd=work)
    try:
        term.until(lambda text: READY in text, what="the footer", timeout=60)
        term.settle()
        term.send(b"list please")
        term.until(lambda text: "list please" in text)
        term.settle()
        term.send(b"\r")
        term.until(lambda text: "item 3 " in text, what="the list", timeout=60)
        typed, took = "", []
        for key in KEYS:
            if LAST in term.text():
                break
            typed += key
            took.append(term.key_latency(key, typed=typed, timeout=20))
            term.pump(0.05)
        return took
    finally:
        term.close()


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--base", type=Path, required=True, help="the tree to compare with (a worktree)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--turns", type=int, default=60)
    parser.add_argument("--stream-s", type=float, default=10)
    args = parser.parse_args()
    trees = {"this tree": Path(__file__).resolve().parents[1], "base": args.base.resolve()}
    for tree in trees.values():
        subprocess.run([PY, "-m", "compileall", "-q", str(tree / "src" / "circle")], check=True)
    text = list_answer(0, 99).replace("end of answer 0", LAST)
    gateway = ScriptedGateway(fallback=Script(text, seconds=args.stream_s), record=False)
    url = gateway.start()
    results: dict[str, dict[str, list[float]]] = {name: {} for name in trees}
    try:
        with tempfile.TemporaryDirectory() as tmp:
            home, work = Path(tmp, "home"), Path(tmp, "work")
            work.mkdir()
            env = trial_env(home, url=url, model=READY)
            subprocess.run([CIRCLE, "trust", str(work)], env=env, check=True, capture_output=True)
            for _ in range(args.runs):
                for name, tree in trees.items():
                    tree_env = {**env, "PYTHONPATH": str(tree / "src")}
                    print(f"run: {name}", file=sys.stderr, flush=True)
                    session = make_session(home, work, args.turns)  # a fresh one: /undo changed the last
                    for what, took in resumed(tree_env, work, session, args.turns).items():
                        results[name].setdefault(what, []).append(took)
                    results[name].setdefault("key while a list streams", []).extend(streamed(tree_env, work))
    finally:
        gateway.stop()
    load = ", ".join(f"{value:.1f}" for value in os.getloadavg())
    print(f"{args.turns} turns of 30-item lists, {args.runs} runs each, interleaved; load average {load}")
    for what in results["this tree"]:
        mine, base = results["this tree"][what], results["base"][what]
        print(
            f"{what:<26} now median {statistics.median(mine):.3f} s (max {max(mine):.3f}, n={len(mine)})"
            f"   base median {statistics.median(base):.3f} s (max {max(base):.3f}, n={len(base)})"
        )


if __name__ == "__main__":
    main()
