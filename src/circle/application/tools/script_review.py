"""The scripts a command has a shell run, read and classified as the commands they are.

:func:`circle.domain.approvals.classify_command` names the files (``CommandVerdict.scripts``: ``bash
x.sh``, ``sh < x.sh``, ``source x.sh``, ``./x.sh``); :func:`review_scripts` reads each one that is a
shell script (read by a shell, or a program whose first line names a shell, see
:func:`circle.domain.shell_scripts.runs_as_shell`), at most :data:`MAX_SCRIPT_BYTES`, and classifies its
text in the folder it runs in:

- always refused in it: the command is refused (:class:`ToolError` ``refused: x.sh ...``);
- risky, or an always-ask place written (its review, :func:`~.command_review.review_command`, asks
  in every mode): the command asks in every mode, and is refused where nobody can answer;
- anything else not known read-only: the command is not known read-only either.

A script that cannot be read whole (missing, too large, not a regular file), one a command before it
in the line may have changed, and scripts nested more than :data:`MAX_SCRIPT_DEPTH` deep ask in every
mode. Programs of other languages (a ``python`` or ``make`` first line) are not read: the command
stays as the classifier left it (never known read-only).
"""

from __future__ import annotations

import fnmatch
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Protocol

from circle.domain.approvals import CommandVerdict, classify_command
from circle.domain.errors import ToolError
from circle.domain.shell_scripts import ScriptRun, runs_as_shell

from .base import CREDENTIAL_REFUSAL, ToolContext

MAX_SCRIPT_BYTES = 256 * 1024
MAX_SCRIPT_DEPTH = 4
"""Scripts run by scripts, at most, before the command asks in every mode."""
MAX_SCRIPTS = 20
"""Scripts read for one command line, at most."""
_HEAD_BYTES = 4096


class Reviewed(Protocol):
    """What a script's own review says (a :class:`~.command_review.CommandReview`)."""

    @property
    def safe(self) -> bool: ...
    @property
    def reason(self) -> str: ...
    @property
    def always_ask(self) -> bool: ...
    @property
    def ask_reason(self) -> str: ...
    @property
    def protected_write(self) -> bool: ...


Review = Callable[[CommandVerdict, ToolContext, int], Awaitable[Reviewed]]


@dataclass(frozen=True, slots=True)
class ScriptsReview:
    """What the scripts say of the command that runs them.

    Attributes:
        not_safe: Why the command is not known read-only (a script is not), or empty.
        always_ask: Why it asks in every mode, or empty.
        protected_write: A script writes into an always-ask place (the person is asked about it).
    """

    not_safe: str = ""
    always_ask: str = ""
    protected_write: bool = False


async def review_scripts(
    verdict: CommandVerdict, ctx: ToolContext, *, depth: int, review: Review
) -> ScriptsReview:
    """Read and classify the scripts ``verdict`` names; ``review`` reviews each one's verdict.

    Raises:
        ToolError: a script holds an always-refused command, or names or reads a credential file.
    """
    not_safe: list[str] = []
    asks: list[str] = []
    protected = False
    if len(verdict.scripts) > MAX_SCRIPTS:
        asks.append(f"it runs more than {MAX_SCRIPTS} scripts, too many to check")
    for run in verdict.scripts[:MAX_SCRIPTS]:
        text = await _script_text(run, ctx)
        if text is None:
            continue
        shown = ctx.show(run.path)
        if isinstance(text, _Unseen):
            asks.append(text.reason)
            continue
        if depth >= MAX_SCRIPT_DEPTH:
            asks.append(f"{shown} is run by scripts nested too deeply to check")
            continue
        if run.after or any(_writes(access.path, access.glob, run.path) for access in verdict.writes):
            asks.append(f"the command may change {shown} before it runs")
        if run.cwd is None:
            asks.append(f"{shown} runs in a folder that is known only when it runs")
        inner = await _classify(text, run, ctx, depth=depth, review=review)
        if inner.always_ask:
            asks.append(f"{shown}: {inner.ask_reason}")
        if not inner.safe:
            not_safe.append(f"{shown} is not known to be read-only ({inner.reason or 'it runs commands'})")
        protected |= inner.protected_write
    return ScriptsReview(
        not_safe=not_safe[0] if not_safe else "",
        always_ask=asks[0] if asks else "",
        protected_write=protected,
    )


async def _classify(text: str, run: ScriptRun, ctx: ToolContext, *, depth: int, review: Review) -> Reviewed:
    shown = ctx.show(run.path)
    nested = classify_command(
        text,
        workspace=ctx.workspace,
        home=ctx.home,
        data_dir=ctx.data_dir,
        secret_names=tuple(ctx.secrets.values),
        cwd=run.cwd,
    )
    if nested.kind == "refuse":
        raise ToolError(f"refused: {shown}, a script the command runs: {nested.reason}")
    try:
        await ctx.check_command(text, words=nested.words)
        return await review(nested, ctx, depth + 1)
    except ToolError as exc:
        if str(exc).startswith("refused: "):  # a script it runs in turn, already named
            raise
        raise ToolError(f"{shown}, a script the command runs: {exc}") from None


@dataclass(frozen=True, slots=True)
class _Unseen:
    reason: str


async def _script_text(run: ScriptRun, ctx: ToolContext) -> str | _Unseen | None:
    """The shell script's text; why it cannot be read whole; None when it is no shell script."""
    shown = ctx.show(run.path)
    try:
        info = await ctx.files.stat(run.path)
    except OSError:
        info = None
    if info is None or info.kind != "file":
        if not run.shell and not run.after:
            return None
        what = "does not exist" if info is None else "is not a regular file"
        return _Unseen(f"{shown} {what} before the command runs, so what it runs cannot be checked")
    if await ctx.is_credential(run.path, info=info):
        raise ToolError(f"the command runs {shown}, which {CREDENTIAL_REFUSAL}")
    try:
        head = await ctx.files.read_bytes(run.path, limit=_HEAD_BYTES, expect=info)
        if not run.shell and not runs_as_shell(head):
            return None
        if info.size > MAX_SCRIPT_BYTES:
            return _Unseen(f"{shown} is larger than {MAX_SCRIPT_BYTES // 1024} KB, too large to check")
        data = await ctx.files.read_bytes(run.path, limit=MAX_SCRIPT_BYTES + 1, expect=info)
    except OSError as exc:
        return _Unseen(f"{shown} cannot be read ({exc.strerror or exc}), so what it runs cannot be checked")
    if len(data) > MAX_SCRIPT_BYTES:
        return _Unseen(f"{shown} is larger than {MAX_SCRIPT_BYTES // 1024} KB, too large to check")
    return data.decode("utf-8", errors="replace")


def _writes(written: str, glob: bool, script: str) -> bool:
    return written == script or (glob and fnmatch.fnmatchcase(script, written))


__all__ = ["MAX_SCRIPT_BYTES", "MAX_SCRIPT_DEPTH", "ScriptsReview", "review_scripts"]
