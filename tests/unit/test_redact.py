"""Passwords and tokens hidden in command output, and what is left alone."""

from __future__ import annotations

import pytest

from circle.domain.redact import hidden_parts, redact

OPENAI = "sk-proj-" + "Ab1" * 16
ANTHROPIC = "sk-ant-api03-" + "x9Y_" * 20
GITHUB = "ghp_" + "a1B2" * 9
JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"

HIDDEN = [
    (f"key: {OPENAI}", "key: [REDACTED]"),
    (f"ANTHROPIC={ANTHROPIC}", "ANTHROPIC=[REDACTED]"),
    ("sk-abcdefghijklmnopqrstuvwx", "[REDACTED]"),
    (f"token {GITHUB} ok", "token [REDACTED] ok"),
    ("github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz", "[REDACTED]"),
    ("gho_" + "Z" * 36, "[REDACTED]"),
    ("id AKIAIOSFODNN7EXAMPLE end", "id [REDACTED] end"),
    (
        "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "aws_secret_access_key = [REDACTED]",
    ),
    ("xoxb-1234567890-abcdefghij", "[REDACTED]"),
    ("AIza" + "B" * 35, "[REDACTED]"),
    (f"cookie {JWT}", "cookie [REDACTED]"),
    ("Authorization: Bearer abc.def.ghi", "Authorization: Bearer [REDACTED]"),
    ("authorization: Basic dXNlcjpwYXNz", "authorization: Basic [REDACTED]"),
    ("curl -H 'Authorization: token abcdef123456'", "curl -H 'Authorization: token [REDACTED]'"),
    ("sent Bearer 0123456789abcdefXYZ", "sent Bearer [REDACTED]"),
    ("password=hunter2", "password=[REDACTED]"),
    ("DB_PASSWORD=s3cr3t!x", "DB_PASSWORD=[REDACTED]"),
    ("passwd: correcthorse", "passwd: [REDACTED]"),
    ("export GITHUB_TOKEN=abc123def456", "export GITHUB_TOKEN=[REDACTED]"),
    ('{"api_key": "abcd1234efgh"}', '{"api_key": "[REDACTED]"}'),
    ("client_secret: 'zzz-yyy-xxx'", "client_secret: '[REDACTED]'"),
    ("mysql --password=topsecret db", "mysql --password=[REDACTED] db"),
    ("gh auth --token abcdef012345", "gh auth --token [REDACTED]"),
    ("postgres://app:pa55word@db:5432/x", "postgres://app:[REDACTED]@db:5432/x"),
    ("https://user:tok%40en@github.com/o/r.git", "https://user:[REDACTED]@github.com/o/r.git"),
    (
        "-----BEGIN RSA PRIVATE KEY-----\nMIIEow\nAAAA\n-----END RSA PRIVATE KEY-----\nafter",
        "-----BEGIN RSA PRIVATE KEY-----\n[REDACTED]\n-----END RSA PRIVATE KEY-----\nafter",
    ),
    (
        "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA… 300 characters cut",
        "-----BEGIN OPENSSH PRIVATE KEY-----\n[REDACTED]\n",
    ),
    (
        "x\n-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----",
        "x\n-----BEGIN PRIVATE KEY-----\n[REDACTED]\n-----END PRIVATE KEY-----",
    ),
]

KEPT = [
    "commit 3f786850e387550fdab836ed7e6dc881de23001b",
    "a3f7868 fix: keep tokens short",
    "sha256: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "id 123e4567-e89b-12d3-a456-426614174000",
    "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
    "max_tokens=4096",
    "input_tokens: 1234, output_tokens: 56",
    "PWD=/home/me/project",
    "OLDPWD=/tmp",
    "password=%DB_PASS%",
    "token=$GITHUB_TOKEN",
    "api_key=${OPENAI_API_KEY}",
    "password: ********",
    "Password:",
    "token = get_token()",
    'password = os.environ["DB_PASSWORD"]',
    "secret=None",
    "the password is wrong",
    "bearer tokens are sent in a header",
    "pip install scikit-learn",
    "task-runner-for-the-projects-sk-build",
    "git@github.com:org/repo.git",
    "https://user@example.com/x",
    "http://localhost:8080/path@v2",
    "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----",
    "-----BEGIN PUBLIC KEY-----\nMIIB\n-----END PUBLIC KEY-----",
    "TOKENIZERS_PARALLELISM=false",
    "tokens: 12",
]


@pytest.mark.parametrize(("text", "expected"), HIDDEN)
def test_secrets_are_redacted(text: str, expected: str) -> None:
    assert redact(text) == expected


@pytest.mark.parametrize("text", KEPT)
def test_ordinary_output_is_left_alone(text: str) -> None:
    assert redact(text) == text


def test_redacting_twice_changes_nothing_more() -> None:
    for text, _ in HIDDEN:
        once = redact(text)
        assert redact(once) == once


@pytest.mark.parametrize("token", [OPENAI, ANTHROPIC, GITHUB, "AKIAIOSFODNN7EXAMPLE", JWT])
def test_a_token_written_backwards_is_redacted(token: str) -> None:
    assert redact(f"x {token[::-1]} y") == "x [REDACTED] y"
    assert redact(f"KEY={token}\n"[::-1]) == "\n[REDACTED]=YEK"


def test_the_parts_redact_hides_are_named() -> None:
    pem = "-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----"
    text = f"url=https://u:pa55word@db/x {OPENAI} {GITHUB[::-1]} {pem}"
    assert hidden_parts(text) == [OPENAI, GITHUB[::-1], "pa55word", "MIIE"]
    assert hidden_parts("nothing here, max_tokens=4096, password=%DB%") == []
