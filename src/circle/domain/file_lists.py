"""The files a stretch of conversation read and the files it changed, from its tool calls.

A compaction lists them with its summary (pi's ``readFiles`` and ``modifiedFiles``), so a client
knows which files the summarized work touched. A file both read and changed counts as changed.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import assert_never

from .errors import ToolError
from .messages import Message, ToolCallPart

READS = frozenset({"read_file"})
CHANGES = frozenset({"write_file", "edit_file", "delete"})
"""The tools whose ``file_path`` names a file read, or one written, edited or deleted."""


@dataclass(frozen=True, slots=True)
class FileLists:
    """Sorted paths as the calls named them: read only, and changed."""

    read: tuple[str, ...] = ()
    modified: tuple[str, ...] = ()


def file_lists(messages: Sequence[Message]) -> FileLists:
    """What the tool calls in ``messages`` read and changed; a malformed call names nothing."""
    read: set[str] = set()
    modified: set[str] = set()
    for message in messages:
        for call in message.tool_calls:
            if call.name == "apply_patch":
                modified.update(_patched(call))
            elif (path := _file_path(call)) is not None:
                if call.name in READS:
                    read.add(path)
                elif call.name in CHANGES:
                    modified.add(path)
    return FileLists(read=tuple(sorted(read - modified)), modified=tuple(sorted(modified)))


def _file_path(call: ToolCallPart) -> str | None:
    arguments = call.parsed_arguments()
    path = arguments.get("file_path") if isinstance(arguments, dict) else None
    return path if isinstance(path, str) and path else None


def _patched(call: ToolCallPart) -> Iterable[str]:
    arguments = call.parsed_arguments()
    patch = arguments.get("patch") if isinstance(arguments, dict) else None
    if not isinstance(patch, str):
        return ()
    from .patch import AddFile, DeleteFile, UpdateFile, parse_patch  # loads with the first patch

    try:
        operations = parse_patch(patch)
    except ToolError:
        return ()
    paths: list[str] = []
    for operation in operations:
        match operation:
            case AddFile(path=path) | DeleteFile(path=path):
                paths.append(path)
            case UpdateFile(path=path, move_to=move_to):
                paths.extend([path] if move_to is None else [path, move_to])
            case _:
                assert_never(operation)
    return paths


__all__ = ["CHANGES", "READS", "FileLists", "file_lists"]
