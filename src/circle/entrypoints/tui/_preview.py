"""What an approval card shows for a file change: the diff the call would make, from the file as
it is when the card opens. A finished call's row shows the diff the tool itself made (it reads the
file before changing it, see ``ToolExecutionEnded.diff``); the card's diff is only its fallback.
While the card is up, the call's row shows the same diff: :class:`PreviewShown` reaches the
conversation through the same sink as the runtime's events, after the call's start."""

from __future__ import annotations

import posixpath
from collections.abc import Callable
from dataclasses import dataclass

from pydantic import JsonValue

from circle.application.events import ToolExecutionEnded, ToolExecutionStarted
from circle.application.ports.approver import ApprovalRequest
from circle.application.ports.file_system import FileSystem
from circle.entrypoints.tui._format import edit_preview

FILE_LIMIT = 2_000_000


@dataclass(frozen=True, slots=True)
class PreviewShown:
    """A file call's approval card shows ``diff``: its row shows it too."""

    tool_call_id: str
    diff: str


class Previews:
    """An event sink that keeps the arguments of the calls running, and makes their cards' diffs."""

    def __init__(self, files: FileSystem | None = None, *, workspace: str = "") -> None:
        self.files = files
        self.workspace = workspace
        self.running: dict[str, tuple[str, dict[str, JsonValue]]] = {}
        self.shown: dict[str, str] = {}
        """The diff each call's approval card showed, by call id."""
        self.tell: Callable[[object], None] = lambda _: None
        """Where :class:`PreviewShown` goes (the sink that hands events to the session screen)."""

    def emit(self, event: object) -> None:
        if isinstance(event, ToolExecutionStarted):
            self.running[event.tool_call_id] = (event.tool_name, event.args)
        elif isinstance(event, ToolExecutionEnded):
            self.running.pop(event.tool_call_id, None)
            if event.diff is not None:  # the row shows the tool's own diff
                self.shown.pop(event.tool_call_id, None)

    async def diff(self, call_id: str) -> str | None:
        """The diff a file call's approval card showed, for a call whose tool kept none (None when
        no card showed one). A file is never read after the call: by then it has changed."""
        return self.shown.pop(call_id, None)

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
            self.tell(PreviewShown(call_id, diff))
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


__all__ = ["PreviewShown", "Previews"]
