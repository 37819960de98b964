"""Hooks: hooks.json in Claude Code's shape, and what a hook's exit and output decide.

::

    {"hooks": {"PreToolUse": [{"matcher": "Bash|execute",
                               "hooks": [{"type": "command", "command": "./check.sh", "timeout": 60}]}],
               "PostToolUse": [...], "SessionStart": [...], "Stop": [...]}}

- ``matcher`` is a regular expression that must match the whole tool name (for SessionStart: the
  source, ``startup`` or ``resume``); empty, missing or ``*`` matches everything; Stop ignores it.
  ``timeout`` is in seconds (60 when missing). Events Circle does not run (``UserPromptSubmit``
  ...) are listed in ``HookConfig.unsupported``, not refused.
- A tool also answers to the Claude Code names that stand for it (:data:`CLAUDE_TOOLS`), so a
  hooks.json written for Claude Code guards the same actions here:

  ===================  ======================  ===============  ===========
  Claude Code          Circle                  Claude Code      Circle
  ===================  ======================  ===============  ===========
  Bash                 execute                 WebFetch         webfetch
  BashOutput           list_jobs               WebSearch        websearch
  KillShell, KillBash  stop_job                Task             task
  Write                write_file, delete      TodoWrite        write_todos
  Edit, MultiEdit      edit_file, apply_patch  AskUserQuestion  question
  NotebookEdit         edit_file               Skill            skill
  Read                 read_file               EnterPlanMode    plan_enter
  Glob, Grep, LS       glob, grep, ls          ExitPlanMode     plan_exit
  ===================  ======================  ===============  ===========

  A matcher that names any tool that changes files (:data:`FILE_TOOLS`: ``write_file``,
  ``edit_file``, ``apply_patch``, ``delete``, or Claude Code's ``Write``, ``Edit``, ``MultiEdit``,
  ``NotebookEdit``) sees every one of them: ``Write|Edit|MultiEdit`` also runs before
  ``apply_patch`` and ``delete``. The hook gets Circle's tool name in ``tool_name``; the
  input of every file tool carries ``file_path`` (for a patch: its first file) and ``file_paths``
  (every file it changes), as :mod:`circle.application.hooks` describes.
- Exit 0 goes on. Its stdout may hold a JSON object: ``{"decision": "allow"|"approve"|"deny"|
  "block"|"ask", "reason": ...}``, or Claude Code's newer ``{"hookSpecificOutput":
  {"permissionDecision": "allow"|"deny"|"ask", "permissionDecisionReason": ...,
  "additionalContext": ...}}`` (which wins over ``decision``); ``"continue": false`` denies with its
  ``stopReason`` (at Stop it lets the turn end). Stdout that is not a JSON object is plain text: no
  opinion, and the text is the hook's context (given back to the model after a tool and at session
  start), as in Claude Code.
- Exit 2 denies (blocks); its stderr is the reason given to the model. At Stop, deny means "do not
  stop yet": the reason goes to the model and the turn goes on.
- A PreToolUse hook's ``hookSpecificOutput.updatedInput`` (an object) runs the call with those
  arguments instead: they are checked against the tool's schema and the changed call goes through
  every check again, this hook included (:mod:`circle.application.call_runs`). An
  ``updatedInput`` at another event, or one that is not an object, denies.
- Fail closed: any other exit, a crash, a timeout or an unknown decision denies, and the reason
  says so.

Several hooks on one event combine: any deny denies, else any ask asks, else any allow allows,
else there is no opinion. Two hooks that change the input differently deny.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal, TypeAlias, get_args

from pydantic import JsonValue

from .errors import ConfigError

HookEvent: TypeAlias = Literal["PreToolUse", "PostToolUse", "SessionStart", "Stop"]
HookDecision: TypeAlias = Literal["allow", "deny", "ask"]
HookOrigin: TypeAlias = Literal["user", "project"]
ProjectHooksState: TypeAlias = Literal["approved", "changed", "new", "absent"]
"""A trusted project's hooks.json against the person's approvals: ``absent`` when it has none."""

EVENTS: tuple[HookEvent, ...] = get_args(HookEvent)
DEFAULT_TIMEOUT_S = 60.0
CLAUDE_TOOL_NAMES: dict[str, str] = {
    "execute": "Bash",
    "read_file": "Read",
    "write_file": "Write",
    "edit_file": "Edit",
    "glob": "Glob",
    "grep": "Grep",
    "ls": "LS",
    "webfetch": "WebFetch",
    "websearch": "WebSearch",
    "task": "Task",
    "write_todos": "TodoWrite",
}
"""Circle's tools that have one Claude Code counterpart, and its name."""
CLAUDE_TOOLS: dict[str, tuple[str, ...]] = {
    **{claude: (ours,) for ours, claude in CLAUDE_TOOL_NAMES.items()},
    "Write": ("write_file", "delete"),
    "Edit": ("edit_file", "apply_patch"),
    "MultiEdit": ("edit_file", "apply_patch"),
    "NotebookEdit": ("edit_file",),
    "BashOutput": ("list_jobs",),
    "KillShell": ("stop_job",),
    "KillBash": ("stop_job",),
    "AskUserQuestion": ("question",),
    "Skill": ("skill",),
    "EnterPlanMode": ("plan_enter",),
    "ExitPlanMode": ("plan_exit",),
}
"""Each Claude Code tool name a matcher may use, and the Circle tools it stands for."""
FILE_TOOLS = frozenset({"write_file", "edit_file", "apply_patch", "delete"})
"""Circle's tools that change files: a matcher naming one of them (or a Claude Code name for one)
sees them all."""
_NAMES: dict[str, tuple[str, ...]] = {
    tool: (tool, *(claude for claude, ours in CLAUDE_TOOLS.items() if tool in ours))
    for tool in {tool for ours in CLAUDE_TOOLS.values() for tool in ours}
}
"""Each Circle tool with a Claude Code counterpart: its own name, then Claude Code's."""
_FILE_NAMES = tuple(dict.fromkeys(name for tool in sorted(FILE_TOOLS) for name in _NAMES.get(tool, (tool,))))

