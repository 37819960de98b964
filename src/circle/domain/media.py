"""Media files: what their bytes say they are, whatever their name says."""

from __future__ import annotations

IMAGE_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp")
PDF_TYPE = "application/pdf"

EXTENSION_TYPES = {
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".gif": "image/gif",
    ".webp": "image/webp",
    ".pdf": PDF_TYPE,
}

MAX_IMAGE_SIDE = 2000
MAX_IMAGE_BYTES = 3_750_000
MAX_IMAGE_FILE_BYTES = 50_000_000
MAX_PDF_BYTES = 32_000_000


def sniff(head: bytes) -> str | None:
    """The media type the first bytes of a file show, or None for anything else."""
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if head.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if head.startswith((b"GIF87a", b"GIF89a")):
        return "image/gif"
    if head.startswith(b"RIFF") and head[8:12] == b"WEBP":
        return "image/webp"
    if head.startswith(b"%PDF-"):
        return PDF_TYPE
    return None


def by_extension(path: str) -> str | None:
    dot = path.rfind(".")
    return EXTENSION_TYPES.get(path[dot:].lower()) if dot >= 0 else None


def image_note(name: str | None, media_type: str) -> str:
    """What a model that reads no images (or PDFs) gets instead of the bytes."""
    what = "a PDF" if media_type == PDF_TYPE else "an image"
    named = f" ({name})" if name else ""
    return f"[{what}{named} was left out: this model does not read {'PDFs' if what == 'a PDF' else 'images'}]"


__all__ = [
    "EXTENSION_TYPES",
    "IMAGE_TYPES",
    "MAX_IMAGE_BYTES",
    "MAX_IMAGE_FILE_BYTES",
    "MAX_IMAGE_SIDE",
    "MAX_PDF_BYTES",
    "PDF_TYPE",
    "by_extension",
    "image_note",
    "sniff",
]
