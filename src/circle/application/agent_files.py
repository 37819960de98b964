"""Agent files: ``<name>.md`` subagent definitions in the person's folders and the project's.

Folders, lowest priority first (a later one wins by name): ``~/.claude/agents``,
``~/.agents/agents``, ``~/.circle/agents``, then the project's ``.circle/agents``. Files that cannot
be used are reported (:class:`AgentFiles.problems`) for /agents and the CLI to show.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable
from dataclasses import dataclass, field

from circle.domain.errors import ConfigError
from circle.domain.front_matter import FileProblem
from circle.domain.subagents import SubagentSpec, parse_agent_file

from .ports.file_system import FileSystem

USER_AGENT_FOLDERS = (".claude/agents", ".agents/agents", ".circle/agents")
"""The person's agent folders below their home, lowest priority first."""
PROJECT_AGENT_FOLDERS = (".circle/agents",)
MAX_AGENT_FILE_BYTES = 128_000


@dataclass(frozen=True, slots=True)
class AgentFiles:
    """The subagents the agent folders define, by name, and the files that could not be used."""

    specs: dict[str, SubagentSpec] = field(default_factory=dict)
    problems: tuple[FileProblem, ...] = ()


async def _agent_folder(
    files: FileSystem, root: str, known: frozenset[str], problems: list[FileProblem]
) -> dict[str, SubagentSpec]:
    try:
        entries = await files.list_dir(root)
    except OSError:
        return {}
    found: dict[str, SubagentSpec] = {}
    for entry in sorted(entries, key=lambda e: e.path):
        name = posixpath.basename(entry.path.rstrip("/"))
        path = posixpath.join(root, name)
        if not name.endswith(".md") or name.startswith(".") or entry.kind == "dir":
            continue
        try:
            data = await files.read_bytes(path, limit=MAX_AGENT_FILE_BYTES)
            spec = parse_agent_file(data.decode("utf-8", errors="replace"), path=path)
        except (OSError, ConfigError) as exc:
            problems.append(FileProblem(path, exc.message if isinstance(exc, ConfigError) else str(exc)))
            continue
        unknown = [tool for tool in spec.tools or () if tool not in known]
        if unknown:
            problems.append(
                FileProblem(path, f"unknown tool {unknown[0]!r}: the tools are {', '.join(known)}")
            )
        elif spec.name in found:
            problems.append(FileProblem(path, f"{found[spec.name].path} already defines {spec.name!r}"))
        else:
            found[spec.name] = spec
    return found


async def find_agent_files(
    files: FileSystem, *, workspace: str, home: str | None, known_tools: Iterable[str]
) -> AgentFiles:
    """The agent files of the person's folders and the project's, a later folder winning by name.

    A file naming a tool not in ``known_tools`` is not used, and reported.
    """
    known = frozenset(sorted(known_tools))
    roots = [posixpath.join(home, folder) for folder in USER_AGENT_FOLDERS] if home else []
    roots += [posixpath.join(workspace, folder) for folder in PROJECT_AGENT_FOLDERS]
    specs: dict[str, SubagentSpec] = {}
    problems: list[FileProblem] = []
    for root in roots:
        specs.update(await _agent_folder(files, root, known, problems))
    return AgentFiles(specs=specs, problems=tuple(problems))


__all__ = ["PROJECT_AGENT_FOLDERS", "USER_AGENT_FOLDERS", "AgentFiles", "find_agent_files"]
