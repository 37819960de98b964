"""Saved secrets: %NAME% put in, values written %NAME% again, and commands' environment."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import JsonValue

from circle.adapters._shared.settings_files import load_secrets
from circle.domain.errors import ConfigError
from circle.domain.secrets import Secrets, looks_secret_name, scrub_environment

SECRETS = Secrets({"TOKEN": "tok-123456", "TOKEN_LONG": "tok-123456-extra", "PIN": "123", "DB": "hunter22"})


@pytest.mark.parametrize(
    ("arguments", "expanded"),
    [
        ("%TOKEN%", "tok-123456"),
        ("curl -H 'x: %TOKEN%' %DB%", "curl -H 'x: tok-123456' hunter22"),
        ("%NOPE% stays", "%NOPE% stays"),
        ("100% sure, 50%", "100% sure, 50%"),
        ("%PIN%", "123"),
        (["%TOKEN%", 1, None, True], ["tok-123456", 1, None, True]),
        ({"a": {"b": ["%DB%"]}, "n": 2.5}, {"a": {"b": ["hunter22"]}, "n": 2.5}),
        ({"%TOKEN%": "key names stay"}, {"%TOKEN%": "key names stay"}),
    ],
)
def test_expand_puts_values_in_every_string(arguments: JsonValue, expanded: JsonValue) -> None:
    assert SECRETS.expand(arguments) == expanded


@pytest.mark.parametrize(
    ("text", "masked"),
    [
        ("tok-123456", "%TOKEN%"),
        ("tok-123456-extra", "%TOKEN_LONG%"),
        ("a tok-123456 b hunter22 c", "a %TOKEN% b %DB% c"),
        ("PIN 123 is too short to mask", "PIN 123 is too short to mask"),
        ("nothing here", "nothing here"),
    ],
)
def test_mask_writes_values_as_names_longest_first(text: str, masked: str) -> None:
    assert SECRETS.mask(text) == masked


def test_mask_undoes_expand() -> None:
    command = "echo %TOKEN% %TOKEN_LONG% %DB%"
    expanded = SECRETS.expand(command)
    assert isinstance(expanded, str)
    assert SECRETS.mask(expanded) == command


def test_names_in_lists_known_names_only() -> None:
    assert SECRETS.names_in({"c": "%DB% %TOKEN% %NOPE%", "l": ["%DB%"]}) == ("DB", "TOKEN")
    assert SECRETS.names_in("plain") == ()


def test_no_secrets_change_nothing_and_the_repr_shows_no_value() -> None:
    empty = Secrets()
    assert not empty and empty.mask("tok-123456") == "tok-123456"
    assert empty.expand({"a": "%TOKEN%"}) == {"a": "%TOKEN%"}
    assert "tok-123456" not in repr(SECRETS) and "TOKEN" in repr(SECRETS)


@pytest.mark.parametrize(
    ("name", "secret"),
    [
        ("OPENAI_API_KEY", True),
        ("ANTHROPIC_API_KEY", True),
        ("CIRCLE_API_KEY", True),
        ("GITHUB_TOKEN", True),
        ("GH_TOKEN", True),
        ("AWS_SECRET_ACCESS_KEY", True),
        ("AWS_SESSION_TOKEN", True),
        ("PGPASSWORD", True),
        ("MYSQL_PWD", True),
        ("DB_PASSWORD", True),
        ("NPM_TOKEN_FILE", True),
        ("SECRET", True),
        ("GITHUB_PAT", True),
        ("PATH", False),
        ("PWD", False),
        ("OLDPWD", False),
        ("HOME", False),
        ("SSH_AUTH_SOCK", False),
        ("TOKENIZERS_PARALLELISM", False),
        ("CIRCLE_HOME", False),
        ("KEYTIMEOUT", False),
    ],
)
def test_secret_looking_names(name: str, secret: bool) -> None:
    assert looks_secret_name(name) is secret


def test_scrub_environment_drops_secret_names_values_and_tokens() -> None:
    env = {
        "PATH": "/usr/bin",
        "OPENAI_API_KEY": "whatever",
        "MY_VAR": "tok-123456",
        "SHORT": "123",
        "DATABASE_URL": "postgres://u:pw@db/x",
        "HOOK": "sk-abcdefghijklmnopqrstuvwxyz",
        "LANG": "C.UTF-8",
    }
    assert scrub_environment(env, SECRETS) == {"PATH": "/usr/bin", "SHORT": "123", "LANG": "C.UTF-8"}


def test_load_secrets_reads_the_data_folder(tmp_path: Path) -> None:
    assert load_secrets(tmp_path) == {}
    (tmp_path / "secrets.json").write_text(json.dumps({"DEMO_TOKEN": "v-1"}))
    assert load_secrets(tmp_path) == {"DEMO_TOKEN": "v-1"}


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", "not valid JSON"),
        ('["a"]', "JSON object"),
        ('{"bad name": "x"}', "not a secret name"),
        ('{"N": 5}', "must be a string"),
    ],
)
def test_load_secrets_refuses_a_bad_file(tmp_path: Path, content: str, message: str) -> None:
    (tmp_path / "secrets.json").write_text(content)
    with pytest.raises(ConfigError, match=message):
        load_secrets(tmp_path)
