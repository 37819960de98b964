"""Subagent definitions: the built-in types and ``<name>.md`` agent files.

::

    ---
    name: reviewer
    description: Reviews a change for bugs and missing tests.
    tools: read_file, grep, glob        # optional; Claude Code's names (Read, Grep ...) work too
    model: some-model-id                 # optional; "inherit" (or sonnet, opus, haiku) uses the session's
    ---
    You review changes. ...              # the body is the subagent's system prompt

A subagent's system prompt is its own followed by the main agent's. It never gets ``task``,
``compact_conversation`` or the plan-mode tools.
"""

from __future__ import annotations

from dataclasses import dataclass

from .errors import ConfigError
from .front_matter import parse_front_matter
from .hooks import CLAUDE_TOOL_NAMES
from .skills import check_name

GENERAL_PURPOSE = "general-purpose"
EXPLORE = "explore"
NEVER_GIVEN = frozenset({"task", "compact_conversation", "plan_enter", "plan_exit"})
"""Tools no subagent gets."""
SUBAGENT_ONLY = frozenset({"wait_jobs"})
"""Tools only subagents get: the main agent is told of a job's end in a turn of its own."""
READ_ONLY_TOOLS = frozenset({"ls", "read_file", "glob", "grep", "skill", "webfetch", "websearch", "lsp"})
"""What explore gets (those of them the session has)."""
INHERITED_MODELS = frozenset({"inherit", "sonnet", "opus", "haiku"})
"""Model values that mean "the session's model" (Claude Code's aliases name no model on an endpoint)."""
_FROM_CLAUDE = {
    **{claude.lower(): ours for ours, claude in CLAUDE_TOOL_NAMES.items()},
    "multiedit": "edit_file",
    "webfetch": "webfetch",
    "websearch": "websearch",
    "todowrite": "write_todos",
}


@dataclass(frozen=True, slots=True)
class SubagentSpec:
    """A kind of subagent ``task`` can start.

    Attributes:
        tools: The tools it gets by name; None: the general-purpose set.
        model: A model id on the same endpoint; None: the session's model.
        read_only: Every change it asks for is refused without asking (explore).
        path: The agent file it came from; None for a built-in one.
    """

    name: str
    description: str
    system_prompt: str
    tools: tuple[str, ...] | None = None
    model: str | None = None
    read_only: bool = False
    path: str | None = None


def tool_name(written: str) -> str:
    """Circle's name for a tool named in an agent file (Claude Code's names are understood)."""
    return _FROM_CLAUDE.get(written.strip().lower(), written.strip())


def parse_agent_file(text: str, *, path: str) -> SubagentSpec:
    """The subagent an agent file defines; its name defaults to the file's (without ``.md``).

    Raises:
        ConfigError: unusable front matter, a bad name, no description or an empty body.
    """
    front = parse_front_matter(text)
    stem = path.rsplit("/", 1)[-1].removesuffix(".md")
    name = check_name(front.fields.get("name") or stem, what="subagent")
    description = " ".join(front.fields.get("description", "").split())
    if not description:
        raise ConfigError("the front matter has no 'description': the model could not know when to use it")
    if not front.body:
        raise ConfigError("the file has no body: the body is the subagent's system prompt")
    written = front.fields.get("tools", "").strip()
    tools = None
    if written and written != "*":
        names = [tool_name(t) for t in written.replace(" ", ",").split(",") if t.strip()]
        tools = tuple(dict.fromkeys(n for n in names if n not in NEVER_GIVEN))
    model = front.fields.get("model", "").strip() or None
    if model is not None and model.lower() in INHERITED_MODELS:
        model = None
    return SubagentSpec(
        name=name, description=description, system_prompt=front.body, tools=tools, model=model, path=path
    )


__all__ = [
    "EXPLORE",
    "GENERAL_PURPOSE",
    "NEVER_GIVEN",
    "READ_ONLY_TOOLS",
    "SUBAGENT_ONLY",
    "SubagentSpec",
    "parse_agent_file",
    "tool_name",
]
