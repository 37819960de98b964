"""Runs the configured hooks through the ``ProcessRunner`` port and says what they decided.

Each hook is a shell command run in the workspace with a timeout. It gets the event as JSON on
stdin, with Claude Code's fields (``session_id``, ``cwd``, ``hook_event_name``, ``tool_name``,
``tool_input``, ``tool_response`` ...), and answers with its exit code and output, which
:mod:`circle.domain.hooks` interprets. The hooks of one event run at the same time, with the
embedding program's Python hooks (:mod:`circle.application.code_hooks`).

``tool_name`` is Circle's (``execute``, ``apply_patch``); ``tool_input`` is the call's arguments,
where a hook written for Claude Code looks for them (``command`` for ``execute``, ``file_path`` for
``write_file``, ``edit_file`` and ``delete``). Every file tool's input also carries ``file_paths``,
the list of files it changes; ``apply_patch``'s gets ``file_path`` (its first file) and
``file_paths`` (every file it adds, deletes, updates or moves, the destination of a move too),
as written in the patch. A patch that does not parse has neither (the tool refuses it).

This module only reports verdicts. Wiring them into the approval policy is the caller's: a
PreToolUse deny stands in every approval mode, an allow never overrides an always-refused command or
a deny rule; a Stop deny keeps the turn going with its reason as a note (see ``stop``).
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable, Mapping

from pydantic import JsonValue

from circle.domain.errors import ToolError
from circle.domain.hooks import (
    FILE_TOOLS,
    HookCommand,
    HookConfig,
    HookEvent,
    HookRun,
    HookVerdict,
    combine,
    interpret,
)

from .code_hooks import Hooks, run_hook
from .ports.process_runner import ProcessRunner

log = logging.getLogger("circle.hooks")
OUTPUT_LIMIT = 100_000
"""Characters kept of each of a hook's streams."""


