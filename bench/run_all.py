"""Run the benchmarks and write their figures to bench/RESULTS.md, with the machine's load.

Not a test: `.venv/bin/python bench/run_all.py [--pairs 10] [--rounds 0,50] [--quick]`. The
one-shot comparison (bench_cli: `circle -p` against the bare-SDK loop, interleaved pairs) becomes
a table; the other benches (store, snapshot, command checks, interface start, library) follow with their
own printed medians, each run with small settings under ``--quick``. Load averages are taken
before and after (os.getloadavg): on a shared machine, compare ratios, not seconds.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import subprocess
import sys
from pathlib import Path

import bench_cli

HERE = Path(__file__).resolve().parent
OTHERS: list[tuple[str, list[str], list[str]]] = [  # script, its full settings, its --quick ones
    ("bench_store.py", ["--runs", "5"], ["--runs", "3", "--appends", "100", "--size", "2000"]),
    ("bench_snapshot.py", ["--runs", "9"], ["--files", "2000", "--runs", "3"]),
    ("bench_command_checks.py", ["--runs", "200"], ["--runs", "30"]),
    ("bench_tui.py", ["--runs", "5"], ["--runs", "2", "--stream-s", "6", "--messages", "2000"]),
    # the 10k resume to a usable screen (keys typed at the first frame shown with the tail), interleaved
    (
        "bench_tui.py",
        ["--only", "resume", "--runs", "5"],
        ["--only", "resume", "--runs", "2", "--messages", "2000"],
    ),
    ("bench_paint.py", ["--runs", "9", "--ready"], ["--runs", "3"]),
    ("bench_library.py", ["--runs", "15"], ["--runs", "5"]),
]


def _load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f} / {five:.2f} / {fifteen:.2f} (1 / 5 / 15 min) on {os.cpu_count()} cores"


def _other(script: str, args: list[str]) -> str:
    proc = subprocess.run([sys.executable, str(HERE / script), *args], capture_output=True, text=True)
    text = (
        proc.stdout.strip() if proc.returncode == 0 else f"failed ({proc.returncode}):\n{proc.stderr.strip()}"
    )
    return f"### {script} {' '.join(args)}\n\nload before: {_load()}\n\n```\n{text}\n```\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=10, help="interleaved pairs for the one-shot comparison")
    parser.add_argument("--rounds", default="0,50", help="tool rounds per conversation, comma-separated")
    parser.add_argument("--quick", action="store_true", help="small settings for the other benches")
    parser.add_argument("--only-cli", action="store_true", help="the one-shot comparison alone")
    parser.add_argument("--out", type=Path, default=HERE / "RESULTS.md")
    args = parser.parse_args()
    rounds = [int(r) for r in args.rounds.split(",")]
    before = _load()
    rows = bench_cli.run(args.pairs, rounds)
    after = _load()
    when = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    parts = [
        "# Benchmark results\n",
        f"Written by `bench/run_all.py` on {when}, "
        f"Python {platform.python_version()} on {platform.machine()}.\n",
        f"## One-shot: `circle -p` against the bare openai-SDK loop\n\n"
        f"Medians of {args.pairs} interleaved pairs (A, B, A, B…) after a warm-up pair; every run "
        f"checked for exit 0 and one final answer. Ratio: wall time against the row named.\n\n"
        f"Load before: {before}; after: {after}.\n",
        bench_cli.table(rows) + "\n",
    ]
    note = bench_cli.per_round(rows, rounds)
    if note:
        parts.append(note + "\n")
    if not args.only_cli:
        parts.append("## The other benches\n")
        for script, full, quick in OTHERS:
            parts.append(_other(script, quick if args.quick else full))
    args.out.write_text("\n".join(parts))
    print(args.out.read_text())


if __name__ == "__main__":
    main()
