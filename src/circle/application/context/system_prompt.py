"""The system prompt, in the spec's order:

1. base instructions for the model family (``--system-prompt`` replaces them);
2. Circle's guidelines, with the note on paths;
3. the workspace's AGENTS.md or CLAUDE.md, then the person's own (no parent folders);
4. the environment (folder, platform, date, git, model and protocol, sandbox, saved secrets);
5. APPEND_SYSTEM.md (the project's .circle/ one, else the data folder's) and ``--append-system-prompt``;
6. the names and descriptions of skills and extension tools (given by the caller).
"""

from __future__ import annotations

from dataclasses import dataclass

from circle.application.ports.file_system import FileSystem
from circle.application.prompts import load_prompt
from circle.domain.families import model_family

INSTRUCTION_FILES = ("AGENTS.md", "CLAUDE.md")
PERSONAL_INSTRUCTION_FILES = (
    ".circle/AGENTS.md",
    ".circle/CLAUDE.md",
    ".agents/AGENTS.md",
    ".claude/CLAUDE.md",
)
MAX_INSTRUCTION_BYTES = 64_000


@dataclass(frozen=True, slots=True)
class Environment:
    workspace: str
    platform: str
    date: str
    model: str
    protocol: str
    sandbox_note: str | None = None
    """One line saying how commands are sandboxed; None when they are not."""
    home: str | None = None
    """The person's home folder, for their own instruction files."""
    data_dir: str | None = None
    """Circle's data folder, for its APPEND_SYSTEM.md."""
    secret_names: tuple[str, ...] = ()
    capabilities: tuple[tuple[str, str], ...] = ()
    """Skills and extension tools: (name, description)."""


@dataclass(frozen=True, slots=True)
class PromptOptions:
    replace: str | None = None
    append: str | None = None
    context_files: bool = True


async def _read_text(files: FileSystem, path: str) -> str | None:
    info = await files.stat(path)
    if info is None or info.kind != "file":
        return None
    data = await files.read_bytes(path, limit=MAX_INSTRUCTION_BYTES)
    return data.decode("utf-8", errors="replace").strip()


async def _first(files: FileSystem, folder: str, names: tuple[str, ...]) -> tuple[str, str] | None:
    for name in names:
        text = await _read_text(files, f"{folder.rstrip('/')}/{name}")
        if text is not None:
            return name, text
    return None


async def instruction_files(
    files: FileSystem, workspace: str, home: str | None = None
) -> list[tuple[str, str]]:
    """The workspace's AGENTS.md or CLAUDE.md, then the person's own, as (label, text)."""
    found = []
    if (project := await _first(files, workspace, INSTRUCTION_FILES)) is not None:
        found.append(project)
    if home and (personal := await _first(files, home, PERSONAL_INSTRUCTION_FILES)) is not None:
        found.append((f"~/{personal[0]}", personal[1]))
    return found


async def build_system_prompt(
    files: FileSystem, env: Environment, options: PromptOptions = PromptOptions()
) -> str:
    """Assemble the prompt in the order the spec gives."""
    base = options.replace.strip() if options.replace is not None else None
    family = load_prompt(f"system/families/{model_family(env.model)}.md")
    sections = [base if base is not None else family, load_prompt("system/guidelines.md")]
    if options.context_files:
        for name, text in await instruction_files(files, env.workspace, env.home):
            sections.append(f"# Instructions from {name}\n{text}")
    sections.append(await _environment(files, env))
    appended = await _first(files, f"{env.workspace.rstrip('/')}/.circle", ("APPEND_SYSTEM.md",))
    if appended is None and env.data_dir:
        appended = await _first(files, env.data_dir, ("APPEND_SYSTEM.md",))
    if appended is not None:
        sections.append(appended[1])
    if options.append:
        sections.append(options.append.strip())
    if env.capabilities:
        lines = [f"- {name}: {description}" for name, description in env.capabilities]
        sections.append("# Skills and extension tools\n" + "\n".join(lines))
    return "\n\n".join(s for s in sections if s)


async def _environment(files: FileSystem, env: Environment) -> str:
    is_git = await files.stat(f"{env.workspace.rstrip('/')}/.git") is not None
    lines = [
        f"- Working folder: {env.workspace}",
        f"- Platform: {env.platform}",
        f"- Date: {env.date}",
        f"- Git repository: {'yes' if is_git else 'no'}",
        f"- Model: {env.model} ({env.protocol})",
    ]
    if env.sandbox_note:
        lines.append(f"- {env.sandbox_note}")
    if env.secret_names:
        names = ", ".join(f"%{name}%" for name in env.secret_names)
        lines.append(
            f"- Saved secrets (write them as shown; the value is filled in when the call runs): {names}"
        )
    return "# Environment\n" + "\n".join(lines)