class HookRunner:
    """The hooks of one session.

    Args:
        processes: Where the hooks run.
        hooks: What runs on which event (``load_hooks`` reads it from hooks.json files).
        workspace: The folder hooks run in, also sent as ``cwd``.
        session_id: Sent to every hook.
        env: The hooks' environment (``CIRCLE_PROJECT_DIR`` and ``CLAUDE_PROJECT_DIR`` are added);
            None inherits Circle's own.
        permission_mode: Asked at each event for what to send as ``permission_mode`` (the
            session's approval mode, or plan mode, in Claude Code's names: see
            :func:`circle.domain.hooks.permission_mode`).
        code: Python hooks (``circle.Hooks``), run beside the commands with the same message.
    """

    def __init__(
        self,
        processes: ProcessRunner,
        hooks: HookConfig,
        *,
        workspace: str,
        session_id: str,
        env: Mapping[str, str] | None = None,
        permission_mode: Callable[[], str] = lambda: "default",
        code: Hooks | None = None,
    ) -> None:
        self.processes = processes
        self.hooks = hooks
        self.code = code
        self.workspace = workspace
        self.session_id = session_id
        self.permission_mode = permission_mode
        self._env = (
            None if env is None else {**env, "CIRCLE_PROJECT_DIR": workspace, "CLAUDE_PROJECT_DIR": workspace}
        )

    async def pre_tool(
        self, tool_name: str, arguments: Mapping[str, JsonValue], *, tool_use_id: str | None = None
    ) -> HookVerdict:
        """What the PreToolUse hooks say of a call before it runs: allow, deny, ask or no opinion."""
        payload: dict[str, JsonValue] = {
            "tool_name": tool_name,
            "tool_input": tool_input(tool_name, arguments),
        }
        if tool_use_id is not None:
            payload["tool_use_id"] = tool_use_id
        return await self.run("PreToolUse", payload, target=tool_name)

    async def post_tool(
        self,
        tool_name: str,
        arguments: Mapping[str, JsonValue],
        result_text: str,
        is_error: bool,
        *,
        tool_use_id: str | None = None,
    ) -> str | None:
        """The PostToolUse hooks' word for the model after a call ran, if they have one.

        That is their plain output or additionalContext, a block's reason, and a note for each
        hook that failed.
        """
        payload: dict[str, JsonValue] = {
            "tool_name": tool_name,
            "tool_input": tool_input(tool_name, arguments),
            "tool_response": {"output": result_text, "is_error": is_error},
        }
        if tool_use_id is not None:
            payload["tool_use_id"] = tool_use_id
        return _for_model(await self._verdicts("PostToolUse", payload, target=tool_name))

    async def session_start(self, *, source: str = "startup") -> str | None:
        """The SessionStart hooks' word for the model (``source``: startup, resume, clear, compact)."""
        return _for_model(await self._verdicts("SessionStart", {"source": source}, target=source))

    async def stop(self, answer: str, *, active: bool = False) -> HookVerdict:
        """What the Stop hooks say before a turn ends with ``answer``.

        A deny means "not yet": the caller goes on with the turn, giving the verdict's ``reason``
        to the model as a user-role note. ``active`` (sent as ``stop_hook_active``) tells the hooks
        the turn already goes on because of them. A hook that failed also denies (fail closed), with
        ``failed`` set: the caller should say so, and bound how often a turn goes on.
        """
        payload: dict[str, JsonValue] = {"stop_hook_active": active, "last_assistant_message": answer}
        return await self.run("Stop", payload)

    async def run(
        self, event: HookEvent, payload: Mapping[str, JsonValue], *, target: str | None = None
    ) -> HookVerdict:
        """The combined verdict of ``event``'s hooks for ``target`` (a tool name or session source)."""
        return combine(await self._verdicts(event, payload, target=target))

    async def _verdicts(
        self, event: HookEvent, payload: Mapping[str, JsonValue], *, target: str | None
    ) -> list[HookVerdict]:
        commands = self.hooks.commands(event, target)
        function = self.code.on(event) if self.code is not None else None
        if not commands and function is None:
            return []
        message: dict[str, JsonValue] = {
            "session_id": self.session_id,
            "cwd": self.workspace,
            "hook_event_name": event,
            "permission_mode": self.permission_mode(),
            **payload,
        }
        stdin = json.dumps(message, ensure_ascii=False)
        ran = asyncio.gather(*(self._run_one(hook, stdin) for hook in commands))
        if function is None or self.code is None:
            runs = await ran
            said = []
        else:
            code = run_hook(function, message, event=event, timeout_s=self.code.timeout_s)
            runs, own = await asyncio.gather(ran, code)
            said = [own]
        return [interpret(hook, run, event=event) for hook, run in zip(commands, runs, strict=True)] + said

    async def _run_one(self, hook: HookCommand, stdin: str) -> HookRun:
        try:
            result = await self.processes.run(
                hook.command,
                cwd=self.workspace,
                timeout_s=hook.timeout_s,
                output_limit=OUTPUT_LIMIT,
                env=self._env,
                stdin=stdin,
                separate_stderr=True,
            )
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # fail closed: a hook that cannot run denies
            log.warning("hook %s could not run", hook.label, exc_info=True)
            return HookRun(exit_code=None, error=f"{type(exc).__name__}: {exc}")
        return HookRun(
            exit_code=result.exit_code, stdout=result.output, stderr=result.stderr, timed_out=result.timed_out
        )


def tool_input(tool_name: str, arguments: Mapping[str, JsonValue]) -> dict[str, JsonValue]:
    """What a hook gets as ``tool_input``: the arguments, and for a file tool the paths it changes
    in ``file_path`` and ``file_paths`` (see the module's docstring)."""
    given = dict(arguments)
    if tool_name not in FILE_TOOLS:
        return given
    paths: list[str] = []
    patch = given.get("patch")
    if tool_name == "apply_patch" and isinstance(patch, str):
        from circle.domain.patch import UpdateFile, parse_patch  # loads with the first patch

        try:
            operations = parse_patch(patch)
        except ToolError:
            operations = ()
        for operation in operations:
            moved = operation.move_to if isinstance(operation, UpdateFile) else None
            paths += [operation.path, *([moved] if moved else [])]
    elif isinstance(path := given.get("file_path"), str):
        paths.append(path)
    unique: list[JsonValue] = list(dict.fromkeys(paths))
    if unique:
        given.setdefault("file_path", unique[0])
        given.setdefault("file_paths", unique)
    return given


def _for_model(verdicts: list[HookVerdict]) -> str | None:
    """What hooks after a tool or at session start give the model: context, block reasons, failures."""
    parts = [part for v in verdicts for part in (v.reason if v.decision == "deny" else "", v.context) if part]
    return "\n\n".join(parts) or None


__all__ = ["OUTPUT_LIMIT", "HookRunner", "tool_input"]
