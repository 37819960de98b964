"""The full record of a subagent, or the output of a background job, opened from the strip."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from textual import events
from textual.containers import VerticalScroll
from textual.widgets import Static

from circle.application.subagents import SubagentRun
from circle.domain.display import escape_for_display, one_line
from circle.domain.messages import Message
from circle.entrypoints.tui._host import Host
from circle.entrypoints.tui.screens.picker import TextScreen
from circle.entrypoints.tui.widgets.stale_keys import TakesTyping
from circle.entrypoints.tui.widgets.status import StripItem

EVERY_S = 0.5


def record_text(messages: list[Message]) -> str:
    lines: list[str] = []
    for message in messages:
        if message.role == "user":
            lines.append(f"› {message.text}")
            continue
        for call in message.tool_calls:
            lines.append(f"● {call.name} {call.arguments}")
        for result in message.tool_results:
            mark = "✗" if result.is_error else "✓"
            lines.append(f"  {mark} {result.text[:2000]}")
        if message.role == "assistant" and message.text.strip():
            lines.append(message.text)
        lines.append("")
    return escape_for_display("\n".join(lines).rstrip()) or "(nothing yet)"


class LiveRecord(TextScreen):
    """A record read again every :data:`EVERY_S` seconds while it is open: a job's output as the
    job writes it, a subagent's steps as it takes them. Scrolled to the end, it follows the end."""

    def __init__(self, title: str, text: str, *, read: Callable[[], Awaitable[str]]) -> None:
        super().__init__(title, text)
        self.read = read
        self.closing = False
        """A key typed here closed it: the keys read until it goes follow that one."""

    def on_mount(self) -> None:
        self.set_interval(EVERY_S, self.reread)

    def take_typed(self, event: events.Key) -> bool:
        """A printable key typed here (q too) closes the record and goes into the input box below,
        as the app reads it, so the keys read behind it follow it there: typed here, they were
        lost (nothing showed, and the box was empty after esc)."""
        below = next(
            (s for s in reversed(self.app.screen_stack) if s is not self and isinstance(s, TakesTyping)), None
        )
        if below is None or not below.take_typed(event):
            return False
        if self.app.screen is self and not self.closing:
            self.closing = True
            self.dismiss(None)
        return True

    async def reread(self) -> None:
        text = await self.read()
        if text == self.text or not self.is_attached:
            return
        self.text = text
        page = self.query_one("#page-body", VerticalScroll)
        at_end = page.scroll_y >= page.max_scroll_y
        page.query_one(Static).update(text)
        if at_end:
            page.call_after_refresh(page.scroll_end, animate=False)


async def record_screen(host: Host, item: StripItem) -> TextScreen:
    if item.kind == "job":

        async def job_output() -> str:
            return escape_for_display(await host.job_log(item.id)) or "(no output yet)"

        return LiveRecord(f"Background job {one_line(item.label)}", await job_output(), read=job_output)
    for run in host.subagent_runs():
        if run.id == item.id:

            async def steps(run: SubagentRun = run) -> str:
                return record_text(run.messages or [Message.user(run.prompt)])

            header = one_line(f"{run.subagent_type} · {run.description} · {run.status}")
            return LiveRecord(f"Subagent {header}", await steps(), read=steps)
    return TextScreen("Record", "It has ended and is no longer kept here.")


__all__ = ["EVERY_S", "LiveRecord", "record_screen", "record_text"]
