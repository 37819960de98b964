"""What an approval card shows for a file change: the diff the waiting call would make."""

from __future__ import annotations

import posixpath

from pydantic import JsonValue

from circle.application.events import ToolExecutionEnded, ToolExecutionStarted
from circle.application.ports.approver import ApprovalRequest
from circle.application.ports.file_system import FileSystem
from circle.entrypoints.tui._format import edit_preview

FILE_LIMIT = 2_000_000


class Previews:
    """An event sink that keeps the arguments of the calls running, and makes their diffs."""

    def __init__(self, files: FileSystem | None = None) -> None:
        self.files = files
        self.running: dict[str, tuple[str, dict[str, JsonValue]]] = {}

    def emit(self, event: object) -> None:
        if isinstance(event, ToolExecutionStarted):
            self.running[event.tool_call_id] = (event.tool_name, event.args)
        elif isinstance(event, ToolExecutionEnded):
            self.running.pop(event.tool_call_id, None)

    async def preview(self, request: ApprovalRequest) -> str | None:
        if request.kind != "edit":
            return None
        found = [args for name, args in self.running.values() if name == request.tool_name]
        if not found:
            return None
        args = found[-1]
        current = await self._read(request, args)
        return edit_preview(request.tool_name, args, current)

    async def _read(self, request: ApprovalRequest, args: dict[str, JsonValue]) -> str | None:
        path = args.get("file_path")
        if self.files is None or not isinstance(path, str):
            return None
        full = path if path.startswith("/") else posixpath.join(request.workspace, path)
        try:
            info = await self.files.stat(full)
            if info is None or info.kind == "dir":
                return None
            return (await self.files.read_bytes(full, limit=FILE_LIMIT)).decode("utf-8", errors="replace")
        except OSError:
            return None


__all__ = ["Previews"]
