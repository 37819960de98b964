"""read_file on images and PDFs: attachments in the result, judged by bytes, not names."""

from __future__ import annotations

import base64
import struct
import zlib

import pytest

from circle.application.tools import builtin_tools
from circle.domain.errors import ToolError
from circle.domain.messages import DocumentPart, ImagePart

from ._harness import WORKSPACE, Harness


def png(width: int, height: int) -> bytes:
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    chunk = b"IHDR" + ihdr
    return b"\x89PNG\r\n\x1a\n" + struct.pack(">I", 13) + chunk + struct.pack(">I", zlib.crc32(chunk))


async def read(h: Harness, path: str) -> tuple[str, tuple[ImagePart | DocumentPart, ...]]:
    out = await builtin_tools()["read_file"].invoke({"file_path": path}, h.context())
    return out.text, out.attachments


async def test_an_image_comes_back_as_an_attachment() -> None:
    h = Harness()
    h.files.put(f"{WORKSPACE}/shot.png", png(640, 480))
    text, attachments = await read(h, "shot.png")
    assert text == "Image shot.png (640x480, image/png)"
    assert isinstance(attachments[0], ImagePart)
    assert base64.b64decode(attachments[0].data) == png(640, 480)


async def test_a_large_image_is_scaled_down() -> None:
    h = Harness()
    h.files.put(f"{WORKSPACE}/big.png", png(8000, 1000))
    text, _ = await read(h, "big.png")
    assert "scaled down from 8000x1000" in text
    assert h.images.calls == [(2000, 3_750_000)]


async def test_the_bytes_decide_the_type_not_the_name() -> None:
    h = Harness()
    h.files.put(f"{WORKSPACE}/really-a-png.jpg", png(10, 10))
    text, _ = await read(h, "really-a-png.jpg")
    assert text.endswith("image/png)")
    h.files.put(f"{WORKSPACE}/fake.png", b"\x00\x01garbage" * 10)
    with pytest.raises(ToolError, match="named like image/png but its bytes are not"):
        await read(h, "fake.png")


async def test_a_corrupt_image_is_a_clear_error() -> None:
    h = Harness()
    h.files.put(f"{WORKSPACE}/broken.gif", b"GIF89a" + b"\x00" * 5)
    with pytest.raises(ToolError, match="looks like image/gif but cannot be read"):
        await read(h, "broken.gif")


async def test_a_pdf_comes_back_as_a_document() -> None:
    h = Harness()
    h.files.put(f"{WORKSPACE}/doc.pdf", b"%PDF-1.4\n%fake\n")
    text, attachments = await read(h, "doc.pdf")
    assert text.startswith("PDF doc.pdf")
    assert isinstance(attachments[0], DocumentPart) and attachments[0].name == "doc.pdf"
