"""The execute tool's look at the real tree before a command runs, after the classifier read its text.

:func:`circle.domain.approvals.classify_command` sees only the command line. :func:`review_command`
checks what that line reaches on disk:

- **Reads** (``CommandVerdict.reads``): globs are expanded as bash expands them (a leading dot is
  matched only by a leading dot; ``[!…]`` and ``[^…]``); a credential file among the paths refuses the
  command, as naming it does. A recursive read (``grep -r``, ``rg``, ``diff -r``) of a folder holding a
  credential file asks in every mode and is refused where nobody can answer (the grep tool, which
  leaves credential files out, is the way to search such a folder). A folder too large to look
  through asks the same way.
- **Writes** (``CommandVerdict.writes``): each target resolved through symlinks; one in an always-ask
  place (:func:`circle.domain.workspace.always_ask_place`) asks in every mode.
- **Words**: a word that names Circle's data folder or ``~/.circle`` (resolved, or through
  ``$CIRCLE_HOME``) asks in every mode: a command could change the person's rules there.
- **git** (``CommandVerdict.git_dirs``): before a known read-only git runs, the repository's own
  configuration is read (:mod:`circle.application.git_review`); a key that runs a program takes it off
  the known read-only list, and the history is checked for credential files before a git command that
  shows file contents.
- **Scripts** (``CommandVerdict.scripts``): each shell script a command runs is read and classified
  as the commands it holds (:mod:`circle.application.tools.script_review`): refused when one is
  always refused, asking in every mode when one is risky.

A review that finds nothing leaves the verdict as it was. ``env`` is what a known read-only git runs
with: core.fsmonitor, the pager and fetching turned off (see :data:`GIT_SAFE_CONFIG`).
"""

from __future__ import annotations

import fnmatch
import posixpath
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from circle.domain.approvals import CommandVerdict, PathAccess
from circle.domain.credentials import is_credential_path
from circle.domain.errors import ToolError
from circle.domain.workspace import is_inside

from .base import CREDENTIAL_REFUSAL, ToolContext
from .git_review import git_environment, review_git
from .script_review import review_scripts

MAX_GLOB_MATCHES = 2_000
"""Paths one glob may expand to before the command is too broad to check (it asks)."""
MAX_SCANNED = 50_000
"""Entries looked through below a recursively read folder before it is too large to check."""
_MAGIC = re.compile(r"[*?\[]")


@dataclass(frozen=True, slots=True)
class CommandReview:
    """What the tree says of a command.

    Attributes:
        safe: It is still known read-only.
        reason: Why it is not, when the review took it off (for the person and the model).
        always_ask: It asks in every mode (refused where nobody can answer).
        ask_reason: Why it always asks.
        env: Variables to add to the command's environment (for a known read-only git).
        protected_write: It writes into an always-ask place, so the person is asked about that
            very change (and what they approve is not undone afterwards).
    """

    safe: bool
    reason: str = ""
    always_ask: bool = False
    ask_reason: str = ""
    env: Mapping[str, str] = field(default_factory=dict)
    protected_write: bool = False


async def review_command(verdict: CommandVerdict, ctx: ToolContext, depth: int = 0) -> CommandReview:
    """Check ``verdict``'s reads, writes, words, git folders and scripts on the real tree.

    ``depth``: how many scripts deep the command is (a script's own commands are reviewed too).

    Raises:
        ToolError: a path the command reads is a credential file (refused, as naming one is), or a
            script it runs holds an always-refused command.
    """
    safe = verdict.kind == "safe"
    reason = ""
    asks: list[str] = []
    protected = verdict.always_ask
    if verdict.always_ask:
        asks.append(verdict.reason)
    if verdict.risky:
        asks.append(verdict.risky)
    for access in verdict.reads:
        found = await _read_reaches(access, ctx)
        if found:
            asks.append(found)
    for access in verdict.writes:
        place = await _write_place(access, ctx)
        if place:
            protected = True
            asks.append(f"it writes into {place}, which always asks")
    named = await _names_data_folder(verdict.words, ctx)
    if named:
        asks.append(named)
    env: dict[str, str] = {}
    if verdict.git_dirs and safe:
        git = await review_git(verdict.git_dirs, verdict.words, ctx)
        if git.not_safe:
            safe, reason = False, git.not_safe
        if git.always_ask:
            asks.append(git.always_ask)
        env = git_environment(ctx.env)
    scripts = await review_scripts(verdict, ctx, depth=depth, review=review_command)
    if scripts.always_ask:
        asks.append(scripts.always_ask)
    if scripts.not_safe and safe:
        safe, reason = False, scripts.not_safe
    protected |= scripts.protected_write
    return CommandReview(
        safe=safe,
        reason=reason,
        always_ask=bool(asks),
        ask_reason=asks[0] if asks else "",
        env=env,
        protected_write=protected,
    )


