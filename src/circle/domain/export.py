"""A session as one JSONL file, read back exactly: the export and import format, and its import plan.

The first line is the header, then one line per checkpoint in ``seq`` order, then the branches by
name and the labels in checkpoint order::

    {"type":"session","version":1,"id":"…","workspace":"…","title":"…","created_at":…,"updated_at":…,"name":"…","thinking":"…"}
    {"type":"message","id":"…","parent_id":null,"seq":1,"created_at":…,"message":{"role":"user",…}}
    {"type":"branch","name":"main","head_id":"…"}
    {"type":"label","checkpoint_id":"…","text":"…"}

An import makes a new session: the store gives it, and every checkpoint, a new id and its own
clock readings. So the round trip holds for :func:`comparable_jsonl`, which renames the ids in
order of first appearance and leaves the clock readings out: an imported file's session exports to
a file with the same comparable form. Everything else (messages, parents, ``seq``, branches,
labels, title, workspace, name, the thinking level kept) comes back unchanged. ``name`` and
``thinking`` are written only when there is one, so a file without them (an older Circle's) reads
as none given.

Markdown and HTML renderings are in :mod:`.export_pages`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Literal

from pydantic import JsonValue, ValidationError

from .checkpoints import MAIN_BRANCH, Branch, Checkpoint, Label, path_to
from .errors import ConfigError
from .messages import Message

EXPORT_VERSION = 1
ExportFormat = Literal["md", "html", "jsonl"]
EXPORT_FORMATS: tuple[ExportFormat, ...] = ("md", "html", "jsonl")
_SUFFIXES: dict[str, ExportFormat] = {
    ".md": "md",
    ".markdown": "md",
    ".html": "html",
    ".htm": "html",
    ".jsonl": "jsonl",
}


@dataclass(frozen=True, slots=True)
class SessionArchive:
    """One whole session: what an export writes and an import reads."""

    id: str
    workspace: str
    title: str | None
    created_at: float
    updated_at: float
    checkpoints: tuple[Checkpoint, ...] = ()
    branches: tuple[Branch, ...] = ()
    labels: tuple[Label, ...] = ()
    name: str | None = None
    """The name a person gave the session (``--name``); written only when there is one."""
    thinking: str | None = None
    """The thinking level last chosen in it (``"off"`` for none), as the store keeps it; None when
    none was kept (an older Circle's session or file), and then it is not written."""

    def branch_shown(self, branch: str | None = None) -> str:
        """``branch``, or by default main, or the first branch by name when there is no main."""
        if branch is not None:
            return branch
        names = {b.name for b in self.branches}
        return MAIN_BRANCH if MAIN_BRANCH in names or not names else min(names)

    def conversation(self, branch: str | None = None) -> list[Checkpoint]:
        """The path to the head of :meth:`branch_shown`, oldest first ([] for an unknown branch)."""
        heads = {b.name: b.head_id for b in self.branches}
        return path_to({cp.id: cp for cp in self.checkpoints}, heads.get(self.branch_shown(branch)))


def format_from_name(name: str) -> ExportFormat:
    """The export format a file name asks for by its extension.

    Raises:
        ConfigError: the extension is not .md, .markdown, .html, .htm or .jsonl.
    """
    dot = name.rfind(".")
    found = _SUFFIXES.get(name[dot:].lower()) if dot > 0 else None
    if found is None:
        raise ConfigError(f"cannot tell the export format of {name}: end it in .md, .html or .jsonl")
    return found


def parse_format(text: str) -> ExportFormat:
    """``md``, ``html`` or ``jsonl`` (``markdown`` is ``md``). Raises ConfigError for anything else."""
    lowered = text.lower()
    for known in EXPORT_FORMATS:
        if lowered == known:
            return known
    if lowered == "markdown":
        return "md"
    raise ConfigError(f"unknown export format {text!r}: use {', '.join(EXPORT_FORMATS)}")


def _dumps(value: Mapping[str, JsonValue]) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def to_jsonl(archive: SessionArchive) -> str:
    """The session as JSONL, one object a line, ending in a newline."""
    header: dict[str, JsonValue] = {
        "type": "session",
        "version": EXPORT_VERSION,
        "id": archive.id,
        "workspace": archive.workspace,
        "title": archive.title,
        "created_at": archive.created_at,
        "updated_at": archive.updated_at,
    }
    if archive.name is not None:
        header["name"] = archive.name
    if archive.thinking is not None:
        header["thinking"] = archive.thinking
    lines = [_dumps(header)]
    ordered = sorted(archive.checkpoints, key=lambda cp: cp.seq)
    seq_of = {cp.id: cp.seq for cp in ordered}
    for cp in ordered:
        message = cp.message.model_dump(mode="json", exclude_none=True)
        line: dict[str, JsonValue] = {
            "type": "message",
            "id": cp.id,
            "parent_id": cp.parent_id,
            "seq": cp.seq,
            "created_at": cp.created_at,
            "message": message,
        }
        lines.append(_dumps(line))
    for branch in sorted(archive.branches, key=lambda b: b.name):
        lines.append(_dumps({"type": "branch", "name": branch.name, "head_id": branch.head_id}))
    for label in sorted(archive.labels, key=lambda lb: (seq_of.get(lb.checkpoint_id, 0), lb.text)):
        lines.append(_dumps({"type": "label", "checkpoint_id": label.checkpoint_id, "text": label.text}))
    return "\n".join(lines) + "\n"


class _Line:
    """One parsed line and typed access to its fields, every failure naming the line."""

    def __init__(self, number: int, value: dict[str, JsonValue]) -> None:
        self.number = number
        self.value = value

    def error(self, text: str) -> ConfigError:
        return ConfigError(f"line {self.number}: {text}")

    def _get(self, key: str, check: Callable[[JsonValue], bool], kind: str, *, optional: bool) -> JsonValue:
        if key not in self.value:
            if optional:
                return None
            raise self.error(f"{key!r} is missing")
        found = self.value[key]
        if (found is None and optional) or check(found):
            return found
        raise self.error(f"{key!r} must be {kind}")

    def text(self, key: str) -> str:
        found = self._get(key, lambda v: isinstance(v, str) and v != "", "a non-empty string", optional=False)
        assert isinstance(found, str)
        return found

    def optional_text(self, key: str) -> str | None:
        found = self._get(key, lambda v: isinstance(v, str), "a string or null", optional=True)
        assert found is None or isinstance(found, str)
        return found

    def real(self, key: str) -> float:
        found = self._get(
            key, lambda v: isinstance(v, int | float) and not isinstance(v, bool), "a number", optional=False
        )
        assert isinstance(found, int | float)
        return float(found)

    def integer(self, key: str) -> int:
        found = self._get(
            key, lambda v: isinstance(v, int) and not isinstance(v, bool), "an integer", optional=False
        )
        assert isinstance(found, int)
        return found


def _read_lines(text: str) -> list[_Line]:
    lines: list[_Line] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            value = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise ConfigError(f"line {number}: not JSON ({exc.msg} at column {exc.colno})") from None
        if not isinstance(value, dict):
            raise ConfigError(f"line {number}: not a JSON object")
        lines.append(_Line(number, value))
    return lines


def _header(line: _Line) -> SessionArchive:
    if line.value.get("type") != "session":
        raise line.error('no session header: the first line must be {"type": "session", …}')
    version = line.value.get("version")
    if version != EXPORT_VERSION:
        raise line.error(f"unknown export version {version!r} (this Circle reads version {EXPORT_VERSION})")
    return SessionArchive(
        id=line.text("id"),
        workspace=line.text("workspace"),
        title=line.optional_text("title"),
        created_at=line.real("created_at"),
        updated_at=line.real("updated_at"),
        name=line.optional_text("name"),
        thinking=line.optional_text("thinking"),
    )


def _message(line: _Line) -> Message:
    raw = line.value.get("message")
    if not isinstance(raw, dict):
        raise line.error("'message' must be an object")
    try:
        return Message.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "message"
        raise line.error(f"the message does not validate: {where}: {first['msg']}") from None


class _Reader:
    """Collects the lines of one file into an archive, checking the tree as it goes."""

    def __init__(self, header: SessionArchive) -> None:
        self.header = header
        self.checkpoints: dict[str, Checkpoint] = {}
        self.lines: dict[str, int] = {}
        self.branches: dict[str, tuple[Branch, _Line]] = {}
        self.labels: list[tuple[Label, _Line]] = []

    def add(self, line: _Line) -> None:
        kind = line.value.get("type")
        if kind == "message":
            self._checkpoint(line)
        elif kind == "branch":
            name = line.text("name")
            if name in self.branches:
                raise line.error(f"branch {name!r} is named twice")
            branch = Branch(session_id=self.header.id, name=name, head_id=line.optional_text("head_id"))
            self.branches[name] = (branch, line)
        elif kind == "label":
            label = Label(checkpoint_id=line.text("checkpoint_id"), text=line.text("text"))
            self.labels.append((label, line))
        elif kind == "session":
            raise line.error("a second session header")
        else:
            raise line.error(f"unknown line type {kind!r}")

    def _checkpoint(self, line: _Line) -> None:
        checkpoint_id, parent_id, seq = line.text("id"), line.optional_text("parent_id"), line.integer("seq")
        if checkpoint_id in self.checkpoints:
            raise line.error(f"checkpoint {checkpoint_id} appears twice")
        last = max((cp.seq for cp in self.checkpoints.values()), default=0)
        if seq <= last:
            raise line.error(f"seq {seq} is not greater than the line before's ({last})")
        if parent_id is not None and parent_id not in self.checkpoints:
            raise line.error(
                f"the parent {parent_id} of checkpoint {checkpoint_id} is not on an earlier line"
            )
        self.checkpoints[checkpoint_id] = Checkpoint(
            id=checkpoint_id,
            session_id=self.header.id,
            parent_id=parent_id,
            seq=seq,
            message=_message(line),
            created_at=line.real("created_at"),
        )
        self.lines[checkpoint_id] = line.number

    def finish(self) -> SessionArchive:
        for branch, line in self.branches.values():
            if branch.head_id is not None and branch.head_id not in self.checkpoints:
                raise line.error(f"branch {branch.name!r} points at a missing checkpoint {branch.head_id}")
        for label, line in self.labels:
            if label.checkpoint_id not in self.checkpoints:
                raise line.error(f"label {label.text!r} names a missing checkpoint {label.checkpoint_id}")
        reached = {cp.id for b, _ in self.branches.values() for cp in path_to(self.checkpoints, b.head_id)}
        for checkpoint_id, number in self.lines.items():
            if checkpoint_id not in reached:
                raise ConfigError(
                    f"line {number}: checkpoint {checkpoint_id} is on no branch, so it cannot be imported"
                )
        return SessionArchive(
            id=self.header.id,
            workspace=self.header.workspace,
            title=self.header.title,
            created_at=self.header.created_at,
            updated_at=self.header.updated_at,
            checkpoints=tuple(self.checkpoints.values()),
            branches=tuple(b for b, _ in self.branches.values()),
            labels=tuple(label for label, _ in self.labels),
            name=self.header.name,
            thinking=self.header.thinking,
        )


def from_jsonl(text: str) -> SessionArchive:
    """Read a JSONL export back, checking all of it.

    Raises:
        ConfigError: the text is not a sound export; the message names the line.
    """
    lines = _read_lines(text)
    if not lines:
        raise ConfigError("the file is empty: no session header")
    reader = _Reader(_header(lines[0]))
    for line in lines[1:]:
        reader.add(line)
    return reader.finish()


def comparable_jsonl(text: str) -> str:
    """``text`` (a JSONL export) with the ids renamed in order of first appearance and no clock
    readings: what an import keeps, so an import's export compares equal to the original here."""
    names: dict[str, str] = {}

    def rename(value: JsonValue) -> JsonValue:
        if not isinstance(value, str):
            return value
        return names.setdefault(value, f"#{len(names) + 1}")

    out: list[str] = []
    for line in _read_lines(text):
        value = dict(line.value)
        kind = value.get("type")
        for key in ("created_at", "updated_at"):
            value.pop(key, None)
        if kind == "session":
            value.pop("id", None)
        for key in ("id", "parent_id", "head_id", "checkpoint_id"):
            if key in value and kind != "session":
                value[key] = rename(value[key])
        out.append(json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True))
    return "\n".join(out) + "\n"


