"""Saved secrets, secret variables and credential files with the real `circle -p --yolo`."""

from __future__ import annotations

import base64
import json
import os
from urllib.parse import quote

from circle._testing.gateway import chat_text, chat_tool_calls

from .conftest import Circle

DEMO = "demo-secret-value-4242"


def _tool_results(request_body: dict[str, object]) -> list[str]:
    messages = request_body["messages"]
    assert isinstance(messages, list)
    return [m["content"] for m in messages if m["role"] == "tool"]


def _save_secrets(cli: Circle, values: dict[str, str]) -> None:
    cli.home.mkdir(parents=True, exist_ok=True)
    path = cli.home / "secrets.json"
    path.write_text(json.dumps(values))
    os.chmod(path, 0o600)


def test_a_saved_secret_reaches_the_command_but_never_the_model(cli: Circle) -> None:
    _save_secrets(cli, {"DEMO_TOKEN": DEMO})
    command = "echo %DEMO_TOKEN% > out.txt; echo %DEMO_TOKEN%"
    cli.gateway.enqueue(chat_tool_calls([("c1", "execute", {"command": command})]), chat_text("Done."))
    done = cli.run("-p", "--yolo", "save the token")
    assert done.returncode == 0, done.stderr
    assert (cli.workspace / "out.txt").read_text() == f"{DEMO}\n"
    requests = [r.json() for r in cli.gateway.requests if r.path.endswith("/chat/completions")]
    assert _tool_results(requests[1]) == ["%DEMO_TOKEN%\n[exit code 0]"]
    assert requests[1]["messages"][2]["tool_calls"][0]["function"]["arguments"].count("%DEMO_TOKEN%") == 2
    assert all(DEMO not in r.body.decode() for r in cli.gateway.requests)
    stored = b"".join(p.read_bytes() for p in cli.home.glob("circle.sqlite*"))
    assert stored and DEMO.encode() not in stored


def test_commands_do_not_see_secret_variables(cli: Circle) -> None:
    _save_secrets(cli, {"DEMO_TOKEN": DEMO})
    cli.gateway.enqueue(chat_tool_calls([("c1", "execute", {"command": "env"})]), chat_text("Listed."))
    env = cli.env(
        OPENAI_API_KEY="openai-e2e-value-0001", DEPLOY_TOKEN="deploy-e2e-value-0002", COPY_OF_DEMO=DEMO
    )
    done = cli.run("-p", "--yolo", "show the environment", env=env)
    assert done.returncode == 0, done.stderr
    listing = _tool_results(cli.gateway.requests[-1].json())[0]
    assert "CIRCLE_MODEL=test-model" in listing and "PATH=" in listing
    for leaked in ("openai-e2e-value-0001", "deploy-e2e-value-0002", "test-key", DEMO, "%DEMO_TOKEN%"):
        assert leaked not in listing
    assert "OPENAI_API_KEY=" not in listing and "CIRCLE_API_KEY=" not in listing


def test_credential_files_are_refused_to_tools_and_commands(cli: Circle) -> None:
    (cli.workspace / ".env").write_text("API_KEY=live-value-77\n")
    (cli.workspace / "app.py").write_text("key = 'API_KEY'\n")
    cli.gateway.enqueue(
        chat_tool_calls(
            [
                ("c1", "read_file", {"file_path": ".env"}),
                ("c2", "execute", {"command": "cat .env"}),
                ("c3", "grep", {"pattern": "API_KEY", "output_mode": "content"}),
                ("c4", "execute", {"command": "echo sk-abcdefghijklmnopqrstuvwx"}),
            ]
        ),
        chat_text("Refused."),
    )
    done = cli.run("-p", "--yolo", "read the keys")
    assert done.returncode == 0, done.stderr
    results = _tool_results(cli.gateway.requests[-1].json())
    assert ".env is a credential file" in results[0]
    assert "credential file" in results[1]
    assert results[2] == "app.py:1:key = 'API_KEY'"
    assert results[3] == "[REDACTED]\n[exit code 0]"
    assert all("live-value-77" not in r.body.decode() for r in cli.gateway.requests)


TOKEN = "Dq7-deploy~Token?value-2026xz"
"""A saved secret whose hex, base64 and percent-encoding all differ from it."""
OWN_KEY = "circle-e2e-endpoint-key-7f3a9c51"


def _runs(text: str, value: str, size: int = 8) -> list[str]:
    """Runs of ``size`` characters of ``value`` plain, reversed, in hex, percent-encoded or base64 (any
    alignment), found in ``text`` with case and whitespace set aside."""
    squeezed = "".join(text.split()).lower()
    raw = value.encode()
    forms = [value, value[::-1], raw.hex(), quote(value, safe=""), "".join(f"%{byte:02x}" for byte in raw)]
    for prefix in (b"", b"x", b"xy"):
        for encode in (base64.b64encode, base64.urlsafe_b64encode):
            forms.append(encode(prefix + raw + b"\0\0").decode()[len(prefix) + 1 : -4])
    forms += [form[::-1] for form in forms]
    lowered = [form.lower() for form in forms]
    return [f[i : i + size] for f in lowered for i in range(len(f) - size + 1) if f[i : i + size] in squeezed]


