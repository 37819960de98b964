"""HookRunner over real shell scripts (LocalProcessRunner) and over FakeProcessRunner, same assertions.

Each case is a script written into the workspace and, for the fake, the result that script gives.
Cases that depend on what the hook reads or where it runs use the real runner only.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
from pydantic import JsonValue

from circle._testing.local import FakeProcessRunner, Hang
from circle.adapters.local.processes import LocalProcessRunner
from circle.application.hooks import HookRunner
from circle.application.ports.process_runner import ProcessResult, ProcessRunner
from circle.domain.hooks import HookDecision, HookEvent, HookVerdict, parse_hooks


@dataclass(frozen=True)
class Case:
    body: str
    fake: ProcessResult | Hang
    decision: HookDecision | None
    reason: str = ""
    failed: bool = False
    context: str = ""


ALLOW = '{"hookSpecificOutput": {"permissionDecision": "allow", "permissionDecisionReason": "looks fine"}}'
PRE_TOOL_CASES: dict[str, Case] = {
    "allow": Case(f"cat >/dev/null\necho '{ALLOW}'", ProcessResult(0, ALLOW + "\n"), "allow", "looks fine"),
    "deny-exit-2": Case(
        "echo 'this stdout is ignored'\necho 'no deploys on Fridays' >&2\nexit 2",
        ProcessResult(2, "this stdout is ignored\n", stderr="no deploys on Fridays\n"),
        "deny",
        "no deploys on Fridays",
    ),
    "ask": Case(
        'echo \'{"decision": "ask", "reason": "touches CI"}\'',
        ProcessResult(0, '{"decision": "ask", "reason": "touches CI"}\n'),
        "ask",
        "touches CI",
    ),
    "block": Case(
        'echo \'{"decision": "block", "reason": "legacy block"}\'',
        ProcessResult(0, '{"decision": "block", "reason": "legacy block"}\n'),
        "deny",
        "legacy block",
    ),
    "timeout": Case("sleep 30", Hang(), "deny", "hook './timeout.sh' timed out after 0.5 s", failed=True),
    "exit-3": Case(
        "echo 'config missing' >&2\nexit 3",
        ProcessResult(3, "", stderr="config missing\n"),
        "deny",
        "hook './exit-3.sh' failed (exit 3): config missing",
        failed=True,
    ),
    "garbage": Case(
        "echo 'hello {not json'\necho 'warning' >&2",
        ProcessResult(0, "hello {not json\n", stderr="warning\n"),
        None,
        context="hello {not json",
    ),
    "silent": Case("exit 0", ProcessResult(0, ""), None),
}


def _write_script(folder: Path, name: str, body: str) -> None:
    path = folder / name
    path.write_text(f"#!/bin/sh\n{body}\n", encoding="utf-8")
    path.chmod(0o755)


def _config(event: HookEvent, *commands: str, matcher: str = "", timeout: float = 0.5) -> dict[str, object]:
    hooks = [{"type": "command", "command": c, "timeout": timeout} for c in commands]
    return {"hooks": {event: [{"matcher": matcher, "hooks": hooks}]}}


def _runner(
    processes: ProcessRunner, workspace: Path, data: dict[str, object], *, env: dict[str, str] | None = None
) -> HookRunner:
    hooks = parse_hooks(data, source="hooks.json")
    return HookRunner(processes, hooks, workspace=str(workspace), session_id="s-1", env=env)


@pytest.fixture(params=["local", "fake"])
def processes(request: pytest.FixtureRequest) -> ProcessRunner:
    if request.param == "local":
        return LocalProcessRunner()
    return FakeProcessRunner({f"./{name}.sh": case.fake for name, case in PRE_TOOL_CASES.items()})


@pytest.mark.parametrize("name", list(PRE_TOOL_CASES))
async def test_pre_tool_verdicts(processes: ProcessRunner, tmp_path: Path, name: str) -> None:
    case = PRE_TOOL_CASES[name]
    _write_script(tmp_path, f"{name}.sh", case.body)
    runner = _runner(processes, tmp_path, _config("PreToolUse", f"./{name}.sh"))
    started = time.monotonic()
    async with asyncio.timeout(10):
        verdict = await runner.pre_tool("execute", {"command": "make deploy"})
    assert (verdict.decision, verdict.reason, verdict.failed) == (case.decision, case.reason, case.failed)
    assert verdict.context == case.context
    assert verdict.hook == (f"'./{name}.sh'" if case.decision else "")
    assert time.monotonic() - started < 4


async def test_the_hook_gets_the_call_as_json_on_stdin(processes: ProcessRunner, tmp_path: Path) -> None:
    _write_script(tmp_path, "silent.sh", "cat > seen.json")
    runner = _runner(processes, tmp_path, _config("PreToolUse", "./silent.sh", matcher="Bash"))
    async with asyncio.timeout(10):
        await runner.pre_tool("execute", {"command": "ls -la"}, tool_use_id="call-7")
    if isinstance(processes, FakeProcessRunner):
        (call,) = processes.calls
        assert (call.cwd, call.timeout_s, call.separate_stderr) == (str(tmp_path), 0.5, True)
        seen = json.loads(call.stdin or "")
    else:
        seen = json.loads((tmp_path / "seen.json").read_text())
    assert seen == {
        "session_id": "s-1",
        "cwd": str(tmp_path),
        "hook_event_name": "PreToolUse",
        "permission_mode": "default",
        "tool_name": "execute",
        "tool_input": {"command": "ls -la"},
        "tool_use_id": "call-7",
    }


async def test_several_hooks_combine_deny_over_ask_over_allow(
    processes: ProcessRunner, tmp_path: Path
) -> None:
    for name in ("allow", "ask", "deny-exit-2"):
        _write_script(tmp_path, f"{name}.sh", PRE_TOOL_CASES[name].body)
    runner = _runner(processes, tmp_path, _config("PreToolUse", "./allow.sh", "./ask.sh"))
    async with asyncio.timeout(10):
        assert (await runner.pre_tool("execute", {"command": "x"})).decision == "ask"
    runner = _runner(processes, tmp_path, _config("PreToolUse", "./allow.sh", "./ask.sh", "./deny-exit-2.sh"))
    async with asyncio.timeout(10):
        verdict = await runner.pre_tool("execute", {"command": "x"})
    assert (verdict.decision, verdict.reason) == ("deny", "no deploys on Fridays")


async def test_no_hooks_for_the_tool_no_opinion_and_nothing_runs(
    processes: ProcessRunner, tmp_path: Path
) -> None:
    runner = _runner(processes, tmp_path, _config("PreToolUse", "./allow.sh", matcher="Edit|Write"))
    async with asyncio.timeout(10):
        assert await runner.pre_tool("execute", {"command": "x"}) == HookVerdict()
        assert await runner.post_tool("execute", {"command": "x"}, "out", False) is None
        assert await runner.session_start() is None
        assert await runner.stop("done") == HookVerdict()
    if isinstance(processes, FakeProcessRunner):
        assert processes.calls == []


async def test_post_tool_output_goes_back_to_the_model(processes: ProcessRunner, tmp_path: Path) -> None:
    _write_script(tmp_path, "after.sh", "cat > seen.json\necho 'formatted 1 file'")
    if isinstance(processes, FakeProcessRunner):
        processes.script = {"./after.sh": ProcessResult(0, "formatted 1 file\n")}
    runner = _runner(processes, tmp_path, _config("PostToolUse", "./after.sh", matcher="Write|Edit"))
    async with asyncio.timeout(10):
        text = await runner.post_tool(
            "write_file", {"file_path": "a.py", "content": "x"}, "wrote a.py", False
        )
    assert text == "formatted 1 file"
    if isinstance(processes, FakeProcessRunner):
        seen = json.loads(processes.calls[0].stdin or "")
    else:
        seen = json.loads((tmp_path / "seen.json").read_text())
    assert seen["hook_event_name"] == "PostToolUse"
    assert seen["tool_response"] == {"output": "wrote a.py", "is_error": False}


async def test_post_tool_block_reason_and_failures_reach_the_model(
    processes: ProcessRunner, tmp_path: Path
) -> None:
    _write_script(tmp_path, "lint.sh", 'echo \'{"decision": "block", "reason": "lint: 2 errors"}\'')
    _write_script(tmp_path, "broken.sh", "exit 3")
    if isinstance(processes, FakeProcessRunner):
        processes.script = {
            "./lint.sh": ProcessResult(0, '{"decision": "block", "reason": "lint: 2 errors"}\n'),
            "./broken.sh": ProcessResult(3, ""),
        }
    runner = _runner(processes, tmp_path, _config("PostToolUse", "./lint.sh", "./broken.sh"))
    async with asyncio.timeout(10):
        text = await runner.post_tool("edit_file", {"file_path": "a.py"}, "edited", False)
    assert text == "lint: 2 errors\n\nhook './broken.sh' failed (exit 3)"


async def test_session_start_output_goes_to_the_model(processes: ProcessRunner, tmp_path: Path) -> None:
    context = '{"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": "branch: main"}}'
    _write_script(tmp_path, "start.sh", "echo 'open issues: 3'")
    _write_script(tmp_path, "context.sh", f"echo '{context}'")
    if isinstance(processes, FakeProcessRunner):
        processes.script = {
            "./start.sh": ProcessResult(0, "open issues: 3\n"),
            "./context.sh": ProcessResult(0, context),
        }
    runner = _runner(processes, tmp_path, _config("SessionStart", "./start.sh", "./context.sh"))
    async with asyncio.timeout(10):
        assert await runner.session_start() == "open issues: 3\n\nbranch: main"
    runner = _runner(processes, tmp_path, _config("SessionStart", "./start.sh", matcher="resume"))
    async with asyncio.timeout(10):
        assert await runner.session_start() is None
        assert await runner.session_start(source="resume") == "open issues: 3"


async def test_a_stop_hook_that_blocks_keeps_the_turn_going(processes: ProcessRunner, tmp_path: Path) -> None:
    body = 'echo \'{"decision": "block", "reason": "run the tests first"}\''
    _write_script(tmp_path, "stop.sh", f"cat > seen.json\n{body}")
    if isinstance(processes, FakeProcessRunner):
        processes.script = {
            "./stop.sh": ProcessResult(0, '{"decision": "block", "reason": "run the tests first"}')
        }
    runner = _runner(processes, tmp_path, _config("Stop", "./stop.sh"))
    async with asyncio.timeout(10):
        verdict = await runner.stop("All done.", active=True)
    assert (verdict.decision, verdict.reason, verdict.failed) == ("deny", "run the tests first", False)
    if isinstance(processes, FakeProcessRunner):
        seen = json.loads(processes.calls[0].stdin or "")
    else:
        seen = json.loads((tmp_path / "seen.json").read_text())
    assert seen["hook_event_name"] == "Stop"
    assert (seen["stop_hook_active"], seen["last_assistant_message"]) == (True, "All done.")


# The real runner only: what the hook reads, where it runs, what it cannot run.

RM_GUARD = f"""#!{sys.executable}
import json, sys
call = json.load(sys.stdin)
if "rm" in call["tool_input"].get("command", ""):
    print("no rm, please: " + call["tool_input"]["command"], file=sys.stderr)
    sys.exit(2)
