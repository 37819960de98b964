"""The approval policy: rules, the approval mode, hooks and the person, in that order.

Order of a decision for a call that changes something (reads never come here):

1. A deny rule (session, the person's approvals.json, a trusted project's) denies. A command is
   judged by its parts (:func:`circle.domain.approval_rules.decide_command`): a deny of any simple
   command in it, or of the whole line, denies.
2. read-only mode denies every change (a command known to be read-only still runs).
3. A call that touches an always-ask place (.git/hooks, .git/config, .git/info, .gitmodules,
   .circle/, Circle's data folder) or that an always-refused pattern could match asks, in every
   other mode.
4. A command with a part not known before it runs (``$X push``) that a deny or ask rule could
   match asks, in every other mode, unless the person allowed exactly that line.
5. A PreToolUse hook's allow lets it run (it never overrides 1, 4 or an always-refused command,
   which the execute tool refuses before asking).
6. An ask rule asks; an allow rule allows (for a command: only when every part is allowed).
7. The mode: auto allows; a known read-only command runs; accept-edits allows file changes
   inside the workspace; everything else asks.

Asking goes to the person's Approver. Where nobody can answer (print, JSON and RPC modes),
the call is not run and the model is told why and how the person could allow it.

Plan mode comes before all of this: a session's :class:`PlanModeGate` denies every change while
its :class:`PlanMode` is on (a command known to be read-only still runs, as in read-only mode;
a hook's question, kind ``other``, still reaches the policy, and the change it guards is then
denied by the gate).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Literal

from circle.domain.approval_rules import (
    Rule,
    RuleDecision,
    RuleLayer,
    command_subjects,
    decide,
    decide_all,
    decide_command,
    doubtful_rule,
    exact_allow,
    session_allow,
)
from circle.domain.hooks import permission_mode
from circle.domain.messages import Aside
from circle.domain.web import WEBFETCH_TOOL, no_one_to_ask, site_rule

from .ports.approver import ApprovalDecision, ApprovalRequest, Approver
from .unanswered import note_asking

ApprovalMode = Literal["default", "accept-edits", "read-only", "auto"]
APPROVAL_MODES: tuple[ApprovalMode, ...] = ("default", "accept-edits", "read-only", "auto")
NO_ONE_ALWAYS_ASKS = (
    "it asks the person in every mode, auto included, and nobody can answer here, so it did not run"
)
NO_ONE_FOR_DOUBT = (
    "it asks in every mode and nobody can answer here, so it did not run; a command written without "
    "the expansion is judged by the rules"
)
OUTSIDE = "it writes outside the workspace"


@dataclass(frozen=True, slots=True)
class AllowHints:
    """How the person could let a call run that asked where nobody can answer, in the words of
    the face that runs the session (flags for the command line, arguments for the library).

    Attributes:
        modes: The settings that let changes run without asking.
        auto: The setting that lets every change run.
        person: Who could answer a call that asks in every mode.
    """

    modes: str = "--yolo, --approval-mode accept-edits or auto"
    auto: str = "--approval-mode auto (or --yolo)"
    person: str = "a person asked in the interface or in line mode"

    def no_one_to_ask(self) -> str:
        return (
            f"it needs the person's approval and nobody can answer here; they can allow it with "
            f"{self.modes}, or an allow rule in approvals.json"
        )


COMMAND_LINE_HINTS = AllowHints()


class AllowAll:
    """Nothing asks: every call may run (for tests and programs that decide for themselves)."""

    async def decide(self, request: ApprovalRequest) -> ApprovalDecision:
        return ApprovalDecision(allowed=True)


def parse_mode(text: str) -> ApprovalMode:
    for mode in APPROVAL_MODES:
        if mode == text:
            return mode
    raise ValueError(f"unknown approval mode {text!r}: use one of {', '.join(APPROVAL_MODES)}")


class ApprovalPolicy:
    """An :class:`Approver` that applies the rules and the mode, and asks ``person`` only when it must.

    Args:
        mode: default, accept-edits, read-only or auto.
        layers: the person's and a trusted project's rules (``user``, ``project``).
        person: who answers when a call asks; None where nobody can.
        hints: how the person could allow what asked where nobody can answer, in the words of
            the face that runs the session.
    """

    def __init__(
        self,
        mode: ApprovalMode = "default",
        layers: Mapping[RuleLayer, Sequence[Rule]] | None = None,
        person: Approver | None = None,
        *,
        hints: AllowHints = COMMAND_LINE_HINTS,
    ) -> None:
        self.hints = hints
        self.mode: ApprovalMode = mode
        self.layers: dict[RuleLayer, list[Rule]] = {k: list(v) for k, v in (layers or {}).items()}
        self.layers.setdefault("session", [])
        self.person = person

    async def decide(self, request: ApprovalRequest) -> ApprovalDecision:
        verdict = self._verdict(request)
        if isinstance(verdict, ApprovalDecision):
            return verdict
        if not request.ask_reason:
            by_mode = verdict == OUTSIDE or verdict.startswith(
                f"{request.tool_name} asks in {self.mode} mode"
            )
            reason = self._mode_reason(request) if by_mode else verdict
            request = replace(request, ask_reason=reason, by_mode=by_mode)
        return await self.ask(request, why=verdict)

    def _mode_reason(self, request: ApprovalRequest) -> str:
        """What the approval mode asks before, for a call that asks only because of it."""
        if request.outside_workspace:
            return f"{OUTSIDE}: {self.mode} mode asks before every change outside it"
        if request.kind == "execute":
            not_read_only = "commands that are not read-only"
            return f"{request.tool_name} changes files: {self.mode} mode asks before {not_read_only}"
        if request.kind == "edit":
            return f"{request.tool_name} changes a file: {self.mode} mode asks before every change"
        return f"{request.tool_name} may change things: {self.mode} mode asks before it runs"

    def _verdict(self, request: ApprovalRequest) -> ApprovalDecision | str:
        """A decision, or the reason the call must ask."""
        rule, doubt = self._rules(request)
        if rule.effect == "deny":
            return ApprovalDecision(allowed=False, reason=rule.describe())
        if self.mode == "read-only" and request.kind != "other":
            if request.kind == "execute" and request.safe:
                return ApprovalDecision(allowed=True)
            return ApprovalDecision(allowed=False, reason="read-only mode blocks every change")
        if request.always_ask:
            if request.kind == "other":
                return request.ask_reason or request.summary
            if request.ask_reason:
                return request.ask_reason
            return "it touches .git/hooks, .git/config, .git/info, .gitmodules or .circle/, which always ask"
        if self.mode == "read-only":
            return ApprovalDecision(allowed=False, reason="read-only mode blocks every change")
        if doubt and self.person is None:
            return ApprovalDecision(allowed=False, reason=f"{doubt}: {NO_ONE_FOR_DOUBT}")
        if doubt:
            return doubt
        if request.hook_allowed:
            return ApprovalDecision(allowed=True)
        if rule.effect == "ask":
            return rule.describe()
        if rule.effect == "allow":
            return ApprovalDecision(allowed=True)
        return self._by_mode(request)

    def _rules(self, request: ApprovalRequest) -> tuple[RuleDecision, str]:
        """What the rules say of the call, and why a command must ask though no rule says so yet."""
        tool = request.tool_name
        if request.kind != "execute":
            if request.subjects:
                return decide_all(tool, request.subjects, self.layers), ""
            return decide(tool, request.subject, self.layers), ""
        parts, resolved = (request.subjects, request.resolved) if request.subjects else _parts(request)
        rule = decide_command(
            tool, request.subject, parts, self.layers, workspace=request.workspace, resolved=resolved
        )
        found = doubtful_rule(tool, (*parts, *resolved), self.layers)
        if found is None or exact_allow(tool, request.subject, self.layers).effect == "allow":
            return rule, ""
        doubt, part = found
        return rule, (
            f"a {doubt.effect} rule might match what this command runs ({part!r} is known only when "
            f"it runs): {doubt.describe()}"
        )

    def _by_mode(self, request: ApprovalRequest) -> ApprovalDecision | str:
        if self.mode == "auto":
            return ApprovalDecision(allowed=True)
        if request.kind == "execute" and request.safe:
            return ApprovalDecision(allowed=True)
        if self.mode == "accept-edits" and request.kind == "edit" and not request.outside_workspace:
            return ApprovalDecision(allowed=True)
        if request.outside_workspace:
            return OUTSIDE
        asks = f"{request.tool_name} asks in {self.mode} mode"
        return f"{asks} ({request.ask_reason})" if request.ask_reason else asks

    async def ask(self, request: ApprovalRequest, *, why: str) -> ApprovalDecision:
        """Ask the person; where nobody can answer, refuse and say why."""
        fetch = request.tool_name == WEBFETCH_TOOL
        if self.person is None:
            how = (
                no_one_to_ask(
                    request.subject,
                    always_ask=request.always_ask,
                    auto=self.hints.auto,
                    person=self.hints.person,
                )
                if fetch
                else NO_ONE_ALWAYS_ASKS
                if request.always_ask
                else self.hints.no_one_to_ask()
            )
            return ApprovalDecision(allowed=False, reason=f"{why}: {how}")
        await note_asking(True)  # killed at the card, the call reads as not run when reopened
        decision = await self.person.decide(request)
        if decision.allowed:
            await note_asking(False)
        if decision.arguments is not None and dict(decision.arguments) != dict(request.arguments):
            return decision  # allowed as changed: the call as asked is not what the session allows
        if decision.allowed and decision.remember and fetch:
            self.layers["session"].append(site_rule(request.subject))  # the site, not every URL
        elif decision.allowed and decision.remember:
            subject = None if request.tool_name != "execute" else request.subject
            self.layers["session"].append(session_allow(request.tool_name, subject))
        return decision


def _parts(request: ApprovalRequest) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """A command's parts and their resolved forms, for a caller that did not give them."""
    from circle.domain.approvals import classify_command  # the classifier loads with the first command

    verdict = classify_command(request.subject, workspace=request.workspace, home=request.workspace)
    return command_subjects(verdict.words), command_subjects(verdict.resolved)


