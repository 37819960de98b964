"""The ProcessRunner contract: simple outcomes against both runners, process groups against the real one."""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path

import pytest

from circle._testing.local import FakeProcessRunner, Hang
from circle._testing.processes import process_alive, process_gone_async
from circle.adapters.local.processes import LocalProcessRunner
from circle.application.ports.process_runner import ProcessResult, ProcessRunner

SCRIPT: dict[str, ProcessResult | Hang] = {
    "echo hello": ProcessResult(exit_code=0, output="hello\n"),
    "echo out; exit 3": ProcessResult(exit_code=3, output="out\n"),
    "echo out; echo err >&2; echo out2": ProcessResult(exit_code=0, output="out\nerr\nout2\n"),
    "echo out; echo err >&2": ProcessResult(exit_code=0, output="out\n", stderr="err\n"),
    'read -r line; echo "got $line"': ProcessResult(exit_code=0, output="got hello\n"),
    "true": ProcessResult(exit_code=0, output=""),
    "echo partial; sleep 30": Hang(output="partial\n"),
    "sleep 30": Hang(),
}


@pytest.fixture(params=["local", "fake"])
def runner(request: pytest.FixtureRequest) -> ProcessRunner:
    return LocalProcessRunner() if request.param == "local" else FakeProcessRunner(SCRIPT)


async def _run(
    runner: ProcessRunner, command: str, cwd: Path, *, timeout_s: float = 10, output_limit: int = 10_000
) -> ProcessResult:
    async with asyncio.timeout(timeout_s + 5):
        return await runner.run(command, cwd=str(cwd), timeout_s=timeout_s, output_limit=output_limit)


@pytest.mark.parametrize(
    ("command", "exit_code", "output"),
    [
        ("echo hello", 0, "hello\n"),
        ("echo out; exit 3", 3, "out\n"),
        ("echo out; echo err >&2; echo out2", 0, "out\nerr\nout2\n"),
        ("true", 0, ""),
    ],
)
async def test_exit_code_and_interleaved_output(
    runner: ProcessRunner, tmp_path: Path, command: str, exit_code: int, output: str
) -> None:
    result = await _run(runner, command, tmp_path)
    assert result == ProcessResult(exit_code=exit_code, output=output)


async def test_timeout_returns_what_was_captured(runner: ProcessRunner, tmp_path: Path) -> None:
    result = await _run(runner, "echo partial; sleep 30", tmp_path, timeout_s=0.5)
    assert result.timed_out
    assert result.exit_code is None
    assert result.output == "partial\n"


async def test_cancellation_propagates(runner: ProcessRunner, tmp_path: Path) -> None:
    task = asyncio.create_task(_run(runner, "sleep 30", tmp_path))
    await asyncio.sleep(0.3)
    task.cancel()
    async with asyncio.timeout(5):
        with pytest.raises(asyncio.CancelledError):
            await task


async def test_output_over_the_limit_keeps_head_and_tail(runner: ProcessRunner, tmp_path: Path) -> None:
    command = "seq 1 2000"
    if isinstance(runner, FakeProcessRunner):
        runner.script = {command: ProcessResult(0, "".join(f"{i}\n" for i in range(1, 2001)))}
    result = await _run(runner, command, tmp_path, output_limit=200)
    assert result.truncated
    assert result.exit_code == 0
    assert result.output.startswith("1\n2\n3\n")
    assert result.output.endswith("1999\n2000\n")
    assert "characters cut …\n" in result.output
    assert len(result.output) <= 200 + 40


async def test_fake_records_calls_and_answers_unknown_commands_with_127(tmp_path: Path) -> None:
    runner = FakeProcessRunner(SCRIPT)
    async with asyncio.timeout(5):
        result = await runner.run("make", cwd=str(tmp_path), timeout_s=5, output_limit=100, env={"A": "1"})
        await _run(runner, "sleep 30", tmp_path, timeout_s=0.1)
    assert result.exit_code == 127
    assert [(c.command, c.cwd, c.env) for c in runner.calls] == [
        ("make", str(tmp_path), {"A": "1"}),
        ("sleep 30", str(tmp_path), None),
    ]
    assert runner.timed_out == ["sleep 30"]


async def test_stdin_is_given_to_the_command(runner: ProcessRunner, tmp_path: Path) -> None:
    async with asyncio.timeout(10):
        result = await runner.run(
            'read -r line; echo "got $line"',
            cwd=str(tmp_path),
            timeout_s=5,
            output_limit=100,
            stdin="hello\n",
        )
    assert result == ProcessResult(exit_code=0, output="got hello\n")
    if isinstance(runner, FakeProcessRunner):
        assert runner.calls[-1].stdin == "hello\n"


@pytest.mark.parametrize(
    ("separate", "output", "stderr"), [(False, "out\nerr\n", ""), (True, "out\n", "err\n")]
)
async def test_stderr_apart_when_asked(
    runner: ProcessRunner, tmp_path: Path, separate: bool, output: str, stderr: str
) -> None:
    async with asyncio.timeout(10):
        result = await runner.run(
            "echo out; echo err >&2",
            cwd=str(tmp_path),
            timeout_s=5,
            output_limit=100,
            separate_stderr=separate,
        )
    assert result == ProcessResult(exit_code=0, output=output, stderr=stderr)


# The real runner only: process groups, environment, pipes.


