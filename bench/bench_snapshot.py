"""Cost of a workspace snapshot (taken before and after every command, for /rewind).

Not a test: run it by hand, `.venv/bin/python bench/bench_snapshot.py [--files 10000] [--runs 9]`.
It builds a workspace of ``--files`` small files in nested folders (plus a .git and a
node_modules that are skipped), then times, as medians:

- first: the first snapshot (every file read, hashed and copied to the blob store), once;
- unchanged: a snapshot when nothing changed (the target: well under 100 ms for 10,000 files);
- after restart: a new instance's first snapshot, the manifest read from the data folder;
- one changed: a snapshot after one file was rewritten.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

from circle.adapters.local.snapshots import LocalWorkspaceSnapshots

OLD_NS = time.time_ns() - 3600 * 1_000_000_000


def build(root: Path, count: int) -> None:
    for i in range(count):
        folder = root / f"pkg{i % 50}" / f"mod{i % 7}"
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"file{i}.py"
        path.write_text(f"# file {i}\nVALUE = {i}\n" * 10)
        os.utime(path, ns=(OLD_NS, OLD_NS))
    for skipped in (".git/objects/ab", "node_modules/left/out"):
        (root / skipped).mkdir(parents=True)
        for i in range(200):
            (root / skipped / f"x{i}").write_text("skipped")


def timed(snapshots: LocalWorkspaceSnapshots, root: str) -> tuple[float, int]:
    start = time.perf_counter()
    snap = snapshots.snapshot_now(root)
    return (time.perf_counter() - start) * 1000, len(snap.files)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=9)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work, data = Path(tmp) / "work", Path(tmp) / "data"
        build(work, args.files)
        snapshots = LocalWorkspaceSnapshots(data)
        first, count = timed(snapshots, str(work))
        unchanged = statistics.median(timed(snapshots, str(work))[0] for _ in range(args.runs))
        restarts = statistics.median(
            timed(LocalWorkspaceSnapshots(data), str(work))[0] for _ in range(args.runs)
        )
        one = work / "pkg0" / "mod0" / "file0.py"
        changed = []
        for run in range(args.runs):
            one.write_text(f"changed {run}\n")
            changed.append(timed(snapshots, str(work))[0])
        print(f"workspace of {count} files (skipped folders left out)")
        print(f"  first snapshot       {first:8.1f} ms")
        print(f"  unchanged            {unchanged:8.1f} ms  (target: well under 100 ms)")
        print(f"  after restart        {restarts:8.1f} ms")
        print(f"  one file changed     {statistics.median(changed):8.1f} ms")


if __name__ == "__main__":
    main()
