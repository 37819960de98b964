"""The command line as a new user finds it: long prompts, piped input with a message, @file
attachments of every kind, bad option values and the help."""

from __future__ import annotations

import base64
import json
import struct
import zlib
from typing import Any

from circle._testing.gateway import chat_text

from .conftest import Circle


def _png(width: int, height: int) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    rows = b"".join(b"\x00" + b"\xff\x00\x00" * width for _ in range(height))
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", ihdr)
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )


def _user_content(cli: Circle) -> Any:
    requests = [r.json() for r in cli.gateway.requests if r.path.endswith("/chat/completions")]
    return [m for m in requests[-1]["messages"] if m["role"] == "user"][-1]["content"]


def test_a_prompt_longer_than_a_file_name_runs(cli: Circle) -> None:
    for prompt in ("x" * 300, "请" * 108, "a/" * 200, "nul\x01byte"):
        cli.gateway.enqueue(chat_text("ok"))
        done = cli.run("-p", prompt, "--yolo")
        assert done.returncode == 0, done.stderr
        assert "Traceback" not in done.stderr
        assert _user_content(cli) == prompt


def test_a_first_word_naming_a_folder_is_said(cli: Circle) -> None:
    (cli.workspace / "docs").mkdir()
    cli.gateway.enqueue(chat_text("ok"))
    done = cli.run("-p", "docs", "summarize", "--yolo")
    assert done.returncode == 0, done.stderr
    assert "circle: working in docs (the first word names a folder)" in done.stderr
    assert _user_content(cli) == "summarize"


def test_piped_input_goes_after_the_message(cli: Circle) -> None:
    cli.gateway.enqueue(chat_text("it failed"))
    done = cli.run("-p", "explain this log", "--yolo", stdin="ERROR disk full\n")
    assert done.returncode == 0, done.stderr
    assert _user_content(cli) == "explain this log\n\n<stdin>\nERROR disk full\n</stdin>"


def test_an_attached_image_goes_as_an_image(cli: Circle) -> None:
    cli.home.mkdir(exist_ok=True)
    (cli.home / "settings.json").write_text(json.dumps({"models": {"test-model": {"images": True}}}))
    (cli.workspace / "shot.png").write_bytes(_png(4, 3))
    cli.gateway.enqueue(chat_text("a red square"))
    done = cli.run("-p", "@shot.png", "what is this", "--yolo")
    assert done.returncode == 0, done.stderr
    content = _user_content(cli)
    assert isinstance(content, list)
    texts = [c["text"] for c in content if c["type"] == "text"]
    images = [c["image_url"]["url"] for c in content if c["type"] == "image_url"]
    assert texts and "what is this" in texts[0] and 'path="shot.png"' in texts[0]
    assert len(images) == 1, content
    assert images[0].startswith("data:image/png;base64,")
    assert base64.b64decode(images[0].split(",", 1)[1]).startswith(b"\x89PNG")


def test_a_model_that_reads_no_images_or_pdfs_gets_a_note(cli: Circle) -> None:
    (cli.workspace / "shot.png").write_bytes(_png(4, 3))
    (cli.workspace / "paper.pdf").write_bytes(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj <<>> endobj\n%%EOF\n")
    cli.gateway.enqueue(chat_text("cannot see it"))
    done = cli.run("-p", "@shot.png", "@paper.pdf", "what are these", "--yolo")
    assert done.returncode == 0, done.stderr
    texts = [c["text"] for c in _user_content(cli) if c["type"] == "text"]
    assert "%PDF" not in "".join(texts)
    assert "[an image was left out: this model does not read images]" in texts
    assert "[a PDF (paper.pdf) was left out: this model does not read PDFs]" in texts


def test_an_attached_file_too_large_is_refused_clearly(cli: Circle) -> None:
    (cli.workspace / "big.log").write_text("line of the log\n" * 250_000)
    done = cli.run("-p", "@big.log", "summarize", "--yolo")
    assert done.returncode == 2
    assert "big.log" in done.stderr and "limit" in done.stderr
    assert "Traceback" not in done.stderr
    assert not [r for r in cli.gateway.requests if r.path.endswith("/chat/completions")]


def test_an_attached_binary_file_is_refused_clearly(cli: Circle) -> None:
    (cli.workspace / "blob.bin").write_bytes(b"\x00\x01\x02" * 100)
    done = cli.run("-p", "@blob.bin", "what", "--yolo")
    assert done.returncode == 2
    assert "blob.bin" in done.stderr and "binary" in done.stderr


def test_bad_option_values_are_usage_errors(cli: Circle) -> None:
    for args, allowed in (
        (["--thinking", "bogus"], "off"),
        (["--approval-mode", "bogus"], "accept-edits"),
        (["--tools", "nosuch"], "read_file"),
    ):
        done = cli.run("-p", "hi", "--yolo", *args)
        assert done.returncode == 2, (args, done.stderr)
        assert "bogus" in done.stderr or "nosuch" in done.stderr
        assert allowed in done.stderr
        assert "Traceback" not in done.stderr


def test_the_help_lists_the_subcommands(cli: Circle) -> None:
    done = cli.run("--help")
    assert done.returncode == 0
    for name in ("trust", "sessions", "export", "import", "rewind", "models"):
        assert f"circle {name}" in done.stdout, name


def test_an_unknown_setting_is_warned_of_once_with_the_closest_key(cli: Circle) -> None:
    cli.home.mkdir(exist_ok=True)
    (cli.home / "settings.json").write_text(
        json.dumps({"aproval_mode": "auto", "endpoint": {"baseurl": "x"}})
    )
    cli.gateway.enqueue(chat_text("ok"))
    done = cli.run("-p", "hi", "--yolo")
    assert done.returncode == 0, done.stderr
    warnings = [line for line in done.stderr.splitlines() if "aproval_mode" in line]
    assert len(warnings) == 1, done.stderr
    assert "did you mean approval_mode?" in warnings[0]
    assert "did you mean endpoint.base_url?" in done.stderr


def test_line_mode_attaches_the_files_a_typed_line_mentions(cli: Circle) -> None:
    (cli.workspace / "notes.txt").write_text("buy milk\n")
    (cli.workspace / "blob.bin").write_bytes(b"\x00\x01" * 50)
    cli.gateway.enqueue(chat_text("milk"))
    done = cli.run("--line", "--yolo", stdin="what is in @blob.bin\nwhat is in @notes.txt, @nobody?\n")
    assert done.returncode == 0, done.stderr
    assert "cannot attach @blob.bin: a binary file" in done.stderr
    assert (
        _user_content(cli) == '<file path="notes.txt">\nbuy milk\n</file>\n\nwhat is in @notes.txt, @nobody?'
    )


def test_python_m_circle_runs_the_command(cli: Circle) -> None:
    """It failed with 'No module named circle.__main__'."""
    import subprocess
    import sys

    cli.gateway.enqueue(chat_text("from -m"))
    done = subprocess.run(
        [sys.executable, "-m", "circle", "-p", "hello", "--yolo"],
        env=cli.env(),
        cwd=cli.workspace,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "from -m"
    assert _user_content(cli) == "hello"