async def _read_reaches(access: PathAccess, ctx: ToolContext) -> str:
    """Why a read must ask (a recursive read reaching a credential file); raise when it reads one."""
    paths = await expand_glob(access.path, ctx) if access.glob else [access.path]
    if paths is None:
        return f"{access.path} matches too many files to check"
    for path in paths:
        if await _is_credential(path, ctx):
            shown = ctx.show(path)
            via = f" (through {ctx.show(access.path)})" if access.glob else ""
            raise ToolError(f"the command reads {shown}{via}, which {CREDENTIAL_REFUSAL}")
    for path in paths if access.recursive else ():
        hit = await _credential_below(path, ctx)
        if hit:
            return (
                f"it reads everything below {ctx.show(path)}, which holds {hit} (a credential file); "
                "the grep tool searches without credential files"
            )
    return ""


async def _is_credential(path: str, ctx: ToolContext) -> bool:
    return await ctx.is_credential(path)


async def _credential_below(folder: str, ctx: ToolContext) -> str:
    """The first credential file below ``folder`` (by name, or by inode for links to one), shown for
    a person; a note when the folder is too large to look through; empty for none."""
    try:
        info = await ctx.files.stat(folder)
        if info is None or info.kind != "dir":
            return ""
        scan = await ctx.files.scan(folder, keep=_everything, limit=MAX_SCANNED)
    except OSError:
        return ""
    for entry in scan.files:
        if is_credential_path(entry.path) or await ctx.is_known_credential(entry):
            return ctx.show(entry.path)
    if not scan.complete:
        return f"more than {MAX_SCANNED:,} files, too many to check for credential files"
    return ""


def _everything(path: str) -> bool:
    return True


async def expand_glob(pattern: str, ctx: ToolContext) -> list[str] | None:
    """The paths an absolute bash glob expands to (the pattern itself when nothing matches, as bash
    leaves it); None when it matches more than :data:`MAX_GLOB_MATCHES`."""
    parts = [part for part in pattern.split("/") if part]
    found = ["/"]
    for index, part in enumerate(parts):
        last = index == len(parts) - 1
        if not _MAGIC.search(part):
            found = [posixpath.join(base, part) for base in found]
            continue
        matched: list[str] = []
        for base in found:
            try:
                entries = await ctx.files.list_dir(base)
            except OSError:
                continue
            for entry in entries:
                name = posixpath.basename(entry.path)
                if glob_matches(part, name) and (last or entry.kind == "dir"):
                    matched.append(posixpath.join(base, name))
            if len(matched) > MAX_GLOB_MATCHES:
                return None
        found = matched
    return found or [pattern]


def glob_matches(pattern: str, name: str) -> bool:
    """Whether one path component ``name`` matches the bash glob component ``pattern``."""
    if name.startswith(".") and not pattern.startswith("."):
        return False
    return fnmatch.fnmatchcase(name, pattern.replace("[^", "[!"))


async def _write_place(access: PathAccess, ctx: ToolContext) -> str:
    paths = (await expand_glob(access.path, ctx) or [access.path]) if access.glob else [access.path]
    for path in paths:
        place = ctx.always_ask_place(path) or ctx.always_ask_place(await _resolve_missing(path, ctx))
        if place:
            return place
    return ""


async def _resolve_missing(path: str, ctx: ToolContext) -> str:
    """``path`` with symlinks resolved, also where its last parts do not exist yet."""
    try:
        return await ctx.files.resolve(path)
    except OSError:
        return path


_DATA_VARIABLES = re.compile(r"\$\{?(?:CIRCLE_HOME|XDG_DATA_HOME|XDG_CONFIG_HOME)\b")


async def _names_data_folder(words: Sequence[Sequence[str]], ctx: ToolContext) -> str:
    """Why a command that names Circle's data folder or ~/.circle asks, or empty."""
    checked = 0
    for simple in words:
        for word in simple[1:]:
            if _DATA_VARIABLES.search(word):
                return f"it names {word}, Circle's data folder, which always asks"
            candidate = word.split("=", 1)[1] if word.startswith("-") and "=" in word else word
            if not candidate or candidate.startswith("-") or "\x00" in candidate or checked >= 200:
                continue
            checked += 1
            if candidate.startswith("~/") and ctx.home not in ("", "~"):
                candidate = posixpath.join(ctx.home, candidate[2:])
            path = posixpath.normpath(posixpath.join(ctx.workspace, candidate))
            place = _outside_place(path, ctx) or _outside_place(await _resolve_missing(path, ctx), ctx)
            if place:
                return f"it names {place}, which always asks"
    return ""


def _outside_place(resolved: str, ctx: ToolContext) -> str:
    """The data folder or ~/.circle, for a resolved path (the workspace's own places are judged by
    what the command writes, not by the words it names)."""
    place = ctx.always_ask_place(resolved)
    return "" if not place or is_inside(ctx.workspace, resolved) else place


__all__ = ["CommandReview", "expand_glob", "glob_matches", "review_command"]
