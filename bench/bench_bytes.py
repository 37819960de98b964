"""Terminal bytes per streamed byte for an answer streamed as a model streams it, against a base tree.

Not a test: run it by hand, ``.venv/bin/python bench/bench_bytes.py [--base /tmp/bytes-base]
[--runs 3] [--size 140x45]``. The answer is Markdown with a heading, paragraphs, a list, a table
and a code block, about 3.2 KB, streamed in deltas of 30-60 bytes every 40 ms (a model's pace,
some 13 s). The real ``circle`` runs in a pseudo-terminal read through pyte (bench/_pty_screen.py)
that claims synchronized output, so each frame is counted; the base tree (a ``git worktree`` of an
earlier commit, put first on ``PYTHONPATH``) and this tree run in turn in the same run. Each figure
is a median; the bytes are all the terminal got from Enter until the answer's end showed, the busy
line included.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _pty_screen import PtyScreen, trial_env

from circle._testing.gateway import GatewayResponse, RecordedRequest, ScriptedGateway, chat_text

PY = sys.executable
CIRCLE = str(Path(PY).parent / "circle")
READY = "bench-model"
LAST = "LAST LINE OF THE ANSWER"
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


def answer(size: int = 3200) -> str:
    """Markdown of about ``size`` bytes: paragraphs, a list, a table and a code block."""
    rng = random.Random(11)

    def words(low: int, high: int) -> str:
        return " ".join(rng.choice(WORDS) for _ in range(rng.randint(low, high)))

    parts = [
        "## What changed",
        words(30, 45),
        "\n".join(f"- **{words(1, 2)}**: {words(6, 14)}" for _ in range(6)),
    ]
    rows = [f"| `{words(1, 1)}_{i}` | {words(2, 5)} | {rng.randint(1, 99_999):,} |" for i in range(8)]
    parts.append("| name | what it does | count |\n|---|---|---:|\n" + "\n".join(rows))
    parts.append(words(25, 40))
    code = [
        f"def step_{i}(value: int) -> int:\n    return value * {i} + {rng.randint(1, 99)}" for i in range(6)
    ]
    parts.append("```python\n" + "\n\n".join(code) + "\n```")
    while sum(map(len, parts)) < size - 120:
        parts.append(words(25, 45))
    parts.append(LAST + ".")
    return "\n\n".join(parts)


def model_pieces(text: str, seed: int = 3) -> list[str]:
    """``text`` cut in pieces of 30 to 60 bytes."""
    rng = random.Random(seed)
    pieces, at = [], 0
    while at < len(text):
        step = rng.randint(30, 60)
        pieces.append(text[at : at + step])
        at += step
    return pieces


class Script:
    def __init__(self, text: str, *, interval: float) -> None:
        base = chat_text(text, pieces=1)  # role, the text, stop, usage, done
        template = json.loads(base.chunks[1].decode().removeprefix("data: "))
        chunks = []
        for piece in model_pieces(text):
            template["choices"][0]["delta"] = {"content": piece}
            chunks.append(b"data: " + json.dumps(template).encode() + b"\n\n")
        chunks = [base.chunks[0], *chunks, *base.chunks[2:]]
        self.response = dataclasses.replace(base, chunks=chunks, interval_s=interval)

    def __call__(self, request: RecordedRequest) -> GatewayResponse:
        return self.response


def stream(env: dict[str, str], work: Path, *, size: tuple[int, int], dump: str = "") -> dict[str, float]:
    term = PtyScreen([CIRCLE], env=env, cwd=work, size=size, sync=True)
    term.log = [] if dump else None
    try:
        term.until(lambda text: READY in text, what="the footer")
        term.settle()
        term.send(b"tell me")
        term.until(lambda text: "tell me" in text)
        term.settle()
        before, frames, start = term.bytes, term.frames, term.send(b"\r")
        if term.log is not None:
            term.log.clear()
        term.until(lambda text: LAST in text, what="the end of the answer", timeout=60)
        took = time.perf_counter() - start
        term.settle(0.3)
        if dump:
            Path(dump).write_bytes(b"".join(term.log or []))
        return {"bytes": term.bytes - before, "frames": term.frames - frames, "seconds": took}
    finally:
        term.close()


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--base", default="/tmp/bytes-base", help="a worktree of the tree to compare with")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--size", default="140x45")
    parser.add_argument("--interval", type=float, default=0.04, help="seconds between deltas")
    parser.add_argument("--dump", default="", help="a file to keep what this tree wrote in its last run")
    args = parser.parse_args()
    size = tuple(int(n) for n in args.size.split("x"))
    text = answer()
    streamed = len(text.encode())
    gateway = ScriptedGateway(fallback=Script(text, interval=args.interval), record=False)
    url = gateway.start()
    got: dict[str, list[dict[str, float]]] = {"base": [], "this": []}
    try:
        with tempfile.TemporaryDirectory() as tmp:
            home, work = Path(tmp, "home"), Path(tmp, "work")
            work.mkdir()
            env = trial_env(home, url=url, model=READY)
            subprocess.run([CIRCLE, "trust", str(work)], env=env, check=True, capture_output=True)
            trees = {"base": {**env, "PYTHONPATH": str(Path(args.base, "src"))}, "this": env}
            for _ in range(args.runs):
                for name, tree_env in trees.items():
                    dump = args.dump if name == "this" else ""
                    got[name].append(stream(tree_env, work, size=(size[0], size[1]), dump=dump))
    finally:
        gateway.stop()
    load = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    print(
        f"{streamed:,} bytes streamed in {len(model_pieces(text))} deltas every {args.interval * 1000:.0f} ms"
        f" at {args.size}, {args.runs} runs each, interleaved; {load}"
    )
    for name, runs in got.items():
        per = statistics.median(r["bytes"] / streamed for r in runs)
        frames = statistics.median(r["frames"] for r in runs)
        seconds = statistics.median(r["seconds"] for r in runs)
        all_per = ", ".join(f"{r['bytes'] / streamed:.1f}" for r in runs)
        print(
            f"  {name:5} {per:5.1f} terminal bytes per streamed byte ({all_per}); {frames:.0f} frames,"
            f" {frames / seconds:.1f} a second; {seconds:.1f} s"
        )


if __name__ == "__main__":
    main()
