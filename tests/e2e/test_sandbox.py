"""`circle -p --sandbox …` for real under bubblewrap, against the loopback gateway."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from circle._testing.gateway import ScriptedGateway, chat_text, chat_tool_calls
from circle.adapters.local.sandbox import check_bwrap

from .conftest import Circle


@pytest.fixture(scope="module", autouse=True)
def _needs_bwrap() -> None:
    problem = "bwrap is not on PATH" if shutil.which("bwrap") is None else check_bwrap()
    if problem is not None:
        pytest.skip(f"needs the Debian package bubblewrap ({problem})")


@pytest.fixture
def outside() -> Iterator[Path]:
    """A folder outside the workspace and outside /tmp, so the sandbox shows it read-only."""
    try:
        folder = Path(tempfile.mkdtemp(prefix="circle-sandbox-e2e-", dir="/var/tmp"))
    except OSError as exc:
        pytest.skip(f"needs a writable /var/tmp ({exc.strerror})")
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def _chats(cli: Circle) -> list[dict[str, object]]:
    return [r.json() for r in cli.gateway.requests if r.path.endswith("/chat/completions")]


def _tool_results(cli: Circle) -> list[str]:
    messages = _chats(cli)[-1]["messages"]
    assert isinstance(messages, list)
    return [m["content"] for m in messages if m["role"] == "tool"]


def _settings(cli: Circle, **values: object) -> None:
    cli.home.mkdir(parents=True, exist_ok=True)
    (cli.home / "settings.json").write_text(json.dumps(values))


def test_workspace_write_keeps_commands_to_the_workspace(cli: Circle, outside: Path) -> None:
    target = outside / "outside.txt"
    command = f"touch inside.txt; touch {target}"
    cli.gateway.enqueue(chat_tool_calls([("c1", "execute", {"command": command})]), chat_text("Tried."))
    done = cli.run("-p", "--yolo", "--sandbox", "workspace-write", "touch both")
    assert done.returncode == 0, done.stderr
    assert (cli.workspace / "inside.txt").exists()
    assert not target.exists()
    [result] = _tool_results(cli)
    assert f"touch: cannot touch '{target}': Read-only file system" in result
    assert result.endswith("[exit code 1]")
    messages = _chats(cli)[0]["messages"]
    assert isinstance(messages, list)
    system = messages[0]["content"]
    assert "- Commands run in a sandbox: the file system is read-only except the workspace" in system


def test_hooks_run_outside_the_sandbox(cli: Circle, outside: Path) -> None:
    hook_log = outside / "hook.log"
    cli.home.mkdir(parents=True, exist_ok=True)
    hook = {"type": "command", "command": f"echo ran >> {hook_log}"}
    (cli.home / "hooks.json").write_text(
        json.dumps({"hooks": {"PreToolUse": [{"matcher": "execute", "hooks": [hook]}]}})
    )
    command = f"echo sandboxed >> {hook_log}"
    cli.gateway.enqueue(chat_tool_calls([("c1", "execute", {"command": command})]), chat_text("Done."))
    done = cli.run("-p", "--yolo", "--sandbox", "workspace-write", "log it")
    assert done.returncode == 0, done.stderr
    assert hook_log.read_text() == "ran\n"
    assert "Read-only file system" in _tool_results(cli)[0]


def test_settings_choose_the_sandbox_and_the_flag_beats_them(cli: Circle) -> None:
    _settings(cli, sandbox="read-only")
    cli.gateway.enqueue(
        chat_tool_calls([("c1", "execute", {"command": "touch first.txt"})]), chat_text("Tried.")
    )
    done = cli.run("-p", "--yolo", "touch it")
    assert done.returncode == 0, done.stderr
    assert not (cli.workspace / "first.txt").exists()
    assert "Read-only file system" in _tool_results(cli)[0]
    cli.gateway.enqueue(
        chat_tool_calls([("c1", "execute", {"command": "touch second.txt"})]), chat_text("Done.")
    )
    done = cli.run("-p", "--yolo", "--sandbox", "off", "touch it")
    assert done.returncode == 0, done.stderr
    assert (cli.workspace / "second.txt").exists()


def test_without_bwrap_circle_refuses_and_runs_nothing(cli: Circle, tmp_path: Path) -> None:
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    cli.gateway.enqueue(chat_tool_calls([("c1", "execute", {"command": "touch ran.txt"})]), chat_text("x"))
    done = cli.run("-p", "--yolo", "--sandbox", "workspace-write", "touch it", env=cli.env(PATH=str(empty)))
    assert done.returncode == 1
    assert done.stderr == (
        "circle: cannot sandbox commands (workspace-write): bubblewrap (bwrap) is not installed: "
        "apt-get install bubblewrap; nothing was run\n"
    )
    assert _chats(cli) == [], "no model was asked"
    assert not (cli.workspace / "ran.txt").exists()


def test_an_unknown_sandbox_mode_is_bad_usage(cli: Circle) -> None:
    done = cli.run("-p", "--sandbox", "everything", "hi")
    assert done.returncode == 2
    assert "unknown sandbox mode 'everything'" in done.stderr
    assert cli.gateway.requests == []


@pytest.fixture
def secrets(outside: Path, gateway: ScriptedGateway) -> Circle:
    """`circle` with a home folder, a data folder and a workspace outside /tmp, holding credentials."""
    home, data, work = outside / "home", outside / "data", outside / "work"
    files = {
        home / ".ssh/id_rsa": "SECRET-ssh",
        home / ".aws/credentials": "SECRET-aws",
        home / ".netrc": "SECRET-netrc",
        data / "approvals.json": '{"rules": []}',
        work / ".env": "SECRET-env",
        work / ".env.example": "# copy to .env and fill it in",
        work / "deploy/server.pem": "SECRET-pem",
        work / "sub/.env.local": "SECRET-env-local",
        work / ".gitignore": "sub/.env.local\n",
        work / ".git/config": "[core]\n",
        work / ".git/hooks/pre-commit.sample": "#!/bin/sh\n",
    }
    for path, text in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return Circle(home=data, workspace=work, gateway=gateway)


def _python() -> str:
    if not os.access("/usr/bin/python3", os.X_OK):
        pytest.skip("needs /usr/bin/python3 (the Debian package python3), which the sandbox shows")
    return "/usr/bin/python3"


def _spelled(path: Path) -> str:
    """A Python expression for ``path`` that never spells it whole."""
    text = str(path)
    return " + ".join(repr(text[at : at + 4]) for at in range(0, len(text), 4))


def _sandboxed(cli: Circle, command: str) -> str:
    """The result of the model's ``command`` run by ``circle -p --yolo --sandbox workspace-write``.

    The code that builds paths at run time is a script in the workspace rather than ``python -c``,
    which asks in every mode (and so would not run here, where nobody answers)."""
    cli.gateway.enqueue(chat_tool_calls([("c1", "execute", {"command": command})]), chat_text("Done."))
    env = cli.env(HOME=str(cli.workspace.parent / "home"))
    done = cli.run("-p", "--yolo", "--sandbox", "workspace-write", "try it", env=env)
    assert done.returncode == 0, done.stderr
    [result] = _tool_results(cli)
    return result


def test_paths_built_at_run_time_read_nothing_of_the_credentials(secrets: Circle) -> None:
    home, work = secrets.workspace.parent / "home", secrets.workspace
    hidden = [home / ".ssh/id_rsa", home / ".aws/credentials", home / ".netrc"]
    hidden += [
        work / ".env",
        work / "deploy/server.pem",
        work / "sub/.env.local",
        secrets.home / "approvals.json",
    ]
    code = (
        f"import os\nfor p in [{', '.join(_spelled(path) for path in hidden)}]:\n"
        "    print(repr(open(p).read()) if os.path.exists(p) else 'missing')\n"
        f"print(open({_spelled(work / '.env.example')}).read())"
    )
    (work / "probe.py").write_text(code)
    command = f"{_python()} probe.py; cat $(printf '%s/.s%s/id_%s' \"$HOME\" sh rsa); echo end"
    result = _sandboxed(secrets, command)
    assert "SECRET" not in result, result
    lines = result.splitlines()
    assert set(lines[:7]) <= {"''", "missing"}, result
    assert lines[7] == "# copy to .env and fill it in", "a template still reads"
    assert lines[-2:] == ["end", "[exit code 0]"], result
    assert (home / ".ssh/id_rsa").read_text() == "SECRET-ssh"


def test_always_ask_places_cannot_be_written_but_the_workspace_can(secrets: Circle) -> None:
    work, data = secrets.workspace, secrets.home
    targets = [work / ".git/hooks/pre-commit", data / "approvals.json", work / "made.txt"]
    code = (
        f"for p in [{', '.join(_spelled(path) for path in targets)}]:\n"
        "    try:\n"
        "        open(p, 'w').write('changed')\n"
        "        print('wrote')\n"
        "    except OSError as exc:\n"
        "        print('refused:', exc.strerror)\n"
    )
    (work / "probe.py").write_text(code)
    result = _sandboxed(secrets, f"{_python()} probe.py")
    assert result.splitlines()[:3] == ["refused: Read-only file system"] * 2 + ["wrote"], result
    assert not (work / ".git/hooks/pre-commit").exists()
    assert (data / "approvals.json").read_text() == '{"rules": []}'
    assert (work / "made.txt").read_text() == "changed"
