"""ScriptedModel: a ModelClient that plays back answers written in advance."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass

from circle.domain.errors import ModelError
from circle.domain.messages import StopReason, Usage
from circle.domain.model import (
    Finished,
    ModelEvent,
    ModelRequest,
    ResponseIdentified,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
    ToolCallEnded,
    ToolCallStarted,
    UsageReported,
)


@dataclass(frozen=True, slots=True)
class Call:
    """A tool call for :func:`answer`."""

    name: str
    args: dict[str, object]
    id: str | None = None


def answer(
    text: str = "",
    *calls: Call,
    thinking: str = "",
    usage: Usage | None = None,
    stop: StopReason | None = None,
) -> list[ModelEvent]:
    """The events of one model answer: optional thinking, text, then tool calls."""
    events: list[ModelEvent] = []
    if thinking:
        events.append(ThinkingDelta(text=thinking))
    if text:
        half = max(1, len(text) // 2)
        events += [TextDelta(text=text[:half])] + ([TextDelta(text=text[half:])] if text[half:] else [])
    for index, call in enumerate(calls):
        call_id = call.id or f"call_{index}_{call.name}"
        events += [
            ToolCallStarted(index=index, id=call_id, name=call.name),
            ToolCallDelta(index=index, arguments=json.dumps(call.args)),
            ToolCallEnded(index=index),
        ]
    events.append(UsageReported(usage=usage or Usage(input=10, output=5)))
    final = stop or (StopReason.TOOL_USE if calls else StopReason.END)
    events.append(Finished(stop_reason=final, model="scripted"))
    return events


Step = Sequence[ModelEvent] | ModelError | Callable[[ModelRequest], Sequence[ModelEvent]]


class ScriptedModel:
    """Plays one scripted answer per request and records every request it saw.

    Each step is a list of events (see :func:`answer`), a ``ModelError`` to raise, or a function
    of the request returning events. When the script runs out, the model answers "(script ended)".
    Like an endpoint, it names each response first (``scripted-1``, ``scripted-2``, … by request),
    unless the step's first event names it.
    """

    def __init__(self, steps: Sequence[Step] = ()) -> None:
        self._steps = list(steps)
        self.requests: list[ModelRequest] = []
        self.closed = False

    def add(self, *steps: Step) -> None:
        self._steps.extend(steps)

    @property
    def remaining(self) -> int:
        return len(self._steps)

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        self.requests.append(request)
        step: Step = self._steps.pop(0) if self._steps else answer("(script ended)")
        if isinstance(step, ModelError):
            raise step
        events = iter(step(request) if callable(step) else step)
        first = next(events, None)  # read lazily: a test may check how far its stream was read
        if not isinstance(first, ResponseIdentified):
            yield ResponseIdentified(f"scripted-{len(self.requests)}")
        if first is not None:
            yield first
        for event in events:
            yield event

    async def aclose(self) -> None:
        self.closed = True


__all__ = ["Call", "ScriptedModel", "Step", "answer"]
