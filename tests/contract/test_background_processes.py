"""The ProcessRunner ``start`` contract: both runners for outcomes, the real one for process groups."""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path

import pytest

from circle._testing.local import FakeProcessRunner, Hang
from circle.adapters.local.processes import LocalProcessRunner
from circle.application.ports.process_runner import ProcessResult, ProcessRunner

SCRIPT: dict[str, ProcessResult | Hang] = {
    "echo hello; echo err >&2; exit 3": ProcessResult(exit_code=3, output="hello\nerr\n"),
    "echo one; sleep 30": Hang(output="one\n"),
}


@pytest.fixture(params=["local", "fake"])
def runner(request: pytest.FixtureRequest) -> ProcessRunner:
    return LocalProcessRunner() if request.param == "local" else FakeProcessRunner(SCRIPT)


def _output(runner: ProcessRunner, path: Path) -> str:
    if isinstance(runner, FakeProcessRunner):
        return runner.outputs.get(str(path), "")
    return path.read_text() if path.exists() else ""


def _alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie waiting for a reaper counts as gone)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state not in ("Z", "X")


async def _gone(pid: int, *, within: float = 3.0) -> bool:
    deadline = time.monotonic() + within
    while _alive(pid):
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.05)
    return True


async def _read_pid(path: Path, *, within: float = 5.0) -> int:
    deadline = time.monotonic() + within
    while not (path.exists() and path.read_text().strip()):
        assert time.monotonic() < deadline, f"{path.name} never appeared"
        await asyncio.sleep(0.02)
    return int(path.read_text())


async def test_a_command_that_ends_gives_its_exit_code_and_output_file(
    runner: ProcessRunner, tmp_path: Path
) -> None:
    log = tmp_path / "jobs" / "job-1.log"
    process = await runner.start("echo hello; echo err >&2; exit 3", cwd=str(tmp_path), output_path=str(log))
    async with asyncio.timeout(5):
        assert await process.wait() == 3
    assert _output(runner, log) == "hello\nerr\n"
    assert process.pid > 0


async def test_the_output_file_fills_as_the_command_runs_and_stop_ends_it(
    runner: ProcessRunner, tmp_path: Path
) -> None:
    log = tmp_path / "job-1.log"
    process = await runner.start("echo one; sleep 30", cwd=str(tmp_path), output_path=str(log))
    deadline = time.monotonic() + 5
    while _output(runner, log) != "one\n":
        assert time.monotonic() < deadline, "the output never reached the file"
        await asyncio.sleep(0.02)
    waiting = asyncio.create_task(process.wait())
    await asyncio.sleep(0.1)
    assert not waiting.done()
    async with asyncio.timeout(5):
        await process.stop()
        assert await waiting != 0
        await process.stop()  # again: nothing


async def test_output_is_appended_to_what_the_file_held(tmp_path: Path) -> None:
    log = tmp_path / "job-1.log"
    log.write_text("before\n")
    process = await LocalProcessRunner().start("echo after", cwd=str(tmp_path), output_path=str(log))
    async with asyncio.timeout(5):
        assert await process.wait() == 0
    assert log.read_text() == "before\nafter\n"


GROUP = (
    "sleep 30 & echo $! > bg.pid; "
    "bash -c 'sleep 30 & echo $! > grandchild.pid; wait' & "
    "echo $$ > main.pid; sleep 30"
)


async def test_stop_kills_the_whole_process_group_with_grandchildren(tmp_path: Path) -> None:
    process = await LocalProcessRunner().start(GROUP, cwd=str(tmp_path), output_path=str(tmp_path / "j.log"))
    pids = [await _read_pid(tmp_path / name) for name in ("bg.pid", "grandchild.pid", "main.pid")]
    assert all(_alive(pid) for pid in pids)
    started = time.monotonic()
    async with asyncio.timeout(10):
        await process.stop()
    assert time.monotonic() - started < 4
    for pid in pids:
        assert await _gone(pid), f"{pid} survived"


async def test_a_job_runs_while_a_child_holds_its_output_and_stop_ends_the_child(tmp_path: Path) -> None:
    process = await LocalProcessRunner().start(
        "sleep 30 & echo $! > bg.pid; echo started", cwd=str(tmp_path), output_path=str(tmp_path / "j.log")
    )
    child = await _read_pid(tmp_path / "bg.pid")
    waiting = asyncio.create_task(process.wait())
    await asyncio.sleep(0.5)
    assert not waiting.done(), "the job ended while its child still wrote to the output"
    async with asyncio.timeout(10):
        await process.stop()
        await waiting
    assert await _gone(child)
    assert (tmp_path / "j.log").read_text() == "started\n"


async def test_stop_after_the_command_ended_still_takes_what_it_left(tmp_path: Path) -> None:
    command = "sleep 30 >/dev/null 2>&1 & echo $! > bg.pid"
    process = await LocalProcessRunner().start(
        command, cwd=str(tmp_path), output_path=str(tmp_path / "j.log")
    )
    async with asyncio.timeout(5):
        assert await process.wait() == 0
    child = await _read_pid(tmp_path / "bg.pid")
    try:
        assert _alive(child)
        async with asyncio.timeout(10):
            await process.stop()
        assert await _gone(child)
    finally:
        if _alive(child):
            os.kill(child, 9)
