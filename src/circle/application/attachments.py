"""Files a person attaches to a message: ``@file`` on the command line, in the interface, in line
mode and through the library.

A text file goes in front of the message as a ``<file path="…">`` block; an image or a PDF (judged
by its bytes, not its name) becomes a media part made exactly as ``read_file`` makes it, with a
block saying what it is. A model that reads no images or PDFs gets the usual note instead of the
bytes (:class:`circle.application.media.MediaFilter`). Every kind has a size limit, and a file that
cannot be sent is an :class:`AttachmentError` saying why, in one line.
"""

from __future__ import annotations

import base64
import posixpath
import re
from collections.abc import Sequence
from dataclasses import dataclass

from circle.domain import media
from circle.domain.errors import AttachmentError
from circle.domain.messages import DocumentPart, ImagePart

from .ports.file_system import FileInfo, FileSystem
from .ports.image_codec import ImageCodec

MAX_TEXT_BYTES = 256_000
"""The largest text file attached whole (about 64,000 tokens); past it the model is better given
the path, since ``read_file`` reads a file in parts."""
SNIFF_BYTES = 8192

MediaPart = ImagePart | DocumentPart


def check_media_size(size: int, media_type: str, shown: str) -> None:
    """Refuse an image or PDF of ``size`` bytes over its limit, before reading it."""
    if media_type == media.PDF_TYPE:
        if size > media.MAX_PDF_BYTES:
            raise AttachmentError(f"{shown} is a PDF of {size} bytes; the limit is {media.MAX_PDF_BYTES}")
    elif size > media.MAX_IMAGE_FILE_BYTES:
        raise AttachmentError(
            f"{shown} is an image of {size} bytes; the limit is {media.MAX_IMAGE_FILE_BYTES}"
        )


async def media_part(
    data: bytes, media_type: str, *, shown: str, images: ImageCodec | None
) -> tuple[MediaPart, str]:
    """The part a model reads for an image's or a PDF's bytes, and one line saying what it is.

    Images are scaled down to fit :data:`circle.domain.media.MAX_IMAGE_SIDE` and
    :data:`~circle.domain.media.MAX_IMAGE_BYTES`; a PDF goes as it is.

    Raises:
        AttachmentError: images cannot be read here, or the bytes are not the image they look like.
    """
    if media_type == media.PDF_TYPE:
        name = shown.rsplit("/", 1)[-1]
        document = DocumentPart(media_type=media_type, data=base64.b64encode(data).decode("ascii"), name=name)
        return document, f"PDF {shown} ({len(data)} bytes)"
    if images is None:
        raise AttachmentError(f"{shown} is an image ({media_type}), and images cannot be read here")
    try:
        fitted = await images.fit(data, max_side=media.MAX_IMAGE_SIDE, max_bytes=media.MAX_IMAGE_BYTES)
    except ValueError as exc:
        raise AttachmentError(f"{shown} looks like {media_type} but cannot be read: {exc}") from None
    scaled = f", scaled down from {fitted.original_width}x{fitted.original_height}" if fitted.scaled else ""
    image = ImagePart(media_type=fitted.media_type, data=base64.b64encode(fitted.data).decode("ascii"))
    return image, f"Image {shown} ({fitted.width}x{fitted.height}{scaled}, {media_type})"


@dataclass(frozen=True, slots=True)
class Attached:
    """What a message's attached files add to it: text blocks before it, media parts after it."""

    blocks: tuple[str, ...] = ()
    media: tuple[MediaPart, ...] = ()
    names: tuple[str, ...] = ()
    """The files attached, as the person named them."""

    def plus(self, other: Attached) -> Attached:
        """These files, then ``other``'s."""
        return Attached(
            (*self.blocks, *other.blocks), (*self.media, *other.media), (*self.names, *other.names)
        )

    def text(self, message: str) -> str:
        """The message with the attached files' blocks in front."""
        return "\n\n".join([*self.blocks, message]) if self.blocks else message


