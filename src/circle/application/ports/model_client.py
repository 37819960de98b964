"""ModelClient: one streamed model call in, normalized events out."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Protocol

from circle.domain.model import ModelEvent, ModelRequest


class ModelClient(Protocol):
    """Talks to one endpoint in one wire protocol.

    ``stream`` yields :data:`ModelEvent` values and ends after :class:`Finished`, or raises a
    :class:`~circle.domain.errors.ModelError`. Cancelling the consumer closes the request.
    A real endpoint's stream begins with :class:`~circle.domain.model.RequestSent` as the request
    leaves, then :class:`~circle.domain.model.ResponseStarted` once the answer's headers came
    (they carry no content; fakes may leave them out), and
    :class:`~circle.domain.model.ResponseIdentified` where the wire names the response.
    """

    def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]: ...

    async def aclose(self) -> None: ...
