"""Circle's data folders as the tools see them, and large results kept there."""

from __future__ import annotations

import pytest

from circle.application.tools import builtin_tools
from circle.domain.errors import ToolError
from circle.domain.transcript import project_folder
from circle.domain.workspace import data_path
from circle.testing import Call, answer

from ._harness import WORKSPACE, Harness


def test_virtual_paths_map_into_the_data_folder() -> None:
    project = project_folder("/w")
    assert (
        data_path("/large_tool_results/a.txt", data_dir="/d", project=project)
        == "/d/large_tool_results/a.txt"
    )
    assert data_path("/session_plans", data_dir="/d", project=project) == "/d/session_plans"
    assert (
        data_path("/conversation_history/s-1.md", data_dir="/d", project=project)
        == f"/d/projects/{project}/conversation_history/s-1.md"
    )
    assert data_path("/large_tool_results/../credentials.json", data_dir="/d", project=project) is None
    assert data_path("/etc/passwd", data_dir="/d", project=project) is None
    assert data_path("src/large_tool_results/x", data_dir="/d", project=project) is None


async def test_read_file_reads_the_data_folder_but_nothing_writes_there() -> None:
    h = Harness()
    h.files.put("/data/session_plans/s1.md", "# The plan\n")
    ctx = h.context()
    ctx.data_dir = "/data"
    out = await builtin_tools()["read_file"].invoke({"file_path": "/session_plans/s1.md"}, ctx)
    assert "The plan" in out.text
    with pytest.raises(ToolError, match="only read"):
        await builtin_tools()["write_file"].invoke({"file_path": "/session_plans/s1.md", "content": "x"}, ctx)


async def test_a_huge_result_is_kept_in_a_file_and_the_model_gets_its_ends() -> None:
    h = Harness()
    h.files.put(f"{WORKSPACE}/huge.txt", "".join(f"{i:07d} {'y' * 50}\n" for i in range(5000)))
    h.model.add(answer("", Call("read_file", {"file_path": "huge.txt", "limit": 5000})), answer("ok"))
    runtime = h.runtime()
    runtime.options.data_dir = "/data"
    session = await runtime.new_session()
    await session.prompt("read it")
    text = h.model.requests[1].messages[-1].tool_results[0].text
    assert len(text) < 30_000 and "0000000" in text and "0004999" in text
    kept = [p for p in h.files.files if p.startswith("/data/large_tool_results/")]
    assert len(kept) == 1 and kept[0].rsplit("/", 1)[-1] in text
    assert b"0002500" in h.files.files[kept[0]]