PLAN_MODE_ON = (
    "[The person turned plan mode on: read, search and ask, but change nothing; when the plan is "
    "ready, call plan_exit with it.]"
)
PLAN_MODE_OFF = "[The person turned plan mode off: changes are allowed again, asking as usual.]"
PLAN_MODE_REFUSAL = "plan mode: changes wait until the person accepts the plan (call plan_exit with the plan)"


@dataclass
class PlanMode:
    """Whether a session is in plan mode; shared by its ToolContext (the plan tools switch it) and
    its :class:`PlanModeGate` (which refuses changes while it is on).

    Attributes:
        active: The session is in plan mode.
        policy: Whose approval mode an accepted plan may set (accept-edits); None: nobody's.
    """

    active: bool = False
    policy: ApprovalPolicy | None = None
    told: bool | None = None
    """Whether the model last knew plan mode to be on (None: as ``active`` began)."""

    def __post_init__(self) -> None:
        if self.told is None:
            self.told = self.active

    def enter(self) -> None:
        """Turn plan mode on from a tool call (whose result tells the model)."""
        self.active = self.told = True

    def leave(self, mode: ApprovalMode | None = None) -> None:
        """Leave plan mode from a tool call, switching the policy to ``mode`` when one is given."""
        self.active = self.told = False
        if mode is not None and self.policy is not None:
            self.policy.mode = mode

    def switch(self, active: bool) -> None:
        """The person turns plan mode on or off; the model is told with their next message."""
        self.active = active

    def news(self) -> Aside | None:
        """The notice for the model's next message: plan mode's net change since it last knew
        (None when the person switched it back to where it was), then it knows."""
        if self.active == self.told:
            return None
        self.told = self.active
        return (
            Aside(kind="plan-on", text=PLAN_MODE_ON)
            if self.active
            else Aside(kind="plan-off", text=PLAN_MODE_OFF)
        )


