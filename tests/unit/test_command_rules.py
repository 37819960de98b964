"""Approval rules judge a command by its parsed parts: disguises do not pass a deny, a prefix allow
does not allow what follows it, and a part not known statically asks where a rule could match."""

from __future__ import annotations

from fnmatch import fnmatchcase

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from circle.domain._command_subjects import could_match, known_prefix
from circle.domain.approval_rules import (
    Effect,
    Rule,
    RuleLayer,
    command_subjects,
    decide_command,
    doubtful_rule,
    exact_pattern,
    session_allow,
)
from circle.domain.approvals import classify_command

Layers = dict[RuleLayer, list[Rule]]


def subjects(command: str) -> tuple[str, ...]:
    return command_subjects(classify_command(command, workspace="/w", home="/h").words)


def effect(command: str, layers: Layers) -> Effect | None:
    return decide_command("execute", command, subjects(command), layers).effect


GIT_PUSH_DISGUISES = [
    "git push",
    "cd . && git push",
    "git  push",
    "git\tpush",
    "command git push",
    "builtin git push",
    "git -c x.y=1 push",
    "git -C . push",
    "git --no-pager push",
    "git --git-dir=.git --work-tree . push",
    '"git" push',
    "'g'it push",
    r"git p\ush",
    "/usr/bin/git push",
    "./git push",
    "env A=1 git push",
    "timeout 5 nice -n 1 git push",
    "sudo -u root git push",
    "ls; git push",
    "true || git push",
    "echo ok | git push",
    "(git push)",
    "{ git push; }",
    "echo $(git push)",
    "bash -c 'git push'",
    'sh -c "cd . && git push"',
    "eval git push",
    "if true; then git push; fi",
    "git -c alias.up=push up",
    "git -C . -c alias.up=push up",
    "watch -n 1 git push",
    "ionice -c3 git push",
    "coproc git push",
]
DENY_SHAPES = ["git push*", "git push", "*git push*", "git p*", "git pu?h", "git*push", "[g]it push"]


@pytest.mark.parametrize("command", GIT_PUSH_DISGUISES)
def test_a_deny_rule_stops_every_disguise(command: str) -> None:
    layers: Layers = {"user": [Rule("execute", "git push*", "deny")]}
    assert effect(command, layers) == "deny", subjects(command)


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(GIT_PUSH_DISGUISES), st.sampled_from(DENY_SHAPES), st.sampled_from(["deny", "ask"]))
def test_every_disguise_against_every_rule_shape(command: str, pattern: str, strong: Effect) -> None:
    layers: Layers = {"project": [Rule("execute", pattern, strong)], "session": [session_allow("execute")]}
    assert effect(command, layers) == strong, (command, pattern, subjects(command))


@pytest.mark.parametrize(
    "command",
    [
        "git status && touch ../outside/x",
        "git status; rm -rf build",
        "git status | sh",
        "git status $(touch x)",
        "/tmp/evil/git status",
        "./git status",
        "git -c core.fsmonitor='touch x' status",
        "git -C ../outside status",
        "git --exec-path=/tmp status",
    ],
)
def test_a_prefix_allow_does_not_allow_what_it_does_not_cover(command: str) -> None:
    layers: Layers = {"user": [Rule("execute", "git status*", "allow")]}
    assert effect(command, layers) is None, subjects(command)


@pytest.mark.parametrize(
    "command", ["git status", "git  status -s", "git --no-pager status", "command git status"]
)
def test_a_prefix_allow_still_allows_the_command_it_names(command: str) -> None:
    layers: Layers = {"user": [Rule("execute", "git status*", "allow")]}
    assert effect(command, layers) == "allow"


def test_an_allow_applies_when_every_part_is_allowed() -> None:
    layers: Layers = {
        "user": [Rule("execute", "git status*", "allow"), Rule("execute", "make test", "allow")]
    }
    assert effect("git status && make test", layers) == "allow"
    assert effect("git status && make deploy", layers) is None


