"""How sessions are listed in the interface: when each was last used, said as people say it
(``just now``, ``5m ago``, ``2h ago``, ``3d ago``, ``3 Nov``, ``3 Nov 2025``), with its name and size.

The session picker (``-r`` and ``/resume``) and the welcome list them the same way.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from circle.application.ports.session_store import SessionInfo
from circle.domain.display import one_line

MINUTE, HOUR, DAY = 60, 3600, 86400
WHEN_WIDTH = 11
"""Wide enough for ``59m ago``, ``23h ago``, ``30 Nov`` and ``30 Oct 2025``, so the titles line
up (a date with its year pushed its title two columns right of the others')."""


def relative_when(then: float, now: float) -> str:
    """When ``then`` was, seen from ``now`` (both seconds since the epoch): minutes, hours or days
    ago within a week, else the day and month (and the year, when it is not this one)."""
    seconds = now - then
    if seconds < MINUTE:
        return "just now"
    if seconds < HOUR:
        return f"{int(seconds // MINUTE)}m ago"
    if seconds < DAY:
        return f"{int(seconds // HOUR)}h ago"
    if seconds < 7 * DAY:
        return f"{int(seconds // DAY)}d ago"
    day, this_year = time.localtime(then), time.localtime(now).tm_year
    shown = f"{day.tm_mday} {time.strftime('%b', day)}"
    return shown if day.tm_year == this_year else f"{shown} {day.tm_year}"


def session_label(info: SessionInfo, *, now: float, width: int = 60) -> str:
    """One line for a session: when it was last used, its name or title, and how many messages."""
    title = one_line(info.name or info.title or "(untitled)", width)
    count = f"{info.message_count} message{'' if info.message_count == 1 else 's'}"
    return f"{relative_when(info.updated_at, now):<{WHEN_WIDTH}}  {title}  · {count}"


def session_choices(sessions: Sequence[SessionInfo], *, now: float) -> list[tuple[str, str]]:
    """The picker's items: (session id, label), as the store lists them (the latest first); a
    session without messages (earlier versions stored one at every start) is not offered."""
    return [(info.id, session_label(info, now=now)) for info in sessions if info.message_count]


__all__ = ["relative_when", "session_choices", "session_label"]
