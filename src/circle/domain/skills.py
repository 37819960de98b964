"""Skills: a folder with a SKILL.md whose front matter names and describes it.

::

    ---
    name: pr-review
    description: Review a pull request with the GitHub CLI: checks, diff and comments.
    ---
    Instructions the model reads when it loads the skill.

Only the name and the description go into the system prompt; the body is read when the model
loads the skill (the ``skill`` tool). The name defaults to the folder's; the description is
required, since without it the model cannot know when to load the skill.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from .errors import ConfigError
from .front_matter import parse_front_matter

SkillSource = Literal["builtin", "user", "project"]
SKILL_FILE = "SKILL.md"
MAX_NAME_CHARS = 64
MAX_DESCRIPTION_CHARS = 1024
NAME_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:-]*")


@dataclass(frozen=True, slots=True)
class Skill:
    """A usable skill.

    Attributes:
        folder: The folder that holds SKILL.md (for a built-in skill, inside the package).
        source: Where it was found: built in, the person's folders, or the project's.
    """

    name: str
    description: str
    folder: str
    source: SkillSource

    @property
    def path(self) -> str:
        return f"{self.folder.rstrip('/')}/{SKILL_FILE}"


def check_name(name: str, *, what: str) -> str:
    """``name`` when it is usable as a skill or subagent name.

    Raises:
        ConfigError: empty, too long, or with characters other than letters, digits, ``_ . : -``.
    """
    if not name:
        raise ConfigError(f"the {what} has no name")
    if len(name) > MAX_NAME_CHARS:
        raise ConfigError(f"the {what} name {name[:20]!r}... is longer than {MAX_NAME_CHARS} characters")
    if not NAME_PATTERN.fullmatch(name):
        raise ConfigError(f"the {what} name {name!r} may hold only letters, digits, '_', '.', ':' and '-'")
    return name


def parse_skill(text: str, *, folder: str, source: SkillSource) -> Skill:
    """The skill a SKILL.md in ``folder`` defines.

    Raises:
        ConfigError: unusable front matter, a bad name, or no description.
    """
    front = parse_front_matter(text)
    name = check_name(front.fields.get("name") or folder.rstrip("/").rsplit("/", 1)[-1], what="skill")
    description = " ".join(front.fields.get("description", "").split())
    if not description:
        raise ConfigError("the front matter has no 'description': the model could not know when to use it")
    if len(description) > MAX_DESCRIPTION_CHARS:
        description = description[: MAX_DESCRIPTION_CHARS - 1] + "…"
    return Skill(name=name, description=description, folder=folder, source=source)


def skill_body(text: str) -> str:
    """The instructions of a SKILL.md: everything after its front matter.

    Raises:
        ConfigError: the front matter is unusable.
    """
    return parse_front_matter(text).body


__all__ = [
    "MAX_DESCRIPTION_CHARS",
    "SKILL_FILE",
    "Skill",
    "SkillSource",
    "check_name",
    "parse_skill",
    "skill_body",
]
