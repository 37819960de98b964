"""The ProcessRunner ``start`` contract: both runners for outcomes, the real one for process groups."""

from __future__ import annotations

import asyncio
import os
import random
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from circle._testing.local import FakeProcessRunner, Hang
from circle._testing.processes import process_alive, process_gone_async
from circle.adapters.local.files import LocalFileSystem
from circle.adapters.local.processes import LocalProcessRunner
from circle.adapters.local.sandbox import check_bwrap
from circle.application.jobs import JobManager, MovedToBackground
from circle.application.ports.process_runner import ProcessResult, ProcessRunner
from circle.domain.sandbox import SandboxPolicy

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
    assert all(process_alive(pid) for pid in pids)
    started = time.monotonic()
    async with asyncio.timeout(10):
        await process.stop()
    assert time.monotonic() - started < 4
    for pid in pids:
        assert await process_gone_async(pid), f"{pid} survived"


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
    assert await process_gone_async(child)
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
        assert process_alive(child)
        async with asyncio.timeout(10):
            await process.stop()
        assert await process_gone_async(child)
    finally:
        if process_alive(child):
            os.kill(child, 9)


# Waiting on a started command as ``run`` does, then moving it to the background (JobManager.run_waited).


async def test_exited_and_output_while_it_runs(runner: ProcessRunner, tmp_path: Path) -> None:
    log = tmp_path / "job-1.log"
    process = await runner.start(
        "echo one; sleep 30", cwd=str(tmp_path), output_path=str(log), output_limit=100
    )
    deadline = time.monotonic() + 5
    while process.output() != "one\n":
        assert time.monotonic() < deadline, "the output was never kept"
        await asyncio.sleep(0.02)
    exited = asyncio.create_task(process.exited())
    await asyncio.sleep(0.1)
    assert not exited.done()
    async with asyncio.timeout(5):
        await process.stop()
        assert await exited != 0


async def test_output_is_kept_to_the_limit_with_head_and_tail(runner: ProcessRunner, tmp_path: Path) -> None:
    command = "seq 1 2000"
    if isinstance(runner, FakeProcessRunner):
        runner.script = {command: ProcessResult(0, "".join(f"{i}\n" for i in range(1, 2001)))}
    log = tmp_path / "job-1.log"
    process = await runner.start(command, cwd=str(tmp_path), output_path=str(log), output_limit=200)
    async with asyncio.timeout(5):
        assert await process.exited() == 0
        await process.wait()
    kept = process.output()
    assert kept.startswith("1\n2\n3\n") and kept.endswith("1999\n2000\n") and "characters cut …\n" in kept
    assert _output(runner, log) == "".join(f"{i}\n" for i in range(1, 2001))  # the file has it all


def _jobs(runner: ProcessRunner, tmp_path: Path) -> JobManager:
    return JobManager(runner, LocalFileSystem(), folder=str(tmp_path / "background_jobs" / "s1"))


async def test_a_waited_on_command_gives_its_result_and_leaves_no_file(
    runner: ProcessRunner, tmp_path: Path
) -> None:
    jobs = _jobs(runner, tmp_path)
    async with asyncio.timeout(10):
        result = await jobs.run_waited(
            "echo hello; echo err >&2; exit 3", cwd=str(tmp_path), timeout_s=5, output_limit=100
        )
    assert result == ProcessResult(exit_code=3, output="hello\nerr\n")
    assert not (tmp_path / "background_jobs" / "s1" / "job-1.log").exists()
    assert jobs.jobs == []


async def test_a_waited_on_command_times_out_with_its_output(runner: ProcessRunner, tmp_path: Path) -> None:
    jobs = _jobs(runner, tmp_path)
    async with asyncio.timeout(10):
        result = await jobs.run_waited(
            "echo one; sleep 30", cwd=str(tmp_path), timeout_s=0.5, output_limit=100
        )
    assert result == ProcessResult(exit_code=None, output="one\n", timed_out=True)


async def test_a_waited_on_command_whose_child_holds_the_output_does_not_hang(tmp_path: Path) -> None:
    jobs = _jobs(LocalProcessRunner(), tmp_path)
    started = time.monotonic()
    async with asyncio.timeout(10):
        result = await jobs.run_waited(
            "sleep 30 & echo $! > bg.pid; echo started", cwd=str(tmp_path), timeout_s=10, output_limit=100
        )
    assert time.monotonic() - started < 4
    assert result == ProcessResult(exit_code=0, output="started\n")
    assert await process_gone_async(int((tmp_path / "bg.pid").read_text()))


async def test_cancelling_a_waited_on_command_kills_its_whole_group(tmp_path: Path) -> None:
    jobs = _jobs(LocalProcessRunner(), tmp_path)
    waiting = asyncio.create_task(jobs.run_waited(GROUP, cwd=str(tmp_path), timeout_s=30, output_limit=100))
    pids = [await _read_pid(tmp_path / name) for name in ("bg.pid", "grandchild.pid", "main.pid")]
    waiting.cancel()
    async with asyncio.timeout(10):
        with pytest.raises(asyncio.CancelledError):
            await waiting
    for pid in pids:
        assert await process_gone_async(pid), f"{pid} survived"


