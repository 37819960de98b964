"""One run's choices from the command line, kept light: the root command imports it before it
knows which mode (and so which modules) it needs."""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from circle.application.attachments import Attached, MediaPart


@dataclass
class RunOptions:
    """One run's choices from the command line."""

    workspace: Path
    message: str
    media: tuple[MediaPart, ...] = ()
    """Images and PDFs sent after ``message``'s text."""
    attached: Attached | None = None
    """The files named with ``@file`` on the command line: their text goes in front of ``message``,
    their images and PDFs after it, and the person's row shows them by name."""
    mode: str = "print"
    model: str | None = None
    no_session: bool = False
    continue_last: bool = False
    session: str | None = None
    session_id: str | None = None
    yolo: bool = False
    system_prompt: str | None = None
    append_system_prompt: str | None = None
    context_files: bool = True
    max_turns: int | None = None
    tools: list[str] | None = None
    exclude_tools: list[str] = field(default_factory=list)
    thinking: str | None = None
    max_budget_usd: float | None = None
    approval_mode: str | None = None
    sandbox: str | None = None
    export: Path | None = None
    fork: str | None = None
    """``ID`` or ``ID:CHECKPOINT``: start from a copy of that session up to there."""
    name: str | None = None
    resume: bool = False
    """``-r``: pick the session to continue (the full-screen interface)."""
    rpc_approvals: bool = False
    """``--rpc-approvals``: in RPC mode the client answers what asks (pi's extension UI requests)."""


def read_stdin_message() -> str:
    if sys.stdin is None or sys.stdin.isatty():
        return ""
    return sys.stdin.read()


__all__ = ["RunOptions", "read_stdin_message"]
