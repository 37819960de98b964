import pytest

from circle.application.context.system_prompt import Environment, build_system_prompt
from circle.domain.families import model_family
from circle.testing import InMemoryFileSystem


@pytest.mark.parametrize(
    ("model", "family"),
    [
        ("claude-sonnet-4-5", "claude"),
        ("anthropic/claude-3.7", "claude"),
        ("gpt-4o-mini", "gpt"),
        ("openai/o3-mini", "gpt"),
        ("o4-mini", "gpt"),
        ("gpt-5-codex", "gpt"),
        ("gemini-2.5-pro", "gemini"),
        ("google/gemma-3", "gemini"),
        ("kimi-k2-instruct", "kimi"),
        ("moonshot-v1-8k", "kimi"),
        ("qwen3-coder", "other"),
        ("deepseek-chat", "other"),
        ("oxygen-1", "other"),
    ],
)
def test_family_from_the_model_id(model: str, family: str) -> None:
    assert model_family(model) == family


async def test_the_prompt_starts_with_the_family_instructions_and_has_the_parts_in_order() -> None:
    files = InMemoryFileSystem({"/w/AGENTS.md": "Use tabs.", "/w/CLAUDE.md": "ignored when AGENTS.md exists"})
    env = Environment(
        workspace="/w", platform="Linux", date="2026-11-30", model="claude-x", protocol="anthropic"
    )
    prompt = await build_system_prompt(files, env)
    claude = await build_system_prompt(InMemoryFileSystem({"/w/x": ""}), env)
    gpt = await build_system_prompt(
        InMemoryFileSystem({"/w/x": ""}),
        Environment(
            workspace="/w", platform="Linux", date="2026-11-30", model="gpt-4o", protocol="openai-chat"
        ),
    )
    assert claude.split("\n")[0] != gpt.split("\n")[0]
    order = [prompt.index(s) for s in ("You are Circle", "# Guidelines", "Use tabs.", "# Environment")]
    assert order == sorted(order)
    assert "ignored when" not in prompt
    assert "Model: claude-x (anthropic)" in prompt
