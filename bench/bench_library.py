"""What embedding Circle costs: ``import circle``, the first ``circle.Agent(...)``, its first turn.

Not a test: run it by hand, `.venv/bin/python bench/bench_library.py [--runs 15]`. Each run is a
fresh interpreter (so nothing is cached in memory) with its own data folder, against the loopback
gateway; after one warm-up run, the figures are medians. The goals: ``import circle`` under 50 ms
with no SDK loaded, and the first ``circle.Agent(...)`` (made and started: settings read, the agent
put together) under 0.5 s. The child's own clock times each step, so Python's start is left out;
its CPU time is shown too, since on a loaded machine the wall time is mostly waiting for a core.

Each run times two interpreters in turn on the same data folder: the first start of all (a new data
folder: the tools' specs are made and kept), then a program's later start (the data folder keeps
them, so no tool's module loads before it is called).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from circle._testing.gateway import ScriptedGateway, chat_text

SDKS = ("openai", "anthropic", "httpx", "sqlmodel", "sqlalchemy", "textual", "typer", "pydantic")
IMPORT_GOAL_MS = 50.0
AGENT_GOAL_MS = 500.0

CHILD = """
import asyncio, json, sys, time
c0, t0 = time.process_time(), time.perf_counter()
import circle
t1 = time.perf_counter()
loaded = sorted(m for m in SDKS if m in sys.modules)

async def main():
    t2 = time.perf_counter()
    agent = circle.Agent(sys.argv[1], trust=True)
    t3 = time.perf_counter()
    await agent.start()
    t4, c4 = time.perf_counter(), time.process_time()
    result = await agent.run("hi")
    t5 = time.perf_counter()
    await agent.aclose()
    assert result.answer == "Done.", result.answer
    print(json.dumps({"import": t1 - t0, "made": t3 - t2, "started": t4 - t2, "turn": t5 - t4,
                      "started_cpu": c4 - c0,
                      "loaded": loaded}))

asyncio.run(main())
"""


def one_run(base_url: str) -> tuple[dict[str, object], dict[str, object]]:
    """The figures of a new data folder's first start and of a later one, each a fresh interpreter."""
    with tempfile.TemporaryDirectory() as home, tempfile.TemporaryDirectory() as work:
        env = {
            **os.environ,
            "CIRCLE_HOME": home,
            "CIRCLE_BASE_URL": base_url,
            "CIRCLE_PROTOCOL": "openai-chat",
            "CIRCLE_API_KEY": "bench-key",
            "CIRCLE_MODEL": "qwen3-coder",
            "CIRCLE_CATALOG_REFRESH": "0",
        }
        return _child(env, work), _child(env, work)


def _child(env: dict[str, str], work: str) -> dict[str, object]:
    """One fresh interpreter's figures, in seconds (and the SDKs ``import circle`` loaded)."""
    code = f"SDKS = {SDKS!r}\n{CHILD}"
    proc = subprocess.run(
        [sys.executable, "-c", code, work], env=env, capture_output=True, text=True, check=False
    )
    if proc.returncode != 0:
        raise SystemExit(f"a run failed ({proc.returncode}):\n{proc.stderr.strip()}")
    figures: dict[str, object] = json.loads(proc.stdout.strip().splitlines()[-1])
    return figures


def _ms(runs: list[dict[str, object]], key: str) -> float:
    return statistics.median(float(str(run[key])) for run in runs) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    # Circle is installed editable: compile its modules as an install would, so that every run loads
    # bytecode of this tree even where PYTHONDONTWRITEBYTECODE is set (as on these machines), not
    # stale bytecode or source compiled anew in each interpreter.
    source = Path(__file__).resolve().parents[1] / "src" / "circle"
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(source)], check=True)
    gateway = ScriptedGateway(fallback=lambda request: chat_text("Done."))
    base_url = gateway.start()
    try:
        one_run(base_url)  # warm-up: the disk cache, the bytecode
        pairs = [one_run(base_url) for _ in range(args.runs)]
    finally:
        gateway.stop()
    runs = [first for first, _ in pairs]
    loaded = sorted({name for run in runs for name in run["loaded"]})  # type: ignore[attr-defined]
    imported, started = _ms(runs, "import"), _ms(runs, "started")
    print(f"library, medians of {args.runs} pairs of fresh interpreters (load {os.getloadavg()[0]:.2f}):")
    print(
        f"  import circle: {imported:.1f} ms ({'within' if imported < IMPORT_GOAL_MS else 'OVER'} the "
        f"{IMPORT_GOAL_MS:.0f} ms goal); loaded with it: {', '.join(loaded) or 'no SDK'}"
    )
    for label, chosen in (("a new data folder", runs), ("a later start", [later for _, later in pairs])):
        started = _ms(chosen, "started")
        print(
            f"  first circle.Agent(...), {label}: made {_ms(chosen, 'made'):.1f} ms, "
            f"started {started:.1f} ms "
            f"({'within' if started < AGENT_GOAL_MS else 'OVER'} the {AGENT_GOAL_MS:.0f} ms goal); "
            f"CPU from import circle to started {_ms(chosen, 'started_cpu'):.1f} ms; "
            f"its first turn {_ms(chosen, 'turn'):.1f} ms"
        )


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    main()
