"""``Agent.override``: swap an agent's model, store or approver for a test, and put them back after.

Called on the class (``circle.Agent.override(model=...)``) it applies to every agent started inside
the ``with`` block, in this task and the tasks it starts (a context variable); called on one agent,
to that agent alone. The agent's own override beats the class's, and both beat its arguments.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Iterator
from contextvars import ContextVar
from typing import TYPE_CHECKING, Protocol

from circle.domain.errors import ConfigError

if TYPE_CHECKING:
    from circle.application.ports.model_client import ModelClient
    from circle.application.ports.session_store import SessionStore

    from ._approver import ApproverLike


@dataclasses.dataclass(frozen=True, slots=True)
class Overrides:
    """What an ``override`` block replaces; None leaves that part as it was."""

    model: ModelClient | None = None
    store: SessionStore | None = None
    approver: ApproverLike | None = None

    def over(self, below: Overrides) -> Overrides:
        """These overrides, with ``below``'s where these leave a part alone."""
        return Overrides(
            model=self.model if self.model is not None else below.model,
            store=self.store if self.store is not None else below.store,
            approver=self.approver if self.approver is not None else below.approver,
        )


NONE = Overrides()
EVERY_AGENT: ContextVar[Overrides] = ContextVar("circle_agent_overrides", default=NONE)
"""The overrides of ``circle.Agent.override`` blocks being run, for every agent started inside."""


class Overridable(Protocol):
    """An agent as an override sees it: its own overrides, and whether it has started."""

    own_overrides: Overrides

    @property
    def started(self) -> bool: ...


class OverrideMethod(Protocol):
    def __call__(
        self,
        *,
        model: ModelClient | None = None,
        store: SessionStore | None = None,
        approver: ApproverLike | None = None,
    ) -> contextlib.AbstractContextManager[None]: ...


class OverrideDescriptor:
    """Makes ``override`` work on the class (every agent) and on one agent (that one)."""

    def __get__(self, agent: Overridable | None, owner: type | None = None) -> OverrideMethod:
        def override(
            *,
            model: ModelClient | None = None,
            store: SessionStore | None = None,
            approver: ApproverLike | None = None,
        ) -> contextlib.AbstractContextManager[None]:
            """Use ``model`` (a ModelClient such as ``circle.testing.ScriptedModel``), ``store``
            and ``approver`` instead of what the agent was given, inside the ``with`` block.

            On the class it applies to every agent started inside the block; on one agent, to
            that one, which must not have started yet. An agent started inside keeps what it
            started with until it closes; agents started after the block get their own again.

            Raises:
                ConfigError: the agent has already started.
            """
            wanted = Overrides(model=model, store=store, approver=approver)
            return _on_agent(agent, wanted) if agent is not None else _on_every_agent(wanted)

        return override


@contextlib.contextmanager
def _on_every_agent(wanted: Overrides) -> Iterator[None]:
    token = EVERY_AGENT.set(wanted.over(EVERY_AGENT.get()))
    try:
        yield
    finally:
        EVERY_AGENT.reset(token)


@contextlib.contextmanager
def _on_agent(agent: Overridable, wanted: Overrides) -> Iterator[None]:
    if agent.started:
        raise ConfigError("agent.override() must be entered before the agent starts (or after it closes)")
    before = agent.own_overrides
    agent.own_overrides = wanted.over(before)
    try:
        yield
    finally:
        agent.own_overrides = before


def in_force(agent: Overridable) -> Overrides:
    """What applies to ``agent`` as it starts: its own overrides over every agent's."""
    return agent.own_overrides.over(EVERY_AGENT.get())


__all__ = ["EVERY_AGENT", "NONE", "OverrideDescriptor", "OverrideMethod", "Overrides", "in_force"]
