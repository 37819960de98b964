"""Saved secrets, secret variables and credential files with the real `circle -p --yolo`."""

from __future__ import annotations

import json
import os

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
