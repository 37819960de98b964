"""The apply_patch format (Codex's): a parser into typed operations, and how a hunk finds its place.

A patch is ``*** Begin Patch``, then file operations, then ``*** End Patch``::

    *** Add File: <path>          every following line is ``+`` and the file's content
    *** Delete File: <path>
    *** Update File: <path>
    *** Move to: <new path>       optional, right after Update
    @@ <a line to find first>     a hunk: ``@@`` (its text optional; several in a row narrow down)
     context / -removed / +added  then ``*** End of File`` to anchor the hunk at the file's end

Parsing follows Codex's: markers may carry surrounding spaces, the first hunk of an update may leave
out its ``@@``, and an empty line inside a hunk is an empty context line. Every malformed patch raises
:class:`ToolError` naming the patch line at fault.

:func:`apply_to` places each hunk as Codex does: after the previous hunk and its ``@@`` lines, trying an
exact match, then ignoring trailing whitespace, then surrounding whitespace, then typographic
punctuation; ``*** End of File`` hunks match only at the end. A hunk with only ``+`` lines goes at the
end of the file (before a final blank line), or right after its ``@@`` line when it has one. The result
ends with a newline; unlike Codex's, a final blank line of the file is kept.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from .errors import ToolError

BEGIN = "*** Begin Patch"
END = "*** End Patch"
ADD = "*** Add File: "
DELETE = "*** Delete File: "
UPDATE = "*** Update File: "
MOVE = "*** Move to: "
END_OF_FILE = "*** End of File"
_HEREDOC_OPENERS = ("<<EOF", "<<'EOF'", '<<"EOF"')
_HEADERS = "'*** Add File: <path>', '*** Delete File: <path>' or '*** Update File: <path>'"


@dataclass(frozen=True, slots=True)
class AddFile:
    """Create ``path`` (replacing it if present) with ``contents``."""

    path: str
    contents: str
    line: int


@dataclass(frozen=True, slots=True)
class DeleteFile:
    path: str
    line: int


@dataclass(frozen=True, slots=True)
class Chunk:
    """One hunk of an update: ``old_lines`` become ``new_lines``.

    Attributes:
        context: The ``@@`` lines to find first, in order (empty: none).
        end_of_file: The hunk ends with ``*** End of File``: it matches only at the end.
        line: The hunk's first line in the patch, 1-based.
    """

    context: tuple[str, ...]
    old_lines: tuple[str, ...]
    new_lines: tuple[str, ...]
    end_of_file: bool
    line: int


@dataclass(frozen=True, slots=True)
class UpdateFile:
    path: str
    move_to: str | None
    chunks: tuple[Chunk, ...]
    line: int


FileOperation = AddFile | DeleteFile | UpdateFile


def parse_patch(text: str) -> tuple[FileOperation, ...]:
    """The file operations of a patch, in order.

    Raises:
        ToolError: the patch is malformed or changes nothing; the message names the line.
    """
    lines, first = _envelope(text)
    operations: list[FileOperation] = []
    i = 1
    while i < len(lines) - 1:
        if not lines[i].strip():
            i += 1
            continue
        operation, i = _operation(lines, i, first)
        operations.append(operation)
    if not operations:
        raise ToolError(
            f"line {first + 1}: the patch changes no files: put {_HEADERS} sections between the markers"
        )
    return tuple(operations)


def _envelope(text: str) -> tuple[list[str], int]:
    """The patch's lines from Begin to End (both kept), and the 1-based line number of the first."""
    stripped = text.strip()
    first = text[: len(text) - len(text.lstrip())].count("\n") + 1
    lines = [line.removesuffix("\r") for line in stripped.split("\n")]
    if len(lines) >= 4 and lines[0].strip() in _HEREDOC_OPENERS and lines[-1].strip().endswith("EOF"):
        lines, first = lines[1:-1], first + 1
    if lines[0].strip() != BEGIN:
        raise ToolError(f"line {first}: the patch must begin with '{BEGIN}'")
    if len(lines) < 2 or lines[-1].strip() != END:
        raise ToolError(f"line {first + len(lines) - 1}: the patch must end with '{END}'")
    return lines, first


def _operation(lines: list[str], i: int, first: int) -> tuple[FileOperation, int]:
    """The operation whose header is ``lines[i]``, and the index after it."""
    header = lines[i].strip()
    number = first + i
    if f"{header} ".startswith(ADD):
        path = _path(header, ADD, number)
        end = i + 1
        while end < len(lines) - 1 and lines[end].startswith("+"):
            end += 1
        contents = "".join(f"{line[1:]}\n" for line in lines[i + 1 : end])
        return AddFile(path, contents, number), end
    if f"{header} ".startswith(DELETE):
        return DeleteFile(_path(header, DELETE, number), number), i + 1
    if f"{header} ".startswith(UPDATE):
        return _update(lines, i, first)
    hint = "" if header.startswith("***") else " (each line of an added file starts with '+')"
    raise ToolError(f"line {number}: expected {_HEADERS}, got '{header}'{hint}")


def _path(header: str, marker: str, number: int) -> str:
    path = f"{header} ".removeprefix(marker).strip()
    if not path:
        raise ToolError(f"line {number}: '{marker.strip()}' needs a path")
    return path


