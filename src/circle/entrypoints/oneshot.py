"""One-line uses of :class:`circle.Agent`: :func:`query` streams one turn, :func:`run_sync` runs one
from a script that has no event loop."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from typing import Any

from circle.application.agent_loop import TurnResult
from circle.application.events import AgentEvent

from .library import Agent


async def query(prompt: str, *, files: Sequence[str] = (), **options: Any) -> AsyncIterator[AgentEvent]:
    """Run one turn of a new agent and yield its events; the agent is closed after the last one.

    Example::

        async for event in circle.query("What does main.py do?", workspace="repo"):
            if isinstance(event, circle.TurnEnded):
                print(event.answer)

    Args:
        prompt: The message.
        files: Files attached as :meth:`circle.Agent.run` attaches them.
        **options: Any argument of :class:`circle.Agent` (``workspace``, ``model``, ``tools``…).

    Raises:
        CircleError: What :meth:`circle.Agent.stream` raises, after the turn's last event.
    """
    async with Agent(**options) as agent:
        async for event in agent.stream(prompt, files=files):
            yield event


def run_sync(prompt: str, *, files: Sequence[str] = (), **options: Any) -> TurnResult:
    """Run one turn of a new agent from plain (not async) code and return its result.

    Example::

        result = circle.run_sync("Add a docstring to util.py", workspace="repo", approval_mode="auto")
        print(result.answer)

    Args:
        prompt: The message.
        files: Files attached as :meth:`circle.Agent.run` attaches them.
        **options: Any argument of :class:`circle.Agent`.

    Raises:
        CircleError: What :meth:`circle.Agent.run` raises (a failed turn, a bad setting).
        RuntimeError: It was called where an event loop runs: ``await circle.Agent(...).run()`` there.
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        pass
    else:
        raise RuntimeError(
            "circle.run_sync cannot run inside an event loop: use `await agent.run(...)` there"
        )
    agent = Agent(**options)

    async def turn() -> TurnResult:
        async with agent:
            return await agent.run(prompt, files=files)

    return asyncio.run(turn())


__all__ = ["query", "run_sync"]
