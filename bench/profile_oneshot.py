"""Where the time of one `circle -p` goes: cProfile of a whole one-shot run, in-process.

Not a test: `.venv/bin/python bench/profile_oneshot.py [--rounds 0] [--top 40] [--out FILE]`.
It starts the scripted loopback gateway, makes a trusted temporary project, and runs the real
`circle -p --yolo "read the README"` under cProfile, imports included (the modules are compiled
first, as for bench_cli); the run is checked (exit 0, one final answer). Circle leaves through
``os._exit`` (no teardown), so the driver writes the profile just before. It prints the
functions by cumulative time (wall time, or with ``--cpu`` CPU time alone, which leaves out the
waits for the endpoint and the disk) and keeps the raw profile (``--out``, default
``/tmp/circle-oneshot.prof``) for snakeviz or pstats.
For import costs alone, `python -X importtime` on the same command says more.
"""

from __future__ import annotations

import argparse
import pstats
import sys
from pathlib import Path

import bench_cli

DRIVER = """
import cProfile, os, sys, time
out, timer, real_exit = sys.argv.pop(1), sys.argv.pop(1), os._exit
profile = cProfile.Profile(time.process_time) if timer == "cpu" else cProfile.Profile()

def leave(code):
    profile.disable()
    profile.dump_stats(out)
    real_exit(code)

os._exit = leave
sys.argv[0] = "circle"
profile.enable()
from circle.entrypoints.cli import main
main()
leave(0)
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=0, help="tool rounds before the final answer")
    parser.add_argument("--top", type=int, default=40, help="rows to print")
    parser.add_argument("--sort", default="cumulative", help="pstats sort key (cumulative, tottime…)")
    parser.add_argument("--out", type=Path, default=Path("/tmp/circle-oneshot.prof"))
    parser.add_argument("--cpu", action="store_true", help="count CPU time only (waits left out)")
    args = parser.parse_args()
    argv = [sys.executable, "-c", DRIVER, str(args.out), "cpu" if args.cpu else "wall"]
    with bench_cli.workspace() as (work, env), bench_cli.gateway(args.rounds) as url:
        env = {**env, "CIRCLE_BASE_URL": url}
        argv += ["-p", "--yolo", "read the README"]
        bench_cli.measure(argv, env=env, cwd=work, expect=bench_cli.FINAL_ANSWER)
    stats = pstats.Stats(str(args.out))
    stats.sort_stats(args.sort).print_stats(args.top)
    print(f"raw profile: {args.out} (python -m pstats {args.out}, or snakeviz)")


if __name__ == "__main__":
    main()