@pytest.mark.parametrize("command", ["git status && touch x", "a='p'; git ${a}ush", "ls  -la", "$CMD run"])
def test_an_exact_session_allow_matches_the_command_as_written(command: str) -> None:
    layers: Layers = {"session": [session_allow("execute", command)]}
    assert effect(command, layers) == "allow"
    assert effect(command + " x", layers) is None


def test_an_exact_allow_of_the_line_does_not_pass_a_deny_of_a_part() -> None:
    command = "make && git push"
    layers: Layers = {
        "session": [session_allow("execute", command)],
        "user": [Rule("execute", "git push*", "deny")],
    }
    assert effect(command, layers) == "deny"


def test_a_project_exact_allow_of_the_line_is_not_the_reason_it_runs() -> None:
    command = "git status && touch x"
    assert effect(command, {"project": [Rule("execute", exact_pattern(command), "allow")]}) is None


def test_a_deny_of_the_whole_line_still_applies() -> None:
    assert effect("make && make deploy", {"user": [Rule("execute", "make && *", "deny")]}) == "deny"


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("git -c a=1 -C /x --no-pager push -f", ("git push -f", "git -c a=1 -C /x push -f")),
        ("/usr/bin/git --no-pager log", ("git log", "/usr/bin/git log")),
        ("git -c 'a=b c' push", ("git push", "git -c a=b c push")),
        ("ls  'a  b'\t c", ("ls a b c",)),
        ("cd x && ls", ("cd x", "ls")),
        ("x=1", ()),
        ("git -c alias.x='!make all' x", ("make all", "git -c alias.x=!make all x")),
        ("chrt 1 make", ("chrt 1 make", "1 make", "make")),
    ],
)
def test_command_subjects(command: str, expected: tuple[str, ...]) -> None:
    assert subjects(command) == expected


@pytest.mark.parametrize(
    ("command", "doubted"),
    [
        ("$X push", True),
        ("g${X}it push", True),
        ("$(echo git) push", True),
        ("`echo git` push", True),
        ("git $(cat verb)", True),
        ("git pu{sh,}", True),
        ("git $VERB", True),
        ("a=push; git $a", True),
        ("git --config-env=alias.up=VERB up", True),
        ("*it push", True),
        ("echo $HOME", False),
        ("ls *.py", False),
        ("git status", False),
        ("cat $(ls)", False),
    ],
)
def test_a_part_not_known_statically_is_doubted_where_a_deny_could_match(command: str, doubted: bool) -> None:
    layers: Layers = {"user": [Rule("execute", "git push*", "deny")]}
    found = doubtful_rule("execute", subjects(command), layers)
    assert (found is not None) == doubted, subjects(command)
    assert doubtful_rule("execute", subjects(command), {"user": [Rule("execute", "*", "allow")]}) is None


def test_known_prefix_keeps_the_literal_words_before_the_first_expansion() -> None:
    assert known_prefix("git $a --force") == "git*"
    assert known_prefix("$X push") == "*"
    assert known_prefix("ls [a].py") == "ls*"
    assert known_prefix("echo a[b") is None
    assert known_prefix("git status") is None


_ALPHABET = "ab*?[]!/ "


@settings(max_examples=400, deadline=None)
@given(st.text(_ALPHABET, max_size=6), st.text(_ALPHABET, max_size=6), st.text("ab/ ", max_size=6))
def test_could_match_is_true_whenever_some_text_matches_both(left: str, right: str, text: str) -> None:
    if fnmatchcase(text, left) and fnmatchcase(text, right):
        assert could_match(left, right)


@pytest.mark.parametrize(
    ("left", "right", "expected"),
    [
        ("git push*", "git*", True),
        ("git push*", "*", True),
        ("git push*", "echo*", False),
        ("rm -rf /", "rm*", True),
        ("rm -rf /", "ls*", False),
        ("[gh]it*", "git*", True),
        ("[!g]it*", "git*", False),
        ("a?c", "ab*", True),
        ("abc", "abd*", False),
    ],
)
def test_could_match(left: str, right: str, expected: bool) -> None:
    assert could_match(left, right) is expected
