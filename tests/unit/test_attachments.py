"""A person's @file attachments: text in front of the message, images and PDFs as media parts made
as read_file makes them, and a one-line refusal for what cannot go."""

from __future__ import annotations

import base64
import struct
import zlib
from pathlib import Path

import pytest

import circle
from circle.application.attachments import MAX_TEXT_BYTES, Attached, attach_files
from circle.domain.errors import AttachmentError
from circle.domain.messages import DocumentPart, ImagePart, TextPart
from circle.testing import FakeImageCodec, InMemoryFileSystem, InMemorySessionStore, ScriptedModel, answer

WORKSPACE = "/work"


def png(width: int, height: int) -> bytes:
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    chunk = b"IHDR" + ihdr
    return b"\x89PNG\r\n\x1a\n" + struct.pack(">I", 13) + chunk + struct.pack(">I", zlib.crc32(chunk))


def real_png(width: int, height: int) -> bytes:
    """A PNG Pillow can decode (IHDR, pixel data, IEND)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    rows = b"".join(b"\x00" + b"\xff\x00\x00" * width for _ in range(height))
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", ihdr)
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )


async def attach(files: InMemoryFileSystem, *names: str, skip_missing: bool = False) -> Attached:
    return await attach_files(
        names, workspace=WORKSPACE, files=files, images=FakeImageCodec(), skip_missing=skip_missing
    )


async def test_text_goes_in_front_of_the_message() -> None:
    files = InMemoryFileSystem()
    files.put(f"{WORKSPACE}/notes.txt", b"buy milk\n")
    attached = await attach(files, "notes.txt")
    assert attached.text("what is on it") == '<file path="notes.txt">\nbuy milk\n</file>\n\nwhat is on it'
    assert attached.media == ()


async def test_an_image_and_a_pdf_become_media_parts() -> None:
    files = InMemoryFileSystem()
    files.put(f"{WORKSPACE}/shot.jpg", png(8000, 1000))  # the bytes decide, not the name
    files.put(f"{WORKSPACE}/paper.pdf", b"%PDF-1.7\n...")
    attached = await attach(files, "shot.jpg", "paper.pdf")
    image, document = attached.media
    assert isinstance(image, ImagePart) and image.media_type == "image/png"
    assert isinstance(document, DocumentPart) and document.name == "paper.pdf"
    assert base64.b64decode(document.data) == b"%PDF-1.7\n..."
    text = attached.text("compare")
    assert "Image shot.jpg (2000x250, scaled down from 8000x1000, image/png)" in text
    assert "PDF paper.pdf (12 bytes)" in text and "%PDF" not in text


async def test_what_cannot_be_attached_is_refused_in_one_line() -> None:
    files = InMemoryFileSystem()
    files.put(f"{WORKSPACE}/big.log", b"x" * (MAX_TEXT_BYTES + 1))
    files.put(f"{WORKSPACE}/blob.bin", b"\x00\x01" * 10)
    files.put(f"{WORKSPACE}/broken.png", b"\x89PNG\r\n\x1a\nnope")
    for name, said in (
        ("big.log", "over the limit of 256000"),
        ("blob.bin", "a binary file"),
        ("broken.png", "looks like image/png but cannot be read"),
        ("missing.txt", "no such file"),
    ):
        with pytest.raises(AttachmentError, match=said) as caught:
            await attach(files, name)
        assert "\n" not in caught.value.message


async def test_a_mention_naming_no_file_is_left_as_written() -> None:
    attached = await attach(InMemoryFileSystem(), "someone", skip_missing=True)
    assert attached.text("ask @someone") == "ask @someone"


async def test_the_library_attaches_files_the_same_way(tmp_path: Path) -> None:
    (tmp_path / "shot.png").write_bytes(real_png(4, 3))
    (tmp_path / "notes.txt").write_text("buy milk\n")
    model = ScriptedModel([answer("A list and a picture.")])
    async with circle.Agent(tmp_path, model_client=model, store=InMemorySessionStore(), trust=True) as agent:
        await agent.run("what are these", files=["notes.txt", "shot.png"])
        with pytest.raises(circle.CircleError, match="no such file"):
            await agent.run("and this", files=["gone.txt"])
    sent = model.requests[0].messages[-1]  # a scripted model reads no images: it gets the note
    text, note = sent.parts
    assert isinstance(text, TextPart) and isinstance(note, TextPart)
    assert "buy milk" in text.text and text.text.endswith("what are these")
    assert note.text == "[an image was left out: this model does not read images]"
