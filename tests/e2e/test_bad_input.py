"""What a person sees when something is wrong: one clear line, the right exit code, no traceback."""

from __future__ import annotations

import json
import socket
import sqlite3

from circle._testing.gateway import chat_error, chat_text

from .conftest import Circle


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _one_clean_line(stderr: str) -> str:
    assert "Traceback" not in stderr
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1, stderr
    return lines[0]


def test_unreachable_endpoint(cli: Circle) -> None:
    env = cli.env(CIRCLE_BASE_URL=f"http://127.0.0.1:{_closed_port()}/v1")
    done = cli.run("-p", "--yolo", "hello", env=env)
    assert done.returncode == 1
    assert "cannot reach" in _one_clean_line(done.stderr)


def test_unreachable_endpoint_keeps_the_message(cli: Circle) -> None:
    env = cli.env(CIRCLE_BASE_URL=f"http://127.0.0.1:{_closed_port()}/v1")
    cli.run("trust", str(cli.workspace))
    cli.run("-p", "hello there", env=env)
    db = sqlite3.connect(cli.home / "circle.sqlite")
    rows = [json.loads(r[0]) for r in db.execute("select message_json from checkpoints")]
    db.close()
    assert rows and rows[0]["parts"][0]["text"] == "hello there"


def test_refused_key(cli: Circle) -> None:
    cli.gateway.enqueue(chat_error(401, "Incorrect API key provided"))
    done = cli.run("-p", "--yolo", "hello")
    assert done.returncode == 1
    line = _one_clean_line(done.stderr)
    assert "401" in line and "API key" in line


def test_missing_key_for_the_openai_service(cli: Circle) -> None:
    env = cli.env(CIRCLE_BASE_URL="https://api.openai.com/v1", CIRCLE_API_KEY="")
    done = cli.run("-p", "--yolo", "hello", env=env)
    assert done.returncode == 1
    assert "no API key" in _one_clean_line(done.stderr)


def test_no_model(cli: Circle) -> None:
    done = cli.run("-p", "--yolo", "hello", env=cli.env(CIRCLE_MODEL=""))
    assert done.returncode == 1
    assert "no model chosen" in _one_clean_line(done.stderr)


def test_untrusted_folder_is_refused_with_or_without_yolo(untrusted: Circle) -> None:
    cli = untrusted
    for flags in ((), ("--yolo",)):
        done = cli.run("-p", *flags, "hello")
        assert done.returncode == 1
        assert "not trusted" in _one_clean_line(done.stderr) and "--yolo" not in done.stderr
    assert cli.run("trust", str(cli.workspace)).returncode == 0
    cli.gateway.enqueue(chat_text("hi"))
    assert cli.run("-p", "hello").returncode == 0


def test_a_change_that_would_ask_is_not_run_in_print_mode(cli: Circle) -> None:
    from circle._testing.gateway import chat_tool_calls

    cli.run("trust", str(cli.workspace))
    cli.gateway.enqueue(
        chat_tool_calls([("c1", "write_file", {"file_path": "x.txt", "content": "x"})]),
        chat_text("I could not write it."),
    )
    done = cli.run("-p", "write x.txt")
    assert done.returncode == 0, done.stderr
    assert not (cli.workspace / "x.txt").exists()
    sent = cli.gateway.requests[-1].json()["messages"]
    assert "not approved" in sent[-1]["content"] and "--yolo" in sent[-1]["content"]


def test_bad_settings_file(cli: Circle) -> None:
    cli.home.mkdir(parents=True, exist_ok=True)
    (cli.home / "settings.json").write_text("{ not json")
    done = cli.run("-p", "--yolo", "hello")
    assert done.returncode == 1
    assert "settings.json is not valid JSON" in _one_clean_line(done.stderr)


def test_a_settings_file_nested_too_deeply(cli: Circle) -> None:
    cli.home.mkdir(parents=True, exist_ok=True)
    (cli.home / "settings.json").write_text('{"a": ' + "[" * 100_000 + "]" * 100_000 + "}")
    done = cli.run("-p", "--yolo", "hello")
    assert done.returncode == 1
    assert "settings.json is not usable JSON: it is nested too deeply" in _one_clean_line(done.stderr)


def test_unknown_session(cli: Circle) -> None:
    done = cli.run("-p", "--yolo", "--session", "nope", "hello")
    assert done.returncode == 1
    assert "no session 'nope'" in _one_clean_line(done.stderr)


def test_bad_usage_exits_2(cli: Circle) -> None:
    assert cli.run("-p", "--mode", "xml", "hi").returncode == 2
    assert cli.run("-p", "--max-turns", "0", "hi").returncode == 2
    done = cli.run("-p", "--yolo", "--tools", "read_file,nope", "hi")
    assert done.returncode == 2 and "unknown tool 'nope'" in done.stderr


def test_no_message(cli: Circle) -> None:
    done = cli.run("-p")
    assert done.returncode == 2
    assert "no message" in done.stderr
