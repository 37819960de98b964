"""How the full-screen interface paints, streams, answers keys, resumes a long session, and its memory.

Not a test: run it by hand, `.venv/bin/python bench/bench_tui.py [--runs 5] [--stream-s 12]`. The
real ``circle`` runs in a pseudo-terminal (140x45) read through a pyte screen (bench/_pty_screen.py),
against a scripted loopback gateway; the folder is trusted beforehand. Figures are medians, each
with a baseline measured in the same run:

- first paint ("Starting Circle…") and ready (the footer names the model), from the spawn, against a
  bare Textual app that paints one line; ``circle --mode rpc`` answering ``get_state`` against
  ``python -c "import json"`` answering a line;
- terminal bytes per streamed byte: a long Markdown answer streamed in small deltas over
  ``--stream-s`` seconds (by default 3.6 KB in 12 s, a model's pace), in a terminal that answers
  DECRQM for synchronized output (mode 2026), against Textual's own frames written as they are
  (``CIRCLE_SCREEN_DIFF=0``);
- key latency: from a key written to the pty until the screen shows it, while idle (the baseline),
  while that answer streams, during the first message with the anthropic protocol (the SDK loads),
  and while Circle starts (from "Starting Circle…" until the footer: its modules load meanwhile);
- resume: ``circle --session ID`` of a stored 10,000-message session until its last message and
  the footer are on the screen, against a new session's ready time; and usable (``--only resume``):
  until keys typed at the first frame show in the input box too, against a new session's; and the
  CPU seconds spent until ready (steadier than wall time on a loaded machine);
- peak RSS of the interface (ru_maxrss) after the stream and after the resume.

With ``--only resume --base TREE`` (a ``git worktree`` of an older commit): the 10k resume to a
usable screen, the key typed at once then, the CPU until ready, and a key typed right after
ctrl+home and after ctrl+f (each draws up to 300 earlier messages), with this tree's ``src`` and
``TREE``'s in turn, so both see the same load.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from _pty_screen import PtyScreen, trial_env

from circle._testing.gateway import GatewayResponse, RecordedRequest, ScriptedGateway, chat_text
from circle._testing.wire_scripts import anthropic_answer

PY = sys.executable
CIRCLE = str(Path(PY).parent / "circle")
BARE_APP = """
from textual.app import App
from textual.widgets import Static
class Bare(App):
    def compose(self):
        yield Static("scripted · ready")
