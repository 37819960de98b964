"""Plan mode: plan_enter refuses every change until plan_exit's plan is accepted."""

from __future__ import annotations

import pytest

from circle._testing.asker import ScriptedAsker
from circle.application.approvals import PLAN_MODE_REFUSAL, ApprovalPolicy, PlanMode, PlanModeGate
from circle.application.ports.approver import ApprovalRequest
from circle.application.ports.asker import Answer
from circle.application.ports.process_runner import ProcessResult
from circle.application.runtime import Runtime
from circle.application.session import AgentSession
from circle.application.tools import builtin_tools
from circle.application.tools.plan import ACCEPT_EDITS, CHOICES, KEEP_PLANNING, plan_mode_in
from circle.domain.errors import ToolError
from circle.domain.messages import Message, TextPart, ToolResultPart
from circle.testing import Call, answer

from ._harness import WORKSPACE, Harness

PLAN = "# Plan\n\n1. Write x.txt\n"
DATA = "/data"


def _runtime(h: Harness, asker: ScriptedAsker | None = None) -> Runtime:
    runtime = h.runtime()
    runtime.options.data_dir = DATA
    runtime.ports.asker = asker
    return runtime


def _results(h: Harness) -> list[ToolResultPart]:
    messages = h.model.requests[-1].messages
    return [r for m in messages for r in m.tool_results]


def _write(name: str = "x.txt") -> Call:
    return Call("write_file", {"file_path": name, "content": "x\n"})


async def test_changes_wait_for_the_plan_where_nobody_can_approve_it() -> None:
    h = Harness()
    h.files.put(f"{WORKSPACE}/a.txt", "alpha\n")
    h.model.add(
        answer("", Call("plan_enter", {})),
        answer("", _write(), Call("read_file", {"file_path": "a.txt"})),
        answer("", Call("plan_exit", {"plan": PLAN})),
        answer("", _write()),
        answer("Done."),
    )
    session = await _runtime(h).new_session()
    result = await session.prompt("plan, then write x.txt")
    assert result.answer == "Done."
    entered, refused, read, exited, written = _results(h)
    assert "Plan mode is on" in entered.text
    assert refused.is_error and refused.text == f"write_file was not approved: {PLAN_MODE_REFUSAL}"
    assert not read.is_error and "alpha" in read.text
    plan_file = f"{DATA}/session_plans/{session.session_id}.md"
    assert exited.text == (
        f"The plan was saved to {plan_file}; nobody can approve it here, so carry on only with what "
        "the person asked."
    )
    assert h.files.files[plan_file] == PLAN.encode()
    assert not written.is_error and h.files.files[f"{WORKSPACE}/x.txt"] == b"x\n"


async def test_accepting_with_accept_edits_leaves_plan_mode_and_switches_the_mode() -> None:
    policy = ApprovalPolicy("default", person=None)
    asker = ScriptedAsker([[Answer(chosen=(ACCEPT_EDITS,))]])
    h = Harness(approver=policy)
    h.model.add(
        answer("", Call("plan_enter", {})),
        answer("", Call("plan_exit", {"plan": PLAN})),
        answer("", _write()),
        answer("Done."),
    )
    session = await _runtime(h, asker).new_session()
    await session.prompt("plan it")
    _, accepted, written = _results(h)
    assert "accepted the plan" in accepted.text and "accept-edits" in accepted.text
    assert policy.mode == "accept-edits" and not written.is_error
    (question,) = asker.asked[0]
    assert question.options == tuple(CHOICES) and PLAN in question.question
    assert not _plan(session).active


async def test_keeping_on_planning_keeps_changes_refused_and_passes_the_feedback() -> None:
    asker = ScriptedAsker([[Answer(chosen=(KEEP_PLANNING,), text="also update the docs")], None])
    h = Harness()
    h.model.add(
        answer("", Call("plan_enter", {})),
        answer("", Call("plan_exit", {"plan": PLAN})),
        answer("", _write()),
        answer("", Call("plan_exit", {"plan": PLAN})),
        answer("Still planning."),
    )
    session = await _runtime(h, asker).new_session()
    await session.prompt("plan it")
    _, kept, refused, dismissed = _results(h)
    assert "plan mode stays on" in kept.text and "also update the docs" in kept.text
    assert refused.is_error and PLAN_MODE_REFUSAL in refused.text
    assert "did not accept" in dismissed.text
    assert _plan(session).active and f"{WORKSPACE}/x.txt" not in h.files.files


