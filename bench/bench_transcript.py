"""How long ctrl+o takes to show the transcript of a long session, and whether a resize sent
right after it is drawn before the transcript is all in.

Not a test: run it by hand, ``.venv/bin/python bench/bench_transcript.py [--runs 5] [--base TREE]``.
The real ``circle --session`` of a stored session (``--turns`` turns of five messages: a question,
thinking, a command and its 60-line output, an answer, a short reply; 26 turns = 130 messages)
runs in a 140x45 pseudo-terminal (bench/_pty_screen.py); once ready, ctrl+o is written and the
time until the transcript's title and the session's last answer show is taken; a second ctrl+o
closes it. With ``--base TREE`` (a ``git worktree`` of an older commit) the runs alternate between
this tree's ``src`` and ``TREE``'s, so both see the same load. Figures are medians.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from _pty_screen import PtyScreen, trial_env

from circle._testing.gateway import ScriptedGateway, chat_text

PY = sys.executable
CIRCLE = str(Path(PY).parent / "circle")
READY = "bench-model"
TITLE = "Transcript, every output in full"
WORDS = ["the", "quick", "brown", "fox", "jumps", "over", "the", "lazy", "dog", "and", "then"]
WORDS += ["some", "more", "words", "follow", "here"]


def make_session(home: Path, work: Path, turns: int) -> tuple[str, str]:
    """A stored session of ``turns`` turns in ``work``: its id, and its last answer's words."""
    from circle.adapters.storage.sqlite_store import SqliteSessionStore
    from circle.domain.messages import Message, TextPart, ThinkingPart, ToolCallPart

    last = f"last answer {turns - 1}"

    async def fill() -> str:
        store = SqliteSessionStore(home / "circle.sqlite")
        info = await store.create_session(workspace=str(work.resolve()), title="long")
        for turn in range(turns):
            call = ToolCallPart(
                id=f"c{turn}", name="execute", arguments=json.dumps({"command": f"cat f{turn}"})
            )
            output = "".join(f"line {i} " + " ".join(WORDS) + "\n" for i in range(60))
            answer = " ".join(WORDS * 6) + f"\n\n{last if turn == turns - 1 else 'answer'}"
            for message in (
                Message.user(f"question {turn}: " + " ".join(WORDS)),
                Message(
                    role="assistant",
                    parts=(ThinkingPart(text=" ".join(WORDS * 8)), TextPart(text="Looking."), call),
                ),
                Message.tool_result(call_id=f"c{turn}", name="execute", text=output),
                Message(role="assistant", parts=(TextPart(text=answer),)),
                Message.user("ok"),
            ):
                await store.append(info.id, message)
        await store.aclose()
        return info.id

    return asyncio.run(fill()), last


def open_time(env: dict[str, str], work: Path, session: str, last: str) -> float:
    """Seconds from ctrl+o until the transcript's title and its last answer show."""
    term = PtyScreen([CIRCLE, "--session", session], env=env, cwd=work)
    try:
        term.until(lambda text: READY in text and last in text, what="the resumed session", timeout=60)
        term.settle(0.5)
        sent = term.send(b"\x0f")
        took = (
            term.until(lambda text: TITLE in text and last in text, what="the transcript", timeout=60) - sent
        )
        term.send(b"\x0f")
        return took
    finally:
        term.close()


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--turns", type=int, default=26)
    parser.add_argument("--base", type=Path, help="the tree to compare with (a worktree), in turn")
    args = parser.parse_args()
    gateway = ScriptedGateway(fallback=lambda request: chat_text("ok"), record=False)
    url = gateway.start()
    here = Path(__file__).resolve().parents[1]
    trees = {"this": here} | ({"base": args.base.resolve()} if args.base else {})
    try:
        with tempfile.TemporaryDirectory() as tmp:
            home, work = Path(tmp, "home"), Path(tmp, "work")
            work.mkdir()
            env = trial_env(home, url=url, model=READY)
            subprocess.run([CIRCLE, "trust", str(work)], env=env, check=True, capture_output=True)
            session, last = make_session(home, work, args.turns)
            took: dict[str, list[float]] = {name: [] for name in trees}
            for _ in range(args.runs):
                for name, tree in trees.items():
                    took[name].append(
                        open_time({**env, "PYTHONPATH": str(tree / "src")}, work, session, last)
                    )
            for name, times in took.items():
                print(
                    f"{name}: ctrl+o to the transcript shown, {args.turns * 5} messages: "
                    f"median {statistics.median(times) * 1000:.0f} ms, max {max(times) * 1000:.0f} ms "
                    f"({', '.join(f'{t * 1000:.0f}' for t in times)})"
                )
    finally:
        gateway.stop()


if __name__ == "__main__":
    main()