_DECISIONS: dict[str, HookDecision] = {
    "allow": "allow",
    "approve": "allow",
    "deny": "deny",
    "block": "deny",
    "ask": "ask",
}
_STRENGTH: dict[HookDecision | None, int] = {None: 0, "allow": 1, "ask": 2, "deny": 3}
_DETAIL_LIMIT = 1000


@dataclass(frozen=True, slots=True)
class HookCommand:
    """One shell command to run on an event."""

    command: str
    timeout_s: float = DEFAULT_TIMEOUT_S
    origin: HookOrigin = "user"

    @property
    def label(self) -> str:
        """The hook as messages name it: its command, shortened."""
        text = " ".join(self.command.split())
        return repr(text if len(text) <= 60 else text[:57] + "...")


@dataclass(frozen=True, slots=True)
class HookMatcher:
    """Commands for the calls whose tool name (or session source) fits ``matcher``."""

    matcher: str
    hooks: tuple[HookCommand, ...]

    def matches(self, target: str | None) -> bool:
        """Whether the hooks run for ``target``: under its own name, a Claude Code name for it, or
        (for a file tool) any name of any file tool."""
        if self.matcher in ("", "*") or target is None:
            return True
        return any(re.fullmatch(self.matcher, name) for name in tool_names(target))


def tool_names(tool: str) -> tuple[str, ...]:
    """The names a matcher may use for ``tool``: its own and Claude Code's, and for a file tool
    those of every file tool (see the module's docstring)."""
    if tool in FILE_TOOLS:
        return (tool, *(name for name in _FILE_NAMES if name != tool))
    return _NAMES.get(tool, (tool,))