async def test_read_only_commands_still_run_in_plan_mode() -> None:
    h = Harness()
    h.processes.script = {"ls": ProcessResult(exit_code=0, output="a\n")}
    h.model.add(
        answer("", Call("plan_enter", {})),
        answer("", Call("execute", {"command": "ls"}), Call("execute", {"command": "touch y"})),
        answer("ok"),
    )
    session = await _runtime(h).new_session()
    await session.prompt("look around")
    _, listed, touched = _results(h)
    assert not listed.is_error
    assert touched.is_error and PLAN_MODE_REFUSAL in touched.text


async def test_plan_exit_outside_plan_mode_is_refused() -> None:
    with pytest.raises(ToolError, match="not in plan mode"):
        await builtin_tools()["plan_exit"].invoke({"plan": PLAN}, Harness().context())


async def test_without_a_data_folder_the_plan_is_not_saved() -> None:
    ctx = Harness().context()
    ctx.plan_mode.enter()
    out = await builtin_tools()["plan_exit"].invoke({"plan": PLAN}, ctx)
    assert "no data folder" in out.text and not ctx.plan_mode.active


async def test_the_gate_lets_a_hooks_question_through_and_refuses_changes() -> None:
    plan = PlanMode(active=True)
    gate = PlanModeGate(ApprovalPolicy("auto"), plan)
    hook = ApprovalRequest(tool_name="read_file", kind="other", summary="hook", workspace=WORKSPACE)
    edit = ApprovalRequest(tool_name="write_file", kind="edit", summary="write x", workspace=WORKSPACE)
    assert (await gate.decide(hook)).allowed
    assert (await gate.decide(edit)).reason == PLAN_MODE_REFUSAL
    plan.leave()
    assert (await gate.decide(edit)).allowed


def _plan(session: AgentSession) -> PlanMode:
    return session.loop.context.plan_mode


def _tool(name: str, text: str, *, is_error: bool = False) -> Message:
    result = ToolResultPart(
        tool_call_id=f"c-{name}", tool_name=name, content=(TextPart(text=text),), is_error=is_error
    )
    return Message(role="tool", parts=(result,))


@pytest.mark.parametrize(
    ("results", "active"),
    [
        ([], False),
        ([("plan_enter", "Plan mode is on", False)], True),
        ([("plan_enter", "no", True)], False),
        (
            [("plan_enter", "on", False), ("plan_exit", "The person accepted the plan (saved to p).", False)],
            False,
        ),
        (
            [
                ("plan_enter", "on", False),
                ("plan_exit", "The plan was saved to p; nobody can approve", False),
            ],
            False,
        ),
        (
            [("plan_enter", "on", False), ("plan_exit", "The person did not accept the plan (saved)", False)],
            True,
        ),
        ([("plan_enter", "on", False), ("plan_exit", "could not save the plan", True)], True),
        ([("plan_enter", "on", False), ("plan_exit", "accepted", False), ("plan_enter", "on", False)], True),
    ],
)
def test_plan_mode_is_read_back_from_the_plan_tools_results(
    results: list[tuple[str, str, bool]], active: bool
) -> None:
    messages = [Message.user("go"), *(_tool(name, text, is_error=error) for name, text, error in results)]
    assert plan_mode_in(messages) is active


async def test_a_session_left_in_plan_mode_is_in_plan_mode_when_opened_again() -> None:
    h = Harness()
    h.model.add(answer("", Call("plan_enter", {})), answer("Planning."))
    first = await _runtime(h).new_session()
    await first.prompt("plan it")
    assert _plan(first).active
    h.model.add(answer("", _write()), answer("Refused."))
    again = await _runtime(h).open_session(first.session_id)
    assert _plan(again).active
    await again.prompt("write x.txt now")
    (refused,) = [r for r in _results(h) if r.tool_name == "write_file"]
    assert refused.is_error and PLAN_MODE_REFUSAL in refused.text
    assert f"{WORKSPACE}/x.txt" not in h.files.files


async def test_a_session_whose_plan_was_accepted_opens_out_of_plan_mode() -> None:
    h = Harness()
    h.model.add(
        answer("", Call("plan_enter", {})), answer("", Call("plan_exit", {"plan": PLAN})), answer("Ok.")
    )
    first = await _runtime(h).new_session()
    await first.prompt("plan it")
    assert not _plan(first).active
    again = await _runtime(h).continue_session()
    assert again.session_id == first.session_id and not _plan(again).active
