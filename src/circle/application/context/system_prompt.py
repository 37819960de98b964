"""The system prompt: base instructions, guidelines, instruction files, the environment, appended text.

Issue-sized for now: later parts (family prompts, skills, APPEND_SYSTEM.md) slot in here.
"""

from __future__ import annotations

from dataclasses import dataclass

from circle.application.ports.file_system import FileSystem
from circle.application.prompts import load_prompt
from circle.domain.families import model_family

INSTRUCTION_FILES = ("AGENTS.md", "CLAUDE.md")
MAX_INSTRUCTION_BYTES = 64_000


@dataclass(frozen=True, slots=True)
class Environment:
    workspace: str
    platform: str
    date: str
    model: str
    protocol: str


@dataclass(frozen=True, slots=True)
class PromptOptions:
    replace: str | None = None
    append: str | None = None
    context_files: bool = True


async def instruction_files(files: FileSystem, workspace: str) -> list[tuple[str, str]]:
    """The first of AGENTS.md / CLAUDE.md found in the workspace folder, as (name, text)."""
    for name in INSTRUCTION_FILES:
        path = f"{workspace.rstrip('/')}/{name}"
        info = await files.stat(path)
        if info is not None and info.kind == "file":
            data = await files.read_bytes(path, limit=MAX_INSTRUCTION_BYTES)
            return [(name, data.decode("utf-8", errors="replace").strip())]
    return []


async def build_system_prompt(
    files: FileSystem, env: Environment, options: PromptOptions = PromptOptions()
) -> str:
    """Assemble the prompt in the order the spec gives."""
    if options.replace is not None:
        sections = [options.replace.strip()]
    else:
        family = model_family(env.model)
        sections = [load_prompt(f"system/families/{family}.md"), load_prompt("system/guidelines.md")]
    if options.context_files:
        for name, text in await instruction_files(files, env.workspace):
            sections.append(f"# Instructions from {name}\n{text}")
    is_git = await files.stat(f"{env.workspace.rstrip('/')}/.git") is not None
    sections.append(
        "# Environment\n"
        f"- Working folder: {env.workspace}\n"
        f"- Platform: {env.platform}\n"
        f"- Date: {env.date}\n"
        f"- Git repository: {'yes' if is_git else 'no'}\n"
        f"- Model: {env.model} ({env.protocol})"
    )
    if options.append:
        sections.append(options.append.strip())
    return "\n\n".join(s for s in sections if s)
