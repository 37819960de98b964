"""The person's messages as they typed them: attached files as chips, long pastes folded, and a
``!command`` that went with a message as its command row. A background job's notice is a notice,
not the person's. Plan mode switched with a message shows as no row of its own: the switch said
it when it was made (shift+tab's line, kept through /undo, /redo and /tree) and the footer says
the mode in force, so a notice with the message would say it twice.

The model reads more than this (the notices, the command's output, the files' contents): the
message's :class:`~circle.domain.messages.Shown` says what the person typed and what went with it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from rich.text import Text
from textual.widgets import Static

from circle.application.attachments import find_mentions
from circle.domain.compaction import is_summary
from circle.domain.display import escape_for_display
from circle.domain.messages import Message

PASTED = re.compile(r"\[pasted text #\d+, \d+ lines\]")
"""A long paste as the input box folds it."""
CHIP = "bold reverse"


def typed_text(typed: str, *, files: Sequence[str] = (), mark: str = "›") -> Text:
    """``typed`` with the attached files' @mentions as chips and folded pastes dim; files attached
    that it does not mention follow as chips of their own."""
    text = Text(f"{mark} ", style="bold")
    shown_files = set(files)
    spans = [(m.start, m.end, "chip") for m in find_mentions(typed) if m.path in shown_files]
    spans += [(m.start(), m.end(), "paste") for m in PASTED.finditer(typed)]
    at = 0
    mentioned: set[str] = set()
    for start, end, kind in sorted(spans):
        if start < at:
            continue
        text.append(escape_for_display(typed[at:start]))
        word = typed[start:end]
        if kind == "chip":
            mentioned.add(next(m.path for m in find_mentions(word)))
            text.append(f" {escape_for_display(word, newlines=False)} ", style=CHIP)
        else:
            text.append(word, style="dim italic")
        at = end
    text.append(escape_for_display(typed[at:]))
    for name in files:
        if name not in mentioned:
            text.append("  ")
            text.append(f" @{escape_for_display(name, newlines=False)} ", style=CHIP)
    return text


class UserRow(Static):
    """What the person typed."""

    def __init__(self, typed: str, *, files: Sequence[str] = (), mark: str = "›") -> None:
        super().__init__(typed_text(typed, files=files, mark=mark), classes="user")


def person_rows(message: Message, *, live: bool) -> list[Static]:
    """The rows a user message shows as. ``live``: it is being sent now, so its ``!command`` rows
    are on screen already (shown when the command ran); a stored one shows them again."""
    from circle.entrypoints.tui.widgets.conversation import Notice, ShellRow

    shown = message.shown
    if is_summary(message):  # a compaction's summary of what came before: Circle's, not typed
        return [Notice(message.text, kind="summary")]
    if shown is None:
        return [UserRow(message.text)]
    if shown.source == "job":
        from circle.application.jobs import notice_for_person

        return [Notice(notice_for_person(message.text), kind="job")]
    rows: list[Static] = []
    for aside in shown.asides:
        if aside.kind == "command" and not live:
            said = "went to the model with the message below"
            rows.append(ShellRow(aside.text, aside.output, code=aside.exit_code, sent=True, said=said))
    rows.append(UserRow(shown.typed, files=shown.files))
    return rows


__all__ = ["UserRow", "person_rows", "typed_text"]
