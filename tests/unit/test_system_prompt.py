"""Prompt assembly: one golden prompt per model family, and the spec's order of parts."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from circle.application.context.system_prompt import Environment, PromptOptions, build_system_prompt
from circle.testing import InMemoryFileSystem

GOLDEN = Path(__file__).parent / "golden" / "system_prompt"
FAMILIES = {
    "claude": "claude-sonnet-4-5",
    "gpt": "gpt-5",
    "gemini": "gemini-2.5-pro",
    "kimi": "kimi-k2",
    "other": "qwen3",
}


def files() -> InMemoryFileSystem:
    return InMemoryFileSystem(
        {
            "/w/AGENTS.md": "Run `make test` before you finish.",
            "/w/.circle/APPEND_SYSTEM.md": "Project note: answers in British English.",
            "/home/p/.circle/AGENTS.md": "I prefer small commits.",
            "/data/APPEND_SYSTEM.md": "Data-folder note (left out: the project has its own).",
        }
    )


def env(model: str, **extra: object) -> Environment:
    fields: dict[str, object] = {
        "workspace": "/w",
        "platform": "Linux 6.1",
        "date": "2026-11-30",
        "model": model,
        "protocol": "openai-chat",
        "home": "/home/p",
        "data_dir": "/data",
        "secret_names": ("DEPLOY_TOKEN",),
        "capabilities": (("pr-review", "Review a pull request"),),
        **extra,
    }
    return Environment(**fields)  # type: ignore[arg-type]


@pytest.mark.parametrize("family", list(FAMILIES))
async def test_each_family_prompt_matches_its_golden_file(family: str) -> None:
    prompt = await build_system_prompt(files(), env(FAMILIES[family]), PromptOptions(append="From the flag."))
    path = GOLDEN / f"{family}.txt"
    if os.environ.get("CIRCLE_UPDATE_GOLDEN") == "1":
        path.write_text(prompt, encoding="utf-8")
    if not path.exists():
        path.write_text(prompt, encoding="utf-8")
        pytest.fail(f"no golden prompt for {family}: wrote {path}; review it and commit it")
    assert prompt == path.read_text(encoding="utf-8")


async def test_the_parts_come_in_the_specs_order() -> None:
    prompt = await build_system_prompt(files(), env("gpt-5"), PromptOptions(append="From the flag."))
    markers = [
        "You are Circle",
        "# Guidelines",
        "Run `make test`",
        "I prefer small commits.",
        "# Environment",
        "%DEPLOY_TOKEN%",
        "Project note",
        "From the flag.",
        "pr-review: Review a pull request",
    ]
    positions = [prompt.index(m) for m in markers]
    assert positions == sorted(positions)
    assert "Data-folder note" not in prompt


async def test_the_data_folder_append_file_is_used_when_the_project_has_none() -> None:
    fs = InMemoryFileSystem({"/w/x": "", "/data/APPEND_SYSTEM.md": "From the data folder."})
    assert "From the data folder." in await build_system_prompt(fs, env("gpt-5"))


async def test_system_prompt_replaces_the_base_and_no_context_files_leaves_them_out() -> None:
    prompt = await build_system_prompt(
        files(), env("gpt-5"), PromptOptions(replace="You are a pirate.", context_files=False)
    )
    assert prompt.startswith("You are a pirate.") and "You are Circle" not in prompt
    assert "# Guidelines" in prompt and "# Environment" in prompt
    assert "make test" not in prompt and "small commits" not in prompt