"""


async def test_a_hook_reading_stdin_denies_only_rm(tmp_path: Path) -> None:
    guard = tmp_path / "guard.py"
    guard.write_text(RM_GUARD, encoding="utf-8")
    guard.chmod(0o755)
    runner = _runner(
        LocalProcessRunner(), tmp_path, _config("PreToolUse", "./guard.py", matcher="Bash", timeout=10)
    )
    async with asyncio.timeout(20):
        denied = await runner.pre_tool("execute", {"command": "rm -rf build"})
        allowed = await runner.pre_tool("execute", {"command": "ls build"})
        other_tool = await runner.pre_tool("write_file", {"file_path": "rm.txt", "content": ""})
    assert (denied.decision, denied.reason) == ("deny", "no rm, please: rm -rf build")
    assert allowed == HookVerdict()
    assert other_tool == HookVerdict()


async def test_hooks_run_in_the_workspace_with_the_project_folder_set(tmp_path: Path) -> None:
    _write_script(tmp_path, "where.sh", 'echo "$(pwd) $CIRCLE_PROJECT_DIR $CLAUDE_PROJECT_DIR"')
    env = {"PATH": "/usr/bin:/bin"}
    runner = _runner(LocalProcessRunner(), tmp_path, _config("SessionStart", "./where.sh"), env=env)
    async with asyncio.timeout(10):
        assert await runner.session_start() == f"{tmp_path} {tmp_path} {tmp_path}"


async def test_a_missing_hook_script_denies(tmp_path: Path) -> None:
    runner = _runner(LocalProcessRunner(), tmp_path, _config("PreToolUse", "./nowhere.sh"))
    async with asyncio.timeout(10):
        verdict = await runner.pre_tool("execute", {"command": "ls"})
    assert verdict.decision == "deny"
    assert verdict.failed
    assert verdict.reason.startswith("hook './nowhere.sh' failed (exit 127)")


async def test_a_hook_that_cannot_start_denies(tmp_path: Path) -> None:
    runner = _runner(LocalProcessRunner(), tmp_path / "gone", _config("PreToolUse", "true"))
    async with asyncio.timeout(10):
        verdict = await runner.pre_tool("execute", {"command": "ls"})
    assert (verdict.decision, verdict.failed) == ("deny", True)
    assert verdict.reason.startswith("hook 'true' failed: FileNotFoundError")


async def test_a_hook_that_ignores_a_large_call_still_answers(tmp_path: Path) -> None:
    _write_script(tmp_path, "allow.sh", f"echo '{ALLOW}'")
    runner = _runner(LocalProcessRunner(), tmp_path, _config("PreToolUse", "./allow.sh", timeout=10))
    async with asyncio.timeout(10):
        verdict = await runner.pre_tool("write_file", {"file_path": "big.txt", "content": "x" * 500_000})
    assert verdict.decision == "allow"


# A PreToolUse hook as Claude Code's documentation writes one: it reads tool_input.file_path (and,
# when present, file_paths) and blocks changes under protected/.
PROTECT = f"""#!{sys.executable}
import json, sys
call = json.load(sys.stdin)
given = call["tool_input"]
paths = given.get("file_paths") or [given.get("file_path") or ""]
for path in paths:
    if path.startswith("protected/"):
        print(f"{{call['tool_name']}} may not change {{path}}", file=sys.stderr)
        sys.exit(2)