class PlanModeGate:
    """An :class:`Approver` that denies every change while ``plan`` is on, else asks ``inner``."""

    def __init__(self, inner: Approver, plan: PlanMode) -> None:
        self.inner = inner
        self.plan = plan

    async def decide(self, request: ApprovalRequest) -> ApprovalDecision:
        if self.plan.active and request.kind != "other" and not (request.kind == "execute" and request.safe):
            return ApprovalDecision(allowed=False, reason=PLAN_MODE_REFUSAL)
        return await self.inner.decide(request)


def hook_mode(approver: Approver, plan: PlanMode) -> Callable[[], str]:
    """What a session's hooks are told as ``permission_mode``, asked at each event: plan mode while
    it is on, else ``approver``'s mode (auto for :class:`AllowAll`), in Claude Code's names."""

    def current() -> str:
        if isinstance(approver, ApprovalPolicy):
            mode: str = approver.mode
        else:
            mode = "auto" if isinstance(approver, AllowAll) else "default"
        return permission_mode(mode, planning=plan.active)

    return current


__all__ = [
    "APPROVAL_MODES",
    "COMMAND_LINE_HINTS",
    "PLAN_MODE_OFF",
    "PLAN_MODE_ON",
    "PLAN_MODE_REFUSAL",
    "AllowAll",
    "AllowHints",
    "ApprovalMode",
    "ApprovalPolicy",
    "PlanMode",
    "PlanModeGate",
    "hook_mode",
    "parse_mode",
]
