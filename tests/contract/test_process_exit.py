"""A program that ends without stopping its background commands takes them along.

The program here is a real Python process: it starts a job whose shell has started a child of its
own (``sleep 77``, which never writes, so a closed output pipe would not stop it), then returns
without stopping it. Once it has exited, nothing of the job may still run.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from circle._testing.processes import process_alive, process_gone

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="process groups are POSIX")

_JOB = "sleep 77 & echo $! > child.pid; wait"

_ADAPTER = """
import asyncio, os, sys
from circle.adapters.local.processes import LocalProcessRunner

async def main() -> None:
    job = await LocalProcessRunner().start({job!r}, cwd=sys.argv[1], output_path=sys.argv[1] + "/log")
    while not os.path.exists(sys.argv[1] + "/child.pid"):
        await asyncio.sleep(0.02)

asyncio.run(main())
"""

_LIBRARY = """
import asyncio, os, sys
import circle
from circle.testing import Call, InMemorySessionStore, ScriptedModel, answer

async def main() -> None:
    call = Call("execute", {{"command": {job!r}, "background": True}})
    model = ScriptedModel([answer("", call), answer("ok")])
    agent = circle.Agent(sys.argv[1], model_client=model, store=InMemorySessionStore(), trust=True,
                         approval_mode="auto")
    await agent.run("start it")
    while not os.path.exists(sys.argv[1] + "/child.pid"):
        await asyncio.sleep(0.02)

asyncio.run(main())
"""


def _run_and_exit(program: str, folder: Path) -> int:
    """Run ``program`` to its end; the pid of the child its job's shell started."""
    code = textwrap.dedent(program).format(job=_JOB)
    env = {**os.environ, "CIRCLE_HOME": str(folder / "home")}
    done = subprocess.run(
        [sys.executable, "-c", code, str(folder)], env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    return int((folder / "child.pid").read_text())


@pytest.mark.parametrize("program", [_ADAPTER, _LIBRARY], ids=["process-runner", "unclosed-agent"])
def test_a_program_that_ends_without_stopping_its_job_leaves_no_process(tmp_path: Path, program: str) -> None:
    child = _run_and_exit(program, tmp_path)
    try:
        assert process_gone(child, within=3), "the job's child outlived the program"
    finally:
        if process_alive(child):
            os.kill(child, signal.SIGKILL)
