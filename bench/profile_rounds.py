"""What one tool round of `circle -p` costs, by function: cProfile from the first request of a run
with no tool round and of one with ``--rounds``, the difference divided by the rounds.

Not a test: `.venv/bin/python bench/profile_rounds.py [--rounds 50] [--top 40] [--sort tottime]
[--src DIR/src]`. Start-up and the first request's imports are in both runs, so they cancel out;
what is left is what a round adds (its calls, its own time and its cumulative time, in microseconds
under the profiler, which inflates small functions several times: read the calls and the order,
not the absolute times). ``--src`` profiles another source tree (``git worktree add /tmp/t REV``).
For the time outside the profiler, bench_rounds.py; for the whole run, profile_oneshot.py.
"""

from __future__ import annotations

import argparse
import pstats
import sys
import tempfile
from pathlib import Path

import bench_cli

DRIVER = """
import cProfile, os, sys, time
out, real_exit = sys.argv.pop(1), os._exit
profile = cProfile.Profile(time.process_time)
import httpx2
send = httpx2.AsyncClient.send

async def profiled(self, *args, **kwargs):
    if not profiled.started:
        profiled.started = True
        profile.enable()
    return await send(self, *args, **kwargs)

profiled.started = False

def leave(code):
    profile.disable()
    profile.dump_stats(out)
    real_exit(code)

httpx2.AsyncClient.send, os._exit, sys.argv[0] = profiled, leave, "circle"
from circle.entrypoints.cli import main
main()
leave(0)
"""

Key = tuple[str, int, str]
Row = tuple[float, float, float, Key]


def profile(env: dict[str, str], *, url: str, cwd: Path) -> dict[Key, tuple[int, int, float, float, object]]:
    """The raw cProfile table of one `circle -p` from its first request on (CPU time)."""
    with tempfile.NamedTemporaryFile(suffix=".prof") as out:
        argv = [sys.executable, "-c", DRIVER, out.name, "-p", "--yolo", "read the README"]
        bench_cli.measure(argv, env={**env, "CIRCLE_BASE_URL": url}, cwd=cwd, expect=bench_cli.FINAL_ANSWER)
        return pstats.Stats(out.name).stats  # type: ignore[attr-defined,no-any-return]


def per_round(rounds: int, src: str | None) -> tuple[list[Row], float]:
    """Each function's calls, own and cumulative microseconds a round; the calls a round in all."""
    with (
        bench_cli.workspace() as (work, env),
        bench_cli.gateway(0) as zero,
        bench_cli.gateway(rounds) as many,
    ):
        if src is not None:
            env = {**env, "PYTHONPATH": src}
        none, some = profile(env, url=zero, cwd=work), profile(env, url=many, cwd=work)
    rows: list[Row] = []
    for key, (_, calls, own, cumulative, _) in some.items():
        _, calls0, own0, cumulative0, _ = none.get(key, (0, 0, 0.0, 0.0, None))
        rows.append(
            (
                (calls - calls0) / rounds,
                (own - own0) / rounds * 1e6,
                (cumulative - cumulative0) / rounds * 1e6,
                key,
            )
        )
    return rows, sum(row[0] for row in rows)


def short(key: Key) -> str:
    path, line, name = key
    for prefix in (f"{sys.prefix}/lib/python3.11/site-packages/", f"{sys.base_prefix}/lib/python3.11/"):
        path = path.replace(prefix, "")
    return f"{path}:{line}({name})" if line else name


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=50)
    parser.add_argument("--top", type=int, default=40, help="rows to print")
    parser.add_argument("--sort", choices=("calls", "tottime", "cumtime"), default="tottime")
    parser.add_argument("--src", help="another tree's src folder to profile")
    args = parser.parse_args()
    rows, calls = per_round(args.rounds, args.src)
    column = {"calls": 0, "tottime": 1, "cumtime": 2}[args.sort]
    rows.sort(key=lambda row: -row[column])
    print(f"a round adds {calls:,.0f} Python calls ({args.rounds} rounds against none)")
    print(f"{'calls':>8} {'own us':>8} {'cum us':>9}  function")
    for calls_, own, cumulative, key in rows[: args.top]:
        print(f"{calls_:8.1f} {own:8.1f} {cumulative:9.1f}  {short(key)}")


if __name__ == "__main__":
    main()
