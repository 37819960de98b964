"""The event bus: fans events out to sinks; a sink that throws cannot stop the agent."""

from __future__ import annotations

import logging

from .events import AgentEvent
from .ports.event_sink import EventSink

log = logging.getLogger("circle.events")


class EventBus:
    """An :class:`EventSink` that forwards to every subscribed sink."""

    def __init__(self, *sinks: EventSink) -> None:
        self._sinks: list[EventSink] = list(sinks)

    def subscribe(self, sink: EventSink) -> None:
        self._sinks.append(sink)

    def unsubscribe(self, sink: EventSink) -> None:
        if sink in self._sinks:
            self._sinks.remove(sink)

    def emit(self, event: AgentEvent) -> None:
        for sink in list(self._sinks):
            try:
                sink.emit(event)
            except Exception:
                log.exception("an event sink failed on %s", type(event).__name__)
