"""EndpointProbe: asking an endpoint which models it has and which protocol it speaks."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from circle.domain.settings import Protocol as WireProtocol


@dataclass(frozen=True, slots=True)
class ProbeResult:
    base_url: str
    protocol: WireProtocol
    models: tuple[str, ...]


class EndpointProbe(Protocol):
    async def probe(self, base_url: str, api_key: str | None, *, timeout_s: float) -> ProbeResult:
        """Raises a :class:`~circle.domain.errors.ModelError` when no candidate URL answers."""
        ...
