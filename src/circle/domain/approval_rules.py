"""Approval rules: ``{tool, pattern, effect}`` in layers, and which layer decided a call.

Three layers hold rules: ``session`` ("allow for this session" answers, kept in memory), ``user``
(approvals.json in the data folder) and ``project`` (a trusted project's .circle/approvals.json).
Session and user rules are the person's own; the project's are not.

- A rule matches a call when its ``tool`` is the tool's name or ``*``, and its ``pattern`` (an
  ``fnmatch`` glob, case-sensitive) matches the call's *subject* as a whole: the workspace-relative
  path for file tools, each simple command of the line for ``execute`` (below). ``*`` matches any
  subject and also crosses ``/`` in paths.
- ``deny`` beats ``ask`` beats ``allow``, within a layer and across layers.
- A project may deny or ask, but it cannot allow beyond what the person's own rules allow: a project
  ``allow`` is never the reason a call runs. Where the person's rules also allow, they decide.

Commands (:func:`decide_command`) are judged by their parsed parts, :func:`command_subjects`: each
simple command of a list, pipeline, subshell, substitution or ``bash -c`` string, with quoting and
backslashes decoded, whitespace collapsed, wrappers (``command``, ``env``, ``sudo`` ...) looked
through, ``git``'s global options dropped and a program given by path named by its basename.

- A ``deny`` or ``ask`` applies when it matches any part, or the whole line: ``git push*`` stops
  ``cd . && git push``, ``command git push``, ``git -c x=1 push``, ``"git" p\\ush`` and
  ``/usr/bin/git push``.
- Deny and ask rules also match each part and the pattern written one way
  (:func:`._spellings.canonical`): ``--`` dropped, options split and sorted (``rm -fr``, ``rm
  --recu --forc`` read ``rm -f -r``), paths the shortest way relative to the workspace (``./x``,
  ``a/../x``, ``/abs/workspace/x`` read ``x``). Allow rules match only as written.
- An ``allow`` applies only when it (or another allow) matches every part: ``git status*`` does not
  allow ``git status && touch x``. An *exact* allow (no wildcard, as "allow for this session"
  writes) also matches the whole line as written.
- Fail closed (:func:`doubtful_rule`): where a part is not known before it runs (a variable,
  substitution or glob; ``$X push``, ``git $(cat verb)``) and a ``deny`` or ``ask`` rule could match
  what it becomes, the call asks, whatever the mode and the allow rules say; only an exact allow of
  the whole line, the person's own, lets it run.

The subject is the caller's to compute (it knows the workspace and resolves paths); this module
only matches strings.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import Literal, TypeAlias, get_args

from ._command_subjects import command_subjects, could_match, known_prefix
from ._spellings import canonical
from .errors import ConfigError

Effect: TypeAlias = Literal["allow", "ask", "deny"]
RuleLayer: TypeAlias = Literal["session", "user", "project"]

EFFECTS: tuple[Effect, ...] = get_args(Effect)
LAYERS: tuple[RuleLayer, ...] = get_args(RuleLayer)
"""The layers in the order a decision reports them when several agree."""
PERSONAL_LAYERS: frozenset[RuleLayer] = frozenset({"session", "user"})

_STRENGTH: dict[Effect, int] = {"allow": 0, "ask": 1, "deny": 2}
_KEYS = frozenset({"tool", "pattern", "effect"})
_WHERE: dict[RuleLayer, str] = {
    "session": "a rule for this session",
    "user": "your approvals.json",
    "project": "the project's .circle/approvals.json",
}


@dataclass(frozen=True, slots=True)
class Rule:
    """One entry of an approvals file: ``effect`` for calls to ``tool`` whose subject fits ``pattern``."""

    tool: str
    pattern: str
    effect: Effect

    def matches(self, tool: str, subject: str) -> bool:
        """Whether this rule covers a call to ``tool`` with this subject."""
        return (self.tool == "*" or self.tool == tool) and (
            self.pattern == "*" or fnmatchcase(subject, self.pattern)
        )

    def describe(self) -> str:
        return f"{self.effect} {self.tool} {self.pattern!r}"


@dataclass(frozen=True, slots=True)
class RuleDecision:
    """What the rules say of a call: an effect, the layer that decided and its rule.

    ``effect`` is None when no rule decides (the approval mode does); ``layer`` and ``rule`` are
    then None too.
    """

    effect: Effect | None
    layer: RuleLayer | None = None
    rule: Rule | None = None

    def describe(self) -> str:
        """One line for the person and the model, naming the rule and where it came from."""
        if self.effect is None or self.layer is None or self.rule is None:
            return "no approval rule applies"
        verb = {"allow": "allowed", "ask": "needs approval", "deny": "denied"}[self.effect]
        return f"{verb} by {_WHERE[self.layer]} ({self.rule.tool} {self.rule.pattern!r})"


def parse_rules(data: object, *, source: str) -> list[Rule]:
    """The rules of one approvals file's parsed JSON.

    The file holds a list of ``{"tool", "pattern", "effect"}`` objects, or an object with such a
    list under ``"rules"``; ``None`` (an empty or missing file) holds no rules. Every key is
    required and no other is accepted, so a misspelt ``pattern`` cannot widen a rule.

    Raises:
        ConfigError: the data does not have that shape (one line naming ``source`` and the entry).
    """
    if data is None:
        return []
    entries = data.get("rules", []) if isinstance(data, dict) else data
    if isinstance(data, dict) and set(data) - {"rules"}:
        unknown = sorted(set(data) - {"rules"})[0]
        raise ConfigError(f'{source}: unknown key {unknown!r}; rules go in a list under "rules"')
    if not isinstance(entries, list):
        raise ConfigError(f"{source}: expected a list of rules, each {{tool, pattern, effect}}")
    return [_parse_rule(entry, where=f"{source}: rules[{i}]") for i, entry in enumerate(entries)]


def _parse_rule(entry: object, *, where: str) -> Rule:
    if not isinstance(entry, dict):
        raise ConfigError(f"{where} must be an object {{tool, pattern, effect}}")
    extra = sorted(set(entry) - _KEYS)
    if extra:
        raise ConfigError(f"{where}: unknown key {extra[0]!r} (a rule has tool, pattern and effect)")
    for key in ("tool", "pattern", "effect"):
        if not isinstance(entry.get(key), str) or not entry[key]:
            raise ConfigError(f"{where}.{key} must be a non-empty string")
    effect = entry["effect"]
    if effect not in EFFECTS:
        raise ConfigError(f"{where}.effect must be allow, ask or deny, not {effect!r}")
    return Rule(tool=entry["tool"], pattern=entry["pattern"], effect=effect)


def exact_pattern(subject: str) -> str:
    """A pattern that matches ``subject`` and nothing else (``*``, ``?`` and ``[`` escaped)."""
    return re.sub(r"([*?\[])", r"[\1]", subject)


def session_allow(tool: str, subject: str | None = None) -> Rule:
    """The session rule an "allow for this session" answer becomes: every call to ``tool``, or
    only calls with exactly this subject."""
    return Rule(tool=tool, pattern="*" if subject is None else exact_pattern(subject), effect="allow")


def decide(tool: str, subject: str, layers: Mapping[RuleLayer, Sequence[Rule]]) -> RuleDecision:
    """The strongest effect the rules give a call, and the layer that gave it.

    Args:
        tool: The tool's name (``execute``, ``write_file`` ...).
        subject: The command, or the workspace-relative path, the call is about.
        layers: The rules of each layer; a missing layer holds none.

    Returns:
        ``deny`` over ``ask`` over ``allow``; among equals the first in ``LAYERS`` order and, within
        a layer, the first rule. A project's ``allow`` never decides (see the module's docstring).
    """
    best: RuleDecision = RuleDecision(None)
    for layer in LAYERS:
        for rule in layers.get(layer, ()):
            if rule.effect == "allow" and layer not in PERSONAL_LAYERS:
                continue
            if not rule.matches(tool, subject):
                continue
            if best.effect is None or _STRENGTH[rule.effect] > _STRENGTH[best.effect]:
                best = RuleDecision(rule.effect, layer, rule)
    return best


def decide_all(
    tool: str, subjects: Sequence[str], layers: Mapping[RuleLayer, Sequence[Rule]]
) -> RuleDecision:
    """What the rules say of one call about several subjects (a patch of several files).

    A ``deny`` of any subject denies, else an ``ask`` of any asks; ``allow`` only when every
    subject is allowed; else no rule decides.
    """
    decisions = [decide(tool, subject, layers) for subject in subjects]
    for effect in ("deny", "ask"):
        for decision in decisions:
            if decision.effect == effect:
                return decision
    if decisions and all(d.effect == "allow" for d in decisions):
        return decisions[0]
    return RuleDecision(None)


def decide_command(
    tool: str,
    command: str,
    subjects: Sequence[str],
    layers: Mapping[RuleLayer, Sequence[Rule]],
    *,
    workspace: str = "",
    resolved: Sequence[str] = (),
) -> RuleDecision:
    """What the rules say of a command line, judged by its parts (see the module's docstring).

    Args:
        tool: ``execute``, or another tool that runs a command line.
        command: The line as written.
        subjects: Its parts, from :func:`command_subjects`.
        layers: The rules of each layer.
        workspace: The workspace's absolute path, against which paths are written the one way
            deny and ask rules also match (:func:`._spellings.canonical`).
        resolved: Parts with their paths resolved (``~/x``, ``../x`` after ``cd``), which deny
            and ask rules match too, and allow rules never.

    Returns:
        A ``deny`` (then ``ask``) matching the whole line or any part, as written or in its one
        spelling; else an exact allow of the whole line; else an ``allow`` when every part is
        allowed as written; else no decision.
    """
    decisions = [decide(tool, subject, layers) for subject in (command, *subjects)]
    also = [decide(tool, subject, layers) for subject in resolved]
    spelt = {canonical(subject, workspace=workspace) for subject in (*subjects, *resolved)}
    for effect in ("deny", "ask"):
        for decision in (*decisions, *also):
            if decision.effect == effect:
                return decision
        respelt = _respelt(effect, tool, spelt, layers, workspace)
        if respelt.effect is not None:
            return respelt
    exact = exact_allow(tool, command, layers)
    if exact.effect is not None:
        return exact
    parts = decisions[1:]
    if parts and all(d.effect == "allow" for d in parts):
        return parts[0]
    return RuleDecision(None)


def _respelt(
    effect: Effect, tool: str, spelt: set[str], layers: Mapping[RuleLayer, Sequence[Rule]], workspace: str
) -> RuleDecision:
    """The first ``effect`` rule whose pattern, in the one spelling, matches a part in it."""
    for layer in LAYERS:
        for rule in layers.get(layer, ()):
            if rule.effect != effect or rule.tool not in (tool, "*"):
                continue
            pattern = canonical(rule.pattern, workspace=workspace)
            if any(fnmatchcase(subject, pattern) for subject in spelt):
                return RuleDecision(effect, layer, rule)
    return RuleDecision(None)


def exact_allow(tool: str, command: str, layers: Mapping[RuleLayer, Sequence[Rule]]) -> RuleDecision:
    """The person's allow rule, without wildcards, that matches ``command`` as written, if any."""
    for layer in LAYERS:
        for rule in layers.get(layer, ()) if layer in PERSONAL_LAYERS else ():
            if rule.effect == "allow" and _is_exact(rule.pattern) and rule.matches(tool, command):
                return RuleDecision("allow", layer, rule)
    return RuleDecision(None)


def _is_exact(pattern: str) -> bool:
    return not re.search(r"[*?\[]", re.sub(r"\[[*?\[]\]", "", pattern))


def doubtful_rule(
    tool: str, subjects: Sequence[str], layers: Mapping[RuleLayer, Sequence[Rule]]
) -> tuple[Rule, str] | None:
    """A ``deny`` (else ``ask``) rule that could match what a part not known statically runs.

    Returns:
        The rule and the part it could match; None when every part is literal or no such rule
        could match it.
    """
    shapes = [(subject, shape) for subject in subjects if (shape := known_prefix(subject)) is not None]
    for effect in ("deny", "ask"):
        for layer in LAYERS:
            for rule in layers.get(layer, ()):
                if rule.effect != effect or rule.tool not in (tool, "*"):
                    continue
                for subject, shape in shapes:
                    if could_match(rule.pattern, shape):
                        return rule, subject
    return None


__all__ = [
    "EFFECTS",
    "LAYERS",
    "PERSONAL_LAYERS",
    "Effect",
    "Rule",
    "RuleDecision",
    "RuleLayer",
    "command_subjects",
    "decide",
    "decide_all",
    "decide_command",
    "doubtful_rule",
    "exact_allow",
    "exact_pattern",
    "parse_rules",
    "session_allow",
]