async def test_a_moved_command_keeps_running_with_its_grandchildren_and_stop_kills_them_all(
    tmp_path: Path,
) -> None:
    jobs = _jobs(LocalProcessRunner(), tmp_path)
    command = f"{GROUP.removesuffix('sleep 30')}echo ready; while true; do echo tick; sleep 0.1; done"
    waiting = asyncio.create_task(jobs.run_waited(command, cwd=str(tmp_path), timeout_s=2, output_limit=1000))
    pids = [await _read_pid(tmp_path / name) for name in ("bg.pid", "grandchild.pid", "main.pid")]
    assert jobs.waiting == [command]
    assert await jobs.move_waiting_to_background() == 1
    async with asyncio.timeout(5):
        moved = await waiting
    assert isinstance(moved, MovedToBackground) and moved.job.id == "job-1"
    assert moved.output.startswith("ready\n")
    log = Path(moved.job.output_path)
    assert log == tmp_path / "background_jobs" / "s1" / "job-1.log"
    await asyncio.sleep(2.5)  # past the timeout it was waited on with: nothing stops it
    assert all(process_alive(pid) for pid in pids)
    ticks = log.read_text().count("tick")
    await asyncio.sleep(0.5)
    assert log.read_text().count("tick") > ticks  # still writing to its job's file
    assert [job.status for job in jobs.running] == ["running"]
    async with asyncio.timeout(10):
        await jobs.stop("job-1")
    for pid in pids:
        assert await process_gone_async(pid), f"{pid} survived"
    await asyncio.sleep(0.1)
    assert jobs.take_notices() == []  # stopped, not ended by itself


async def test_a_moved_command_that_ends_by_itself_sends_its_notice(tmp_path: Path) -> None:
    jobs = _jobs(LocalProcessRunner(), tmp_path)
    ended = asyncio.Event()
    jobs.on_ended(ended.set)
    waiting = asyncio.create_task(
        jobs.run_waited(
            "echo first; sleep 1; echo second; exit 4", cwd=str(tmp_path), timeout_s=5, output_limit=100
        )
    )
    deadline = time.monotonic() + 5
    while not jobs.waiting:
        assert time.monotonic() < deadline
        await asyncio.sleep(0.01)
    await asyncio.sleep(0.2)
    assert await jobs.move_waiting_to_background() == 1
    moved = await waiting
    assert isinstance(moved, MovedToBackground) and moved.output == "first\n"
    async with asyncio.timeout(5):
        await ended.wait()
    (notice,) = jobs.take_notices()
    assert notice.startswith(
        "[job-1 (echo first; sleep 1; echo second; exit 4) exited with code 4; last lines of "
    )
    assert notice.endswith("first\nsecond]")


def _survivors(marker: str) -> list[str]:
    found = subprocess.run(["pgrep", "-fx", f"sleep {marker}"], capture_output=True, text=True, check=False)
    return found.stdout.splitlines()


async def test_a_sandboxed_command_moved_to_the_background_goes_on_and_stops_with_everything(
    tmp_path: Path,
) -> None:
    problem = "bwrap is not on PATH" if shutil.which("bwrap") is None else check_bwrap()
    if problem is not None:
        pytest.skip(f"needs the Debian package bubblewrap ({problem})")
    workspace = tmp_path / "work"
    workspace.mkdir()
    runner = LocalProcessRunner(sandbox=SandboxPolicy("workspace-write", workspace=str(workspace)))
    jobs = JobManager(runner, LocalFileSystem(), folder=str(tmp_path / "background_jobs" / "s1"))
    marker = f"30.{random.randrange(10**8, 10**9)}"
    command = f"sleep {marker} & bash -c 'sleep {marker}' & echo started; wait"
    waiting = asyncio.create_task(jobs.run_waited(command, cwd=str(workspace), timeout_s=1, output_limit=100))
    deadline = time.monotonic() + 5
    while len(_survivors(marker)) < 2:
        assert time.monotonic() < deadline, "the sandboxed sleeps never started"
        await asyncio.sleep(0.05)
    assert await jobs.move_waiting_to_background() == 1
    async with asyncio.timeout(5):
        moved = await waiting
    assert isinstance(moved, MovedToBackground) and moved.output == "started\n"
    await asyncio.sleep(1.5)  # past the timeout it was waited on with
    assert len(_survivors(marker)) == 2
    async with asyncio.timeout(10):
        await jobs.stop(moved.job.id)
    deadline = time.monotonic() + 3
    while _survivors(marker):
        assert time.monotonic() < deadline, f"survived: {_survivors(marker)}"
        await asyncio.sleep(0.05)
