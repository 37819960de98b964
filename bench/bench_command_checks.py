"""Costs of judging one command before it runs: classifying its text, and the execute tool's look
at the tree (the review of what it reads and writes, a repository's git config, the always-ask
places watched around it).

Not a test: run it by hand, `.venv/bin/python bench/bench_command_checks.py [--runs 200]`. It builds
a small git workspace in a temporary folder and prints medians in milliseconds for each command.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from circle.adapters.local.files import LocalFileSystem
from circle.adapters.local.processes import LocalProcessRunner
from circle.adapters.local.search import RipgrepSearch
from circle.application.approvals import AllowAll
from circle.application.tools.base import ToolContext
from circle.application.tools.command_review import review_command
from circle.application.tools.protected_places import restore_changes, take_snapshot, watched
from circle.domain.approvals import classify_command

COMMANDS = (
    "ls -la src | grep foo | wc -l",
    "bash -lc 'cd src && git diff --stat'",
    "grep -rn TODO src",
    "git status",
    "python3 -m pytest -q",
)


def _median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


async def _measure(workspace: Path, runs: int) -> None:
    files = LocalFileSystem()
    ctx = ToolContext(
        workspace=str(workspace),
        files=files,
        search=RipgrepSearch(),
        processes=LocalProcessRunner(),
        approver=AllowAll(),
        home=str(workspace.parent),
        data_dir=str(workspace.parent / "data"),
    )
    places = watched(ctx.workspace, data_dir=ctx.data_dir, home=ctx.home)
    print(f"{'command':40} {'classify':>9} {'review':>9} {'watch':>9}  (ms, medians of {runs})")
    for command in COMMANDS:
        classify, review, watch = [], [], []
        for _ in range(runs):
            start = time.perf_counter()
            verdict = classify_command(command, workspace=ctx.workspace, home=ctx.home, data_dir=ctx.data_dir)
            middle = time.perf_counter()
            await review_command(verdict, ctx)
            end = time.perf_counter()
            before = await take_snapshot(files, *places, cache=ctx.places_cache)
            await restore_changes(files, before, places[0], cache=ctx.places_cache)
            classify.append(middle - start)
            review.append(end - middle)
            watch.append(time.perf_counter() - end)
        print(f"{command:40} {_median_ms(classify):9.2f} {_median_ms(review):9.2f} {_median_ms(watch):9.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=200)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        workspace = Path(tmp) / "work"
        (workspace / "src").mkdir(parents=True)
        for index in range(200):
            (workspace / "src" / f"m{index}.py").write_text("# TODO\n")
        subprocess.run(["git", "init", "-q"], cwd=workspace, check=True)
        asyncio.run(_measure(workspace, args.runs))


if __name__ == "__main__":
    main()
