"""The common command lines read without Typer: ``circle``, ``circle MESSAGE``, ``circle -p MESSAGE``,
``circle --session ID``, ``circle -c --model M`` and the like.

Importing Typer and letting it convert each option (its conversions load pydantic) takes longer than
the interface takes to paint its first frame. A command line made only of words, the flags below and
the text options below each followed by a value of its own, means the same to Typer as it does here;
anything else (``--help``, ``--opt=value``, a number option, a value starting with ``-``, an option
given twice, ``--``) is left to Typer, which says what is wrong in its usual words. Which option is
which comes from the Typer command itself (a test checks these tables against it).
"""

from __future__ import annotations

from ._run import Choices

FLAGS = {
    "-p": "print_mode",
    "--print": "print_mode",
    "--line": "line",
    "-r": "resume",
    "--resume": "resume",
    "--no-session": "no_session",
    "-c": "continue_last",
    "--continue": "continue_last",
    "--yolo": "yolo",
    "--no-context-files": "no_context_files",
    "--no-tools": "no_tools",
    "--rpc-approvals": "rpc_approvals",
}
"""The root command's on/off options, by spelling."""

TEXT_OPTIONS = {
    "--mode": "mode",
    "--model": "model",
    "--provider": "provider",
    "--thinking": "thinking",
    "--session": "session",
    "--session-id": "session_id",
    "--fork": "fork",
    "--name": "name",
    "--approval-mode": "approval_mode",
    "--sandbox": "sandbox",
    "--system-prompt": "system_prompt",
    "--append-system-prompt": "append_system_prompt",
    "--tools": "tools",
    "--exclude-tools": "exclude_tools",
}
"""The root command's options that take a text value as it is, by spelling."""


def common_choices(args: list[str]) -> Choices | None:
    """The choices ``args`` gives, when it is a common command line; None: let Typer read it."""
    values: dict[str, bool | str] = {}
    words: list[str] = []
    rest = iter(args)
    for word in rest:
        if not word.startswith("-"):
            words.append(word)
            continue
        name = FLAGS.get(word) or TEXT_OPTIONS.get(word)
        if name is None or name in values:
            return None
        if word in FLAGS:
            values[name] = True
            continue
        text = next(rest, None)
        if text is None or text.startswith("-"):
            return None
        values[name] = text
    choices = Choices(args=words or None)
    for field, value in values.items():
        setattr(choices, field, value)
    return choices
