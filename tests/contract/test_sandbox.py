"""The sandboxed ``LocalProcessRunner``, for real under bubblewrap: writes, network, process groups.

Everything below ``/tmp`` but the workspace is hidden by the sandbox's private ``/tmp``, so a file
"outside" is tried twice: a sibling of the workspace (hidden) and one in a folder outside ``/tmp``
(visible, read-only).
"""

from __future__ import annotations

import asyncio
import os
import random
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

import circle
from circle.adapters.local.processes import LocalProcessRunner
from circle.adapters.local.sandbox import NOT_INSTALLED, check_bwrap
from circle.application.ports.process_runner import ProcessResult
from circle.domain.errors import ToolError
from circle.domain.messages import ToolResultPart
from circle.domain.sandbox import SandboxMode, SandboxPolicy
from circle.testing import Call, InMemorySessionStore, ScriptedModel, answer


@pytest.fixture(scope="module", autouse=True)
def _needs_bwrap() -> None:
    problem = "bwrap is not on PATH" if shutil.which("bwrap") is None else check_bwrap()
    if problem is not None:
        pytest.skip(f"needs the Debian package bubblewrap ({problem})")


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    folder = tmp_path / "work"
    folder.mkdir()
    return folder


@pytest.fixture
def outside(tmp_path: Path) -> Iterator[list[Path]]:
    """Two files outside the workspace: a sibling below /tmp and one in a folder outside /tmp."""
    sibling = tmp_path / "sibling" / "keep.txt"
    sibling.parent.mkdir()
    try:
        folder = Path(tempfile.mkdtemp(prefix="circle-sandbox-test-", dir="/var/tmp"))
    except OSError as exc:
        pytest.skip(f"needs a writable /var/tmp ({exc.strerror})")
    files = [sibling, folder / "keep.txt"]
    for file in files:
        file.write_text("original\n")
    yield files
    shutil.rmtree(folder, ignore_errors=True)


def _runner(
    mode: SandboxMode, workspace: Path, *, network: bool = False, writable: tuple[str, ...] = ()
) -> LocalProcessRunner:
    return LocalProcessRunner(
        sandbox=SandboxPolicy(mode, workspace=str(workspace), writable=writable, network=network)
    )


async def _run(
    runner: LocalProcessRunner, command: str, cwd: Path, *, timeout_s: float = 10
) -> ProcessResult:
    async with asyncio.timeout(timeout_s + 5):
        return await runner.run(command, cwd=str(cwd), timeout_s=timeout_s, output_limit=10_000)


@pytest.mark.parametrize(
    ("command", "exit_code", "output"),
    [
        ("echo hello", 0, "hello\n"),
        ("echo out; exit 3", 3, "out\n"),
        ("echo out; echo err >&2; echo out2", 0, "out\nerr\nout2\n"),
        ("true", 0, ""),
    ],
)
async def test_the_runner_contract_holds_in_the_sandbox(
    workspace: Path, command: str, exit_code: int, output: str
) -> None:
    result = await _run(_runner("workspace-write", workspace), command, workspace)
    assert result == ProcessResult(exit_code=exit_code, output=output)


async def test_commands_run_in_the_workspace_with_the_given_environment(workspace: Path) -> None:
    env = {"PATH": os.environ["PATH"], "CIRCLE_TEST": "yes"}
    async with asyncio.timeout(15):
        result = await _runner("read-only", workspace).run(
            'pwd; echo "$CIRCLE_TEST"', cwd=str(workspace), timeout_s=10, output_limit=100, env=env
        )
    assert result.output.splitlines() == [str(workspace), "yes"]


async def test_stdin_and_separate_stderr_work_in_the_sandbox(workspace: Path) -> None:
    async with asyncio.timeout(15):
        result = await _runner("read-only", workspace).run(
            'read -r line; echo "got $line"; echo err >&2',
            cwd=str(workspace),
            timeout_s=10,
            output_limit=100,
            stdin="hello\n",
            separate_stderr=True,
        )
    assert result == ProcessResult(exit_code=0, output="got hello\n", stderr="err\n")


async def test_workspace_write_writes_the_workspace_and_tmp_and_nothing_else(
    workspace: Path, outside: list[Path]
) -> None:
    jobs = workspace.parent / "data" / "background_jobs"
    runner = _runner("workspace-write", workspace, writable=(str(jobs),))
    command = (
        "echo made > inside.txt && echo inside-ok; "
        "echo scratch > /tmp/scratch.txt && cat /tmp/scratch.txt; "
        f"echo job > {jobs}/job.txt && echo job-ok; "
        + "; ".join(f"echo changed > {file}" for file in outside)
    )
    result = await _run(runner, command, workspace)
    assert (workspace / "inside.txt").read_text() == "made\n"
    assert (jobs / "job.txt").read_text() == "job\n"
    assert "inside-ok\nscratch\njob-ok\n" in result.output
    assert f"{outside[1]}: Read-only file system" in result.output
    assert result.exit_code != 0
    for file in outside:
        assert file.read_text() == "original\n"
    assert not Path("/tmp/scratch.txt").exists(), "the sandbox's /tmp is its own"


async def test_read_only_writes_nothing_not_even_the_workspace(workspace: Path, outside: list[Path]) -> None:
    (workspace / "kept.txt").write_text("original\n")
    command = (
        "echo changed > kept.txt; touch new.txt; "
        "echo scratch > /tmp/s.txt && cat /tmp/s.txt; cat kept.txt; "
        + "; ".join(f"echo changed > {file}" for file in outside)
    )
    result = await _run(_runner("read-only", workspace), command, workspace)
    assert "kept.txt: Read-only file system" in result.output
    assert "scratch\noriginal\n" in result.output, "/tmp is scratch space, the workspace is readable"
    assert (workspace / "kept.txt").read_text() == "original\n"
    assert not (workspace / "new.txt").exists()
    for file in outside:
        assert file.read_text() == "original\n"


