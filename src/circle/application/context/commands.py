"""Custom commands: a Markdown file that names a slash command (``review.md`` is ``/review``), in
the person's ``~/.circle/commands`` or the project's ``.circle/commands``; the project's wins by
name. This version finds them (the welcome lists them); running one as ``/name`` is not there yet.

The folders are read through the :class:`FileSystem` port.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass
from typing import Literal

from circle.application.ports.file_system import FileSystem

COMMANDS_FOLDER = ".circle/commands"
"""Below the person's home folder and below the project's root."""
SUFFIX = ".md"

CommandSource = Literal["user", "project"]


@dataclass(frozen=True, slots=True)
class CommandFile:
    """A custom command's file: ``name`` is what follows the ``/``."""

    name: str
    path: str
    source: CommandSource


async def _folder(files: FileSystem, root: str, source: CommandSource) -> dict[str, CommandFile]:
    try:
        entries = await files.list_dir(root)
    except OSError:
        return {}
    found: dict[str, CommandFile] = {}
    for entry in entries:
        name = posixpath.basename(entry.path.rstrip("/"))
        if name.startswith(".") or not name.endswith(SUFFIX) or len(name) == len(SUFFIX):
            continue
        path = posixpath.join(root, name)
        info = await files.stat(path)
        if info is not None and info.kind == "file":
            found[name.removesuffix(SUFFIX)] = CommandFile(name.removesuffix(SUFFIX), path, source)
    return found


async def find_commands(
    files: FileSystem, *, workspace: str, home: str | None = None
) -> tuple[CommandFile, ...]:
    """The custom commands of the person and the project, by name (a project's wins).

    Args:
        files: Reads the folders.
        workspace: The project's root.
        home: The person's home folder (absolute); None skips their folder.
    """
    found: dict[str, CommandFile] = {}
    if home and home.startswith("/"):
        found.update(await _folder(files, posixpath.join(home, COMMANDS_FOLDER), "user"))
    found.update(await _folder(files, posixpath.join(workspace, COMMANDS_FOLDER), "project"))
    return tuple(found[name] for name in sorted(found))


__all__ = ["COMMANDS_FOLDER", "CommandFile", "CommandSource", "find_commands"]
