"""What an approval card and a tool row show for a file change: the diff the call makes, from the
file as it was when the call started."""

from __future__ import annotations

import asyncio
import posixpath

from pydantic import JsonValue

from circle.application.events import ToolExecutionEnded, ToolExecutionStarted
from circle.application.ports.approver import ApprovalRequest
from circle.application.ports.file_system import FileSystem
from circle.entrypoints.tui._format import edit_preview

FILE_LIMIT = 2_000_000
FILE_TOOLS = frozenset({"write_file", "edit_file", "delete"})
"""The tools whose row diff needs the file as it was (apply_patch's patch is its own diff)."""


class Previews:
    """An event sink that keeps the arguments of the calls running, and makes their diffs."""

    def __init__(self, files: FileSystem | None = None, *, workspace: str = "") -> None:
        self.files = files
        self.workspace = workspace
        self.running: dict[str, tuple[str, dict[str, JsonValue]]] = {}
        self.shown: dict[str, str] = {}
        """The diff each call's approval card showed, by call id."""
        self.before: dict[str, tuple[str, dict[str, JsonValue], asyncio.Future[str | None]]] = {}

    def emit(self, event: object) -> None:
        if isinstance(event, ToolExecutionStarted):
            self.running[event.tool_call_id] = (event.tool_name, event.args)
            if event.tool_name in FILE_TOOLS:  # read now: the call changes the file soon after
                read = asyncio.ensure_future(self._read(self.workspace, event.args))
                self.before[event.tool_call_id] = (event.tool_name, event.args, read)
        elif isinstance(event, ToolExecutionEnded):
            self.running.pop(event.tool_call_id, None)

    async def diff(self, call_id: str) -> str | None:
        """The diff a file call made: the one its approval card showed, else the one from the file
        as read when the call started (None when it is not a file call or its file is unreadable)."""
        if (shown := self.shown.pop(call_id, None)) is not None:
            self.before.pop(call_id, None)
            return shown
        if (started := self.before.pop(call_id, None)) is None:
            return None
        name, args, read = started
        return edit_preview(name, args, await read)

    async def preview(self, request: ApprovalRequest) -> str | None:
        if request.kind != "edit":
            return None
        found = [
            (call_id, args) for call_id, (name, args) in self.running.items() if name == request.tool_name
        ]
        if not found:
            return None
        call_id, args = found[-1]
        current = await self._read(request.workspace, args)
        diff = edit_preview(request.tool_name, args, current)
        if diff is not None:
            self.shown[call_id] = diff
        return diff

    async def _read(self, workspace: str, args: dict[str, JsonValue]) -> str | None:
        path = args.get("file_path")
        if self.files is None or not isinstance(path, str):
            return None
        full = path if path.startswith("/") else posixpath.join(workspace, path)
        try:
            info = await self.files.stat(full)
            if info is None or info.kind == "dir":
                return None
            return (await self.files.read_bytes(full, limit=FILE_LIMIT)).decode("utf-8", errors="replace")
        except OSError:
            return None


__all__ = ["Previews"]
