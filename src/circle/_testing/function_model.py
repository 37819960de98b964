"""FunctionModel: a ModelClient whose every answer is computed by a function of the request."""

from __future__ import annotations

import inspect
import typing
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence

from circle.domain.model import ModelEvent, ModelRequest

from .model import Call, answer

Reply = str | Call | Sequence[str | Call] | Sequence[ModelEvent]
"""What the function returns: text, a tool call, text and calls, or the events of :func:`answer`."""

_EVENT_TYPES = typing.get_args(ModelEvent)


class FunctionModel:
    """Answers each request with what ``function(request)`` returns, and records the requests.

    The function (plain or async) sees the whole :class:`~circle.domain.model.ModelRequest`: the
    system prompt, ``messages`` (the last is the message or the tool results to answer) and
    ``tools`` (the specs offered, Python tools included). It returns a string (the answer), a
    :class:`Call` (a tool call), a list of strings and calls, or events built with :func:`answer`.

    Example::

        def reply(request: ModelRequest) -> str | Call:
            if request.messages[-1].role == "tool":
                return "the tool said " + request.messages[-1].tool_results[0].text
            return Call("word_count", {"path": "README.md"})

        model = FunctionModel(reply)
    """

    def __init__(self, function: Callable[[ModelRequest], Reply | Awaitable[Reply]]) -> None:
        self.function = function
        self.requests: list[ModelRequest] = []
        self.closed = False

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        self.requests.append(request)
        reply = self.function(request)
        if inspect.isawaitable(reply):
            reply = await reply
        for event in _events(reply):
            yield event

    async def aclose(self) -> None:
        self.closed = True


def _events(reply: Reply) -> Sequence[ModelEvent]:
    if isinstance(reply, str):
        return answer(reply)
    if isinstance(reply, Call):
        return answer("", reply)
    items = list(reply) if isinstance(reply, list | tuple) else None
    if items and all(isinstance(item, _EVENT_TYPES) for item in items):
        return typing.cast(list[ModelEvent], items)
    texts = [item for item in items or () if isinstance(item, str)]
    calls = [item for item in items or () if isinstance(item, Call)]
    if items is None or len(texts) + len(calls) != len(items):
        raise TypeError(
            f"a FunctionModel's function returned {reply!r}: return text, Call(...) or answer(...)"
        )
    return answer("".join(texts), *calls)


__all__ = ["FunctionModel", "Reply"]
