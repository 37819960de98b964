"""CPU per tool round of `circle -p`, this tree against another source tree, interleaved.

Not a test: `.venv/bin/python bench/bench_rounds.py --against DIR [--pairs 7] [--rounds 50]`,
where DIR holds a copy of ``src`` from before a change (``cp -r src /tmp/base/``, or
``git archive REV src | tar -x -C /tmp/base``; ``src/circle/prompts`` links to ``DIR/prompts``,
so link that to the repository's ``prompts/``). Each pair runs both Circles (the other one
through ``PYTHONPATH=DIR/src``) with no tool round and with ``--rounds`` read_file rounds against
the scripted loopback gateway, in the order A0, An, B0, Bn, so a change of load on a shared
machine touches both alike. Each run counts its CPU time (user + system, all threads) from its
first request to its end, which leaves out the start-up (imports vary by tens of milliseconds on
a loaded machine, more than 50 rounds take); a pair's figure is (that CPU with n rounds - with
none) / n. Printed are the medians over the pairs, with the same figure over whole runs beside
them, and each run is checked as bench_cli checks it (exit 0, the final answer once).
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
        first.append(time.process_time())
    return await send(self, *args, **kwargs)

def leave(code):
    with open(out, "w") as f:
        f.write(f"{time.process_time() - first[0]} {time.process_time()}")
    real_exit(code)

httpx2.AsyncClient.send, os._exit, sys.argv[0] = timed, leave, "circle"
from circle.entrypoints.cli import main
main()
leave(0)
"""


def from_first_request(env: dict[str, str], *, url: str, cwd: Path) -> tuple[float, float]:
    """CPU seconds of one `circle -p` from its first request to its end, and of the whole run."""
    with tempfile.NamedTemporaryFile("r", suffix=".txt") as out:
        argv = [sys.executable, "-c", DRIVER, out.name, "-p", "--yolo", "read the README"]
        bench_cli.measure(argv, env={**env, "CIRCLE_BASE_URL": url}, cwd=cwd, expect=bench_cli.FINAL_ANSWER)
        after_first, whole = (float(x) for x in out.read().split())
    return after_first, whole


def per_round_ms(
    env: dict[str, str], *, urls: tuple[str, str], cwd: Path, rounds: int
) -> tuple[float, float]:
    """CPU ms a round adds, counted from the first request and over the whole run, from one run
    with no round and one with ``rounds``."""
    none, many = (from_first_request(env, url=url, cwd=cwd) for url in urls)
    return (many[0] - none[0]) / rounds * 1000, (many[1] - none[1]) / rounds * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", type=Path, required=True, help="a folder holding the other src/")
    parser.add_argument("--pairs", type=int, default=7)
    parser.add_argument("--rounds", type=int, default=50)
    args = parser.parse_args()
    other = args.against.resolve() / "src"
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(other / "circle")], check=True)
    load = os.getloadavg()[0]
    this: list[tuple[float, float]] = []
    that: list[tuple[float, float]] = []
    with (
        bench_cli.workspace() as (work, env),
        bench_cli.gateway(0) as zero,
        bench_cli.gateway(args.rounds) as n,
    ):
        theirs = {**env, "PYTHONPATH": str(other)}
        for index in range(args.pairs + 1):  # the first pair warms up
            a = per_round_ms(theirs, urls=(zero, n), cwd=work, rounds=args.rounds)
            b = per_round_ms(env, urls=(zero, n), cwd=work, rounds=args.rounds)
            if index:
                that.append(a)
                this.append(b)
    after = os.getloadavg()[0]
    print(f"medians of {args.pairs} pairs, {args.rounds} rounds; load {load:.2f} before, {after:.2f} after")
    for name, runs in ((str(other), that), ("this tree", this)):
        cpu = statistics.median(r[0] for r in runs)
        whole = statistics.median(r[1] for r in runs)
        spread = " ".join(f"{r[0]:.2f}" for r in sorted(runs))
        print(f"per tool round: {cpu:.2f} ms cpu ({whole:.2f} over the whole run)  {name}  (pairs: {spread})")


if __name__ == "__main__":
    main()