@dataclass(frozen=True, slots=True)
class HookConfig:
    """The hooks of one or more hooks.json files, by event.

    Attributes:
        unapproved: Project hooks.json files left out until the person approves them (as they are
            now); the integrator asks.
        unsupported: Events in the files that Circle does not run.
    """

    events: Mapping[HookEvent, tuple[HookMatcher, ...]] = field(default_factory=dict)
    unapproved: tuple[str, ...] = ()
    unsupported: tuple[str, ...] = ()

    def commands(self, event: HookEvent, target: str | None = None) -> tuple[HookCommand, ...]:
        """The commands to run for ``event`` (on this tool name or source), each once, in order."""
        if event == "Stop":
            target = None
        found: dict[str, HookCommand] = {}
        for matcher in self.events.get(event, ()):
            if matcher.matches(target):
                for hook in matcher.hooks:
                    found.setdefault(hook.command, hook)
        return tuple(found.values())

    def merged(self, other: HookConfig) -> HookConfig:
        """These hooks and ``other``'s: both run."""
        events = {e: self.events.get(e, ()) + other.events.get(e, ()) for e in EVENTS}
        return HookConfig(
            events={e: m for e, m in events.items() if m},
            unapproved=self.unapproved + other.unapproved,
            unsupported=tuple(dict.fromkeys(self.unsupported + other.unsupported)),
        )


def parse_hooks(data: object, *, source: str, origin: HookOrigin = "user") -> HookConfig:
    """The hooks of one hooks.json's parsed JSON (``None``, an empty file, has none).

    Raises:
        ConfigError: the data does not have Claude Code's hooks shape, a matcher is not a valid
            regular expression, or a hook is not of type ``command``.
    """
    if data is None:
        return HookConfig()
    if not isinstance(data, dict):
        raise ConfigError(f'{source}: expected an object {{"hooks": {{event: [...]}}}}')
    hooks = data.get("hooks", {})
    if not isinstance(hooks, dict):
        raise ConfigError(f"{source}: hooks must be an object of events")
    events: dict[HookEvent, tuple[HookMatcher, ...]] = {}
    unsupported: list[str] = []
    for name, entries in hooks.items():
        where = f"{source}: hooks.{name}"
        if not isinstance(entries, list):
            raise ConfigError(f"{where} must be a list of {{matcher, hooks}}")
        parsed = tuple(_parse_matcher(e, where=f"{where}[{i}]", origin=origin) for i, e in enumerate(entries))
        if name in EVENTS:
            events[name] = parsed
        else:
            unsupported.append(name)
    return HookConfig(events=events, unsupported=tuple(unsupported))


def _parse_matcher(entry: object, *, where: str, origin: HookOrigin) -> HookMatcher:
    if not isinstance(entry, dict):
        raise ConfigError(f"{where} must be an object {{matcher, hooks}}")
    matcher = entry.get("matcher", "")
    if not isinstance(matcher, str):
        raise ConfigError(f"{where}.matcher must be a string")
    try:
        if matcher not in ("", "*"):
            re.compile(matcher)
    except re.error as exc:
        raise ConfigError(f"{where}.matcher is not a valid regular expression: {exc}") from None
    commands = entry.get("hooks")
    if not isinstance(commands, list):
        raise ConfigError(f"{where}.hooks must be a list of {{type, command, timeout}}")
    return HookMatcher(
        matcher=matcher,
        hooks=tuple(
            _parse_command(c, where=f"{where}.hooks[{i}]", origin=origin) for i, c in enumerate(commands)
        ),
    )


def _parse_command(entry: object, *, where: str, origin: HookOrigin) -> HookCommand:
    if not isinstance(entry, dict):
        raise ConfigError(f"{where} must be an object {{type, command, timeout}}")
    kind = entry.get("type", "command")
    if kind != "command":
        raise ConfigError(f'{where}.type is {kind!r}: Circle runs only "command" hooks')
    command = entry.get("command")
    if not isinstance(command, str) or not command.strip():
        raise ConfigError(f"{where}.command must be a non-empty string")
    timeout = entry.get("timeout", DEFAULT_TIMEOUT_S)
    if isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout <= 0:
        raise ConfigError(f"{where}.timeout must be a positive number of seconds")
    return HookCommand(command=command, timeout_s=float(timeout), origin=origin)


