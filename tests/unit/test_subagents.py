"""task: subagents with their own context, restricted tools, the parent's approver, run side by side."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from circle.application.agent_files import find_agent_files
from circle.application.ports.approver import ApprovalRequest
from circle.application.session import AgentSession
from circle.application.subagents import READ_ONLY_REFUSAL, Subagents
from circle.domain.messages import Usage
from circle.domain.model import ModelEvent, ModelRequest
from circle.domain.subagents import parse_agent_file
from circle.testing import Call, Hang, ScriptedApprover, ScriptedModel, answer

from ._harness import WORKSPACE, Harness

HOME = "/home/me"
CHANGE_TOOLS = {"write_file", "edit_file", "delete", "apply_patch", "execute"}


def subagents_of(session: AgentSession) -> Subagents:
    runner = session.loop.context.subagents
    assert isinstance(runner, Subagents)
    return runner


def task(prompt: str, subagent_type: str = "general-purpose", call_id: str | None = None) -> Call:
    args: dict[str, object] = {"description": "look around", "prompt": prompt, "subagent_type": subagent_type}
    return Call("task", args, id=call_id)


async def test_a_subagent_answers_in_its_own_context_and_its_answer_is_the_tool_result() -> None:
    h = Harness()
    h.model.add(
        answer("Let me delegate.", task("Find the config loader.")),
        answer("It is in src/config.py:12.", usage=Usage(input=100, output=20)),
        answer("Found it."),
    )
    session = await h.runtime().new_session()
    result = await session.prompt("where is the config loaded?")
    assert result.answer == "Found it."
    sub_request = h.model.requests[1]
    assert [m.role for m in sub_request.messages] == ["user"]
    assert sub_request.messages[0].text == "Find the config loader."
    assert sub_request.system.startswith("You are a subagent")
    assert sub_request.system.endswith(h.model.requests[0].system)
    tool_result = h.model.requests[2].messages[-1].tool_results[0]
    assert not tool_result.is_error and tool_result.text == "It is in src/config.py:12."
    run = subagents_of(session).runs[0]
    assert (run.status, run.subagent_type, run.usage) == (
        "done",
        "general-purpose",
        Usage(input=100, output=20),
    )
    assert [m.role for m in run.messages] == ["user", "assistant"]
    stored = [cp.message.role for cp in await h.store.history(session.session_id)]
    assert stored == ["user", "assistant", "tool", "assistant"]  # the subagent's messages are not stored


async def test_general_purpose_lacks_task_compaction_and_plan_mode_and_explore_changes_nothing() -> None:
    h = Harness()
    h.model.add(
        answer("", task("a", call_id="c1")),
        answer("gp done"),
        answer("", task("b", "explore", call_id="c2")),
        answer("explore done"),
        answer("done"),
    )
    session = await h.runtime().new_session()
    await session.prompt("go")
    main = {spec.name for spec in h.model.requests[0].tools}
    general = {spec.name for spec in h.model.requests[1].tools}
    explore = {spec.name for spec in h.model.requests[3].tools}
    assert {"task", "skill", "write_file", "execute"} <= main
    assert general == main - {"task", "compact_conversation", "plan_enter", "plan_exit"} | {"wait_jobs"}
    assert "skill" in general and "write_file" in general
    assert explore == {"ls", "read_file", "glob", "grep", "lsp", "skill", "webfetch", "websearch"} & main
    assert not explore & CHANGE_TOOLS
    assert h.model.requests[3].system.startswith("You are an explore subagent")


async def test_a_change_a_subagent_asks_for_goes_through_the_same_approver() -> None:
    approver = ScriptedApprover(allow={"read_file"})
    h = Harness(approver=approver)
    h.model.add(
        answer("", task("write x.txt")),
        answer("", Call("write_file", {"file_path": "x.txt", "content": "x"})),
        answer("could not write"),
        answer("done"),
    )
    session = await h.runtime().new_session()
    await session.prompt("go")
    assert [r.tool_name for r in approver.requests] == ["write_file"]
    assert f"{WORKSPACE}/x.txt" not in h.files.files
    refused = h.model.requests[2].messages[-1].tool_results[0]
    assert refused.is_error and "write_file was not approved: scripted refusal" in refused.text


async def test_an_allowed_change_by_a_subagent_is_made() -> None:
    approver = ScriptedApprover(allow={"write_file"})
    h = Harness(approver=approver)
    h.model.add(
        answer("", task("write x.txt")),
        answer("", Call("write_file", {"file_path": "x.txt", "content": "x"})),
        answer("written"),
        answer("done"),
    )
    session = await h.runtime().new_session()
    await session.prompt("go")
    assert h.files.files[f"{WORKSPACE}/x.txt"] == b"x"
    assert [r.tool_name for r in approver.requests] == ["write_file"]


async def test_explore_refuses_every_change_without_asking() -> None:
    approver = ScriptedApprover(allow={"write_file"})
    h = Harness(approver=approver)
    session = await h.runtime().new_session()
    subagents = subagents_of(session)
    context = subagents.context_for(subagents.types["explore"], session.loop.context)
    request = ApprovalRequest(tool_name="write_file", kind="edit", summary="write x", workspace=WORKSPACE)
    decision = await context.approver.decide(request)
    assert not decision.allowed and decision.reason == READ_ONLY_REFUSAL
    assert approver.requests == []


class OverlapModel:
    """A ScriptedModel whose answers take a moment, recording how many requests were in flight."""

    def __init__(self, inner: ScriptedModel) -> None:
        self.inner = inner
        self.active = 0
        self.peak = 0

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        self.active += 1
        self.peak = max(self.peak, self.active)
        try:
            await asyncio.sleep(0.02)
            async for event in self.inner.stream(request):
                yield event
        finally:
            self.active -= 1

    async def aclose(self) -> None:
        await self.inner.aclose()


def echo_prompt(request: ModelRequest) -> list[ModelEvent]:
    return answer(f"report on {request.messages[0].text}")


async def test_two_adjacent_task_calls_run_at_the_same_time_and_answer_in_call_order() -> None:
    h = Harness()
    h.model.add(
        answer("", task("alpha", call_id="c1"), task("beta", "explore", call_id="c2")),
        echo_prompt,
        echo_prompt,
        answer("both done"),
    )
    model = OverlapModel(h.model)
    runtime = h.runtime()
    runtime.ports.model = model
    session = await runtime.new_session()
    result = await session.prompt("go")
    assert result.answer == "both done"
    assert model.peak == 2
    results = [m.tool_results[0].text for m in h.model.requests[-1].messages if m.role == "tool"]
    assert results == ["report on alpha", "report on beta"]


async def test_agent_files_are_found_and_bad_ones_reported() -> None:
    h = Harness()
    h.files.put(
        f"{HOME}/.claude/agents/reviewer.md",
        "---\nname: reviewer\ndescription: Reviews changes.\ntools: Read, Grep\nmodel: sonnet\n---\n"
        "You review.",
    )
    h.files.put(f"{HOME}/.circle/agents/broken.md", "---\nname: broken\ndescription x\n---\nbody")
    h.files.put(f"{HOME}/.agents/agents/odd.md", "---\ndescription: d\ntools: teleport\n---\nbody")
    h.files.put(f"{WORKSPACE}/.circle/agents/notes.txt", "not an agent file")
    found = await find_agent_files(h.files, workspace=WORKSPACE, home=HOME, known_tools=["read_file", "grep"])
    reviewer = found.specs["reviewer"]
    assert (reviewer.tools, reviewer.model, reviewer.system_prompt) == (
        ("read_file", "grep"),
        None,
        "You review.",
    )
    assert set(found.specs) == {"reviewer"}
    problems = {p.path: p.reason for p in found.problems}
    assert (
        problems[f"{HOME}/.circle/agents/broken.md"]
        == "front matter line 3: expected 'key: value', found 'description x'"
    )
    assert "unknown tool 'teleport'" in problems[f"{HOME}/.agents/agents/odd.md"]


async def test_an_agent_file_defines_a_subagent_type_with_its_prompt_and_tools() -> None:
    h = Harness()
    h.files.put(
        f"{WORKSPACE}/.circle/agents/reviewer.md",
        "---\ndescription: Reviews changes.\ntools: read_file, grep, task\n---\nYou review changes.",
    )
    h.model.add(answer("", task("review it", "reviewer")), answer("looks fine"), answer("done"))
    session = await h.runtime().new_session()
    await session.prompt("go")
    task_spec = next(s for s in h.model.requests[0].tools if s.name == "task")
    assert "- reviewer: Reviews changes." in task_spec.description
    sub = h.model.requests[1]
    assert {s.name for s in sub.tools} == {"read_file", "grep"}
    assert sub.system.startswith("You review changes.\n\n")
    assert h.model.requests[2].messages[-1].tool_results[0].text == "looks fine"


async def test_an_unknown_type_and_background_without_jobs_are_errors_the_model_reads() -> None:
    h = Harness()
    background = {"description": "d", "prompt": "p", "background": True}
    h.model.add(answer("", task("p", "nope", call_id="c1"), Call("task", background, id="c2")), answer("ok"))
    session = await h.runtime().new_session()
    await session.prompt("go")
    first, second = [m.tool_results[0] for m in h.model.requests[1].messages if m.role == "tool"]
    assert first.is_error and "no subagent type 'nope': the types are explore, general-purpose" in first.text
    assert second.is_error and "background jobs are not available in this session" in second.text


def test_claude_aliases_mean_the_sessions_model_and_task_is_never_given() -> None:
    spec = parse_agent_file(
        "---\ndescription: d\nmodel: inherit\ntools:\n  - Bash\n  - task\n---\nbody", path="/a/x.md"
    )
    assert (spec.name, spec.model, spec.tools) == ("x", None, ("execute",))


async def test_cancelling_the_turn_stops_a_running_subagent_and_its_command() -> None:
    h = Harness()
    h.processes.script = {"sleep 100": Hang()}
    h.model.add(answer("", task("wait")), answer("", Call("execute", {"command": "sleep 100"})))
    session = await h.runtime().new_session()
    running = asyncio.create_task(session.prompt("go"))
    async with asyncio.timeout(5):
        while not h.processes.calls:
            await asyncio.sleep(0.001)
    assert session.cancel()
    result = await asyncio.wait_for(running, 5)
    assert result.aborted
    assert h.processes.cancelled == ["sleep 100"]
    assert subagents_of(session).runs[0].status == "interrupted"
    last = (await h.store.history(session.session_id))[-1].message
    assert last.tool_results[0].tool_name == "task"
