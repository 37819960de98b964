"""Startup, per-round time and memory of `circle -p`, against the bare-SDK loop, run interleaved.

Not a test: run it by hand, `.venv/bin/python bench/bench_cli.py [--pairs 10] [--rounds 0,50]`
(or `bench/run_all.py`, which also writes bench/RESULTS.md). A scripted loopback endpoint
(TCP_NODELAY) answers instantly, so what is timed is the harness itself. Circle and the bare
openai-SDK loop (bench/sdk_floor.py) run in pairs, A, B, A, B…, after one warm-up pair, so a
change of load on a shared machine touches both alike. Every run is checked: exit status 0 and
the gateway's final answer printed exactly once. Each figure is a median: wall seconds, CPU
seconds (user + system of the child) and the child's peak RSS in MiB.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PY = sys.executable
CIRCLE = str(Path(PY).parent / "circle")
FINAL_ANSWER = "Done: read the file."
GATEWAY = [PY, "-m", "circle._testing.gateway"]
READ_README = '{"file_path": "README.md"}'


@dataclass
class Sample:
    wall: float
    cpu: float
    rss_mib: float


@dataclass
class Row:
    """One measured command: its medians, and the ratio of its wall time to its baseline's."""

    name: str
    sample: Sample
    ratio: float | None = None
    baseline: str = ""


