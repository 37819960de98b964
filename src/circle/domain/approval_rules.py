"""Approval rules: ``{tool, pattern, effect}`` in layers, and which layer decided a call.

Three layers hold rules: ``session`` ("allow for this session" answers, kept in memory), ``user``
(approvals.json in the data folder) and ``project`` (a trusted project's .circle/approvals.json).
Session and user rules are the person's own; the project's are not.

- A rule matches a call when its ``tool`` is the tool's name or ``*``, and its ``pattern`` (an
  ``fnmatch`` glob, case-sensitive) matches the call's *subject* as a whole: the command for
  ``execute``, the workspace-relative path for file tools. ``*`` matches any subject; ``git *``
  matches ``git status`` but not ``cd x && git status``; ``*`` also crosses ``/`` in paths.
- ``deny`` beats ``ask`` beats ``allow``, within a layer and across layers.
- A project may deny or ask, but it cannot allow beyond what the person's own rules allow: a project
  ``allow`` is never the reason a call runs. Where the person's rules also allow, they decide.

The subject is the caller's to compute (it knows the workspace and resolves paths); this module
only matches strings.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import Literal, TypeAlias, get_args

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


__all__ = [
    "EFFECTS",
    "LAYERS",
    "PERSONAL_LAYERS",
    "Effect",
    "Rule",
    "RuleDecision",
    "RuleLayer",
    "decide",
    "decide_all",
    "exact_pattern",
    "parse_rules",
    "session_allow",
]
