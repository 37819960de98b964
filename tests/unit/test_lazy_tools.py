"""The built-in tools load on first use: a start and a turn that calls no tool load none of them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from circle.application.tools import BUILTIN_TOOLS, load_tool

CHILD = """
import asyncio, json, sys
import circle
from circle.testing import ScriptedModel, answer

async def main():
    async with circle.Agent(sys.argv[1], model_client=ScriptedModel([answer("hi")]), trust=True) as agent:
        await agent.run("hello")

asyncio.run(main())
print(json.dumps(sorted(m for m in sys.modules if m.startswith("circle."))))
"""


def test_each_lazy_tool_is_the_tool_of_its_name() -> None:
    for tool in BUILTIN_TOOLS:
        assert load_tool(tool.where).name == tool.name
        assert tool.load().spec().name == tool.name


def test_a_turn_without_tool_calls_loads_no_tool_module_nor_the_command_classifier(tmp_path: Path) -> None:
    """Once the data folder keeps the tools' specs (the first start makes them)."""
    env = {**os.environ, "CIRCLE_HOME": str(tmp_path / "home")}
    for _ in range(2):
        done = subprocess.run(
            [sys.executable, "-c", CHILD, str(tmp_path)], env=env, capture_output=True, text=True, timeout=120
        )
        assert done.returncode == 0, done.stderr
    loaded = set(json.loads(done.stdout.splitlines()[-1]))
    for module in ("shell", "files", "patch", "web", "lsp", "jobs", "search"):
        assert f"circle.application.tools.{module}" not in loaded
    assert "circle.domain.approvals" not in loaded
    assert "circle.domain.git_config" not in loaded
