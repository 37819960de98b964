"""The welcome a new session opens with: where Circle works and how to begin, then what it found
for this folder (the instruction files it reads, the skills the model may use) and the folder's
latest sessions, each with when it was last used.

The first line shows at once; the rest is looked up in a worker and added when known, so the
screen never waits for the disk.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from rich.text import Text
from textual.widgets import Static

from circle.application.context.system_prompt import instruction_files
from circle.domain.display import escape_for_display, one_line
from circle.domain.errors import CircleError
from circle.entrypoints.tui._host import Host
from circle.entrypoints.tui._recent import session_label

RECENT = 3
"""How many of the folder's latest sessions the welcome lists."""
LABEL_WIDTH = 14


@dataclass(frozen=True, slots=True)
class Found:
    """What the welcome lists beneath its first line."""

    instructions: tuple[str, ...] = ()
    """The instruction files read into the system prompt (``AGENTS.md``, ``~/.claude/CLAUDE.md``)."""
    instructions_off: bool = False
    """``--no-context-files``: none are read."""
    skills: tuple[str, ...] = ()
    recent: tuple[str, ...] = ()
    """The latest sessions of the folder, one line each."""


async def look_around(host: Host, *, now: float) -> Found:
    """The instruction files, skills and latest sessions of the host's folder."""
    runtime = host.runtime
    home = runtime.options.home if runtime.options.home.startswith("/") else None
    off = not runtime.options.prompt.context_files
    read = [] if off else await instruction_files(runtime.ports.files, host.workspace, home)
    skills = [name for name, _ in await host.skills()]
    sessions = [s for s in await host.sessions() if s.id != host.session.session_id and s.message_count]
    return Found(
        instructions=tuple(label for label, _ in read),
        instructions_off=off,
        skills=tuple(skills),
        recent=tuple(session_label(s, now=now) for s in sessions[:RECENT]),
    )


class Welcome(Static):
    """The welcome: its first line now, what was found once :meth:`fill` has looked."""

    after: int | None = 0
    """Kept at the top through a redraw (see :mod:`.said`)."""

    def __init__(self, workspace: str) -> None:
        self.workspace = workspace
        self.session: str | None = None
        """The session it welcomes (once :meth:`fill` has started)."""
        self.found: Found | None = None
        self.first = (
            f"Circle in {escape_for_display(workspace, newlines=False)}. Type a message and press enter; "
            "/help lists the commands, ctrl+c twice leaves."
        )
        super().__init__(Text(self.first), classes="notice welcome")

    async def fill(self, host: Host) -> None:
        """Look up what the folder has and show it (nothing more when it cannot be looked up)."""
        self.session = host.session.session_id
        try:
            found = await look_around(host, now=time.time())
        except (CircleError, OSError):
            return
        self.show(found)

    def again(self) -> Welcome:
        """The welcome as it shows now, new."""
        again = Welcome(self.workspace)
        again.session = self.session
        if self.found is not None:
            again.show(self.found)
        return again

    def show(self, found: Found) -> None:
        self.found = found
        text = Text(self.first)
        rows: list[tuple[str, list[str]]] = []
        if found.instructions_off:
            rows.append(("Instructions", ["none read (--no-context-files)"]))
        elif found.instructions:
            rows.append(("Instructions", [", ".join(found.instructions)]))
        if found.skills:
            rows.append(("Skills", [one_line(", ".join(found.skills), 200)]))
        if found.recent:
            rows.append(("Recent", [*found.recent, "/resume picks one of them"]))
        if rows:
            text.append("\n")
        for label, lines in rows:
            for index, line in enumerate(lines):
                text.append("\n" + (label if index == 0 else "").ljust(LABEL_WIDTH), style="bold")
                text.append(line, style="dim" if line.startswith("/resume") else "")
        self.update(text)


__all__ = ["Found", "Welcome", "look_around"]