@pytest.fixture
def listening() -> Iterator[int]:
    """A loopback port that accepts connections (the backlog takes them; nothing reads)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as server:
        server.bind(("127.0.0.1", 0))
        server.listen(8)
        yield server.getsockname()[1]


def _connect(port: int) -> str:
    code = (
        "import socket\n"
        "try:\n"
        f"    socket.create_connection(('127.0.0.1', {port}), timeout=3).close()\n"
        "    print('connected')\n"
        "except OSError as exc:\n"
        "    print('failed', exc.errno)\n"
    )
    return f'{sys.executable} -c "{code}"'


async def test_the_network_is_cut_even_to_loopback(workspace: Path, listening: int) -> None:
    unsandboxed = await _run(LocalProcessRunner(), _connect(listening), workspace)
    assert unsandboxed.output == "connected\n"
    sandboxed = await _run(_runner("workspace-write", workspace), _connect(listening), workspace)
    assert sandboxed.output.startswith("failed"), sandboxed.output


async def test_the_network_stays_when_the_policy_allows_it(workspace: Path, listening: int) -> None:
    result = await _run(_runner("workspace-write", workspace, network=True), _connect(listening), workspace)
    assert result.output == "connected\n"


def _marker() -> str:
    return f"30.{random.randrange(10**8, 10**9)}"


def _survivors(marker: str) -> list[str]:
    found = subprocess.run(["pgrep", "-af", f"sleep {marker}"], capture_output=True, text=True, check=False)
    return found.stdout.splitlines()


async def _none_left(marker: str, *, within: float = 3.0) -> list[str]:
    deadline = time.monotonic() + within
    while (left := _survivors(marker)) and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    return left


async def test_timeout_kills_everything_in_the_sandbox(workspace: Path) -> None:
    marker = _marker()
    started = time.monotonic()
    result = await _run(
        _runner("workspace-write", workspace),
        f"sleep {marker} & sleep {marker}; echo never",
        workspace,
        timeout_s=0.5,
    )
    assert result.timed_out and result.exit_code is None
    assert "never" not in result.output
    assert time.monotonic() - started < 4
    assert await _none_left(marker) == []


async def test_cancellation_kills_everything_in_the_sandbox(workspace: Path) -> None:
    marker = _marker()
    runner = _runner("read-only", workspace)
    task = asyncio.create_task(_run(runner, f"sleep {marker} & sleep {marker}", workspace))
    deadline = time.monotonic() + 5
    while len(_survivors(marker)) < 2:
        assert time.monotonic() < deadline, "the sandboxed sleeps never started"
        await asyncio.sleep(0.05)
    task.cancel()
    async with asyncio.timeout(5):
        with pytest.raises(asyncio.CancelledError):
            await task
    assert await _none_left(marker) == []


async def test_a_background_child_ends_with_the_sandboxed_command(workspace: Path) -> None:
    marker = _marker()
    result = await _run(
        _runner("workspace-write", workspace), f"sleep {marker} >/dev/null 2>&1 & echo started", workspace
    )
    assert result == ProcessResult(exit_code=0, output="started\n")
    assert await _none_left(marker) == []


async def test_without_bwrap_on_path_the_command_is_refused_not_run(workspace: Path, tmp_path: Path) -> None:
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    env = {"PATH": str(empty)}
    assert check_bwrap(env) == NOT_INSTALLED
    with pytest.raises(ToolError, match="bubblewrap"):
        async with asyncio.timeout(10):
            await _runner("workspace-write", workspace).run(
                "/bin/touch ran.txt", cwd=str(workspace), timeout_s=5, output_limit=100, env=env
            )
    assert not (workspace / "ran.txt").exists()


def test_check_bwrap_reports_why_bwrap_cannot_start(tmp_path: Path) -> None:
    fake = tmp_path / "bin" / "bwrap"
    fake.parent.mkdir()
    fake.write_text("#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n")
    fake.chmod(0o755)
    problem = check_bwrap({"PATH": str(fake.parent)})
    assert problem == "bwrap cannot start here: bwrap: No permissions to create new namespace"
    assert check_bwrap() is None


async def test_the_agent_runs_commands_sandboxed(workspace: Path, outside: list[Path]) -> None:
    target = outside[1]
    model = ScriptedModel(
        [answer("", Call("execute", {"command": f"touch inside.txt; echo changed > {target}"})), answer("ok")]
    )
    async with circle.Agent(
        workspace, model_client=model, store=InMemorySessionStore(), sandbox="workspace-write"
    ) as agent:
        await agent.run("write both")
    assert (workspace / "inside.txt").exists()
    assert target.read_text() == "original\n"
    result = [p for p in model.requests[1].messages[-1].parts if isinstance(p, ToolResultPart)]
    assert "Read-only file system" in result[0].text
    assert "Commands run in a sandbox" in model.requests[0].system


def test_the_agent_refuses_to_start_sandboxed_without_bwrap(
    workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    with pytest.raises(circle.ConfigError, match=r"cannot sandbox commands \(read-only\): bubblewrap"):
        circle.Agent(workspace, model_client=ScriptedModel(), sandbox="read-only")
    assert os.environ["PATH"] == str(empty)
