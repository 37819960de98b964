"""Startup, per-round time and memory of `circle -p`, against baselines measured in the same run.

Not a test: run it by hand, `.venv/bin/python bench/bench_cli.py [--runs 5]`. A scripted loopback
endpoint (TCP_NODELAY) answers instantly, so what is timed is the harness itself. Each figure is
the median of the runs after one warm-up: wall seconds, CPU seconds (user + system of the child),
and the child's peak RSS in MiB.
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
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PY = sys.executable
CIRCLE = str(Path(PY).parent / "circle")


@dataclass
class Sample:
    wall: float
    cpu: float
    rss_mib: float


def measure(argv: list[str], *, env: dict[str, str], cwd: Path) -> Sample:
    start = time.perf_counter()
    proc = subprocess.Popen(argv, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        err = proc.stderr.read().decode() if proc.stderr else ""
        raise SystemExit(f"benchmark command failed ({proc.returncode}): {' '.join(argv)}\n{err}")
    return Sample(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024)


def median_of(argv: list[str], runs: int, *, env: dict[str, str], cwd: Path) -> Sample:
    measure(argv, env=env, cwd=cwd)
    samples = [measure(argv, env=env, cwd=cwd) for _ in range(runs)]
    return Sample(
        statistics.median(s.wall for s in samples),
        statistics.median(s.cpu for s in samples),
        statistics.median(s.rss_mib for s in samples),
    )


def start_gateway(rounds: int) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(
        [
            PY,
            "-m",
            "circle._testing.gateway",
            "--rounds",
            str(rounds),
            "--tool-name",
            "read_file",
            "--tool-args",
            '{"file_path": "README.md"}',
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    return proc, proc.stdout.readline().strip()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--rounds", default="0,10,50")
    args = parser.parse_args()
    rounds = [int(r) for r in args.rounds.split(",")]
    # Circle is installed editable: compile its modules the way pip compiled the SDK's, so that both
    # load bytecode even where PYTHONDONTWRITEBYTECODE is set (as on these machines).
    subprocess.run([PY, "-m", "compileall", "-q", str(ROOT / "src" / "circle")], check=True)
    work = Path(tempfile.mkdtemp(prefix="circle-bench-"))
    (work / "README.md").write_text("# A project\n\nIt has a README of a few lines.\n" * 5)
    base_env = {k: v for k, v in os.environ.items() if not k.startswith(("CIRCLE_", "OPENAI_"))}
    base_env.update(
        CIRCLE_HOME=str(work / "home"),
        CIRCLE_API_KEY="bench",
        CIRCLE_MODEL="bench-model",
        CIRCLE_PROTOCOL="openai-chat",
        CIRCLE_CATALOG_REFRESH="0",
    )
    rows: list[tuple[str, Sample]] = []
    rows.append(("python -c pass", median_of([PY, "-c", "pass"], args.runs, env=base_env, cwd=work)))
    rows.append(
        (
            "python -c 'import openai' (baseline)",
            median_of([PY, "-c", "import openai"], args.runs, env=base_env, cwd=work),
        )
    )
    rows.append(("circle --version", median_of([CIRCLE, "--version"], args.runs, env=base_env, cwd=work)))
    gateways = []
    per: dict[int, Sample] = {}
    floor: dict[int, Sample] = {}
    try:
        for n in rounds:
            proc, url = start_gateway(n)
            gateways.append(proc)
            env = {**base_env, "CIRCLE_BASE_URL": url}
            per[n] = median_of([CIRCLE, "-p", "--yolo", "read the README"], args.runs, env=env, cwd=work)
            rows.append((f"circle -p, {n} tool rounds", per[n]))
            floor[n] = median_of(
                [PY, str(ROOT / "bench" / "sdk_floor.py"), url, "read the README"],
                args.runs,
                env=env,
                cwd=work,
            )
            rows.append((f"bare openai SDK loop, {n} tool rounds", floor[n]))
    finally:
        for proc in gateways:
            proc.terminate()
            proc.wait()
        shutil.rmtree(work, ignore_errors=True)
    baseline = rows[1][1].wall
    print(f"medians of {args.runs} runs after a warm-up; ratio = wall / baseline wall ({baseline:.3f} s)")
    print(f"{'what':45} {'wall s':>8} {'cpu s':>8} {'RSS MiB':>8} {'ratio':>6}")
    for name, s in rows:
        print(f"{name:45} {s.wall:8.3f} {s.cpu:8.3f} {s.rss_mib:8.1f} {s.wall / baseline:6.2f}")
    if 0 in per and len(rounds) > 1:
        top = max(rounds)
        circle_round = (per[top].wall - per[0].wall) / top * 1000
        floor_round = (floor[top].wall - floor[0].wall) / top * 1000
        print(f"per tool round over {top}: circle {circle_round:.1f} ms, bare SDK loop {floor_round:.1f} ms")


if __name__ == "__main__":
    main()
