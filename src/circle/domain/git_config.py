"""A git configuration's keys that run a program, and the git commands that print file contents.

Pure helpers for :mod:`circle.application.tools.git_review` (what a repository's own config may make
any git command run) and :mod:`circle.application.tools.protected_places` (what a command added to
``.git/config``): the keys are matched case-insensitively, as git reads them.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Sequence

_RUNS_PROGRAM = re.compile(
    r"""
    core\.(?:fsmonitor|pager|editor|sshcommand|gitproxy|askpass|hookspath|alternaterefscommand)
  | sequence\.editor | pager\..+ | diff\.external | diff\..+\.(?:command|textconv)
  | merge\..+\.driver | filter\..+\.(?:clean|smudge|process) | credential\.(?:.+\.)?helper
  | gpg\.(?:.+\.)?program | uploadpack\.packobjectshook | remote\..+\.(?:uploadpack|receivepack)
  | interactive\.difffilter | (?:diff|merge)tool\..+\.(?:cmd|path) | browser\..+\.(?:cmd|path)
  | web\.browser | man\..+\.(?:cmd|path) | sendemail\..+ | instaweb\..+
  | trailer\..+\.(?:command|cmd) | submodule\..+\.update | alias\..+
    """,
    re.VERBOSE,
)
_HARMLESS = frozenset({"", "false", "no", "off", "0", "true", "yes", "on", "1"})
_CONTENT = frozenset({"show", "diff", "blame", "annotate", "grep", "cat-file", "archive", "whatchanged"})
_LOG_PATCH = re.compile(r"-[A-Za-z0-9]*[pu][A-Za-z0-9]*|--patch.*|--word-diff.*|--cc|-L.*|--color-words.*")


def program_key(listing: str) -> str:
    """The first key of the repository's own config (``git config --list -z --show-scope``) that
    runs a program, with its value's start; empty for none."""
    entries = listing.split("\0")
    for index in range(0, len(entries) - 1, 2):
        scope, entry = entries[index], entries[index + 1]
        if scope not in ("local", "worktree"):
            continue
        key, _, value = entry.partition("\n")
        key = key.lower()
        if not _RUNS_PROGRAM.fullmatch(key):
            continue
        if key == "core.fsmonitor" and value.strip().lower() in _HARMLESS:
            continue
        if key.startswith("alias.") and not value.lstrip().startswith("!"):
            continue
        return key
    return ""


_SECTION = re.compile(r'\[\s*([A-Za-z0-9.-]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\]')
_INCLUDE = re.compile(r"include(?:if\..+)?\.path")


def config_program_keys(text: str) -> frozenset[tuple[str, str]]:
    """The ``(key, value)`` pairs of a git config file's text that run a program or include another
    file (read without git, for comparing a file before and after a command)."""
    found: set[tuple[str, str]] = set()
    section = ""
    for raw in text.splitlines():
        line = raw.strip()
        header = _SECTION.match(line)
        if header:
            name, sub = header.group(1).lower(), header.group(2)
            section = f"{name}.{sub}" if sub is not None else name
            line = line[header.end() :].strip()
        if not line or line.startswith(("#", ";")) or not section:
            continue
        name, _, value = line.partition("=")
        key = f"{section}.{name.strip().lower()}"
        value = value.strip()
        lowered = key.lower()
        if _INCLUDE.fullmatch(lowered) or (
            _RUNS_PROGRAM.fullmatch(lowered)
            and not (lowered == "core.fsmonitor" and value.lower() in _HARMLESS)
            and not (lowered.startswith("alias.") and not value.startswith("!"))
        ):
            found.add((lowered, value))
    return frozenset(found)


def shows_contents(argv: Sequence[str]) -> str:
    """The subcommand when ``argv`` is a git command that prints file contents, else empty."""
    if not argv or posixpath.basename(argv[0]) != "git":
        return ""
    rest = [a for a in argv[1:] if not a.startswith("-")]
    sub = rest[0] if rest else ""
    if sub in _CONTENT:
        return sub
    if sub == "log" and any(_LOG_PATCH.fullmatch(a) for a in argv[1:]):
        return "log -p"
    return ""


__all__ = ["config_program_keys", "program_key", "shows_contents"]