async def test_without_stdin_the_command_reads_nothing(tmp_path: Path) -> None:
    result = await _run(LocalProcessRunner(), "cat; echo end", tmp_path, timeout_s=5)
    assert result == ProcessResult(exit_code=0, output="end\n")


async def test_stdin_larger_than_a_pipe_is_written_whole(tmp_path: Path) -> None:
    async with asyncio.timeout(10):
        result = await LocalProcessRunner().run(
            "wc -c", cwd=str(tmp_path), timeout_s=5, output_limit=100, stdin="x" * 300_000
        )
    assert result.output.strip() == "300000"


async def test_a_command_that_ignores_its_stdin_still_finishes(tmp_path: Path) -> None:
    started = time.monotonic()
    async with asyncio.timeout(10):
        result = await LocalProcessRunner().run(
            "echo done", cwd=str(tmp_path), timeout_s=5, output_limit=100, stdin="x" * 300_000
        )
    assert result == ProcessResult(exit_code=0, output="done\n")
    assert time.monotonic() - started < 3


async def test_a_command_reading_stdin_past_its_timeout_is_stopped(tmp_path: Path) -> None:
    async with asyncio.timeout(10):
        result = await LocalProcessRunner().run(
            "cat >/dev/null; sleep 30", cwd=str(tmp_path), timeout_s=0.5, output_limit=100, stdin="{}"
        )
    assert result.timed_out


async def test_stderr_apart_keeps_each_stream_to_the_limit(tmp_path: Path) -> None:
    command = "seq 1 2000; seq 1 2000 >&2"
    async with asyncio.timeout(10):
        result = await LocalProcessRunner().run(
            command, cwd=str(tmp_path), timeout_s=5, output_limit=200, separate_stderr=True
        )
    assert result.truncated
    for stream in (result.output, result.stderr):
        assert stream.startswith("1\n2\n")
        assert stream.endswith("2000\n")
        assert len(stream) <= 240


async def _read_pid(path: Path, *, within: float = 5.0) -> int:
    deadline = time.monotonic() + within
    while not (path.exists() and path.read_text().strip()):
        assert time.monotonic() < deadline, f"{path.name} never appeared"
        await asyncio.sleep(0.02)
    return int(path.read_text())


GROUP = "sleep 30 & echo $! > bg.pid; echo $$ > main.pid; sleep 30; echo never"


async def test_timeout_kills_the_whole_process_group(tmp_path: Path) -> None:
    started = time.monotonic()
    result = await _run(LocalProcessRunner(), GROUP, tmp_path, timeout_s=0.5)
    assert result.timed_out
    assert time.monotonic() - started < 4
    assert "never" not in result.output
    for name in ("bg.pid", "main.pid"):
        assert await process_gone_async(int((tmp_path / name).read_text())), f"{name} survived"


async def test_cancellation_kills_the_whole_process_group(tmp_path: Path) -> None:
    task = asyncio.create_task(_run(LocalProcessRunner(), GROUP, tmp_path))
    background = await _read_pid(tmp_path / "bg.pid")
    main = await _read_pid(tmp_path / "main.pid")
    task.cancel()
    async with asyncio.timeout(5):
        with pytest.raises(asyncio.CancelledError):
            await task
    assert await process_gone_async(background)
    assert await process_gone_async(main)


async def test_background_child_holding_the_output_does_not_hang(tmp_path: Path) -> None:
    started = time.monotonic()
    result = await _run(LocalProcessRunner(), "sleep 30 & echo $! > bg.pid; echo started", tmp_path)
    assert time.monotonic() - started < 3
    assert result == ProcessResult(exit_code=0, output="started\n")
    assert await process_gone_async(int((tmp_path / "bg.pid").read_text()))


async def test_background_child_that_let_go_of_the_output_is_left_alone(tmp_path: Path) -> None:
    command = "sleep 30 >/dev/null 2>&1 & echo $! > bg.pid; echo started"
    result = await _run(LocalProcessRunner(), command, tmp_path)
    assert result.output == "started\n"
    pid = int((tmp_path / "bg.pid").read_text())
    try:
        assert process_alive(pid)
    finally:
        os.kill(pid, 9)


async def test_runs_in_cwd_with_the_given_environment(tmp_path: Path) -> None:
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "CIRCLE_TEST": "yes"}
    async with asyncio.timeout(10):
        result = await LocalProcessRunner().run(
            'pwd; echo "$CIRCLE_TEST"; echo "${HOME-unset}"',
            cwd=str(tmp_path),
            timeout_s=5,
            output_limit=1000,
            env=env,
        )
    assert result.output.splitlines() == [str(tmp_path), "yes", "unset"]


async def test_output_is_decoded_with_replacement(tmp_path: Path) -> None:
    result = await _run(LocalProcessRunner(), r"printf 'a\377b\n'", tmp_path)
    assert result.output == "a\ufffdb\n"


async def test_output_under_the_limit_is_whole(tmp_path: Path) -> None:
    result = await _run(LocalProcessRunner(), "seq 1 50", tmp_path, output_limit=1000)
    assert not result.truncated
    assert result.output == "".join(f"{i}\n" for i in range(1, 51))


async def test_a_command_killed_by_a_signal_reports_it(tmp_path: Path) -> None:
    result = await _run(LocalProcessRunner(), "kill -9 $$", tmp_path)
    assert result.exit_code == -9
    assert not result.timed_out
