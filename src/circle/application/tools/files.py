"""The file tools: ls, read_file, write_file, edit_file and delete.

Credential files are refused to all of them (``ToolContext.resolve`` and ``ToolContext.is_credential``:
by name, by real path and by inode, so a hard link to ``.env`` is refused as ``.env``); ``ls`` still
lists them, marked, since names are not secret and the mark saves the model a refused read. Changes
outside the workspace are not refused: they ask, their summary saying where.

A file is read and changed at the real path that was judged, with no symlink followed
(``follow_symlinks=False``), and read only while it is still the file judged (``expect``): a path
swapped for a symlink or another file in between fails the call and nothing is read or written.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from pydantic import Field

from circle.application.attachments import check_media_size, media_part
from circle.application.ports.file_system import FileInfo, LineWindow, PathChangedError
from circle.domain import display, media
from circle.domain.errors import AttachmentError, ToolError
from circle.domain.file_diff import DIFF_LIMIT, change_diff

from .base import BuiltinTool, PathUse, ToolArgs, ToolContext, ToolOutput

MAX_LINE_CHARS = 2000
DEFAULT_READ_LINES = 2000
MAX_LS_ENTRIES = 1000
BINARY_SNIFF_BYTES = 8192
WHOLE_READ_BYTES = 64 * 1024
"""A file this small (by the ``stat`` it was judged by) is read whole, with one open: its first
:data:`BINARY_SNIFF_BYTES` are sniffed and its lines cut from the same bytes. A larger one has its
head read, then its line window (the whole file is never loaded)."""


class LsArgs(ToolArgs):
    path: str = Field(".", description="Folder to list.")


async def _ls(args: LsArgs, ctx: ToolContext) -> ToolOutput:
    folder = await ctx.resolve(args.path)
    info = await ctx.files.stat(folder)
    if info is None:
        raise ToolError(f"no such folder: {args.path}")
    if info.kind != "dir":
        raise ToolError(f"{args.path} is a file, not a folder: use read_file")
    entries = sorted(await ctx.files.list_dir(folder), key=lambda e: (e.kind != "dir", e.path))
    lines = []
    for entry in entries[:MAX_LS_ENTRIES]:
        name = entry.path.rsplit("/", 1)[-1]
        mark = ", credential file: not readable" if await ctx.is_credential(entry.path, info=entry) else ""
        lines.append(f"{name}/" if entry.kind == "dir" else f"{name}  ({entry.size} bytes{mark})")
    if len(entries) > MAX_LS_ENTRIES:
        lines.append(f"({len(entries) - MAX_LS_ENTRIES} more entries not shown)")
    return ToolOutput("\n".join(lines) if lines else f"{ctx.show(folder)} is empty")


class ReadFileArgs(ToolArgs):
    file_path: str = Field(description="File to read.")
    offset: int = Field(1, ge=1, description="First line to read, 1-based.")
    limit: int = Field(DEFAULT_READ_LINES, ge=1, le=10000, description="How many lines to read.")


async def _existing_file(ctx: ToolContext, path: str, *, use: PathUse = "read") -> tuple[str, FileInfo]:
    """The real path of an existing file and the ``stat`` it was judged by (not a credential file)."""
    resolved, info = await ctx.resolve_file(path, use=use)
    if info is None:
        raise ToolError(f"file not found: {path}")
    if info.kind == "dir":
        raise ToolError(f"{path} is a folder, not a file: use ls")
    return resolved, info


@asynccontextmanager
async def _unchanged() -> AsyncIterator[None]:
    """A path that changed under a read or a write becomes a :class:`ToolError` saying how."""
    try:
        yield
    except PathChangedError as exc:
        raise ToolError(str(exc)) from None
    except OSError as exc:  # the path changed another way since it was checked (gone, now a folder)
        raise ToolError(f"{exc.filename or 'the file'}: {exc.strerror or exc}") from None


async def _read(ctx: ToolContext, resolved: str, info: FileInfo, *, limit: int | None = None) -> bytes:
    async with _unchanged():
        return await ctx.files.read_bytes(resolved, limit=limit, follow_symlinks=False, expect=info)


async def _write(ctx: ToolContext, resolved: str, data: bytes) -> None:
    async with _unchanged():
        await ctx.files.write_bytes(resolved, data, follow_symlinks=False)


async def _read_file(args: ReadFileArgs, ctx: ToolContext) -> ToolOutput:
    resolved, info = await _existing_file(ctx, args.file_path)
    small = info.size <= WHOLE_READ_BYTES
    data = await _read(ctx, resolved, info, limit=WHOLE_READ_BYTES + 1 if small else BINARY_SNIFF_BYTES)
    whole = data if small and len(data) <= WHOLE_READ_BYTES else None  # None: it grew since its stat
    head = data[:BINARY_SNIFF_BYTES]
    media_type = media.sniff(head)
    if media_type is not None:
        return await _read_media(ctx, resolved, info, media_type, args.file_path, data=whole)
    named = media.by_extension(resolved)
    if named is not None and b"\x00" in head:
        raise ToolError(
            f"{args.file_path} is named like {named} but its bytes are not a PNG, JPEG, GIF, WebP or PDF file"
        )
    if b"\x00" in head:
        raise ToolError(f"{args.file_path} is a binary file ({info.size} bytes); read_file reads text")
    if whole is not None:
        window = _line_window(whole, offset=args.offset, limit=args.limit)
    else:
        async with _unchanged():
            window = await ctx.files.read_lines(
                resolved, offset=args.offset, limit=args.limit, follow_symlinks=False, expect=info
            )
    if not window.lines:
        if args.offset == 1:
            return ToolOutput(f"{ctx.show(resolved)} is empty")
        raise ToolError(f"{args.file_path} has fewer than {args.offset} lines")
    out = []
    for number, line in enumerate(window.lines, start=window.offset):
        if len(line) > MAX_LINE_CHARS:
            line = line[:MAX_LINE_CHARS] + f"… ({len(line) - MAX_LINE_CHARS} more characters)"
        out.append(f"{number:6}\t{line}")
    if window.more:
        last = window.offset + len(window.lines) - 1
        out.append(f"(more lines follow: read again with offset={last + 1})")
    return ToolOutput("\n".join(out))


def _line_window(data: bytes, *, offset: int, limit: int) -> LineWindow:
    """Lines ``offset`` .. ``offset + limit - 1`` of a whole file's bytes, cut as
    ``FileSystem.read_lines`` cuts them: at ``\n``, a line's ``\r\n`` or ``\n`` dropped (a last
    line without one kept as it is), each decoded as UTF-8 with bad bytes replaced."""
    pieces = data.split(b"\n")
    ended = pieces[-1] == b""  # the bytes end with a newline (or there are none)
    if ended:
        pieces.pop()
    start = offset - 1
    lines = []
    for index, raw in enumerate(pieces[start : start + limit], start=start):
        if (ended or index < len(pieces) - 1) and raw.endswith(b"\r"):
            raw = raw[:-1]
        lines.append(raw.decode("utf-8", errors="replace"))
    return LineWindow(lines=lines, offset=offset, more=len(pieces) > start + limit)


async def _read_media(
    ctx: ToolContext,
    resolved: str,
    info: FileInfo,
    media_type: str,
    shown: str,
    *,
    data: bytes | None = None,
) -> ToolOutput:
    """An image or PDF as an attachment, made as a person's ``@file`` is (:mod:`..attachments`).
    ``data``: the whole file, when it has been read already."""
    try:
        check_media_size(info.size, media_type, shown)
        if media_type != media.PDF_TYPE and ctx.images is None:
            raise AttachmentError(f"{shown} is an image ({media_type}), and images cannot be read here")
        if data is None:
            data = await _read(ctx, resolved, info)
        part, said = await media_part(data, media_type, shown=ctx.show(resolved), images=ctx.images)
    except AttachmentError as exc:
        raise ToolError(exc.message) from None
    return ToolOutput(said, attachments=(part,))


class WriteFileArgs(ToolArgs):
    file_path: str = Field(description="File to write.")
    content: str = Field(description="The whole new content of the file.")


async def _write_file(args: WriteFileArgs, ctx: ToolContext) -> ToolOutput:
    resolved, info = await ctx.resolve_file(args.file_path, use="write")
    if info is not None and info.kind == "dir":
        raise ToolError(f"{args.file_path} is a folder")
    await ctx.approve_write("write_file", resolved, f"write {ctx.where(resolved)}")
    before = await _before(ctx, resolved, info)
    after = args.content.encode("utf-8")
    await _write(ctx, resolved, after)
    if ctx.journal is not None:
        await ctx.journal.record(resolved, before, after)
    verb = "Overwrote" if info is not None else "Created"
    diff = change_diff(before, after, path=args.file_path) if before is not None or info is None else None
    said = display.lines_said(display.count_lines(args.content))
    return ToolOutput(f"{verb} {ctx.show(resolved)} ({said})", diff=diff)


class EditFileArgs(ToolArgs):
    file_path: str = Field(description="File to change.")
    old_string: str = Field(description="The exact text to replace; it must appear once unless replace_all.")
    new_string: str = Field(description="The text to put in its place.")
    replace_all: bool = Field(False, description="Replace every occurrence.")


async def _edit_file(args: EditFileArgs, ctx: ToolContext) -> ToolOutput:
    if not args.old_string:
        raise ToolError("old_string is empty: use write_file to create or overwrite a file")
    if args.old_string == args.new_string:
        raise ToolError("old_string and new_string are the same: nothing would change")
    resolved, info = await _existing_file(ctx, args.file_path, use="write")
    data = await _read(ctx, resolved, info)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise ToolError(f"{args.file_path} is not UTF-8 text; edit_file changes text files") from None
    count = text.count(args.old_string)
    if count == 0:
        raise ToolError(
            f"old_string was not found in {args.file_path}: read the file and copy the text exactly"
        )
    if count > 1 and not args.replace_all:
        raise ToolError(
            f"old_string appears {count} times in {args.file_path}: "
            "add surrounding lines to make it unique, or set replace_all"
        )
    await ctx.approve_write("edit_file", resolved, f"edit {ctx.where(resolved)}")
    updated = text.replace(args.old_string, args.new_string)
    after = updated.encode("utf-8")
    await _write(ctx, resolved, after)
    if ctx.journal is not None:
        await ctx.journal.record(resolved, data, after)
    where = text[: text.index(args.old_string)].count("\n") + 1
    times = f"{count} places" if count > 1 else f"line {where}"
    return ToolOutput(
        f"Edited {ctx.show(resolved)} ({times})", diff=change_diff(data, after, path=args.file_path)
    )


async def _before(ctx: ToolContext, resolved: str, info: FileInfo | None) -> bytes | None:
    """The file's bytes before a change, for the turn journal and the change's diff (None when
    absent, or when too large for a diff and not journaled)."""
    if info is None or (ctx.journal is None and info.size > DIFF_LIMIT):
        return None
    return await _read(ctx, resolved, info)


class DeleteArgs(ToolArgs):
    file_path: str = Field(description="File to delete.")


async def _delete(args: DeleteArgs, ctx: ToolContext) -> ToolOutput:
    resolved, info = await _existing_file(ctx, args.file_path, use="write")
    if resolved == ctx.workspace:
        raise ToolError("the workspace itself cannot be deleted")
    await ctx.approve_write("delete", resolved, f"delete {ctx.where(resolved)}")
    before = await _before(ctx, resolved, info)
    async with _unchanged():
        await ctx.files.delete(resolved, follow_symlinks=False)
    if ctx.journal is not None:
        await ctx.journal.record(resolved, before, None)
    diff = change_diff(before, None, path=args.file_path) if before is not None else None
    return ToolOutput(f"Deleted {ctx.show(resolved)}", diff=diff)


LS = BuiltinTool("ls", LsArgs, _ls)
READ_FILE = BuiltinTool("read_file", ReadFileArgs, _read_file)
WRITE_FILE = BuiltinTool("write_file", WriteFileArgs, _write_file)
EDIT_FILE = BuiltinTool("edit_file", EditFileArgs, _edit_file)
DELETE = BuiltinTool("delete", DeleteArgs, _delete)