@dataclass(frozen=True, slots=True)
class HookRun:
    """What running a hook gave: its exit, its two streams, or why it did not finish.

    ``error`` is set when the hook could not be run at all; ``exit_code`` None without
    ``timed_out`` or ``error`` counts as a crash too.
    """

    exit_code: int | None
    stdout: str = ""
    stderr: str = ""
    timed_out: bool = False
    error: str | None = None


@dataclass(frozen=True, slots=True)
class HookVerdict:
    """What one hook, or several combined, said.

    Attributes:
        decision: allow, deny or ask; None for no opinion. At Stop, deny means "do not stop yet".
        reason: Why, for the model (a deny's reason is what the model reads).
        context: Text for the model: additionalContext, or plain stdout.
        failed: The hook crashed, timed out, exited with an unexpected code or answered in a way
            Circle cannot follow; ``decision`` is then deny.
        hook: The label of the hook that decided.
        updated_input: A PreToolUse hook's changed arguments for the call (None: unchanged).
    """

    decision: HookDecision | None = None
    reason: str = ""
    context: str = ""
    failed: bool = False
    hook: str = ""
    updated_input: Mapping[str, JsonValue] | None = field(default=None, hash=False)


def interpret(hook: HookCommand, run: HookRun, *, event: HookEvent = "PreToolUse") -> HookVerdict:
    """What a hook's run on ``event`` decides, following the protocol in the module's docstring."""
    label = hook.label
    if run.error is not None:
        return _failure(label, f"hook {label} failed: {run.error}")
    if run.timed_out:
        return _failure(label, f"hook {label} timed out after {hook.timeout_s:g} s")
    if run.exit_code is None:
        return _failure(label, f"hook {label} failed: it did not exit")
    if run.exit_code == 2:
        reason = run.stderr.strip() or run.stdout.strip() or f"blocked by hook {label}"
        return HookVerdict("deny", _clip(reason), hook=label)
    if run.exit_code != 0:
        how = f"killed by signal {-run.exit_code}" if run.exit_code < 0 else f"exit {run.exit_code}"
        detail = _clip(run.stderr.strip() or run.stdout.strip())
        return _failure(label, f"hook {label} failed ({how})" + (f": {detail}" if detail else ""))
    answer = _json_object(run.stdout)
    if answer is None:
        return HookVerdict(context=run.stdout.strip(), hook=label)
    return _structured(label, answer, event=event)


def interpret_answer(label: str, answer: Mapping[str, object], *, event: HookEvent) -> HookVerdict:
    """What a hook's JSON answer (a parsed object, as on a hook's stdout) decides on ``event``."""
    return _structured(label, dict(answer), event=event)


def failure(label: str, message: str) -> HookVerdict:
    """A hook that failed (crashed, timed out, answered what Circle cannot follow): it denies."""
    return _failure(label, message)


def _structured(label: str, answer: dict[str, object], *, event: HookEvent) -> HookVerdict:
    specific = answer.get("hookSpecificOutput")
    specific = specific if isinstance(specific, dict) else {}
    context = _text(specific.get("additionalContext")) or _text(answer.get("additionalContext"))
    updated = specific.get("updatedInput")
    if "updatedInput" in specific and (event != "PreToolUse" or not isinstance(updated, dict)):
        return _failure(label, f"hook {label} gave an updatedInput Circle cannot use: {_clip(repr(updated))}")
    verdict = _decided(label, answer, specific, context, event=event)
    if isinstance(updated, dict) and verdict.decision != "deny":
        return replace(verdict, updated_input=updated)
    return verdict