def _encoded(value: str) -> list[str]:
    raw = value.encode()
    std = base64.b64encode(raw).decode()
    return [
        value,
        value[::-1],
        value.lower(),
        value.upper(),
        std,
        std.rstrip("="),
        raw.hex(),
        quote(value, safe=""),
    ]


def _assert_never_sent(cli: Circle, value: str) -> None:
    for request in cli.gateway.requests:
        body = request.body.decode()
        assert not [form for form in _encoded(value) if form in body]
        if request.path.endswith("/chat/completions"):
            assert not _runs("\n".join(_tool_results(request.json())), value)


TRANSFORMS = [
    "echo '%DEPLOY_TOKEN%' | rev",
    "echo '%DEPLOY_TOKEN%' | tr a-z A-Z",
    "echo '%DEPLOY_TOKEN%' | tr A-Z a-z",
    "echo '%DEPLOY_TOKEN%' | cut -c1-14",
    "echo '%DEPLOY_TOKEN%' | cut -c15-",
    "echo '%DEPLOY_TOKEN%' | base64",
    "printf %s '%DEPLOY_TOKEN%' | base64 -w0 | tr '+/' '-_' | tr -d =",
    "printf 'x%s' '%DEPLOY_TOKEN%' | base64",
    "printf 'xy%s\\n' '%DEPLOY_TOKEN%' | base64 -w 10",
    "echo '%DEPLOY_TOKEN%' | xxd -p",
    "echo '%DEPLOY_TOKEN%' | xxd -p -c 7",
    "echo '%DEPLOY_TOKEN%' | xxd",
    "echo '%DEPLOY_TOKEN%' | od -An -tx1",
    "printf %s '%DEPLOY_TOKEN%' | sed 's/?/%3F/g'",
    "jq -rn --arg v '%DEPLOY_TOKEN%' '$v | @uri'",
    "printf %s '%DEPLOY_TOKEN%' | od -An -tx1 -v | tr -d ' \\n' | sed 's/../%&/g'",
]


def test_a_saved_secret_never_reaches_the_model_encoded_or_cut(cli: Circle) -> None:
    _save_secrets(cli, {"DEPLOY_TOKEN": TOKEN})
    calls = [(f"c{i}", "execute", {"command": command}) for i, command in enumerate(TRANSFORMS)]
    cli.gateway.enqueue(chat_tool_calls(calls), chat_text("Done."))
    done = cli.run("-p", "--yolo", "show the token in every way")
    assert done.returncode == 0, done.stderr
    results = _tool_results(cli.gateway.requests[-1].json())
    assert len(results) == len(TRANSFORMS)
    for command, result in zip(TRANSFORMS, results, strict=True):
        assert "%DEPLOY_TOKEN%" in result and "[exit code 0]" in result, (command, result)
        assert not _runs(result, TOKEN), (command, result)
    _assert_never_sent(cli, TOKEN)


def test_circles_own_key_never_reaches_the_model_in_any_form(cli: Circle) -> None:
    (cli.workspace / "notes.txt").write_text(f"the key is {OWN_KEY}\n")
    commands = [
        "rev notes.txt",
        "tr a-z A-Z < notes.txt",
        "base64 notes.txt",
        "xxd -p notes.txt",
        "cut -c1-22 notes.txt",
        "cut -c23- notes.txt",
    ]
    calls = [(f"c{i}", "execute", {"command": command}) for i, command in enumerate(commands)]
    cli.gateway.enqueue(
        chat_tool_calls([*calls, ("r", "read_file", {"file_path": "notes.txt"})]), chat_text("Done.")
    )
    done = cli.run("-p", "--yolo", "find the key", env=cli.env(CIRCLE_API_KEY=OWN_KEY))
    assert done.returncode == 0, done.stderr
    results = _tool_results(cli.gateway.requests[-1].json())
    assert len(results) == len(commands) + 1
    for result in results:
        assert "[REDACTED]" in result, result
        assert not _runs(result, OWN_KEY), result
    _assert_never_sent(cli, OWN_KEY)


def test_a_key_in_credentials_json_is_hidden_from_commands_output(cli: Circle) -> None:
    cli.home.mkdir(parents=True, exist_ok=True)
    (cli.home / "credentials.json").write_text(json.dumps({"api_key": OWN_KEY}))
    os.chmod(cli.home / "credentials.json", 0o600)
    (cli.workspace / "notes.txt").write_text(f"{OWN_KEY}\n")
    cli.gateway.enqueue(
        chat_tool_calls([("c1", "execute", {"command": "rev notes.txt | base64"})]), chat_text(".")
    )
    env = {k: v for k, v in cli.env().items() if k != "CIRCLE_API_KEY"}
    done = cli.run("-p", "--yolo", "find the key", env=env)
    assert done.returncode == 0, done.stderr
    (result,) = _tool_results(cli.gateway.requests[-1].json())
    assert result.startswith("[REDACTED]") and result.endswith("\n[exit code 0]"), result
    assert not _runs(result, OWN_KEY)
    _assert_never_sent(cli, OWN_KEY)
