"""Where each streamed event lands in the answer being assembled: which part starts, grows or ends.

A part is named by its position in the assembled message's parts (what pi's RPC protocol calls
``contentIndex``): an answer of text then a tool call has the text at 0 and the call at 1. Parts
follow one another: a new part ends the ones still open, and the end of the stream ends the rest.
A tool call also ends at its own :class:`~circle.domain.model.ToolCallEnded`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from .model import (
    AnswerAssembler,
    ModelEvent,
    StreamRestarted,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
    ToolCallEnded,
    ToolCallStarted,
)

PartKind = Literal["text", "thinking", "toolcall"]


@dataclass(frozen=True, slots=True)
class PartChange:
    """A part of ``kind`` at ``index`` started, got ``delta``, or ended. A tool call's start also
    names its ``stream_index``, the index the wire's stream gave the call."""

    phase: Literal["start", "delta", "end"]
    kind: PartKind
    index: int
    delta: str = ""
    stream_index: int | None = None


class PartTracker:
    """Feeds an :class:`AnswerAssembler` and says what each event changed in its parts."""

    def __init__(self, assembler: AnswerAssembler | None = None) -> None:
        self.assembler = assembler or AnswerAssembler()
        self._open: dict[int, PartKind] = {}
        self._calls: dict[int, int] = {}
        """A tool call's stream index -> its part's position."""

    def add(self, event: ModelEvent) -> list[PartChange]:
        """Add ``event`` to the answer; the changes it made, in order."""
        before = self.assembler.part_count
        self.assembler.add(event)
        match event:
            case StreamRestarted():  # the answer starts again from nothing
                self._open, self._calls = {}, {}
                return []
            case TextDelta(text=text):
                return self._grow("text", before, text)
            case ThinkingDelta(text=text):
                return self._grow("thinking", before, text)
            case ToolCallStarted(index=index):
                self._calls[index] = self.assembler.part_count - 1
                changes = self._grow("toolcall", before, "")
                return [
                    PartChange(c.phase, c.kind, c.index, stream_index=index) if c.kind == "toolcall" else c
                    for c in changes
                ]
            case ToolCallDelta(index=index, arguments=arguments):
                position = self._calls.get(index)
                if position is None or not arguments:
                    return []
                return [PartChange("delta", "toolcall", position, arguments)]
            case ToolCallEnded(index=index):
                position = self._calls.get(index)
                if position is None or position not in self._open:
                    return []
                return [self._end(position)]
            case _:
                return []

    def finish(self) -> list[PartChange]:
        """The stream has ended: every part still open ends."""
        return [self._end(position) for position in sorted(self._open)]

    def _grow(self, kind: PartKind, before: int, delta: str) -> list[PartChange]:
        count = self.assembler.part_count
        if count == 0:
            return []
        changes: list[PartChange] = []
        position = count - 1
        if count > before:
            changes += self.finish()
            self._open[position] = kind
            changes.append(PartChange("start", kind, position))
        if delta:
            changes.append(PartChange("delta", kind, position, delta))
        return changes

    def _end(self, position: int) -> PartChange:
        kind = self._open.pop(position)
        return PartChange("end", kind, position)


__all__ = ["PartChange", "PartKind", "PartTracker"]
