"""A repository's own git configuration and history, read before a known read-only git runs.

A repository's config can make any git command run a program: ``core.fsmonitor`` runs on every
``git status``, a pager, diff and filter drivers, textconv, aliases with ``!`` … and a repository
can arrive with such config (a bare repository committed inside a project, a clone of a hostile one).
So a git command is known read-only only where :func:`review_git` read the configuration of the
repository it runs in (``git config --list --show-scope``, includes followed) and found no key of the
repository's own (scopes ``local`` and ``worktree``) that runs a program (:func:`program_key`). The
person's own configuration (system, global, command) is theirs and is trusted.

Even then the command runs with :data:`GIT_SAFE_CONFIG` in its environment (``GIT_CONFIG_COUNT``
overrides, which beat every config file and reach the git processes it starts): no fsmonitor, no
pager, no hooks, no fetching.

A git command that shows file contents (show, diff, log -p, blame, grep, cat-file, archive) asks in
every mode where the repository tracks a credential file or its history ever held one: its output
would carry the file's contents.

The reads themselves run git with the same overrides, so reading a hostile repository's config runs
nothing of it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from circle.domain.credentials import is_credential_path
from circle.domain.git_config import program_key, shows_contents

from .base import ToolContext

GIT_SAFE_CONFIG = {
    "core.fsmonitor": "false",
    "core.pager": "cat",
    "core.hooksPath": "/dev/null",
    "core.sshCommand": "false",
    "protocol.allow": "never",
}
"""Config every known read-only git runs with, over whatever the repository says."""
REVIEW_TIMEOUT_S = 10.0
HISTORY_LIMIT = 4_000_000
"""Characters of path names read from the history at most; a longer history asks."""


@dataclass(frozen=True, slots=True)
class GitReview:
    """``not_safe``: why git is not known read-only here; ``always_ask``: why it asks in every mode."""

    not_safe: str = ""
    always_ask: str = ""


def git_environment(base: Mapping[str, str]) -> dict[str, str]:
    """The variables that give a git command :data:`GIT_SAFE_CONFIG` over ``base``'s own overrides."""
    try:
        start = int(base.get("GIT_CONFIG_COUNT", "0") or "0")
    except ValueError:
        start = 0
    env = {"GIT_PAGER": "cat", "GIT_CONFIG_COUNT": str(start + len(GIT_SAFE_CONFIG))}
    for index, (key, value) in enumerate(GIT_SAFE_CONFIG.items(), start=start):
        env[f"GIT_CONFIG_KEY_{index}"] = key
        env[f"GIT_CONFIG_VALUE_{index}"] = value
    return env


async def review_git(folders: Sequence[str], words: Sequence[Sequence[str]], ctx: ToolContext) -> GitReview:
    """Read the config (and, for a command that shows contents, the history) of each repository."""
    content = next((sub for argv in words if (sub := shows_contents(argv))), "")
    for folder in dict.fromkeys(folders):
        result = await _git(ctx, "git config --list -z --includes --show-scope", folder, limit=1_000_000)
        if result is None:
            return GitReview(not_safe="the repository's git configuration could not be read in time")
        key = program_key(result)
        if key:
            return GitReview(
                not_safe=f"the repository's git config sets {key}, which runs a program, so git is not "
                "known read-only there"
            )
        if content:
            held = await _credential_in_history(ctx, folder)
            if held:
                return GitReview(always_ask=f"git {content} could show {held}")
    return GitReview()


async def _credential_in_history(ctx: ToolContext, folder: str) -> str:
    command = "git ls-files -z 2>/dev/null; git log --all --pretty=format: --name-only -z 2>/dev/null"
    listing = await _git(ctx, command, folder, limit=HISTORY_LIMIT)
    if listing is None:
        return "a credential file (the repository's history is too large to check for one)"
    for name in dict.fromkeys(listing.replace("\n", "\0").split("\0")):
        if name and is_credential_path(name):
            return f"{name}, a credential file the repository tracks or once held"
    return ""


async def _git(ctx: ToolContext, command: str, folder: str, *, limit: int) -> str | None:
    """The output of a git reading command run with :data:`GIT_SAFE_CONFIG`; None when it timed out
    or was cut."""
    env = ctx.command_env(git_environment(ctx.command_env({})))
    result = await ctx.processes.run(
        command, cwd=folder, timeout_s=REVIEW_TIMEOUT_S, output_limit=limit, env=env
    )
    if result.timed_out or result.truncated:
        return None
    return result.output


__all__ = [
    "GIT_SAFE_CONFIG",
    "GitReview",
    "git_environment",
    "review_git",
]
