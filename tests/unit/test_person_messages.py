"""What goes with a person's message, told once below every face: plan mode's net change since the
model last knew, the commands they ran, the files they attached; and how the message is shown."""

from __future__ import annotations

from pathlib import Path

import circle
from circle.application.approvals import PLAN_MODE_OFF, PLAN_MODE_ON
from circle.application.attachments import mentioned
from circle.domain.messages import Aside
from circle.testing import InMemoryFileSystem, InMemorySessionStore, ScriptedModel, answer

from ._harness import WORKSPACE, Harness


def _sent(harness: Harness) -> str:
    last = harness.model.requests[-1].messages
    return [m for m in last if m.role == "user"][-1].text


async def test_plan_mode_switched_on_and_back_tells_the_model_nothing() -> None:
    harness = Harness()
    harness.model.add(answer("one"), answer("two"))
    session = await harness.runtime().new_session()
    plan = session.loop.context.plan_mode
    plan.switch(True)
    plan.switch(False)
    await session.prompt("hello")
    assert _sent(harness) == "hello"
    assert session.conversation.messages[0].shown is None

    plan.switch(True)
    plan.switch(False)
    plan.switch(True)
    await session.prompt("plan it")
    assert _sent(harness) == f"{PLAN_MODE_ON}\n\nplan it"
    shown = session.conversation.messages[-2].shown
    assert shown is not None and shown.typed == "plan it"
    assert [a.kind for a in shown.asides] == ["plan-on"]


async def test_plan_mode_the_model_turned_on_itself_is_not_told_again() -> None:
    harness = Harness()
    harness.model.add(answer("ok"))
    session = await harness.runtime().new_session()
    session.loop.context.plan_mode.enter()  # as plan_enter does
    session.loop.context.plan_mode.switch(False)
    await session.prompt("go on")
    assert _sent(harness) == f"{PLAN_MODE_OFF}\n\ngo on"


async def test_commands_and_files_go_to_the_model_and_are_shown_apart() -> None:
    harness = Harness(files=InMemoryFileSystem({f"{WORKSPACE}/notes.txt": "line one\n"}))
    harness.model.add(answer("seen"))
    session = await harness.runtime().new_session()
    session.add_aside(Aside(kind="command", text="ls", output="notes.txt\n", exit_code=0))
    typed = "read @notes.txt [Pasted text #1 +3 lines]"
    text = "read @notes.txt a\nb\nc\nd"
    attached = await mentioned(text, workspace=WORKSPACE, files=harness.files, images=None)
    await session.prompt(text, attached=attached, typed=typed)

    assert _sent(harness) == (
        '<command ran-by="person" exit-code="0">\n$ ls\nnotes.txt\n</command>\n\n'
        '<file path="notes.txt">\nline one\n</file>\n\n' + text
    )
    message = session.conversation.messages[0]
    assert message.shown is not None
    assert (message.shown.typed, message.shown.files) == (typed, ("notes.txt",))
    assert [(a.kind, a.text, a.output) for a in message.shown.asides] == [("command", "ls", "notes.txt\n")]
    assert session.asides == []


async def test_a_session_opened_again_is_in_the_plan_mode_the_person_left() -> None:
    harness = Harness()
    harness.model.add(answer("planning"))
    runtime = harness.runtime()
    session = await runtime.new_session()
    session.loop.context.plan_mode.switch(True)
    await session.prompt("make a plan")
    await runtime.release()

    again = await harness.runtime().open_session(session.session_id)
    assert again.loop.context.plan_mode.active
    assert again.loop.context.plan_mode.news() is None


async def test_a_job_notice_is_shown_as_a_jobs_not_the_persons() -> None:
    harness = Harness()
    harness.model.add(answer("noted"))
    session = await harness.runtime().new_session()
    session.inbox.notices.append("job-1 has ended (exit code 0)")
    await session.prompt("hi")
    notice = next(m for m in session.conversation.messages if m.text.startswith("job-1"))
    assert notice.shown is not None and notice.shown.source == "job"


async def test_the_library_shows_attached_files_by_name(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("buy milk\n")
    model = ScriptedModel([answer("A list.")])
    store = InMemorySessionStore()
    async with circle.Agent(tmp_path, model_client=model, store=store, trust=True) as agent:
        await agent.run("what is this", files=["notes.txt"])
    [first, *_] = [cp.message for cp in store.stored.values() if cp.message.role == "user"]
    assert "buy milk" in first.text
    assert first.shown is not None and (first.shown.typed, first.shown.files) == (
        "what is this",
        ("notes.txt",),
    )