"""
CLAUDE_MATCHER = "Write|Edit|MultiEdit"


def _patch(*paths: str) -> str:
    body = "".join(f"*** Update File: {path}\n@@\n-old\n+new\n" for path in paths)
    return f"*** Begin Patch\n{body}*** End Patch"


@pytest.mark.parametrize(
    ("tool", "arguments", "blocked"),
    [
        ("apply_patch", {"patch": _patch("protected/a.txt")}, "protected/a.txt"),
        ("apply_patch", {"patch": _patch("free.txt", "protected/b.txt")}, "protected/b.txt"),
        ("delete", {"file_path": "protected/c.txt"}, "protected/c.txt"),
        ("write_file", {"file_path": "protected/d.txt", "content": "x"}, "protected/d.txt"),
        (
            "edit_file",
            {"file_path": "protected/e.txt", "old_string": "a", "new_string": "b"},
            "protected/e.txt",
        ),
        ("apply_patch", {"patch": _patch("free.txt")}, ""),
        ("delete", {"file_path": "free.txt"}, ""),
    ],
)
async def test_a_claude_code_file_hook_guards_every_file_tool(
    tmp_path: Path, tool: str, arguments: dict[str, JsonValue], blocked: str
) -> None:
    guard = tmp_path / "protect.py"
    guard.write_text(PROTECT, encoding="utf-8")
    guard.chmod(0o755)
    config = _config("PreToolUse", "./protect.py", matcher=CLAUDE_MATCHER, timeout=10)
    runner = _runner(LocalProcessRunner(), tmp_path, config)
    async with asyncio.timeout(20):
        verdict = await runner.pre_tool(tool, arguments)
        other = await runner.pre_tool("execute", {"command": "rm protected/a.txt"})
    if blocked:
        assert (verdict.decision, verdict.reason) == ("deny", f"{tool} may not change {blocked}")
    else:
        assert verdict == HookVerdict()
    assert other == HookVerdict()


async def test_a_patch_reaches_the_hook_with_its_paths(processes: ProcessRunner, tmp_path: Path) -> None:
    _write_script(tmp_path, "silent.sh", "cat >> seen.jsonl\necho >> seen.jsonl")
    runner = _runner(processes, tmp_path, _config("PreToolUse", "./silent.sh", matcher="Edit"))
    patch = (
        "*** Begin Patch\n*** Add File: new.txt\n+hi\n*** Update File: a.py\n*** Move to: b.py\n@@\n-x\n+y\n"
    )
    patch += "*** Delete File: old.md\n*** End Patch"
    async with asyncio.timeout(10):
        await runner.pre_tool("apply_patch", {"patch": patch})
        await runner.pre_tool("delete", {"file_path": "gone.txt"})
    if isinstance(processes, FakeProcessRunner):
        seen = [json.loads(call.stdin or "") for call in processes.calls]
    else:
        seen = [json.loads(line) for line in (tmp_path / "seen.jsonl").read_text().splitlines()]
    assert [(s["tool_name"], s["tool_input"]) for s in seen] == [
        (
            "apply_patch",
            {"patch": patch, "file_path": "new.txt", "file_paths": ["new.txt", "a.py", "b.py", "old.md"]},
        ),
        ("delete", {"file_path": "gone.txt", "file_paths": ["gone.txt"]}),
    ]
