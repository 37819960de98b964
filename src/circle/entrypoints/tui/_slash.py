"""The built-in slash commands: the table, parsing, completion and close matches; the custom
commands (``.circle/commands/NAME.md``) beside them, where a built-in wins by name."""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass, field

from circle.domain.custom_commands import CustomCommand


@dataclass(frozen=True, slots=True)
class SlashCommand:
    name: str
    summary: str
    usage: str = ""
    custom: bool = False
    """From a command file: sent to the model as its expanded template."""


COMMANDS: tuple[SlashCommand, ...] = (
    SlashCommand("help", "show the commands and what they do"),
    SlashCommand("hotkeys", "show the keys"),
    SlashCommand("models", "switch the model", "[MODEL]"),
    SlashCommand("thinking", "set the thinking level", "[off|minimal|low|medium|high|max]"),
    SlashCommand("new", "start a new session"),
    SlashCommand("resume", "open an earlier session of this folder"),
    SlashCommand("tree", "walk the session's branches: go on from any message, label it"),
    SlashCommand("fork", "start a new session from an earlier message (yours comes back to edit)"),
    SlashCommand("rewind", "put back the files a turn changed"),
    SlashCommand("undo", "take back your last message: its answers and the files its turn changed"),
    SlashCommand("redo", "bring back what /undo took back"),
    SlashCommand("editor", "write the message in $VISUAL or $EDITOR (ctrl+g: the input's text)", "[TEXT]"),
    SlashCommand("compact", "summarize older messages now", "[INSTRUCTIONS]"),
    SlashCommand("export", "write the session to a file (.md, .html, .jsonl)", "[FILE]"),
    SlashCommand("name", "name the session", "NAME"),
    SlashCommand("secret", "save a secret the model writes %NAME%", "NAME"),
    SlashCommand("jobs", "list the background jobs"),
    SlashCommand("agents", "list the subagent types"),
    SlashCommand("skills", "list the skills"),
    SlashCommand("reload", "read settings, approvals, hooks, skills and custom commands again"),
    SlashCommand("quit", "leave Circle"),
)
BY_NAME = {command.name: command for command in COMMANDS}

HOTKEYS: tuple[tuple[str, str], ...] = (
    ("enter", "send the message"),
    ("ctrl+j", "new line (also \\ then enter)"),
    ("up / down", "earlier and later messages (on the first / last line)"),
    ("ctrl+r", "search the history"),
    ("tab", "complete a /command or an @file"),
    ("esc", "cancel the turn"),
    ("pgup / pgdn", "scroll the conversation (the cursor stays in the input box; the wheel too)"),
    ("ctrl+home / ctrl+end", "the start / the end of the conversation (End, when scrolled up)"),
    ("ctrl+o", "the whole transcript, every tool output in full (esc or ctrl+o closes it)"),
    ("click a tool row", "unfold its whole output in place, or fold it again (or tab to it, enter)"),
    ("ctrl+b", "move the command being waited on to the background"),
    ("shift+tab", "cycle the mode: default, accept edits, plan mode"),
    ("↓ on an empty input", "select the strip of subagents and jobs; enter opens the record"),
    ("ctrl+f", "find in the conversation: enter next, shift+enter or ↑ previous, esc closes"),
    ("ctrl+g", "write the message in $VISUAL or $EDITOR (/editor)"),
    ("ctrl+v", "attach the clipboard's image (wl-paste or xclip)"),
    ("mouse drag", "select text; it is copied (OSC 52, and tmux's buffer)"),
    ("ctrl+c twice", "leave Circle"),
    ("!command", "run a command; its output goes to the model with your next message"),
    ("!!command", "run a command; its output is only shown"),
    ("@path", 'attach a file (quote or escape spaces: @"my file" or @my\\ file)'),
)


@dataclass(frozen=True, slots=True)
class Invocation:
    name: str
    argument: str
    text: str = field(default="", compare=False)
    """The whole line as written (``/review src/app.py``), long pastes folded as the input box
    showed them (``/review [pasted text #1, 12 lines]``): what the person's row shows."""


def parse(text: str, *, typed: str | None = None) -> Invocation | None:
    """``/name argument`` -> Invocation; None when the text is not a slash command. ``text`` has
    its pastes put back (the argument is made of it); ``typed`` is it as the box showed it."""
    stripped = text.strip()
    if not stripped.startswith("/") or stripped.startswith("//"):
        return None
    head, _, rest = stripped[1:].partition(" ")
    if not head or "/" in head:
        return None
    return Invocation(head.lower(), rest.strip(), stripped if typed is None else typed.strip())


def custom_entries(commands: Sequence[CustomCommand]) -> tuple[SlashCommand, ...]:
    """The custom commands as entries of the list, but for those named as a built-in one."""
    return tuple(
        SlashCommand(c.name, c.description or "custom command", c.usage, custom=True)
        for c in commands
        if c.name.lower() not in BY_NAME
    )


def completions(prefix: str, custom: Sequence[SlashCommand] = ()) -> list[SlashCommand]:
    """The commands whose name starts with what follows the ``/``: the built-in ones, then the
    ``custom`` ones (see :func:`custom_entries`)."""
    word = prefix.lstrip("/").lower()
    return [command for command in (*COMMANDS, *custom) if command.name.lower().startswith(word)]


def close_matches(name: str, custom: Sequence[SlashCommand] = ()) -> list[str]:
    """The commands spelled most like ``name``, best first (three at most)."""
    names = [*BY_NAME, *(c.name for c in custom)]
    return difflib.get_close_matches(name.lower(), names, n=3, cutoff=0.65)


def unknown_message(name: str, custom: Sequence[SlashCommand] = ()) -> str:
    near = close_matches(name, custom)
    hint = f" Did you mean {' or '.join('/' + n for n in near)}?" if near else " /help lists the commands."
    return f"Unknown command /{name}.{hint}"


def help_rows(custom: Sequence[SlashCommand] = ()) -> list[tuple[str, str]]:
    """Each command as ``/name USAGE`` and what it does, for ``/help`` (the custom ones marked)."""
    rows = [(f"/{c.name} {c.usage}".strip(), c.summary) for c in COMMANDS]
    return rows + [(f"/{c.name} {c.usage}".strip(), f"{c.summary} (custom)") for c in custom]


def help_text() -> str:
    width = max(len(name) for name, _ in help_rows()) + 2
    return "Commands:\n" + "\n".join(f"  {name:<{width}} {what}" for name, what in help_rows())


def hotkeys_text() -> str:
    width = max(len(key) for key, _ in HOTKEYS) + 2
    return "Keys:\n" + "\n".join(f"  {key:<{width}} {what}" for key, what in HOTKEYS)


__all__ = [
    "BY_NAME",
    "COMMANDS",
    "Invocation",
    "SlashCommand",
    "close_matches",
    "completions",
    "custom_entries",
    "help_rows",
    "help_text",
    "hotkeys_text",
    "parse",
    "unknown_message",
]
