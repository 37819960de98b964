"""Files for `circle export`, `circle import` and `--export PATH`: reading, writing, one-line errors."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from circle.application.ports.session_store import SessionStore
from circle.application.transfer import TransferStore, export_session, render
from circle.domain.errors import ConfigError
from circle.domain.export import ExportFormat, SessionArchive, format_from_name, from_jsonl


def transfer_store(store: SessionStore) -> TransferStore:
    """The store as the transfer service needs it (the port has the branch and label methods)."""
    return store


def read_archive(path: Path) -> SessionArchive:
    """The JSONL export at ``path``, checked whole. Raises ConfigError naming the file and line."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read {path}: {getattr(exc, 'strerror', None) or exc}") from None
    try:
        return from_jsonl(text)
    except ConfigError as exc:
        raise ConfigError(f"{path}: {exc.message}") from None


def write_text(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` whole or not at all. Raises ConfigError when it cannot."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
                handle.write(text)
            os.replace(temporary, path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
    except OSError as exc:
        raise ConfigError(f"cannot write {path}: {exc.strerror or exc}") from None


async def export_file(
    store: SessionStore,
    session_id: str,
    path: Path,
    *,
    export_format: ExportFormat | None = None,
    branch: str | None = None,
) -> None:
    """Write the session to ``path`` in ``export_format``, else the format its extension names;
    Markdown and HTML show ``branch`` (the one the session is on: by default main), JSONL them all."""
    chosen = export_format or format_from_name(path.name)
    archive = await export_session(transfer_store(store), session_id)
    write_text(path, render(archive, chosen, branch=branch))


__all__ = ["export_file", "read_archive", "transfer_store", "write_text"]