async def attach_files(
    names: Sequence[str],
    *,
    workspace: str,
    files: FileSystem,
    images: ImageCodec | None,
    skip_missing: bool = False,
) -> Attached:
    """Read each named file (relative to ``workspace``, or absolute) for a message.

    Args:
        names: The paths as the person wrote them (each attached once).
        workspace: The folder relative paths start from.
        files: Where the files are read.
        images: Scales images down; None where images cannot be read.
        skip_missing: Leave out a name that is no file (a mention in typed text that was not meant
            as one) instead of refusing it.

    Raises:
        AttachmentError: A file is missing, a folder, binary, unreadable or over its limit.
    """
    blocks: list[str] = []
    parts: list[MediaPart] = []
    attached: list[str] = []
    for name in dict.fromkeys(names):
        path = posixpath.join(workspace, name)
        info = await _stat(files, path, name)
        if info is None or info.kind == "dir":
            if skip_missing:
                continue
            raise AttachmentError(f"cannot attach @{name}: {'it is a folder' if info else 'no such file'}")
        block, part = await _one(files, images, path, info, name)
        blocks.append(block)
        attached.append(name)
        if part is not None:
            parts.append(part)
    return Attached(tuple(blocks), tuple(parts), tuple(attached))


async def _stat(files: FileSystem, path: str, name: str) -> FileInfo | None:
    try:
        return await files.stat(path)
    except (OSError, ValueError) as exc:
        raise AttachmentError(f"cannot attach @{name}: {getattr(exc, 'strerror', None) or exc}") from None


async def _one(
    files: FileSystem, images: ImageCodec | None, path: str, info: FileInfo, name: str
) -> tuple[str, MediaPart | None]:
    try:
        head = await files.read_bytes(path, limit=SNIFF_BYTES)
        media_type = media.sniff(head)
        if media_type is not None:
            check_media_size(info.size, media_type, name)
            part, said = await media_part(await files.read_bytes(path), media_type, shown=name, images=images)
            return f'<file path="{name}">\n{said}\n</file>', part
        if b"\x00" in head:
            raise AttachmentError(
                f"cannot attach @{name}: a binary file ({info.size} bytes); text, images "
                "(PNG, JPEG, GIF, WebP) and PDFs can be attached"
            )
        if info.size > MAX_TEXT_BYTES:
            raise AttachmentError(
                f"cannot attach @{name}: {info.size} bytes, over the limit of {MAX_TEXT_BYTES} for a text "
                "file; name its path in the message instead, and the model reads it in parts"
            )
        data = await files.read_bytes(path, limit=MAX_TEXT_BYTES + 1)
    except OSError as exc:
        raise AttachmentError(f"cannot attach @{name}: {exc.strerror or exc}") from None
    text = data[:MAX_TEXT_BYTES].decode("utf-8", errors="replace").removesuffix("\n")
    return f'<file path="{name}">\n{text}\n</file>', None


# @"a path", @'a path', or @a\\ path\\ with\\ escapes; a mention starts a word.
_MENTION = re.compile(r"""(?:(?<=\s)|^)@(?:"([^"\n]+)"|'([^'\n]+)'|((?:\\.|[^\s\\])+))""")
_UNESCAPE = re.compile(r"\\(.)")


@dataclass(frozen=True, slots=True)
class Mention:
    path: str
    start: int
    end: int


def find_mentions(text: str) -> list[Mention]:
    """Every @mention in typed ``text``, with its path unquoted and unescaped."""
    found = []
    for match in _MENTION.finditer(text):
        raw = match.group(1) or match.group(2) or _UNESCAPE.sub(r"\1", match.group(3) or "")
        raw = raw.rstrip(",;:!?)") if match.group(3) else raw
        if raw:
            found.append(Mention(raw, match.start(), match.end()))
    return found


async def mentioned(text: str, *, workspace: str, files: FileSystem, images: ImageCodec | None) -> Attached:
    """The files typed ``text``'s @mentions name (a mention that names no file is left out).

    Raises:
        AttachmentError: A mentioned file is binary, unreadable or over its limit.
    """
    names = [mention.path for mention in find_mentions(text)]
    if not names:
        return Attached()
    return await attach_files(names, workspace=workspace, files=files, images=images, skip_missing=True)


async def attach_mentions(
    text: str, *, workspace: str, files: FileSystem, images: ImageCodec | None
) -> tuple[str, tuple[MediaPart, ...]]:
    """Typed ``text`` with the files its @mentions name attached (a mention that names no file
    stays as written), and their images and PDFs.

    Raises:
        AttachmentError: A mentioned file is binary, unreadable or over its limit.
    """
    attached = await mentioned(text, workspace=workspace, files=files, images=images)
    return attached.text(text), attached.media


__all__ = [
    "MAX_TEXT_BYTES",
    "Attached",
    "MediaPart",
    "Mention",
    "attach_files",
    "attach_mentions",
    "check_media_size",
    "find_mentions",
    "media_part",
    "mentioned",
]