def _update(lines: list[str], i: int, first: int) -> tuple[UpdateFile, int]:
    number = first + i
    path = _path(lines[i].strip(), UPDATE, number)
    i += 1
    move_to = None
    if i < len(lines) - 1 and f"{lines[i].strip()} ".startswith(MOVE):
        move_to = _path(lines[i].strip(), MOVE, first + i)
        i += 1
    chunks: list[Chunk] = []
    while i < len(lines) - 1:
        if not lines[i].strip():
            i += 1
            continue
        if lines[i].lstrip().startswith("***"):
            break
        chunk, i = _chunk(lines, i, first, first_chunk=not chunks)
        chunks.append(chunk)
    if not chunks:
        raise ToolError(f"line {number}: '{UPDATE}{path}' has no hunks: add an @@ hunk of changes")
    return UpdateFile(path, move_to, tuple(chunks), number), i


def _context(line: str) -> str | None:
    """The text of an ``@@`` line ('' for a bare one), or None when the line is not one."""
    if line.rstrip() == "@@":
        return ""
    return line[3:] if line.startswith("@@ ") else None


def _chunk(lines: list[str], i: int, first: int, *, first_chunk: bool) -> tuple[Chunk, int]:
    start = i
    context: list[str] = []
    while i < len(lines) - 1 and (text := _context(lines[i])) is not None:
        if text.strip():
            context.append(text)
        i += 1
    if i == start and not first_chunk:
        raise ToolError(f"line {first + i}: expected an @@ line to start the next hunk, got '{lines[i]}'")
    old: list[str] = []
    new: list[str] = []
    end_of_file = False
    while i < len(lines) - 1:
        line = lines[i]
        if line.strip() == END_OF_FILE:
            end_of_file = True
            i += 1
            break
        kind, body = line[:1], line[1:]
        if kind not in ("", " ", "+", "-"):
            break
        if kind != "+":
            old.append(body)
        if kind != "-":
            new.append(body)
        i += 1
    if not old and not new:
        found = "it has none" if end_of_file or i == len(lines) - 1 else f"got '{lines[i]}'"
        raise ToolError(
            f"line {first + i - end_of_file}: a hunk needs lines starting with ' ' (context), '-' (removed) "
            f"or '+' (added); {found}"
        )
    return Chunk(tuple(context), tuple(old), tuple(new), end_of_file, first + start), i


def apply_to(text: str, chunks: Sequence[Chunk]) -> str:
    """``text`` with the hunks applied; it ends with a newline (its own: ``\\r\\n`` files keep theirs).

    Raises:
        ToolError: a hunk's ``@@`` line or its lines are not found (the message quotes them).
    """
    eol = "\r\n" if "\r\n" in text and text.count("\r\n") == text.count("\n") else "\n"
    lines = text.split(eol)
    if lines[-1] == "":
        lines.pop()
    replacements: list[tuple[int, int, Sequence[str]]] = []
    at = 0
    for chunk in chunks:
        for context in chunk.context:
            found = _seek(lines, [context], at, end_of_file=False)
            if found is None:
                raise ToolError(f"the hunk at patch line {chunk.line}: its @@ line {context!r} was not found")
            at = found + 1
        if not chunk.old_lines:
            where = at if chunk.context else len(lines) - (1 if lines and lines[-1] == "" else 0)
            replacements.append((where, 0, chunk.new_lines))
            continue
        old, new = list(chunk.old_lines), list(chunk.new_lines)
        found = _seek(lines, old, at, end_of_file=chunk.end_of_file)
        if found is None and old[-1] == "":
            old, new = old[:-1], new[:-1] if new and new[-1] == "" else new
            found = _seek(lines, old, at, end_of_file=chunk.end_of_file)
        if found is None:
            quoted = "\n".join(chunk.old_lines)
            place = " at the end of the file" if chunk.end_of_file else ""
            raise ToolError(
                f"the hunk at patch line {chunk.line}: these lines were not found{place}"
                f" (read the file and copy them exactly):\n{quoted}"
            )
        replacements.append((found, len(old), new))
        at = found + len(old)
    for start, length, segment in sorted(replacements, key=lambda r: r[0], reverse=True):
        lines[start : start + length] = segment
    return "".join(f"{line}{eol}" for line in lines)


_PUNCTUATION = str.maketrans(
    {
        **dict.fromkeys("\u2010\u2011\u2012\u2013\u2014\u2015\u2212", "-"),
        **dict.fromkeys("\u2018\u2019\u201a\u201b", "'"),
        **dict.fromkeys("\u201c\u201d\u201e\u201f", '"'),
        **dict.fromkeys("\u00a0\u202f\u205f\u3000", " "),
        **dict.fromkeys("".join(map(chr, range(0x2002, 0x200B))), " "),
    }
)
_PASSES: tuple[Callable[[str], str], ...] = (
    lambda s: s,
    str.rstrip,
    str.strip,
    lambda s: s.strip().translate(_PUNCTUATION),
)


def _seek(lines: list[str], pattern: list[str], start: int, *, end_of_file: bool) -> int | None:
    """Where ``pattern`` first occurs at or after ``start``, each pass looser than the one before."""
    if len(pattern) > len(lines):
        return None
    last = len(lines) - len(pattern)
    first = last if end_of_file else start
    for normal in _PASSES:
        wanted = [normal(p) for p in pattern]
        for i in range(first, last + 1):
            if all(normal(lines[i + k]) == w for k, w in enumerate(wanted)):
                return i
    return None


__all__ = [
    "AddFile",
    "Chunk",
    "DeleteFile",
    "FileOperation",
    "UpdateFile",
    "apply_to",
    "parse_patch",
]
