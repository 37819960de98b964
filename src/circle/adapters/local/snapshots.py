"""LocalWorkspaceSnapshots: every file of a workspace, by digest, its content in the data folder's blobs.

Taken before and after each command so that a rewind can put back what the command changed. The
contents go to ``<data>/blobs`` (never the project's ``.git``). A manifest per workspace
(``<data>/snapshots/<id>.json``: path -> size, mtime_ns, digest) is kept in memory and on disk, so
a file whose size and modification time are unchanged is not read again: a snapshot of a 10,000-file
workspace where nothing changed is a walk and a ``stat`` per file (see ``bench/bench_snapshot.py``).

What is left out: folders named in :data:`SNAPSHOT_SKIPPED` (version control, dependency and cache
folders) at any depth, symlinks and anything that is not a regular file, and files over
``max_file_bytes``. A workspace of more than ``max_files`` files is not snapshotted at all
(``Snapshot.complete`` is False, and the instance does not walk it again): its commands' changes
are not journaled. A file modified within
:data:`RACY_NS` of the walk is not cached, as a later change in the same timestamp tick would look
unchanged (git's "racily clean" rule); it is read again next time. A manifest's digests are trusted
without checking that their blobs are still there: a blob deleted by hand makes its file
unrestorable, and the restore says so.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import os
import stat as stat_module
import tempfile
import threading
import time
from pathlib import Path

from circle.adapters._shared.blobs import BLOBS_FOLDER, BlobStore
from circle.application.ports.workspace_snapshots import Snapshot

SNAPSHOT_SKIPPED = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        "node_modules",
        ".venv",
        "__pycache__",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        ".tox",
        ".nox",
    }
)
MAX_FILES = 100_000
MAX_FILE_BYTES = 16 * 1024 * 1024
RACY_NS = 2_000_000_000
MANIFEST_VERSION = 1

Entry = tuple[int, int, str]  # size, mtime_ns, digest


class LocalWorkspaceSnapshots:
    """The ``WorkspaceSnapshots`` port on the machine's disk; one instance per process is enough.

    Args:
        data_dir: the data folder: blobs go to ``blobs/``, manifests to ``snapshots/``.
        skipped: folder names never entered.
        max_files: a workspace with more files is not snapshotted.
        max_file_bytes: larger files are left out.
    """

    def __init__(
        self,
        data_dir: Path,
        *,
        skipped: frozenset[str] = SNAPSHOT_SKIPPED,
        max_files: int = MAX_FILES,
        max_file_bytes: int = MAX_FILE_BYTES,
    ) -> None:
        self._blobs = BlobStore(data_dir / BLOBS_FOLDER)
        self._manifests_dir = data_dir / "snapshots"
        self._skipped = skipped
        self._max_files = max_files
        self._max_file_bytes = max_file_bytes
        self._manifests: dict[str, dict[str, Entry]] = {}
        self._too_large: set[str] = set()
        self._lock = threading.Lock()

    async def snapshot(self, workspace: str) -> Snapshot:
        return await asyncio.to_thread(self.snapshot_now, workspace)

    def snapshot_now(self, workspace: str) -> Snapshot:
        """The snapshot, taken on the calling thread (the benchmark times this)."""
        root = os.path.realpath(workspace)
        with self._lock:
            if root in self._too_large:
                return Snapshot(complete=False)
            cached = self._manifest(root)
            started = time.time_ns()
            walked = self._walk(root)
            if walked is None:
                self._too_large.add(root)
                return Snapshot(complete=False)
            files: dict[str, str] = {}
            kept: dict[str, Entry] = {}
            settled = started - RACY_NS
            for path, size, mtime_ns in walked:
                old = cached.get(path)
                if old is not None and old[0] == size and old[1] == mtime_ns:
                    files[path] = old[2]
                    kept[path] = old
                    continue
                try:
                    digest = self._blobs.put_file(path)
                except OSError:  # gone, or unreadable, since the walk
                    continue
                files[path] = digest
                if mtime_ns < settled:
                    kept[path] = (size, mtime_ns, digest)
            if kept != cached:
                self._manifests[root] = kept
                self._save(root, kept)
            return Snapshot(files)

    def _walk(self, root: str) -> list[tuple[str, int, int]] | None:
        """``(path, size, mtime_ns)`` of every regular file kept; None past ``max_files``."""
        found: list[tuple[str, int, int]] = []
        add = found.append
        pending = [root]
        skipped, largest = self._skipped, self._max_file_bytes
        is_dir, is_file = stat_module.S_ISDIR, stat_module.S_ISREG
        while pending:
            try:
                entries = os.scandir(pending.pop())
            except OSError:
                continue
            with entries:
                for entry in entries:
                    try:
                        st = entry.stat(follow_symlinks=False)
                    except OSError:
                        continue
                    mode = st.st_mode
                    if is_dir(mode):
                        if entry.name not in skipped:
                            pending.append(entry.path)
                    elif is_file(mode) and st.st_size <= largest:
                        add((entry.path, st.st_size, st.st_mtime_ns))
            if len(found) > self._max_files:
                return None
        return found

    def _manifest(self, root: str) -> dict[str, Entry]:
        if root not in self._manifests:
            self._manifests[root] = self._load(root)
        return self._manifests[root]

    def _manifest_path(self, root: str) -> Path:
        name = hashlib.sha256(root.encode("utf-8", "surrogateescape")).hexdigest()[:24]
        return self._manifests_dir / f"{name}.json"

    def _load(self, root: str) -> dict[str, Entry]:
        try:
            raw = json.loads(self._manifest_path(root).read_text(encoding="utf-8"))
            if raw.get("version") != MANIFEST_VERSION or raw.get("workspace") != root:
                return {}
            return {
                os.path.join(root, rel): (int(size), int(mtime), str(digest))
                for rel, (size, mtime, digest) in raw["files"].items()
            }
        except (OSError, ValueError, TypeError, KeyError, AttributeError):
            return {}  # missing or unreadable: every file is read once more

    def _save(self, root: str, manifest: dict[str, Entry]) -> None:
        prefix = root.rstrip(os.sep) + os.sep
        body = {
            "version": MANIFEST_VERSION,
            "workspace": root,
            "files": {path.removeprefix(prefix): list(entry) for path, entry in manifest.items()},
        }
        target = self._manifest_path(root)
        with contextlib.suppress(OSError):  # the manifest only saves time: losing it costs a re-read
            target.parent.mkdir(parents=True, exist_ok=True)
            fd, temp = tempfile.mkstemp(prefix=".manifest.", suffix=".tmp", dir=target.parent)
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as f:
                    json.dump(body, f, separators=(",", ":"))
                os.replace(temp, target)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(temp)
                raise


__all__ = ["MAX_FILES", "MAX_FILE_BYTES", "SNAPSHOT_SKIPPED", "LocalWorkspaceSnapshots"]