@dataclass(frozen=True, slots=True)
class ImportStep:
    """Append ``checkpoint``'s message to ``branch``; when ``starts_branch``, the branch is new and
    begins at ``checkpoint``'s parent (a new root when it has none)."""

    checkpoint: Checkpoint
    branch: str
    starts_branch: bool


def import_plan(archive: SessionArchive) -> list[ImportStep]:
    """The appends that rebuild the archive's tree on a store that appends to branch heads.

    Each checkpoint goes to the first branch (main first, then by name) whose path holds it, in
    ``seq`` order, so its parent is always that branch's head, or the fork point of a branch that
    starts there. Branches that own no checkpoint are left for the caller to name afterwards.

    Raises:
        ConfigError: a checkpoint is on no branch.
    """
    by_id = {cp.id: cp for cp in archive.checkpoints}
    order = sorted(archive.branches, key=lambda b: (b.name != MAIN_BRANCH, b.name))
    owner: dict[str, str] = {}
    for branch in order:
        for cp in path_to(by_id, branch.head_id):
            owner.setdefault(cp.id, branch.name)
    steps: list[ImportStep] = []
    started: set[str] = set()
    for cp in sorted(archive.checkpoints, key=lambda c: c.seq):
        name = owner.get(cp.id)
        if name is None:
            raise ConfigError(f"checkpoint {cp.id} is on no branch, so it cannot be imported")
        steps.append(ImportStep(checkpoint=cp, branch=name, starts_branch=name not in started))
        started.add(name)
    return steps


__all__ = [
    "EXPORT_FORMATS",
    "EXPORT_VERSION",
    "ExportFormat",
    "ImportStep",
    "SessionArchive",
    "comparable_jsonl",
    "format_from_name",
    "from_jsonl",
    "import_plan",
    "parse_format",
    "to_jsonl",
]
