"""Each model request prepares its messages (reminder, pruning, media) once."""

from __future__ import annotations

from collections.abc import Sequence

from circle.application.pruning import RequestPruner
from circle.domain.messages import Message
from circle.testing import Call, answer

from ._harness import WORKSPACE, Harness


class CountingPruner(RequestPruner):
    """Counts the passes over a request's messages."""

    passes = 0

    def apply(self, messages: Sequence[Message]) -> tuple[Message, ...]:
        self.passes += 1
        return super().apply(messages)


async def test_each_request_prepares_its_messages_once() -> None:
    h = Harness()
    h.files.put(f"{WORKSPACE}/a.txt", "alpha\n")
    h.model.add(
        answer("", Call("read_file", {"file_path": "a.txt"})),
        answer("", Call("read_file", {"file_path": "a.txt", "offset": 1})),
        answer("Read."),
    )
    session = await h.runtime().new_session()
    pruner = CountingPruner()
    session.loop.window.pruner = pruner

    result = await session.prompt("read it")

    assert result.answer == "Read."
    assert pruner.passes == len(h.model.requests) == 3
