"""CPU and wall time per tool round of `circle -p`, this tree against another source tree, interleaved.

Not a test: `.venv/bin/python bench/bench_rounds.py --against DIR [--this DIR] [--pairs 7] [--rounds 50]`,
where DIR holds a copy of ``src`` from before a change (``cp -r src /tmp/base/``, or
``git archive REV src | tar -x -C /tmp/base``; ``src/circle/prompts`` links to ``DIR/prompts``,
so link that to the repository's ``prompts/``). Each pair runs both Circles (the other one
through ``PYTHONPATH=DIR/src``) with no tool round and with ``--rounds`` read_file rounds against
the scripted loopback gateway, in the order A0, An, B0, Bn, so a change of load on a shared
machine touches both alike. Each run counts its CPU time (user + system, all threads) and its
wall time from its first request to its end, which leaves out the start-up (imports vary by tens
of milliseconds on a loaded machine, more than 50 rounds take); a pair's figure is (that time with
n rounds - with none) / n. Printed are the medians over the pairs, with the CPU over whole runs
beside them, and the median of the pairs' ratios (this tree's CPU per round over the other's, so
a change of load cancels out); each run is checked as bench_cli checks it (exit 0, the final
answer once). ``--this DIR`` measures another folder's ``src`` in place of this repository's.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import bench_cli

DRIVER = """
import os, sys, time
out, real_exit, first = sys.argv.pop(1), os._exit, []
import httpx2
send = httpx2.AsyncClient.send

async def timed(self, *args, **kwargs):
    if not first:
        first.extend((time.process_time(), time.perf_counter()))
    return await send(self, *args, **kwargs)

def leave(code):
    with open(out, "w") as f:
        f.write(f"{time.process_time() - first[0]} {time.process_time()} {time.perf_counter() - first[1]}")
    real_exit(code)

httpx2.AsyncClient.send, os._exit, sys.argv[0] = timed, leave, "circle"
from circle.entrypoints.cli import main
main()
leave(0)
"""


Run = tuple[float, float, float]
"""CPU seconds from the first request to the end, CPU seconds of the whole run, wall seconds from
the first request to the end."""


def from_first_request(env: dict[str, str], *, url: str, cwd: Path) -> Run:
    """The times of one `circle -p` (see :data:`Run`)."""
    with tempfile.NamedTemporaryFile("r", suffix=".txt") as out:
        argv = [sys.executable, "-c", DRIVER, out.name, "-p", "--yolo", "read the README"]
        bench_cli.measure(argv, env={**env, "CIRCLE_BASE_URL": url}, cwd=cwd, expect=bench_cli.FINAL_ANSWER)
        after_first, whole, wall = (float(x) for x in out.read().split())
    return after_first, whole, wall


def per_round_ms(env: dict[str, str], *, urls: tuple[str, str], cwd: Path, rounds: int) -> Run:
    """Milliseconds a round adds (the figures of :data:`Run`), from one run with no round and one
    with ``rounds``."""
    none, many = (from_first_request(env, url=url, cwd=cwd) for url in urls)
    cpu, whole, wall = ((m - n) / rounds * 1000 for m, n in zip(many, none, strict=True))
    return cpu, whole, wall


def source(folder: Path) -> str:
    """``folder``'s ``src``, compiled as bench_cli compiles this repository's."""
    src = folder.resolve() / "src"
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(src / "circle")], check=True)
    return str(src)


def report(name: str, runs: list[Run]) -> str:
    cpu = statistics.median(r[0] for r in runs)
    whole = statistics.median(r[1] for r in runs)
    wall = statistics.median(r[2] for r in runs)
    spread = " ".join(f"{r[0]:.2f}" for r in sorted(runs))
    return (
        f"per tool round: {cpu:.2f} ms cpu, {wall:.2f} ms wall ({whole:.2f} cpu over the whole run)"
        f"  {name}  (cpu of the pairs: {spread})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", type=Path, required=True, help="a folder holding the other src/")
    parser.add_argument("--this", type=Path, help="a folder holding the src/ to measure (default: this one)")
    parser.add_argument("--pairs", type=int, default=7)
    parser.add_argument("--rounds", type=int, default=50)
    args = parser.parse_args()
    other = source(args.against)
    mine = source(args.this) if args.this is not None else None
    load = os.getloadavg()[0]
    this: list[Run] = []
    that: list[Run] = []
    with (
        bench_cli.workspace() as (work, env),
        bench_cli.gateway(0) as zero,
        bench_cli.gateway(args.rounds) as n,
    ):
        theirs = {**env, "PYTHONPATH": other}
        ours = env if mine is None else {**env, "PYTHONPATH": mine}
        for index in range(args.pairs + 1):  # the first pair warms up
            a = per_round_ms(theirs, urls=(zero, n), cwd=work, rounds=args.rounds)
            b = per_round_ms(ours, urls=(zero, n), cwd=work, rounds=args.rounds)
            if index:
                that.append(a)
                this.append(b)
    after = os.getloadavg()[0]
    print(f"medians of {args.pairs} pairs, {args.rounds} rounds; load {load:.2f} before, {after:.2f} after")
    print(report(other, that))
    print(report(mine or "this tree", this))
    ratios = [b[0] / a[0] for a, b in zip(that, this, strict=True) if a[0] > 0]
    walls = [b[2] / a[2] for a, b in zip(that, this, strict=True) if a[2] > 0]
    if ratios and walls:
        print(
            f"ratio, this over the other (median of the pairs): cpu {statistics.median(ratios):.3f},"
            f" wall {statistics.median(walls):.3f}"
        )


if __name__ == "__main__":
    main()
