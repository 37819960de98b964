"""The full record of a subagent, or the output of a background job, opened from the strip."""

from __future__ import annotations

from circle.domain.display import escape_for_display, one_line
from circle.domain.messages import Message
from circle.entrypoints.tui._host import Host
from circle.entrypoints.tui.screens.picker import TextScreen
from circle.entrypoints.tui.widgets.status import StripItem


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


async def record_screen(host: Host, item: StripItem) -> TextScreen:
    if item.kind == "job":
        log = await host.job_log(item.id)
        shown = escape_for_display(log) or "(no output yet)"
        return TextScreen(f"Background job {one_line(item.label)}", shown)
    for run in host.subagent_runs():
        if run.id == item.id:
            header = one_line(f"{run.subagent_type} · {run.description} · {run.status}")
            return TextScreen(f"Subagent {header}", record_text(run.messages or [Message.user(run.prompt)]))
    return TextScreen("Record", "It has ended and is no longer kept here.")


__all__ = ["record_screen", "record_text"]
