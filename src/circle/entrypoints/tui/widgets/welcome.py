"""The welcome a new session opens with: where Circle works and how to begin, then what it found
for this folder (the instruction files it reads, the skills the model may use, the custom
commands of ``.circle/commands``, which ``/name`` runs) and the folder's latest sessions, each
with when it was last used. No row shows for what was not found.

The first line shows at once; the rest is looked up in a worker and added when known, so the
screen never waits for the disk.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from rich.cells import cell_len
from rich.text import Text
from textual import events
from textual.widgets import Static

from circle.application.context.commands import load_commands
from circle.application.context.system_prompt import instruction_files
from circle.domain.display import escape_for_display, one_line
from circle.domain.errors import CircleError
from circle.entrypoints.tui._host import Host
from circle.entrypoints.tui._recent import session_label
from circle.entrypoints.tui._slash import custom_entries

RECENT = 3
"""How many of the folder's latest sessions the welcome lists."""
LABEL_WIDTH = 14
MIN_ROOM = 12
"""Columns beside the labels kept for their lines however narrow the view (they wrap beyond it)."""
TITLE_ROOM = 24
"""Columns a session's when and title keep before its message count gives way to them."""
RECENT_NOTE = "/resume picks one of them"


@dataclass(frozen=True, slots=True)
class Found:
    """What the welcome lists beneath its first line."""

    instructions: tuple[str, ...] = ()
    """The instruction files read into the system prompt (``AGENTS.md``, ``~/.claude/CLAUDE.md``)."""
    instructions_off: bool = False
    """``--no-context-files``: none are read."""
    skills: tuple[str, ...] = ()
    commands: tuple[str, ...] = ()
    """The custom commands' names (``review`` for ``.circle/commands/review.md``)."""
    recent: tuple[str, ...] = ()
    """The latest sessions of the folder, one line each."""


async def look_around(host: Host, *, now: float) -> Found:
    """The instruction files, skills, custom commands and latest sessions of the host's folder."""
    runtime = host.runtime
    home = runtime.options.home if runtime.options.home.startswith("/") else None
    off = not runtime.options.prompt.context_files
    read = [] if off else await instruction_files(runtime.ports.files, host.workspace, home)
    skills = [name for name, _ in await host.skills()]
    catalog = await load_commands(
        runtime.ports.files, workspace=host.workspace, home=home, project=host.trusted
    )
    commands = custom_entries(catalog.commands)  # a bad file, or one named as a built-in, left out
    sessions = [s for s in await host.sessions() if s.id != host.session.session_id and s.message_count]
    return Found(
        instructions=tuple(label for label, _ in read),
        instructions_off=off,
        skills=tuple(skills),
        commands=tuple(command.name for command in commands),
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
        self.columns: int | None = None
        """The columns its lines are laid out in (None until it is first laid out)."""
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
        self.update(self._text())

    def on_resize(self, event: events.Resize) -> None:
        """Lay the lines out again for the new width (cut or wrapped under their column)."""
        if event.size.width and event.size.width != self.columns:
            self.columns = event.size.width
            if self.found is not None:
                self.update(self._text())

    def _text(self) -> Text:
        """The first line, then each label with its lines in a column beside it: a session's line
        cut with ``…`` to the width, a list wrapped under its column (never back under the label)."""
        found = self.found
        text = Text(self.first)
        if found is None:
            return text
        rows: list[tuple[str, list[str], bool]] = []
        if found.instructions_off:
            rows.append(("Instructions", ["none read (--no-context-files)"], False))
        elif found.instructions:
            rows.append(("Instructions", [", ".join(found.instructions)], False))
        if found.skills:
            rows.append(("Skills", [one_line(", ".join(found.skills), 200)], False))
        if found.commands:
            names = one_line(", ".join("/" + name for name in found.commands), 200)
            rows.append(("Commands", [names], False))
        if found.recent:
            rows.append(("Recent", [*found.recent, RECENT_NOTE], True))
        if rows:
            text.append("\n")
        room = None if self.columns is None else max(self.columns - LABEL_WIDTH, MIN_ROOM)
        for label, lines, cut in rows:
            for index, line in enumerate(lines):
                style = "dim" if line == RECENT_NOTE else ""
                for part, shown in enumerate(_laid_out(line, room, cut=cut)):
                    head = label if index == 0 and part == 0 else ""
                    text.append("\n" + head.ljust(LABEL_WIDTH), style="bold")
                    text.append(shown, style=style)
        return text


def _laid_out(line: str, room: int | None, *, cut: bool) -> list[str]:
    """``line`` within ``room`` columns (as it is when the width is not known yet): cut with ``…``
    (a session's title before its count, the count left out when even that does not fit), or
    wrapped at spaces into lines (a word longer than ``room`` cut)."""
    if room is None or cell_len(line) <= room:
        return [line]
    if cut:  # a session's title gives way to its count while it keeps TITLE_ROOM, else the count goes
        title, said, count = line.rpartition("  · ")
        if not said:
            return [_cut(line, room)]
        if cell_len(said + count) + TITLE_ROOM <= room:
            return [_cut(title, room - cell_len(said + count)) + said + count]
        return [_cut(title, room)]
    lines: list[str] = []
    for word in line.split(" "):
        joined = f"{lines[-1]} {word}" if lines else word
        if lines and cell_len(joined) <= room:
            lines[-1] = joined
        else:
            lines.append(_cut(word, room))
    return lines


def _cut(line: str, room: int) -> str:
    text = Text(line)
    text.truncate(room, overflow="ellipsis")
    return text.plain


__all__ = ["Found", "Welcome", "look_around"]
