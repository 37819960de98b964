"""Costs of the SQLite session store: one append, a 10,000-message history, a cold open+append.

Not a test: run it by hand, `.venv/bin/python bench/bench_store.py [--runs 5]`. It uses the
store's public API only, so the same script measures any version of the adapter. Each figure is a
median: of the single appends, of the history loads (after one warm-up), and of the fresh
subprocesses (after one warm-up) whose wall time includes starting Python and every import.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from circle.adapters.storage.sqlite_store import SqliteSessionStore
from circle.domain.messages import Message

PY = sys.executable

COLD = """
import asyncio, sys
from pathlib import Path
from circle.adapters.storage.sqlite_store import SqliteSessionStore
from circle.domain.messages import Message

async def main() -> None:
    store = SqliteSessionStore(Path(sys.argv[1]))
    await store.append("s1", Message.user("one more"))
    await store.history("s1")
    await store.aclose()
    print(int("sqlalchemy" in sys.modules), int("sqlmodel" in sys.modules))

asyncio.run(main())
"""


async def appends(path: Path, count: int) -> list[float]:
    """Seconds per append, each a committed transaction on a file store."""
    store = SqliteSessionStore(path)
    await store.create_session(workspace="/w", session_id="s1")
    await store.append("s1", Message.user("warm-up"))
    times = []
    for i in range(count):
        message = Message.user(f"message {i}")
        start = time.perf_counter()
        await store.append("s1", message)
        times.append(time.perf_counter() - start)
    await store.aclose()
    return times


async def histories(path: Path, *, size: int, runs: int) -> list[float]:
    """Seconds to load a ``size``-message history from a store opened once."""
    store = SqliteSessionStore(path)
    await store.create_session(workspace="/w", session_id="big")
    for i in range(size):
        await store.append("big", Message.user(f"message {i}"))
    loaded = await store.history("big")  # warm-up
    assert len(loaded) == size
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        await store.history("big")
        times.append(time.perf_counter() - start)
    await store.aclose()
    return times


def cold_runs(path: Path, runs: int) -> tuple[list[float], str]:
    """Wall seconds of fresh interpreters that open an existing store, append and read back."""
    times = []
    loaded = ""
    for index in range(runs + 1):
        start = time.perf_counter()
        done = subprocess.run([PY, "-c", COLD, str(path)], capture_output=True, text=True, check=True)
        if index:  # the first run is the warm-up
            times.append(time.perf_counter() - start)
        loaded = done.stdout.strip()
    return times, loaded


def ms(values: list[float]) -> str:
    return f"{statistics.median(values) * 1000:8.3f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="history loads and cold subprocesses")
    parser.add_argument("--appends", type=int, default=500, help="single appends to time")
    parser.add_argument("--size", type=int, default=10_000, help="messages in the big history")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        per_append = asyncio.run(appends(root / "appends.sqlite", args.appends))
        per_history = asyncio.run(histories(root / "history.sqlite", size=args.size, runs=args.runs))
        cold, loaded = cold_runs(root / "appends.sqlite", args.runs)
    sqlalchemy, sqlmodel = loaded.split()
    print(f"append one message (median of {args.appends}):        {ms(per_append)}")
    print(f"history of {args.size:,} messages (median of {args.runs}):   {ms(per_history)}")
    print(f"fresh process: open + append + history ({args.runs}): {ms(cold)}")
    print(f"  that process loaded sqlalchemy={sqlalchemy} sqlmodel={sqlmodel}")


if __name__ == "__main__":
    main()
