"""Skills: found in the built-in, person's and project's folders; listed in the prompt; loaded by the tool."""

from __future__ import annotations

import pytest

from circle.application.skills import find_skills
from circle.domain.errors import ConfigError
from circle.domain.front_matter import parse_front_matter
from circle.domain.skills import parse_skill
from circle.testing import Call, answer

from ._harness import WORKSPACE, Harness

HOME = "/home/me"


def skill_md(name: str, description: str, body: str = "Do the thing.") -> str:
    return f"---\nname: {name}\ndescription: {description}\n---\n{body}\n"


def test_front_matter_reads_scalars_quotes_lists_and_blocks() -> None:
    front = parse_front_matter(
        "---\n"
        "name: 'x'\n"
        'description: "says \\"hi\\"" \n'
        "tools: [read_file, grep]\n"
        "other:\n  - a\n  - b\n"
        "long: >\n  folded\n  text\n"
        "# a comment\n"
        "---\nbody\n"
    )
    assert front.fields == {
        "name": "x",
        "description": 'says "hi"',
        "tools": "read_file, grep",
        "other": "a, b",
        "long": "folded text",
    }
    assert front.body == "body"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("no front matter\n", "no front matter"),
        ("---\nname: x\n", "not closed"),
        ("---\nname: x\nthis is not a key\n---\n", "line 3: expected 'key: value'"),
        ("---\nname: x\nname: y\n---\n", "'name' is given twice"),
    ],
)
def test_unusable_front_matter_says_where(text: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        parse_front_matter(text)


def test_a_skill_needs_a_description_and_takes_its_folders_name() -> None:
    skill = parse_skill("---\ndescription: d\n---\nbody", folder="/s/my-skill", source="user")
    assert (skill.name, skill.path) == ("my-skill", "/s/my-skill/SKILL.md")
    with pytest.raises(ConfigError, match="no 'description'"):
        parse_skill("---\nname: x\n---\nbody", folder="/s/x", source="user")
    with pytest.raises(ConfigError, match="may hold only"):
        parse_skill("---\nname: a b\ndescription: d\n---\n", folder="/s/x", source="user")


async def test_skills_come_from_every_place_the_project_winning_over_the_person_over_built_in() -> None:
    h = Harness()
    h.files.put(f"{HOME}/.circle/skills/pr-review/SKILL.md", skill_md("pr-review", "the person's review"))
    h.files.put(f"{HOME}/.circle/skills/mine/SKILL.md", skill_md("mine", "the person's own"))
    h.files.put(f"{HOME}/.agents/skills/mine/SKILL.md", skill_md("mine", "shadowed by ~/.circle"))
    h.files.put(f"{WORKSPACE}/.agents/skills/shared/SKILL.md", skill_md("shared", "the project's agents one"))
    h.files.put(f"{WORKSPACE}/.circle/skills/mine/SKILL.md", skill_md("mine", "the project's"))
    h.files.put(f"{WORKSPACE}/.circle/skills/broken/SKILL.md", "---\nname: broken\n---\n")
    h.files.put(f"{WORKSPACE}/.circle/skills/empty/notes.md", "no SKILL.md here")

    catalog = await find_skills(h.files, workspace=WORKSPACE, home=HOME)

    described = dict(catalog.capabilities())
    assert described["create-pr"].startswith("Open a GitHub pull request")  # built in
    assert catalog.skills["create-pr"].source == "builtin"
    assert described["pr-review"] == "the person's review"
    assert described["mine"] == "the project's"
    assert described["shared"] == "the project's agents one"
    assert "broken" not in described
    problems = {p.path: p.reason for p in catalog.problems}
    assert "no 'description'" in problems[f"{WORKSPACE}/.circle/skills/broken/SKILL.md"]
    assert "no SKILL.md" in problems[f"{WORKSPACE}/.circle/skills/empty"]


async def test_without_a_home_only_built_in_and_project_skills_are_found() -> None:
    h = Harness()
    h.files.put(f"{HOME}/.circle/skills/mine/SKILL.md", skill_md("mine", "the person's own"))
    catalog = await find_skills(h.files, workspace=WORKSPACE, home=None)
    assert "mine" not in catalog.skills and "pr-review" in catalog.skills


async def test_the_system_prompt_lists_names_and_descriptions_only() -> None:
    h = Harness()
    h.files.put(
        f"{WORKSPACE}/.circle/skills/deploy/SKILL.md",
        skill_md("deploy", "Ship the app to staging.", body="SECRET-STEPS: run make deploy"),
    )
    h.model.add(answer("hi"))
    session = await h.runtime().new_session()
    await session.prompt("hello")
    system = h.model.requests[0].system
    assert "- deploy: Ship the app to staging." in system
    assert "- pr-review: Review a GitHub pull request" in system
    assert "SECRET-STEPS" not in system
    assert "gh pr checks" not in system  # a built-in skill's body


async def test_the_skill_tool_returns_the_body_and_the_files_beside_it() -> None:
    h = Harness()
    folder = f"{HOME}/.circle/skills/deploy"
    h.files.put(f"{folder}/SKILL.md", skill_md("deploy", "Ship it.", body="Run scripts/ship.sh, then check."))
    h.files.put(f"{folder}/scripts/ship.sh", "echo ship")
    h.model.add(answer("", Call("skill", {"name": "deploy"})), answer("done"))
    runtime = h.runtime()
    runtime.options.home = HOME
    session = await runtime.new_session()
    await session.prompt("deploy please")
    result = h.model.requests[1].messages[-1].tool_results[0]
    assert not result.is_error
    assert "Run scripts/ship.sh, then check." in result.text
    assert "description: Ship it." not in result.text
    assert f"Skill folder: {folder}" in result.text
    assert "- scripts/ship.sh" in result.text
    assert "- deploy: Ship it." in h.model.requests[0].system


async def test_the_skill_tool_loads_a_built_in_skill() -> None:
    h = Harness()
    h.model.add(answer("", Call("skill", {"name": "pr-review"})), answer("done"))
    session = await h.runtime().new_session()
    await session.prompt("review")
    result = h.model.requests[1].messages[-1].tool_results[0]
    assert not result.is_error and "gh pr diff" in result.text and "---" not in result.text.splitlines()


async def test_an_unknown_skill_is_an_error_that_lists_the_names() -> None:
    h = Harness()
    h.model.add(answer("", Call("skill", {"name": "nope"})), answer("ok"))
    session = await h.runtime().new_session()
    await session.prompt("go")
    result = h.model.requests[1].messages[-1].tool_results[0]
    assert result.is_error
    assert "no skill named 'nope': the skills are create-pr, pr-review" in result.text
