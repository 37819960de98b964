"""skill: load a skill's instructions (its SKILL.md body) when the task calls for it.

The skills are found again on every call (the folders are small), so one added or edited during a
session is seen without restarting.
"""

from __future__ import annotations

from pydantic import Field

from circle.application.skills import find_skills, load_skill
from circle.domain.errors import ConfigError, ToolError

from .base import BuiltinTool, ToolArgs, ToolContext, ToolOutput

SKILL = "skill"


class SkillArgs(ToolArgs):
    name: str = Field(description="The skill's name.")


async def _skill(args: SkillArgs, ctx: ToolContext) -> ToolOutput:
    home = ctx.home if ctx.home.startswith("/") else None
    catalog = await find_skills(ctx.files, workspace=ctx.workspace, home=home)
    skill = catalog.find(args.name)
    if skill is None:
        names = ", ".join(sorted(catalog.skills))
        known = f"the skills are {names}" if names else "there are no skills"
        raise ToolError(f"no skill named {args.name!r}: {known}")
    try:
        return ToolOutput(await load_skill(ctx.files, skill))
    except ConfigError as exc:
        raise ToolError(f"the skill {skill.name!r} cannot be used: {exc.message}") from None
    except OSError as exc:
        raise ToolError(f"the skill {skill.name!r} could not be read: {exc}") from None


SKILL_TOOL = BuiltinTool(SKILL, SkillArgs, _skill)

__all__ = ["SKILL", "SKILL_TOOL", "SkillArgs"]