def measure(argv: list[str], *, env: dict[str, str], cwd: Path, expect: str | None = None) -> Sample:
    """Run ``argv`` once; refuse a failed run, or one that did not print ``expect`` exactly once."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(argv, env=env, cwd=cwd, stdout=out, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        printed, errors = out.read().decode(), err.read().decode()
    if proc.returncode != 0:
        raise SystemExit(f"benchmark command failed ({proc.returncode}): {' '.join(argv)}\n{errors}")
    if expect is not None and printed.count(expect) != 1:
        raise SystemExit(f"benchmark command did not answer {expect!r} once: {' '.join(argv)}\n{printed}")
    return Sample(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024)


def median(samples: list[Sample]) -> Sample:
    return Sample(
        statistics.median(s.wall for s in samples),
        statistics.median(s.cpu for s in samples),
        statistics.median(s.rss_mib for s in samples),
    )


def interleaved(
    a: list[str], b: list[str], pairs: int, *, env: dict[str, str], cwd: Path, expect: str | None = None
) -> tuple[Sample, Sample]:
    """Medians of ``a`` and ``b`` run alternately ``pairs`` times, after one warm-up pair."""
    measure(a, env=env, cwd=cwd, expect=expect)
    measure(b, env=env, cwd=cwd, expect=expect)
    runs_a, runs_b = [], []
    for _ in range(pairs):
        runs_a.append(measure(a, env=env, cwd=cwd, expect=expect))
        runs_b.append(measure(b, env=env, cwd=cwd, expect=expect))
    return median(runs_a), median(runs_b)


@contextmanager
def gateway(rounds: int) -> Iterator[str]:
    """A scripted endpoint answering ``rounds`` read_file calls, then the final answer."""
    proc = subprocess.Popen(
        [*GATEWAY, "--rounds", str(rounds), "--tool-name", "read_file", "--tool-args", READ_README],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        yield proc.stdout.readline().strip()
    finally:
        proc.terminate()
        proc.wait()


@contextmanager
def workspace() -> Iterator[tuple[Path, dict[str, str]]]:
    """A trusted temporary project with a README, and the environment pointing Circle at it."""
    # Circle is installed editable: compile its modules the way pip compiled the SDK's, so that both
    # load bytecode even where PYTHONDONTWRITEBYTECODE is set (as on these machines).
    subprocess.run([PY, "-m", "compileall", "-q", str(ROOT / "src" / "circle")], check=True)
    work = Path(tempfile.mkdtemp(prefix="circle-bench-"))
    (work / "README.md").write_text("# A project\n\nIt has a README of a few lines.\n" * 5)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CIRCLE_", "OPENAI_"))}
    env.update(
        CIRCLE_HOME=str(work / "home"),
        CIRCLE_API_KEY="bench",
        CIRCLE_MODEL="bench-model",
        CIRCLE_PROTOCOL="openai-chat",
        CIRCLE_CATALOG_REFRESH="0",
    )
    try:
        subprocess.run([CIRCLE, "trust", str(work)], env=env, cwd=work, check=True, capture_output=True)
        yield work, env
    finally:
        shutil.rmtree(work, ignore_errors=True)


def run(pairs: int, rounds: list[int]) -> list[Row]:
    """Every comparison: start-up baselines, then `circle -p` against the bare SDK loop per round count."""
    rows: list[Row] = []
    with workspace() as (work, env):
        bare, sdk = interleaved([PY, "-c", "pass"], [PY, "-c", "import openai"], pairs, env=env, cwd=work)
        rows.append(Row("python -c pass", bare))
        rows.append(Row("python -c 'import openai'", sdk, sdk.wall / bare.wall, "python -c pass"))
        version, _ = interleaved([CIRCLE, "--version"], [PY, "-c", "pass"], pairs, env=env, cwd=work)
        rows.append(Row("circle --version", version, version.wall / bare.wall, "python -c pass"))
        for n in rounds:
            with gateway(n) as url:
                here = {**env, "CIRCLE_BASE_URL": url}
                circle, floor = interleaved(
                    [CIRCLE, "-p", "--yolo", "read the README"],
                    [PY, str(ROOT / "bench" / "sdk_floor.py"), url, "read the README"],
                    pairs,
                    env=here,
                    cwd=work,
                    expect=FINAL_ANSWER,
                )
            floor_name = f"bare openai SDK loop, {n} tool rounds"
            rows.append(Row(floor_name, floor))
            rows.append(Row(f"circle -p, {n} tool rounds", circle, circle.wall / floor.wall, floor_name))
    return rows


def per_round(rows: list[Row], rounds: list[int]) -> str | None:
    """Milliseconds a tool round adds, for Circle and for the floor, from the fewest and most rounds."""
    if len(rounds) < 2:
        return None
    low, top = min(rounds), max(rounds)
    samples = {row.name: row.sample for row in rows}

    def step(name: str, figure: str) -> float:
        more, fewer = samples[name.format(top)], samples[name.format(low)]
        return (getattr(more, figure) - getattr(fewer, figure)) / (top - low) * 1000

    circle, floor = "circle -p, {} tool rounds", "bare openai SDK loop, {} tool rounds"
    return (
        f"per tool round ({low} to {top}), wall (cpu): circle {step(circle, 'wall'):.1f} ms"
        f" ({step(circle, 'cpu'):.1f}), bare SDK loop {step(floor, 'wall'):.1f} ms ({step(floor, 'cpu'):.1f})"
    )


def table(rows: list[Row]) -> str:
    """The rows as a Markdown table."""
    lines = [
        "| what | wall s | cpu s | RSS MiB | ratio | against |",
        "| --- | ---: | ---: | ---: | ---: | --- |",
    ]
    for row in rows:
        s = row.sample
        ratio = f"{row.ratio:.2f}" if row.ratio is not None else ""
        lines.append(
            f"| {row.name} | {s.wall:.3f} | {s.cpu:.3f} | {s.rss_mib:.1f} | {ratio} | {row.baseline} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--pairs", type=int, default=10, help="interleaved pairs after a warm-up pair")
    parser.add_argument("--rounds", default="0,50", help="tool rounds per conversation, comma-separated")
    args = parser.parse_args()
    rounds = [int(r) for r in args.rounds.split(",")]
    load = os.getloadavg()
    rows = run(args.pairs, rounds)
    after = os.getloadavg()
    print(f"medians of {args.pairs} interleaved pairs; load {load[0]:.2f} before, {after[0]:.2f} after")
    print(table(rows))
    note = per_round(rows, rounds)
    if note:
        print(note)


if __name__ == "__main__":
    main()
