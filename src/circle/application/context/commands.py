"""Custom commands: a Markdown file that names a slash command (``review.md`` is ``/review``), in
the person's ``~/.circle/commands`` or the project's ``.circle/commands``; the project's wins by
name. :func:`load_commands` reads them (each file's template, see
:mod:`circle.domain.custom_commands`) and :meth:`CommandCatalog.expand` turns ``/review a.py`` into
the message the model gets: the interface and print mode both go through here.

The project's folder is read only when the caller says the folder is trusted. A file that cannot
be used (unreadable, not UTF-8, bad front matter) is left out and named in ``problems``.
The folders are read through the :class:`FileSystem` port.
"""

from __future__ import annotations

import posixpath
from collections.abc import Collection
from dataclasses import dataclass

from circle.application.ports.file_system import FileSystem
from circle.domain.custom_commands import CommandSource, CustomCommand, expand, parse_command
from circle.domain.errors import ConfigError
from circle.domain.front_matter import FileProblem

COMMANDS_FOLDER = ".circle/commands"
"""Below the person's home folder and below the project's root."""
SUFFIX = ".md"
MAX_COMMAND_BYTES = 256_000


@dataclass(frozen=True, slots=True)
class CommandFile:
    """A custom command's file: ``name`` is what follows the ``/``."""

    name: str
    path: str
    source: CommandSource


@dataclass(frozen=True, slots=True)
class CommandCatalog:
    """The custom commands read, by name, and the files that could not be used."""

    commands: tuple[CustomCommand, ...] = ()
    problems: tuple[FileProblem, ...] = ()

    def find(self, name: str) -> CustomCommand | None:
        """The command called ``name`` (letter case ignored when that is unambiguous)."""
        exact = [c for c in self.commands if c.name == name]
        folded = [c for c in self.commands if c.name.casefold() == name.casefold()]
        found = exact or folded
        return found[0] if len(found) == 1 else None

    def problems_for(self, name: str) -> tuple[FileProblem, ...]:
        """The problems of the files left out that would have been the command ``name``."""
        wanted = f"{name.casefold()}{SUFFIX}"
        return tuple(p for p in self.problems if posixpath.basename(p.path).casefold() == wanted)

    def expand(self, text: str, *, reserved: Collection[str] = ()) -> str | None:
        """``text`` as the model gets it when it is ``/name arguments`` of a command here (not one
        of the ``reserved`` names, the face's own commands); None when it is not."""
        stripped = text.strip()
        if not stripped.startswith("/") or stripped.startswith("//"):
            return None
        head, _, rest = stripped[1:].partition(" ")
        if not head or "/" in head or head.lower() in reserved:
            return None
        command = self.find(head)
        return None if command is None else expand(command.template, rest)


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
        if " " in name or "/" in name:
            continue
        path = posixpath.join(root, name)
        info = await files.stat(path)
        if info is not None and info.kind == "file":
            found[name.removesuffix(SUFFIX)] = CommandFile(name.removesuffix(SUFFIX), path, source)
    return found


async def find_commands(
    files: FileSystem, *, workspace: str, home: str | None = None, project: bool = True
) -> tuple[CommandFile, ...]:
    """The custom commands' files of the person and the project, by name (a project's wins).

    Args:
        files: Reads the folders.
        workspace: The project's root.
        home: The person's home folder; None, or one not absolute, skips their folder.
        project: Read the project's folder (only for a trusted folder).
    """
    found: dict[str, CommandFile] = {}
    if home and home.startswith("/"):
        found.update(await _folder(files, posixpath.join(home, COMMANDS_FOLDER), "user"))
    if project:
        found.update(await _folder(files, posixpath.join(workspace, COMMANDS_FOLDER), "project"))
    return tuple(found[name] for name in sorted(found))


async def read_command(files: FileSystem, found: CommandFile) -> CustomCommand:
    """The command in ``found``'s file.

    Raises:
        ConfigError: it cannot be read, is not UTF-8, or its front matter is bad.
    """
    try:
        data = await files.read_bytes(found.path, limit=MAX_COMMAND_BYTES)
        text = data.decode("utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot be read: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise ConfigError("is not UTF-8 text") from None
    return parse_command(text, name=found.name, path=found.path, source=found.source)


async def load_commands(
    files: FileSystem, *, workspace: str, home: str | None = None, project: bool = True
) -> CommandCatalog:
    """Every usable custom command (the arguments as :func:`find_commands`'s), and the problems
    of the files left out."""
    commands: list[CustomCommand] = []
    problems: list[FileProblem] = []
    for found in await find_commands(files, workspace=workspace, home=home, project=project):
        try:
            commands.append(await read_command(files, found))
        except ConfigError as exc:
            problems.append(FileProblem(found.path, exc.message))
    return CommandCatalog(tuple(commands), tuple(problems))


async def expand_message(
    files: FileSystem, text: str, *, workspace: str, home: str | None = None, project: bool = True
) -> tuple[str | None, tuple[FileProblem, ...]]:
    """``text`` as the model gets it when it is ``/name arguments`` of a custom command (None when
    it is not), and the problems of a file of that name left out (the arguments as
    :func:`find_commands`'s). Nothing is read for a text that does not start with ``/``."""
    if not text.lstrip().startswith("/"):
        return None, ()
    catalog = await load_commands(files, workspace=workspace, home=home, project=project)
    return catalog.expand(text), catalog.problems_for(text.strip()[1:].partition(" ")[0])


__all__ = [
    "COMMANDS_FOLDER",
    "CommandCatalog",
    "CommandFile",
    "CommandSource",
    "expand_message",
    "find_commands",
    "load_commands",
    "read_command",
]
