"""Finding skills, and loading one when the model asks for it.

Places, lowest priority first (a later one wins by name): the built-in skills shipped in the
package (``circle/builtin_skills/<name>/SKILL.md``), ``~/.agents/skills``, ``~/.circle/skills``,
the project's ``.agents/skills``, then its ``.circle/skills``. The person's and the project's
folders are read through the :class:`FileSystem` port; the built-in ones from package data.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass, field
from importlib import resources
from importlib.resources.abc import Traversable

from circle.domain.errors import ConfigError
from circle.domain.front_matter import FileProblem
from circle.domain.skills import SKILL_FILE, Skill, SkillSource, parse_skill, skill_body

from .ports.file_system import FileSystem

MAX_SKILL_BYTES = 256_000
MAX_LISTED_FILES = 50
BUILTIN_PREFIX = "builtin:"
USER_FOLDERS = (".agents/skills", ".circle/skills")
PROJECT_FOLDERS = (".agents/skills", ".circle/skills")


@dataclass(frozen=True, slots=True)
class SkillCatalog:
    """The skills found, by name, and the folders that could not be used."""

    skills: dict[str, Skill] = field(default_factory=dict)
    problems: tuple[FileProblem, ...] = ()

    def capabilities(self) -> tuple[tuple[str, str], ...]:
        """(name, description) of each skill, by name: what the system prompt lists."""
        return tuple((s.name, s.description) for s in sorted(self.skills.values(), key=lambda s: s.name))

    def find(self, name: str) -> Skill | None:
        """The skill called ``name`` (letter case ignored when that is unambiguous)."""
        if name in self.skills:
            return self.skills[name]
        folded = [s for s in self.skills.values() if s.name.casefold() == name.strip().casefold()]
        return folded[0] if len(folded) == 1 else None


def _builtin_root() -> Traversable:
    return resources.files("circle").joinpath("builtin_skills")


def _builtin(found: dict[str, Skill], problems: list[FileProblem]) -> None:
    root = _builtin_root()
    if not root.is_dir():
        return
    for entry in sorted(root.iterdir(), key=lambda e: e.name):
        skill_file = entry.joinpath(SKILL_FILE)
        if not entry.is_dir() or not skill_file.is_file():
            continue
        folder = f"{BUILTIN_PREFIX}{entry.name}"
        try:
            skill = parse_skill(skill_file.read_text(encoding="utf-8"), folder=folder, source="builtin")
        except ConfigError as exc:
            problems.append(FileProblem(f"{folder}/{SKILL_FILE}", exc.message))
            continue
        found[skill.name] = skill


async def _folder(
    files: FileSystem, root: str, source: SkillSource, problems: list[FileProblem]
) -> dict[str, Skill]:
    try:
        entries = await files.list_dir(root)
    except OSError:
        return {}
    found: dict[str, Skill] = {}
    for entry in sorted(entries, key=lambda e: e.path):
        name = posixpath.basename(entry.path.rstrip("/"))
        folder = posixpath.join(root, name)
        if name.startswith(".") or (await files.stat(folder) or entry).kind != "dir":
            continue
        path = posixpath.join(folder, SKILL_FILE)
        info = await files.stat(path)
        if info is None or info.kind != "file":
            problems.append(FileProblem(folder, f"no {SKILL_FILE} in this skill folder"))
            continue
        try:
            text = (await files.read_bytes(path, limit=MAX_SKILL_BYTES)).decode("utf-8", errors="replace")
            skill = parse_skill(text, folder=folder, source=source)
        except (OSError, ConfigError) as exc:
            problems.append(FileProblem(path, exc.message if isinstance(exc, ConfigError) else str(exc)))
            continue
        if skill.name in found:
            problems.append(FileProblem(path, f"{found[skill.name].path} already defines {skill.name!r}"))
            continue
        found[skill.name] = skill
    return found


async def find_skills(files: FileSystem, *, workspace: str, home: str | None = None) -> SkillCatalog:
    """Every usable skill, a later place winning by name, and the problems of the unusable ones.

    Args:
        home: The person's home folder (absolute); None skips their folders.
    """
    found: dict[str, Skill] = {}
    problems: list[FileProblem] = []
    _builtin(found, problems)
    places: list[tuple[str, SkillSource]] = []
    if home and home.startswith("/"):
        places += [(posixpath.join(home, folder), "user") for folder in USER_FOLDERS]
    places += [(posixpath.join(workspace, folder), "project") for folder in PROJECT_FOLDERS]
    for root, source in places:
        found.update(await _folder(files, root, source, problems))
    return SkillCatalog(skills=found, problems=tuple(problems))


async def _listing(files: FileSystem, folder: str) -> list[str]:
    """The files beside SKILL.md (relative to its folder, a few levels down), at most a few dozen."""
    listed: list[str] = []
    pending = [folder]
    while pending and len(listed) < MAX_LISTED_FILES:
        current = pending.pop(0)
        try:
            entries = await files.list_dir(current)
        except OSError:
            continue
        for entry in sorted(entries, key=lambda e: e.path):
            name = posixpath.basename(entry.path.rstrip("/"))
            path = posixpath.join(current, name)
            if name.startswith("."):
                continue
            if entry.kind == "dir":
                pending.append(path)
            elif path != posixpath.join(folder, SKILL_FILE):
                listed.append(posixpath.relpath(path, folder))
    return listed[:MAX_LISTED_FILES]


def _builtin_listing(root: Traversable, prefix: str = "") -> list[str]:
    listed: list[str] = []
    for entry in sorted(root.iterdir(), key=lambda e: e.name):
        if entry.name.startswith(".") or (not prefix and entry.name == SKILL_FILE):
            continue
        if entry.is_dir():
            listed += _builtin_listing(entry, f"{prefix}{entry.name}/")
        else:
            listed.append(f"{prefix}{entry.name}")
    return listed[:MAX_LISTED_FILES]


async def load_skill(files: FileSystem, skill: Skill) -> str:
    """The skill's instructions for the model: its SKILL.md body, then where it lives and the files
    beside it.

    Raises:
        ConfigError: the file changed since it was found and can no longer be used.
        OSError: it could not be read.
    """
    if skill.folder.startswith(BUILTIN_PREFIX):
        root = _builtin_root().joinpath(skill.folder.removeprefix(BUILTIN_PREFIX))
        text = root.joinpath(SKILL_FILE).read_text(encoding="utf-8")
        beside = _builtin_listing(root)
        where = f"(built into Circle: {skill.name})"
    else:
        data = await files.read_bytes(skill.path, limit=MAX_SKILL_BYTES)
        text = data.decode("utf-8", errors="replace")
        beside = await _listing(files, skill.folder)
        where = skill.folder
    parts = [f'<skill name="{skill.name}">', skill_body(text), "</skill>", f"Skill folder: {where}"]
    if beside:
        parts.append("Files beside SKILL.md (relative to the skill folder):")
        parts += [f"- {name}" for name in beside]
    return "\n".join(parts)


__all__ = ["SkillCatalog", "find_skills", "load_skill"]
