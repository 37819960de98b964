"""EventSink: where the agent's events go (a printer, a JSON stream, the TUI, a test)."""

from __future__ import annotations

from typing import Protocol

from circle.application.events import AgentEvent


class EventSink(Protocol):
    """``emit`` must not block; an exception it raises is logged and never stops the agent."""

    def emit(self, event: AgentEvent) -> None: ...
