"""Argument names a model wrote that a tool does not have, mended when one reading is possible.

An unknown name is renamed to a parameter of the tool's schema (one not given already) when:

- it is that parameter spelled with another case or separator (``filePath`` → ``file_path``);
- it is a name models commonly send for it (:data:`ALIASES`: ``cmd`` → ``command``, ``old_str`` →
  ``old_string``, ``query`` → ``pattern``, ...), compared ignoring case and separators;
- it is one word that starts or ends a required parameter's name (``path`` or ``file`` →
  ``file_path``).

Only when exactly one parameter fits, and no other unknown name fits it too: ``path`` for a tool with
``src_path`` and ``dst_path``, or ``text`` for one with both ``content`` and ``plan``, is left for the
schema check to refuse, with the tool's real names in its message.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping

from pydantic import JsonValue

Schema = Mapping[str, JsonValue]

ALIASES: Mapping[str, frozenset[str]] = {
    name: frozenset(aliases)
    for name, aliases in {
        "command": ("cmd", "script", "shell_command", "bash_command", "command_line"),
        "file_path": ("filename", "target_file", "absolute_path", "abs_path", "file_name"),
        "path": ("dir", "directory", "folder", "dir_path", "directory_path", "folder_path"),
        "old_string": ("old_str", "old_text", "search", "find", "original"),
        "new_string": ("new_str", "new_text", "replace", "replacement"),
        "replace_all": ("all", "global", "replace_all_occurrences"),
        "content": ("contents", "text", "file_text", "file_content", "body", "data"),
        "pattern": ("query", "regex", "regexp", "search", "glob", "glob_pattern", "search_pattern"),
        "glob": ("include", "file_pattern", "files", "file_glob"),
        "case_insensitive": ("ignore_case", "insensitive", "i", "nocase"),
        "context": ("context_lines", "c", "lines_of_context"),
        "output_mode": ("mode", "output"),
        "literal": ("fixed_strings", "fixed", "fixed_string"),
        "offset": ("start_line", "line_offset", "from_line", "start"),
        "limit": ("line_count", "num_lines", "max_lines", "lines", "count"),
        "timeout": ("timeout_s", "timeout_sec", "timeout_secs", "timeout_seconds"),
        "background": ("run_in_background", "in_background", "async", "detach"),
        "patch": ("diff", "patch_text", "input", "patch_content"),
        "todos": ("todo_list", "items", "tasks", "todo"),
        "questions": ("question",),
        "subagent_type": ("agent", "agent_type", "subagent", "type", "agent_name"),
        "prompt": ("task", "instructions", "message", "question"),
        "job_id": ("id", "job", "shell_id", "bash_id", "task_id"),
        "job_ids": ("ids", "jobs", "job_id", "job"),
        "name": ("skill", "skill_name"),
        "url": ("uri", "link", "href", "address"),
        "query": ("q", "search", "search_query", "search_term", "terms", "keywords"),
        "max_results": ("limit", "num_results", "count", "top_k", "n", "results"),
        "operation": ("op", "action", "method"),
        "line": ("line_number", "lineno", "row"),
        "character": ("column", "col", "char", "character_offset"),
        "instructions": ("focus", "instruction", "prompt"),
        "plan": ("content", "text", "markdown", "plan_markdown", "plan_text"),
    }.items()
}
"""A parameter's name → the names models commonly send for it instead (ignoring case and separators)."""


def squash(name: str) -> str:
    """``file_path``, ``filePath`` and ``FILE-PATH`` → ``filepath``."""
    return re.sub(r"[^0-9a-z]", "", name.lower())


def _segments(name: str) -> list[str]:
    """``file_path``, ``filePath`` and ``file-path`` → ``["file", "path"]``."""
    return [s.lower() for s in re.findall(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])", name)]


@functools.cache
def _by_alias() -> Mapping[str, frozenset[str]]:
    """A squashed alias → the parameters it may stand for."""
    found: dict[str, frozenset[str]] = {}
    for name, aliases in ALIASES.items():
        for alias in aliases:
            found[squash(alias)] = found.get(squash(alias), frozenset()) | {name}
    return found


def properties(schema: Schema) -> Mapping[str, JsonValue]:
    """The schema's ``properties`` (none when it names none)."""
    props = schema.get("properties")
    return props if isinstance(props, dict) else {}


def _required(schema: Schema) -> list[str]:
    required = schema.get("required")
    return [r for r in required if isinstance(r, str)] if isinstance(required, list) else []


def _generic_for(word: str, name: str) -> bool:
    """``path`` is a generic name for ``file_path``; ``file`` too; ``name`` is not for ``file_path``."""
    segments = _segments(name)
    return len(segments) > 1 and word in (segments[0], segments[-1])


def _fitting(key: str, schema: Schema, given: Mapping[str, JsonValue]) -> list[str]:
    """The parameters not given that the unknown name ``key`` could stand for."""
    props, required = properties(schema), _required(schema)
    aliased = _by_alias().get(squash(key), frozenset())
    words = _segments(key)
    fits = []
    for name in props:
        if name in given:
            continue
        if name in aliased or (len(words) == 1 and name in required and _generic_for(words[0], name)):
            fits.append(name)
    return fits


def repair_names(arguments: dict[str, JsonValue], schema: Schema, notes: list[str]) -> dict[str, JsonValue]:
    """``arguments`` with each unknown name renamed where exactly one parameter fits it (see above);
    a note per rename is added to ``notes``."""
    props = properties(schema)
    if not props:
        return arguments
    fixed = dict(arguments)

    def rename(key: str, target: str) -> None:
        fixed[target] = fixed.pop(key)
        notes.append(f"argument {key} → {target}")

    for key in [k for k in fixed if k not in props]:
        spelled = [p for p in props if squash(p) == squash(key) and p not in fixed]
        if len(spelled) == 1:
            rename(key, spelled[0])
    unknown = [k for k in fixed if k not in props]
    fitting = {key: _fitting(key, schema, fixed) for key in unknown}
    for key, fits in fitting.items():
        rivals = [other for other in unknown if other != key and set(fits) & set(fitting[other])]
        if len(fits) == 1 and not rivals:
            rename(key, fits[0])
    return fixed


__all__ = ["ALIASES", "Schema", "properties", "repair_names", "squash"]