Bare().run()
"""
ECHO_JSON = "import json, sys\nfor line in sys.stdin:\n    print(json.dumps(json.loads(line)), flush=True)\n"
KEYS = "ZQXJKVWYBGMPFHDLNRTSCUOIAE"
"""Typed during the measures: upper case, which the scripted answer never has."""
WORDS = [
    "the",
    "view",
    "follows",
    "its",
    "end",
    "while",
    "a",
    "long",
    "answer",
    "streams",
    "in",
    "small",
    "pieces",
    "as",
    "a",
    "model",
    "writes",
]
LAST = "that was the whole answer"
READY = "bench-model"


def long_answer(size: int) -> str:
    """Markdown of about ``size`` characters, lower case: paragraphs, a list, ending with ``LAST``."""
    rng = random.Random(7)
    parts: list[str] = []
    while sum(map(len, parts)) < size - 200:
        words = " ".join(rng.choice(WORDS) for _ in range(rng.randint(25, 45)))
        parts.append(f"- {words}" if len(parts) % 4 == 3 else words)
    return "\n\n".join([*parts, LAST + "."])


class Script:
    """The gateway's answers: the long answer in paced deltas, or a short anthropic one."""

    def __init__(self, text: str, *, seconds: float) -> None:
        pieces = max(1, len(text) // 6)
        self.stream = dataclasses.replace(chat_text(text, pieces=pieces), interval_s=seconds / pieces)
        self.short = anthropic_answer(f"short answer. {LAST}.")

    def __call__(self, request: RecordedRequest) -> GatewayResponse:
        return self.short if request.path.endswith("/messages") else self.stream


def paint_time(argv: list[str], *, env: dict[str, str], cwd: Path, marker: str) -> float:
    """Seconds from the spawn until ``marker`` is on the screen."""
    term = PtyScreen(argv, env=env, cwd=cwd)
    try:
        return term.until(lambda text: marker in text, what=marker) - term.start
    finally:
        term.close()


def rpc_time(argv: list[str], *, env: dict[str, str], cwd: Path) -> float:
    start = time.perf_counter()
    proc = subprocess.Popen(
        argv, cwd=cwd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
    )
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(b'{"id": 1, "type": "get_state"}\n')
    proc.stdin.flush()
    line = proc.stdout.readline()
    took = time.perf_counter() - start
    proc.stdin.close()
    proc.wait()
    if not line:
        raise SystemExit(f"no answer from {' '.join(argv)}")
    return took


def median(runs: int, measure: Callable[[], float]) -> float:
    measure()
    return statistics.median(measure() for _ in range(runs))


def keys(term: PtyScreen, count: int, *, until: Callable[[str], bool] | None = None) -> list[float]:
    """Type ``count`` keys one by one (or until ``until`` holds), each once the last showed; their
    latencies (the first, which may match other text, left out); then delete them again."""
    typed, took = "", []
    for key in KEYS[:count]:
        if until is not None and until(term.text()):
            break
        typed += key
        took.append(term.key_latency(key, typed=typed))
        term.pump(random.uniform(0.02, 0.06))
    term.send(b"\x7f" * len(typed))
    return took[1:]


def stream(env: dict[str, str], work: Path, *, sync: bool, typing: bool) -> dict[str, float]:
    """One long answer streamed into a fresh session: bytes written, key latencies, peak RSS."""
    term = PtyScreen([CIRCLE], env=env, cwd=work, sync=sync)
    try:
        term.until(lambda text: READY in text, what="the footer")
        term.settle()
        idle = keys(term, 12) if typing else []
        term.settle()
        term.send(b"tell me a long story")
        term.until(lambda text: "long story" in text)
        term.settle()
        before, frames, start = term.bytes, term.frames, term.send(b"\r")
        done = lambda text: LAST in text  # noqa: E731
        busy = keys(term, len(KEYS), until=done) if typing else []
        term.until(done, what="the end of the answer")
        term.settle(0.5)
        took = time.perf_counter() - start
        written, frames = term.bytes - before, term.frames - frames
    finally:
        rss = term.close()
    return {"bytes": written, "frames": frames, "seconds": took, "rss": rss / 1024, **_lat(idle, busy)}


def _lat(idle: list[float], busy: list[float]) -> dict[str, float]:
    got = {}
    if idle:
        got["idle"] = statistics.median(idle)
    if busy:
        got["busy"], got["busy_max"] = statistics.median(busy), max(busy)
    return got


def first_anthropic(env: dict[str, str], work: Path) -> dict[str, float]:
    """Keys typed from the first anthropic message until its answer shows (the SDK loads meanwhile)."""
    term = PtyScreen([CIRCLE], env={**env, "CIRCLE_PROTOCOL": "anthropic"}, cwd=work)
    try:
        term.until(lambda text: READY in text, what="the footer")
        term.settle()
        term.send(b"hello")
        term.until(lambda text: "hello" in text)
        term.send(b"\r")
        took = keys(term, len(KEYS), until=lambda text: LAST in text)
        term.until(lambda text: LAST in text, what="the anthropic answer")
    finally:
        term.close()
    return {"median": statistics.median(took), "max": max(took), "count": len(took)}


def while_starting(env: dict[str, str], work: Path, runs: int) -> dict[str, float]:
    """Keys typed from the first frame ("Starting Circle…") until the footer shows, ``runs`` starts."""
    took: list[float] = []
    for _ in range(runs):
        term = PtyScreen([CIRCLE], env=env, cwd=work)
        try:
            term.until(lambda text: "Starting Circle" in text, what="the first frame")
            took += keys(term, len(KEYS), until=lambda text: READY in text)
        finally:
            term.close()
    return {"median": statistics.median(took), "max": max(took), "count": len(took)}


def make_session(home: Path, work: Path, count: int) -> str:
    """A stored session of ``count`` messages (person and answer in turn) in ``work``; its id."""
    from circle.adapters.storage.sqlite_store import SqliteSessionStore
    from circle.domain.messages import Message, TextPart

    async def fill() -> str:
        store = SqliteSessionStore(home / "circle.sqlite")
        info = await store.create_session(workspace=str(work.resolve()), title="long")
        for index in range(count):
            if index % 2 == 0:
                message = Message.user(f"question {index}")
            else:
                text = f"answer {index}: " + " ".join(WORDS[: 5 + index % 10])
                message = Message(role="assistant", parts=(TextPart(text=text),))
            await store.append(info.id, message)
        await store.aclose()
        return info.id

    return asyncio.run(fill())


def resume_time(env: dict[str, str], work: Path, session: str, last: str) -> tuple[float, float]:
    """Seconds until the session's last message and the footer show; the peak RSS in MiB."""
    term = PtyScreen([CIRCLE, "--session", session], env=env, cwd=work)
    try:
        took = term.until(lambda text: last in text and READY in text, what=last) - term.start
    finally:
        rss = term.close()
    return took, rss / 1024


def ready_cpu(argv: list[str], *, env: dict[str, str], cwd: Path, shown: str) -> float:
    """CPU seconds (user and system, all threads) the program spent until the screen showed
    ``shown`` and the footer: steadier than wall time on a machine others load (Linux only)."""
    term = PtyScreen(argv, env=env, cwd=cwd)
    try:
        term.until(lambda text: shown in text and READY in text, what=shown)
        fields = Path(f"/proc/{term.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    finally:
        term.close()


TYPED = "ZQX"
"""Typed at the first frame to find when the screen is usable: upper case, which nothing stored has."""


def usable_time(argv: list[str], *, env: dict[str, str], cwd: Path, shown: str) -> float:
    """Seconds from the spawn until the screen shows ``shown``, the footer and, in the input box,
    the keys typed as soon as it painted anything (the interface holds them until it takes keys)."""
    term = PtyScreen(argv, env=env, cwd=cwd)
    try:
        term.until(lambda text: bool(text.strip()), what="a first frame")
        term.send(TYPED.encode())
        done = lambda text: shown in text and READY in text and TYPED in text  # noqa: E731
        return term.until(done, what=f"{shown} and {TYPED}") - term.start
    finally:
        term.close()


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--stream-s", type=float, default=12, help="seconds the long answer streams")
    parser.add_argument("--stream-kb", type=float, default=3.6, help="the long answer's size in KB")
    parser.add_argument("--messages", type=int, default=10_000, help="the resumed session's length")
    parser.add_argument(
        "--only",
        choices=["resume"],
        help="resume: only a new session's ready time and the resume, interleaved",
    )
    parser.add_argument(
        "--base", type=Path, help="with --only resume: the tree to compare with (a worktree), in turn"
    )
    args = parser.parse_args()
    root = Path(__file__).resolve().parents[1]  # bytecode for the editable install, as bench_cli does
    subprocess.run([PY, "-m", "compileall", "-q", str(root / "src" / "circle")], check=True)
    text = long_answer(int(args.stream_kb * 1024))
    gateway = ScriptedGateway(fallback=Script(text, seconds=args.stream_s), record=False)
    url = gateway.start()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            home, work = Path(tmp, "home"), Path(tmp, "work")
            work.mkdir()
            env = trial_env(home, url=url, model=READY)
            subprocess.run([CIRCLE, "trust", str(work)], env=env, check=True, capture_output=True)
            bare = Path(tmp, "bare.py")
            bare.write_text(BARE_APP)
            echo = Path(tmp, "echo.py")
            echo.write_text(ECHO_JSON)
            if args.only == "resume" and args.base is not None:
                _resume_against(args.runs, env, work, messages=args.messages, home=home, base=args.base)
                return
            if args.only == "resume":
                _resume_only(args.runs, env, work, messages=args.messages, home=home)
                return
            paint = _paint(args.runs, env, work, bare, echo)
            streams = {
                diff: stream({**env, "CIRCLE_SCREEN_DIFF": diff}, work, sync=True, typing=False)
                for diff in "10"
            }
            typed = stream(env, work, sync=True, typing=True)
            anthropic = first_anthropic(env, work)
            starting = while_starting(env, work, max(3, args.runs))
            session = make_session(home, work, args.messages)
            last = (
                f"answer {args.messages - 1}:" if args.messages % 2 == 0 else f"question {args.messages - 1}"
            )
            resumes = [resume_time(env, work, session, last) for _ in range(max(1, args.runs // 2) + 1)][1:]
    finally:
        gateway.stop()
    kb = len(text.encode()) / 1024
    _report(paint, streams, typed, anthropic, starting, resumes, kb=kb, messages=args.messages)


def _resume_only(runs: int, env: dict[str, str], work: Path, *, messages: int, home: Path) -> None:
    """A new session's ready time and the resume of a ``messages``-long one, in turn ``runs`` times
    (after one of each left out), so both see the same load; their medians and the load."""
    session = make_session(home, work, messages)
    last = f"answer {messages - 1}:" if messages % 2 == 0 else f"question {messages - 1}"
    new, resumed, new_usable, usable, new_cpu, cpu = [], [], [], [], [], []
    for index in range(runs + 1):
        ready = paint_time([CIRCLE], env=env, cwd=work, marker=READY)
        took, _ = resume_time(env, work, session, last)
        typed_new = usable_time([CIRCLE], env=env, cwd=work, shown=READY)
        typed = usable_time([CIRCLE, "--session", session], env=env, cwd=work, shown=last)
        cpu_new = ready_cpu([CIRCLE], env=env, cwd=work, shown=READY)
        cpu_resumed = ready_cpu([CIRCLE, "--session", session], env=env, cwd=work, shown=last)
        if index:
            new.append(ready)
            resumed.append(took)
            new_usable.append(typed_new)
            usable.append(typed)
            new_cpu.append(cpu_new)
            cpu.append(cpu_resumed)
    load = ", ".join(f"{value:.1f}" for value in os.getloadavg())
    rows = (
        ("new session ready", new),
        (f"resume {messages:,}", resumed),
        ("new session usable", new_usable),
        (f"{_count(messages)} resume to usable screen", usable),
        ("new session CPU", new_cpu),
        ("resume CPU", cpu),
    )
    for name, times in rows:
        print(f"{name:<28} median {statistics.median(times):.3f} s  ({', '.join(f'{t:.2f}' for t in times)})")
    ratio = statistics.median(resumed) / statistics.median(new)
    typed_ratio = statistics.median(usable) / statistics.median(new_usable)
    print(f"ratio {ratio:.2f} ready, {typed_ratio:.2f} usable (a key typed at the first frame); load {load}")


def _count(messages: int) -> str:
    """10k for 10,000 messages, 2,500 for 2,500: as the rows name the session resumed."""
    return f"{messages // 1000}k" if messages >= 1000 and messages % 1000 == 0 else f"{messages:,}"


def key_after_resume(argv: list[str], *, env: dict[str, str], cwd: Path, shown: str) -> tuple[float, float]:
    """Seconds from the spawn until the screen is usable (as :func:`usable_time`), and from a key
    typed at once then until it shows (the rest of the session is read meanwhile)."""
    term = PtyScreen(argv, env=env, cwd=cwd)
    try:
        term.until(lambda text: bool(text.strip()), what="a first frame")
        term.send(TYPED.encode())
        done = lambda text: shown in text and READY in text and TYPED in text  # noqa: E731
        usable = term.until(done, what=f"{shown} and {TYPED}") - term.start
        return usable, term.key_latency("W", typed=TYPED + "W")
    finally:
        term.close()


JUMPS = {"home": b"\x1b[1;5H", "find": b"\x06"}
"""ctrl+home and ctrl+f: each draws up to 300 of the messages waiting above a resumed tail."""


def key_after_jump(argv: list[str], *, env: dict[str, str], cwd: Path, shown: str, jump: bytes) -> float:
    """Seconds from a key typed right after ``jump`` (ctrl+home or ctrl+f, once the session has
    read the messages it opened without) until it shows: while the messages drawn for it go in."""
    term = PtyScreen(argv, env=env, cwd=cwd)
    try:
        term.until(lambda text: shown in text and READY in text, what=shown)
        term.settle(0.5)
        read_by = time.perf_counter() + 1.5  # the rest of the session is read meanwhile
        while time.perf_counter() < read_by:
            term.pump(read_by - time.perf_counter())
        term.settle(0.3)
        term.send(jump)
        return term.key_latency("Z", typed="Z")
    finally:
        term.close()


def _resume_against(
    runs: int, env: dict[str, str], work: Path, *, messages: int, home: Path, base: Path
) -> None:
    """The resume of a ``messages``-long session with this tree's ``src`` and ``base``'s, in turn
    ``runs`` times after one of each left out: until usable (the last message, the footer and the
    keys typed at the first frame on the screen), the key typed then, and the CPU until ready."""
    trees = {"this tree": Path(__file__).resolve().parents[1], "base": base.resolve()}
    for tree in trees.values():
        subprocess.run([PY, "-m", "compileall", "-q", str(tree / "src" / "circle")], check=True)
    session = make_session(home, work, messages)
    last = f"answer {messages - 1}:" if messages % 2 == 0 else f"question {messages - 1}"
    argv = [CIRCLE, "--session", session]
    kinds = ["usable", "key", "cpu", *JUMPS]
    got: dict[str, dict[str, list[float]]] = {name: {kind: [] for kind in kinds} for name in trees}
    for index in range(runs + 1):
        for name, tree in trees.items():
            tree_env = {**env, "PYTHONPATH": str(tree / "src")}
            usable, key = key_after_resume(argv, env=tree_env, cwd=work, shown=last)
            cpu = ready_cpu(argv, env=tree_env, cwd=work, shown=last)
            jumped = {
                what: key_after_jump(argv, env=tree_env, cwd=work, shown=last, jump=keys)
                for what, keys in JUMPS.items()
            }
            if index:
                for what, value in (("usable", usable), ("key", key), ("cpu", cpu), *jumped.items()):
                    got[name][what].append(value)
    load = ", ".join(f"{value:.1f}" for value in os.getloadavg())
    rows = (
        (f"{_count(messages)} resume to usable screen", "usable", "s"),
        ("key typed at once then", "key", "ms"),
        ("resume CPU until ready", "cpu", "s"),
        ("key typed after ctrl+home", "home", "ms"),
        ("key typed after ctrl+f", "find", "ms"),
    )
    for label, what, unit in rows:
        scale = 1000 if unit == "ms" else 1
        this, was = (statistics.median(got[name][what]) * scale for name in trees)
        each = {name: ", ".join(f"{t * scale:.2f}" for t in got[name][what]) for name in trees}
        print(
            f"{label:<28} {this:7.3f} {unit}  base {was:7.3f} {unit}  ratio {this / was:.2f}"
            f"  (this: {each['this tree']}; base: {each['base']})"
        )
    print(f"medians of {runs} runs each, in turn; load {load}")


def _paint(runs: int, env: dict[str, str], work: Path, bare: Path, echo: Path) -> dict[str, float]:
    return {
        "first": median(runs, lambda: paint_time([CIRCLE], env=env, cwd=work, marker="Starting")),
        "ready": median(runs, lambda: paint_time([CIRCLE], env=env, cwd=work, marker=READY)),
        "bare": median(runs, lambda: paint_time([PY, str(bare)], env=env, cwd=work, marker="ready")),
        "rpc": median(runs, lambda: rpc_time([CIRCLE, "--mode", "rpc"], env=env, cwd=work)),
        "echo": median(runs, lambda: rpc_time([PY, str(echo)], env=env, cwd=work)),
    }


def _report(
    paint: dict[str, float],
    streams: dict[str, dict[str, float]],
    typed: dict[str, float],
    anthropic: dict[str, float],
    starting: dict[str, float],
    resumes: list[tuple[float, float]],
    *,
    kb: float,
    messages: int,
) -> None:
    def row(name: str, value: float, base: float, unit: str, note: str = "") -> None:
        ratio = f"{value / base:6.2f}" if base else "     -"
        print(f"{name:<48} {value:10.3f} {base:10.3f} {ratio}  {unit}{'  ' + note if note else ''}")

    print(f"{'measure':<48} {'median':>10} {'baseline':>10} {'ratio':>6}")
    row("TUI first paint", paint["first"], paint["bare"], "s", "(bare Textual app)")
    row("TUI ready (footer with the model shown)", paint["ready"], paint["bare"], "s")
    row("RPC: first response (get_state)", paint["rpc"], paint["echo"], "s", "(python echo)")
    diffed, whole = streams["1"], streams["0"]
    row(
        f"stream {kb:.1f} KB: terminal bytes per streamed byte",
        diffed["bytes"] / 1024 / kb,
        whole["bytes"] / 1024 / kb,
        "B per B",
        f"({diffed['bytes'] / 1024:.0f} KB in {diffed['seconds']:.1f} s, {diffed['frames']:.0f} frames,"
        f" mode 2026; baseline Textual's own frames, CIRCLE_SCREEN_DIFF=0: {whole['bytes'] / 1024:.0f} KB)",
    )
    row(
        "key latency while the answer streams",
        typed["busy"] * 1000,
        typed["idle"] * 1000,
        "ms",
        f"(idle baseline; max {typed['busy_max'] * 1000:.0f} ms)",
    )
    row(
        "key latency, first anthropic message (SDK loads)",
        anthropic["median"] * 1000,
        typed["idle"] * 1000,
        "ms",
        f"(max {anthropic['max'] * 1000:.0f} ms over {anthropic['count']:.0f} keys)",
    )
    row(
        "key latency while Circle starts (modules load)",
        starting["median"] * 1000,
        typed["idle"] * 1000,
        "ms",
        f"(max {starting['max'] * 1000:.0f} ms over {starting['count']:.0f} keys)",
    )
    took = statistics.median(r[0] for r in resumes)
    row(f"resume a {messages:,}-message session: usable", took, paint["ready"], "s", "(new session ready)")
    rss = max(streams["1"]["rss"], typed["rss"], *(r[1] for r in resumes))
    row(
        "peak RSS of the interface (stream, resume)",
        rss,
        0,
        "MiB",
        f"(stream {typed['rss']:.0f}, resume {max(r[1] for r in resumes):.0f})",
    )


if __name__ == "__main__":
    main()
