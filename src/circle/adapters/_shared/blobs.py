"""The content-addressed blob store in the data folder: ``<data>/blobs/ab/cdef…`` by sha256.

Shared by the file journal (``adapters/storage``) and the workspace snapshots (``adapters/local``):
both keep file contents here, and a restore reads them back. A blob is written once, to a temporary
file beside its place and renamed over it, so a reader sees the whole blob or none. Blobs are not
fsynced one by one (a first snapshot writes thousands); instead every read checks the content
against its name, and a blob that fails the check is reported missing. Nothing is ever deleted here
(no garbage collection yet).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import tempfile
from pathlib import Path

BLOBS_FOLDER = "blobs"


class BlobStore:
    """Blobs below ``root``; thread-safe (each write is a rename), safe to share between processes."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def path(self, digest: str) -> Path:
        return self.root / digest[:2] / digest[2:]

    def has(self, digest: str) -> bool:
        return os.path.exists(self.path(digest))

    def put(self, data: bytes) -> str:
        """Keep ``data``; its digest."""
        digest = hashlib.sha256(data).hexdigest()
        if not self.has(digest):
            self._write(digest, data)
        return digest

    def put_file(self, path: str) -> str:
        """Read the file at ``path`` and keep it; its digest. ``OSError`` when it cannot be read."""
        with open(path, "rb") as f:
            data = f.read()
        return self.put(data)

    def get(self, digest: str) -> bytes:
        """The blob's content. ``FileNotFoundError`` when it is missing or does not match its name."""
        where = self.path(digest)
        with open(where, "rb") as f:
            data = f.read()
        if hashlib.sha256(data).hexdigest() != digest:
            raise FileNotFoundError(
                2, "the blob is damaged (its content does not match its name)", str(where)
            )
        return data

    def _write(self, digest: str, data: bytes) -> None:
        folder = self.root / digest[:2]
        folder.mkdir(parents=True, exist_ok=True)
        fd, temp = tempfile.mkstemp(prefix=".blob.", suffix=".tmp", dir=folder)
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            os.replace(temp, self.path(digest))
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temp)
            raise


__all__ = ["BLOBS_FOLDER", "BlobStore"]
