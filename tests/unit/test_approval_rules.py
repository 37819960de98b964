"""Approval rules: parsing approvals.json, matching, and which layer decides."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import pytest

from circle.adapters._shared.settings_files import load_approval_rules, load_rule_layers
from circle.domain.approval_rules import (
    Effect,
    Rule,
    RuleDecision,
    RuleLayer,
    decide,
    exact_pattern,
    parse_rules,
    session_allow,
)
from circle.domain.errors import ConfigError


def r(tool: str, pattern: str, effect: Effect) -> Rule:
    return Rule(tool=tool, pattern=pattern, effect=effect)


# A project approvals.json that tries to allow every command, and more.
GREEDY_PROJECT = parse_rules(
    [
        {"tool": "execute", "pattern": "*", "effect": "allow"},
        {"tool": "*", "pattern": "*", "effect": "allow"},
        {"tool": "execute", "pattern": "make deploy*", "effect": "ask"},
        {"tool": "write_file", "pattern": ".env*", "effect": "deny"},
    ],
    source="project",
)

Layers = dict[RuleLayer, Sequence[Rule]]
Row = tuple[str, str, str, Layers, Effect | None, RuleLayer | None]

ROWS: list[Row] = [
    ("no layers", "execute", "ls", {}, None, None),
    ("empty layers", "execute", "ls", {"user": [], "project": [], "session": []}, None, None),
    ("user allow exact", "execute", "ls", {"user": [r("execute", "ls", "allow")]}, "allow", "user"),
    (
        "pattern is the whole command",
        "execute",
        "ls -la",
        {"user": [r("execute", "ls", "allow")]},
        None,
        None,
    ),
    ("glob prefix", "execute", "git status", {"user": [r("execute", "git *", "allow")]}, "allow", "user"),
    (
        "glob does not match a command that only contains it",
        "execute",
        "cd x && git status",
        {"user": [r("execute", "git *", "allow")]},
        None,
        None,
    ),
    ("star pattern matches anything", "execute", "", {"user": [r("execute", "*", "ask")]}, "ask", "user"),
    ("star tool", "write_file", "a.txt", {"user": [r("*", "*", "deny")]}, "deny", "user"),
    ("other tool", "write_file", "a.txt", {"user": [r("edit_file", "*", "deny")]}, None, None),
    (
        "path glob crosses folders",
        "edit_file",
        "src/a/b.py",
        {"user": [r("edit_file", "src/*", "allow")]},
        "allow",
        "user",
    ),
    ("path glob by suffix", "edit_file", "src/a.py", {"user": [r("edit_file", "*.md", "allow")]}, None, None),
    ("case-sensitive", "execute", "LS", {"user": [r("execute", "ls", "allow")]}, None, None),
    (
        "deny beats allow within a layer",
        "execute",
        "rm -rf x",
        {"user": [r("execute", "*", "allow"), r("execute", "rm *", "deny")]},
        "deny",
        "user",
    ),
    (
        "ask beats allow within a layer",
        "execute",
        "git push",
        {"user": [r("execute", "git *", "allow"), r("execute", "git push*", "ask")]},
        "ask",
        "user",
    ),
    (
        "deny beats ask within a layer",
        "execute",
        "git push --force",
        {"user": [r("execute", "git push*", "ask"), r("execute", "*--force*", "deny")]},
        "deny",
        "user",
    ),
    (
        "user deny beats session allow",
        "execute",
        "rm x",
        {"session": [r("execute", "*", "allow")], "user": [r("execute", "rm *", "deny")]},
        "deny",
        "user",
    ),
    (
        "session allow decides alone",
        "execute",
        "npm test",
        {"session": [session_allow("execute", "npm test")], "user": []},
        "allow",
        "session",
    ),
    (
        "session allow and user allow: session reported first",
        "execute",
        "ls",
        {"session": [r("execute", "*", "allow")], "user": [r("execute", "ls", "allow")]},
        "allow",
        "session",
    ),
    ("project tries to allow execute *", "execute", "curl x | sh", {"project": GREEDY_PROJECT}, None, None),
    ("project tries to allow every tool", "write_file", "src/a.py", {"project": GREEDY_PROJECT}, None, None),
    (
        "project allow with the person's allow: the person decides",
        "execute",
        "ls",
        {"user": [r("execute", "ls", "allow")], "project": GREEDY_PROJECT},
        "allow",
        "user",
    ),
    (
        "project deny beats user allow",
        "write_file",
        ".env.local",
        {"user": [r("write_file", "*", "allow")], "project": GREEDY_PROJECT},
        "deny",
        "project",
    ),
    (
        "project ask beats session allow",
        "execute",
        "make deploy prod",
        {"session": [r("execute", "*", "allow")], "project": GREEDY_PROJECT},
        "ask",
        "project",
    ),
    (
        "user deny and project deny: user reported",
        "write_file",
        ".env",
        {"user": [r("write_file", ".env", "deny")], "project": GREEDY_PROJECT},
        "deny",
        "user",
    ),
    (
        "user ask and project deny: deny wins",
        "write_file",
        ".env",
        {"user": [r("write_file", "*", "ask")], "project": GREEDY_PROJECT},
        "deny",
        "project",
    ),
    (
        "first of equal rules in a layer is reported",
        "execute",
        "ls",
        {"user": [r("execute", "l*", "ask"), r("execute", "*", "ask")]},
        "ask",
        "user",
    ),
    (
        "escaped session rule is exact",
        "execute",
        "ls a.py",
        {"session": [session_allow("execute", "ls *.py")]},
        None,
        None,
    ),
    (
        "session rule for a whole tool",
        "write_file",
        "any/file",
        {"session": [session_allow("write_file")]},
        "allow",
        "session",
    ),
]


@pytest.mark.parametrize(
    ("tool", "subject", "layers", "effect", "layer"),
    [row[1:] for row in ROWS],
    ids=[row[0] for row in ROWS],
)
def test_decide(
    tool: str, subject: str, layers: Layers, effect: Effect | None, layer: RuleLayer | None
) -> None:
    decision = decide(tool, subject, layers)
    assert (decision.effect, decision.layer) == (effect, layer)
    assert (decision.rule is None) == (effect is None)
    if decision.rule is not None:
        assert decision.rule in layers[decision.layer or "user"]
        assert decision.rule.effect == effect


def test_the_table_is_large_enough() -> None:
    assert len(ROWS) >= 20


def test_a_decision_names_its_layer_and_rule() -> None:
    decision = decide("execute", "rm -rf /", {"project": [r("execute", "rm *", "deny")]})
    assert decision.describe() == "denied by the project's .circle/approvals.json (execute 'rm *')"
    assert RuleDecision(None).describe() == "no approval rule applies"
    allowed = decide("execute", "ls", {"session": [session_allow("execute")]})
    assert allowed.describe() == "allowed by a rule for this session (execute '*')"


@pytest.mark.parametrize("subject", ["ls *.py", "a?b", "[x]", "plain", "*"])
def test_exact_pattern_matches_only_its_subject(subject: str) -> None:
    rule = r("execute", exact_pattern(subject), "allow")
    assert rule.matches("execute", subject)
    assert not rule.matches("execute", subject + "x")
    assert not rule.matches("execute", "ls a.py")


def test_parse_accepts_a_list_or_an_object_with_rules() -> None:
    entry = {"tool": "execute", "pattern": "git *", "effect": "allow"}
    assert parse_rules([entry], source="f") == [r("execute", "git *", "allow")]
    assert parse_rules({"rules": [entry]}, source="f") == [r("execute", "git *", "allow")]
    assert parse_rules(None, source="f") == []
    assert parse_rules({}, source="f") == []


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ("allow", "a.json: expected a list of rules"),
        ({"rules": {}}, "a.json: expected a list of rules"),
        ({"rule": []}, "a.json: unknown key 'rule'"),
        (["x"], "a.json: rules[0] must be an object"),
        ([{"tool": "execute", "effect": "allow"}], "a.json: rules[0].pattern must be a non-empty string"),
        (
            [{"tool": "execute", "patern": "git *", "pattern": "x", "effect": "allow"}],
            "a.json: rules[0]: unknown key 'patern'",
        ),
        (
            [{"tool": "", "pattern": "*", "effect": "allow"}],
            "a.json: rules[0].tool must be a non-empty string",
        ),
        (
            [
                {"tool": "a", "pattern": "*", "effect": "allow"},
                {"tool": "b", "pattern": "*", "effect": "maybe"},
            ],
            "a.json: rules[1].effect must be allow, ask or deny, not 'maybe'",
        ),
        (
            [{"tool": "a", "pattern": 3, "effect": "deny"}],
            "a.json: rules[0].pattern must be a non-empty string",
        ),
    ],
)
def test_bad_shapes_are_one_clear_line(data: object, message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_rules(data, source="a.json")
    assert caught.value.message.startswith(message)
    assert "\n" not in caught.value.message


def _write(path: Path, value: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value), encoding="utf-8")


def test_load_reads_the_person_and_a_trusted_project(tmp_path: Path) -> None:
    data, workspace = tmp_path / "data", tmp_path / "ws"
    _write(data / "approvals.json", [{"tool": "execute", "pattern": "ls", "effect": "allow"}])
    _write(
        workspace / ".circle" / "approvals.json",
        {"rules": [{"tool": "*", "pattern": "*", "effect": "allow"}]},
    )
    layers = load_rule_layers(data, workspace, project_trusted=True)
    assert layers == {"user": [r("execute", "ls", "allow")], "project": [r("*", "*", "allow")]}
    assert decide("execute", "rm x", layers).effect is None
    assert load_rule_layers(data, workspace, project_trusted=False) == {"user": [r("execute", "ls", "allow")]}


def test_load_without_files_has_no_rules(tmp_path: Path) -> None:
    assert load_approval_rules(tmp_path / "approvals.json") == []
    (tmp_path / "approvals.json").write_text("  \n")
    assert load_approval_rules(tmp_path / "approvals.json") == []
    assert load_rule_layers(tmp_path, tmp_path, project_trusted=True) == {"user": [], "project": []}


def test_load_reports_a_broken_file_by_path(tmp_path: Path) -> None:
    path = tmp_path / "approvals.json"
    path.write_text("[{")
    with pytest.raises(ConfigError, match=r"approvals\.json is not valid JSON"):
        load_approval_rules(path)
    path.write_text('[{"tool": "execute", "pattern": "*", "effect": "yes"}]')
    with pytest.raises(ConfigError, match=r"approvals\.json: rules\[0\].effect must be allow, ask or deny"):
        load_approval_rules(path)
