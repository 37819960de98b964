"""`import circle` in a program of its own, as the README shows it, against the loopback gateway."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from circle._testing.gateway import chat_text, chat_tool_calls
from circle._testing.processes import process_gone

from .conftest import Circle

README_EXAMPLE = """
import asyncio, sys, circle

async def main() -> None:
    async with circle.Agent(sys.argv[1], model="qwen3-coder") as agent:
        result = await agent.run("What does main.py do?")
        print(result.answer, result.usage)
        async for event in agent.stream("Now add a docstring to it"):
            print(type(event).__name__)

asyncio.run(main())
"""


def _program(cli: Circle, code: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code, str(cli.workspace)],
        cwd=cli.workspace,
        env=cli.env(),
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def _chats(cli: Circle) -> list[dict[str, object]]:
    """The bodies of the chat requests the gateway received (a protocol probe left out)."""
    return [r.json() for r in cli.gateway.requests if r.method == "POST" and r.body]


def test_the_readme_example_runs(cli: Circle) -> None:
    cli.gateway.enqueue(chat_text("It prints hello."), chat_text("Done."))
    done = _program(cli, README_EXAMPLE)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("It prints hello.")
    assert "TurnStarted" in lines and "TurnEnded" in lines
    assert [body["model"] for body in _chats(cli)] == ["qwen3-coder", "qwen3-coder"]


def test_an_untrusted_folder_is_refused_with_one_line(untrusted: Circle) -> None:
    code = README_EXAMPLE.replace(
        "asyncio.run(main())",
        "try:\n    asyncio.run(main())\nexcept circle.CircleError as e:\n    print(e.message)",
    )
    done = _program(untrusted, code)
    folder = untrusted.workspace
    said = f"{folder} is not trusted: run `circle trust {folder}` first, or pass trust=True"
    assert done.stdout.strip() == said
    assert _chats(untrusted) == []


def test_a_deny_rule_and_a_hook_stop_a_programs_calls(cli: Circle) -> None:
    (cli.home / "approvals.json").write_text(
        json.dumps([{"tool": "execute", "pattern": "touch denied*", "effect": "deny"}])
    )
    hook = {
        "hooks": {
            "PreToolUse": [
                {"matcher": "Write", "hooks": [{"type": "command", "command": "echo no writes >&2; exit 2"}]}
            ]
        }
    }
    (cli.home / "hooks.json").write_text(json.dumps(hook))
    cli.gateway.enqueue(
        chat_tool_calls(
            [
                ("c1", "execute", {"command": "touch denied.txt"}),
                ("c2", "write_file", {"file_path": "hooked.txt", "content": "x"}),
            ]
        ),
        chat_text("Could not."),
    )
    code = """
import asyncio, sys, circle
async def main():
    async with circle.Agent(sys.argv[1], approval_mode="auto") as agent:
        print((await agent.run("try")).answer)
asyncio.run(main())
"""
    done = _program(cli, code)
    assert done.returncode == 0, done.stderr
    assert not (cli.workspace / "denied.txt").exists()
    assert not (cli.workspace / "hooked.txt").exists()
    told = json.dumps(_chats(cli)[1]["messages"])
    assert "approvals.json" in told and "no writes" in told


def test_leaving_the_agent_stops_its_background_job(cli: Circle) -> None:
    script = "echo $$ > job.pid; sleep 77 && touch late"
    cli.gateway.enqueue(
        chat_tool_calls([("c1", "execute", {"command": script, "background": True})]),
        chat_text("Started."),
    )
    code = """
import asyncio, pathlib, sys, circle
async def main():
    async with circle.Agent(sys.argv[1], approval_mode="auto") as agent:
        await agent.run("start it")
        pid = pathlib.Path(sys.argv[1], "job.pid")
        for _ in range(100):
            if pid.exists() and pid.read_text().strip():
                break
            await asyncio.sleep(0.05)
asyncio.run(main())
"""
    done = _program(cli, code)
    assert done.returncode == 0, done.stderr
    pid = int((cli.workspace / "job.pid").read_text())
    assert process_gone(pid), "the job's shell is gone"
    assert not Path(cli.workspace / "late").exists()
