"""Python tools (`@circle.tool`) in a library agent: offered, run, asked about, and their failures."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

import circle
from circle.domain.model import ModelRequest
from circle.testing import Call, FunctionModel, InMemorySessionStore, ScriptedModel, answer


@circle.tool(read_only=True)
def word_count(path: str, ctx: circle.ToolContext) -> int:
    """Count the words of a file in the workspace.

    Args:
        path: The file, relative to the workspace.
    """
    return len((Path(ctx.workspace) / path).read_text().split())


@circle.tool
async def deploy(target: str, *, dry_run: bool = False) -> dict[str, object]:
    """Deploy the project.

    Args:
        target: Where to deploy.
        dry_run: Only say what would happen.
    """
    return {"deployed": target, "dry_run": dry_run}


def agent(tmp_path: Path, client: object, **options: object) -> circle.Agent:
    return circle.Agent(tmp_path, model_client=client, store=InMemorySessionStore(), trust=True, **options)  # type: ignore[arg-type]


def tool_result(request: ModelRequest) -> tuple[str, bool]:
    result = request.messages[-1].tool_results[0]
    return result.text, result.is_error


async def test_a_python_tool_is_offered_with_its_schema_and_run(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("one two three\n")
    model = ScriptedModel([answer("", Call("word_count", {"path": "notes.txt"})), answer("3 words.")])
    async with agent(tmp_path, model, tools=[word_count]) as a:
        result = await a.run("count")
    offered = {spec.name: spec for spec in model.requests[0].tools}
    assert "read_file" in offered, "the built-in tools stay when only Python tools are given"
    spec = offered["word_count"]
    assert spec.description == "Count the words of a file in the workspace."
    assert spec.parameters == {
        "type": "object",
        "properties": {"path": {"type": "string", "description": "The file, relative to the workspace."}},
        "required": ["path"],
    }
    assert tool_result(model.requests[1]) == ("3", False)
    assert result.answer == "3 words."


async def test_names_and_tools_mix_in_tools(tmp_path: Path) -> None:
    model = ScriptedModel([answer("ok")])
    async with agent(tmp_path, model, tools=["read_file", word_count]) as a:
        await a.run("hi")
    assert sorted(spec.name for spec in model.requests[0].tools) == ["read_file", "word_count"]


async def test_a_tool_that_changes_things_asks_with_its_arguments(tmp_path: Path) -> None:
    seen: list[circle.ApprovalRequest] = []

    async def approve(request: circle.ApprovalRequest) -> circle.ApprovalDecision:
        seen.append(request)
        return circle.ApprovalDecision(allowed=True)

    model = ScriptedModel([answer("", Call("deploy", {"target": "staging"})), answer("done")])
    async with agent(tmp_path, model, tools=[deploy], approver=approve) as a:
        await a.run("deploy")
    assert [(r.tool_name, r.kind, r.summary) for r in seen] == [
        ("deploy", "other", 'deploy {"target": "staging"}')
    ]
    assert seen[0].arguments == {"target": "staging"}
    assert tool_result(model.requests[1]) == ('{"deployed":"staging","dry_run":false}', False)


async def test_a_refused_tool_does_not_run_and_the_model_reads_why(tmp_path: Path) -> None:
    ran: list[str] = []

    @circle.tool
    def launch(target: str) -> str:
        """Launch."""
        ran.append(target)
        return "launched"

    model = ScriptedModel([answer("", Call("launch", {"target": "prod"})), answer("ok")])
    async with agent(tmp_path, model, tools=[launch]) as a:
        await a.run("go")
    text, is_error = tool_result(model.requests[1])
    assert ran == [] and is_error
    assert text.startswith("launch was not approved")


async def test_read_only_mode_runs_read_only_tools_and_refuses_the_others(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("x y\n")
    model = ScriptedModel(
        [answer("", Call("word_count", {"path": "a.txt"}), Call("deploy", {"target": "x"})), answer("ok")]
    )
    async with agent(tmp_path, model, tools=[word_count, deploy], approval_mode="read-only") as a:
        await a.run("go")
    results = [(r.tool_name, r.text, r.is_error) for r in model.requests[1].messages[-2].tool_results]
    results += [(r.tool_name, r.text, r.is_error) for r in model.requests[1].messages[-1].tool_results]
    assert ("word_count", "2", False) in results
    assert ("deploy", "deploy was not approved: read-only mode blocks every change", True) in results


async def test_an_exception_becomes_a_tool_error_the_model_reads(tmp_path: Path) -> None:
    @circle.tool(read_only=True)
    def fragile(n: int) -> str:
        """Break."""
        raise ValueError(f"cannot take {n}")

    model = ScriptedModel([answer("", Call("fragile", {"n": 3})), answer("ok")])
    async with agent(tmp_path, model, tools=[fragile]) as a:
        await a.run("go")
    assert tool_result(model.requests[1]) == ("ValueError: cannot take 3", True)


async def test_bad_arguments_reach_the_model_and_the_tool_does_not_run(tmp_path: Path) -> None:
    model = ScriptedModel([answer("", Call("word_count", {"path": 5, "extra": 1})), answer("ok")])
    async with agent(tmp_path, model, tools=[word_count]) as a:
        await a.run("go")
    text, is_error = tool_result(model.requests[1])
    assert is_error and "word_count" in text


async def test_a_tool_returns_images_as_attachments_and_reports_progress(tmp_path: Path) -> None:
    @circle.tool(read_only=True)
    async def snapshot(ctx: circle.ToolContext) -> list[str | circle.ImagePart]:
        """Take a picture."""
        ctx.progress("focusing")
        await asyncio.sleep(0)
        return ["a picture", circle.ImagePart(media_type="image/png", data="iVBORw0KGgo=")]

    model = FunctionModel(lambda r: "seen" if r.messages[-1].role == "tool" else Call("snapshot", {}))
    async with agent(tmp_path, model, tools=[snapshot], model="gpt-4o") as a:  # a model that reads images
        events = [e async for e in a.stream("look")]
    updates = [(e.tool_name, e.partial) for e in events if isinstance(e, circle.ToolExecutionUpdated)]
    assert updates == [("snapshot", "focusing")]
    result = model.requests[1].messages[-1].tool_results[0]
    assert result.text == "a picture"
    assert [type(p).__name__ for p in result.content] == ["TextPart", "ImagePart"]


async def test_a_tool_named_as_a_built_in_one_is_refused_in_one_line(tmp_path: Path) -> None:
    @circle.tool
    def ls() -> str:
        """Mine."""
        return ""

    with pytest.raises(circle.ConfigError, match="two tools are named 'ls'"):
        async with agent(tmp_path, ScriptedModel(), tools=[ls]) as a:
            await a.run("hi")


def test_tools_takes_names_and_tools_only(tmp_path: Path) -> None:
    with pytest.raises(TypeError, match="tool names and tools"):
        circle.Agent(tmp_path, tools=[print])  # type: ignore[list-item]


def test_a_parameter_without_a_hint_is_refused() -> None:
    def untyped(x):  # type: ignore[no-untyped-def]
        """No hints."""

    with pytest.raises(TypeError, match="'x' of the tool untyped has no type hint"):
        circle.tool(untyped)


def test_a_decorated_function_can_still_be_called() -> None:
    assert asyncio.run(deploy("here")) == {"deployed": "here", "dry_run": False}