def _decided(
    label: str, answer: dict[str, object], specific: dict[object, object], context: str, *, event: HookEvent
) -> HookVerdict:
    if answer.get("continue") is False:  # "stop now": at Stop that is what happens anyway
        reason = _text(answer.get("stopReason")) or f"hook {label} stopped the session"
        return HookVerdict(None if event == "Stop" else "deny", reason, context, hook=label)
    raw = specific.get("permissionDecision")
    reason = _text(specific.get("permissionDecisionReason"))
    if raw is None:
        raw, reason = answer.get("decision"), _text(answer.get("reason"))
    if raw is None:
        return HookVerdict(context=context, hook=label)
    decision = _DECISIONS.get(raw) if isinstance(raw, str) else None
    if decision is None:
        return _failure(label, f"hook {label} gave an unknown decision {raw!r}")
    return HookVerdict(decision, reason, context, hook=label)


def combine(verdicts: Sequence[HookVerdict]) -> HookVerdict:
    """Several hooks' verdicts as one: deny over ask over allow over no opinion.

    The reasons of the hooks that gave the winning decision are joined, as are all contexts.
    """
    strongest = max((v.decision for v in verdicts), key=_STRENGTH.__getitem__, default=None)
    context = "\n\n".join(v.context for v in verdicts if v.context)
    changes = [v for v in verdicts if v.updated_input is not None]
    updated = changes[0].updated_input if changes else None
    if strongest != "deny" and any(dict(v.updated_input or {}) != dict(updated or {}) for v in changes):
        hooks = ", ".join(v.hook for v in changes)
        return HookVerdict(
            "deny", f"hooks {hooks} changed the call's input differently", context, True, hooks
        )
    if strongest is None:
        return HookVerdict(context=context, hook=changes[0].hook if changes else "", updated_input=updated)
    deciders = [v for v in verdicts if v.decision == strongest]
    return HookVerdict(
        decision=strongest,
        reason="\n".join(v.reason for v in deciders if v.reason),
        context=context,
        failed=any(v.failed for v in deciders),
        hook=deciders[0].hook,
        updated_input=updated if strongest != "deny" else None,
    )


def _failure(label: str, message: str) -> HookVerdict:
    return HookVerdict("deny", message, failed=True, hook=label)


def _json_object(stdout: str) -> dict[str, object] | None:
    text = stdout.strip()
    if not text.startswith("{"):
        return None
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _text(value: object) -> str:
    return value.strip() if isinstance(value, str) else ""


def _clip(text: str) -> str:
    return text if len(text) <= _DETAIL_LIMIT else "… " + text[-_DETAIL_LIMIT:]


CLAUDE_PERMISSION_MODES: Mapping[str, str] = {
    "default": "default",
    "accept-edits": "acceptEdits",
    "auto": "bypassPermissions",
    "read-only": "readOnly",
}
"""Circle's approval modes as a hook's ``permission_mode`` says them: Claude Code's names, and
``readOnly`` for Circle's own read-only mode."""


def permission_mode(approval_mode: str, *, planning: bool = False) -> str:
    """What a hook is told as ``permission_mode``: ``plan`` while plan mode is on, else the
    approval mode in Claude Code's names (:data:`CLAUDE_PERMISSION_MODES`)."""
    if planning:
        return "plan"
    return CLAUDE_PERMISSION_MODES.get(approval_mode, approval_mode)


__all__ = [
    "CLAUDE_PERMISSION_MODES",
    "CLAUDE_TOOLS",
    "CLAUDE_TOOL_NAMES",
    "DEFAULT_TIMEOUT_S",
    "EVENTS",
    "FILE_TOOLS",
    "HookCommand",
    "HookConfig",
    "HookDecision",
    "HookEvent",
    "HookMatcher",
    "HookOrigin",
    "HookRun",
    "HookVerdict",
    "ProjectHooksState",
    "combine",
    "failure",
    "interpret",
    "interpret_answer",
    "parse_hooks",
    "permission_mode",
    "tool_names",
]
