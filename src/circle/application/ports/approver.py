"""Approver: decides whether a tool call that changes things may run, asking the person if it must."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, Protocol

if TYPE_CHECKING:  # a name for annotations only: the interface paints before pydantic loads
    from pydantic import JsonValue

ApprovalKind = Literal["edit", "execute", "other"]


@dataclass(frozen=True, slots=True)
class ApprovalRequest:
    """One call that changes something.

    Attributes:
        summary: What the person reads ("edit src/app.py", the command), secrets written %NAME%.
        subject: What rules match: the command, or the path relative to the workspace.
        outside_workspace: The call writes outside the workspace.
        always_ask: The call touches an always-ask place (.git/hooks, .git/config, .git/info,
            .gitmodules, .circle/, the data folder) or could run an always-refused command: it asks
            in every mode.
        safe: The command is known to be read-only.
        hook_allowed: A PreToolUse hook (or the person, asked for a hook) allowed this call, or
            the approver wrote it, changing a call's arguments.
        subjects: Every path a call about several files changes (a patch); the rules judge each,
            and ``subject`` is then empty. For ``execute``, the simple commands of the line
            (:func:`circle.domain.approval_rules.command_subjects`): each normalized, and also as it
            runs where that differs; deny and ask match either form, an allow must match both.
        resolved: For ``execute``, the simple commands whose operands name paths another way
            once resolved (``~/x``, ``$PWD/x``, ``../x`` after ``cd``), those paths absolute
            (:attr:`circle.domain.approvals.CommandVerdict.resolved`): deny and ask rules match
            them too, allow rules never do.
        ask_reason: Why an ``always_ask`` call asks in every mode (a protected place, a command an
            always-refused pattern could match; empty: the protected places' standard reason), or,
            for another call, what the tool found that keeps it from running unasked.
        by_mode: The call asks only because the approval mode asks before it (``ask_reason`` then
            says what the mode asks before); the interface, which shows the mode, leaves it out.
        arguments: The call's arguments as the model gave them (saved secrets still ``%NAME%``).
    """

    tool_name: str
    kind: ApprovalKind
    summary: str
    workspace: str
    subject: str = ""
    outside_workspace: bool = False
    always_ask: bool = False
    safe: bool = False
    hook_allowed: bool = False
    subjects: tuple[str, ...] = ()
    ask_reason: str = ""
    resolved: tuple[str, ...] = ()
    by_mode: bool = False
    arguments: Mapping[str, JsonValue] = field(default_factory=dict, hash=False)


@dataclass(frozen=True, slots=True)
class ApprovalDecision:
    """An answer to an :class:`ApprovalRequest`.

    Attributes:
        allowed: The call may run.
        reason: Why not, for the model (when refused).
        remember: The person chose "allow for this session".
        arguments: Allowed with these arguments instead of the call's (None: as they are). The
            changed call is checked against the tool's schema, then runs from the start as one the
            model made: its hooks, the tool's own refusals, the deny rules and the mode judge it
            again, and where the policy would ask it asks about the changed call.
        shown: What a person reads on the refused call's row (empty: the reason, as the model
            reads it).
    """

    allowed: bool
    reason: str = ""
    remember: bool = False
    arguments: Mapping[str, JsonValue] | None = field(default=None, hash=False)
    shown: str = ""


class Approver(Protocol):
    """Who decides the calls that ask: ``decide`` answers one :class:`ApprovalRequest`."""

    async def decide(self, request: ApprovalRequest) -> ApprovalDecision: ...
