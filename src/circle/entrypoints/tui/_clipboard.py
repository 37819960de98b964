"""The system clipboard, both ways.

- Text selected with the mouse is copied when the button is let go: with OSC 52 (the terminal
  puts it on the clipboard, over ssh too), and inside tmux into tmux's paste buffer as well
  (``tmux load-buffer -``), since tmux keeps an application's OSC 52 to itself by default.
- ctrl+v reads an image from the clipboard with ``wl-paste`` (Wayland) or ``xclip`` (X11), keeps
  it as a PNG file in the data folder and puts ``@file`` for it in the input box, so it goes with
  the message as any attached image does. Without an image it pastes the clipboard's text; where
  neither tool exists it says so in one line.
"""

from __future__ import annotations

import asyncio
import os
import posixpath
import shutil
import tempfile
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from textual.app import App

    from circle.entrypoints.tui.app import CircleApp

READ_TIMEOUT_S = 5.0
IMAGE_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp")
NO_TOOL = (
    "ctrl+v pastes an image with wl-paste or xclip, and neither is installed "
    "(the terminal's own paste, often ctrl+shift+v, pastes text)"
)


def copy_selection(app: App[int]) -> None:
    """Copy the screen's selected text, if any."""
    text = app.screen.get_selected_text()
    if not text:
        return
    app.copy_to_clipboard(text)
    if os.environ.get("TMUX") and shutil.which("tmux"):
        app.run_worker(_run(["tmux", "load-buffer", "-"], text.encode()), group="tmux-copy")


async def _run(command: list[str], data: bytes | None = None) -> tuple[int, bytes]:
    """Run ``command`` (``data`` on its stdin); its exit code and output, (-1, b"") on failure."""
    try:
        process = await asyncio.create_subprocess_exec(
            *command,
            stdin=asyncio.subprocess.PIPE if data is not None else asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
        )
    except OSError:
        return -1, b""
    try:
        out, _ = await asyncio.wait_for(process.communicate(data), READ_TIMEOUT_S)
    except TimeoutError:
        process.kill()
        await process.wait()
        return -1, b""
    return process.returncode or 0, out


WL_PASTE = (
    ["wl-paste", "--list-types"],
    ["wl-paste", "--no-newline", "--type"],
    ["wl-paste", "--no-newline"],
)


def _tools() -> tuple[list[str], list[str], list[str]] | None:
    """The commands that list the clipboard's types, read one type (appended), and read text."""
    if os.environ.get("WAYLAND_DISPLAY") and shutil.which("wl-paste"):
        return WL_PASTE
    if shutil.which("xclip"):
        base = ["xclip", "-selection", "clipboard", "-o"]
        return [*base, "-t", "TARGETS"], [*base, "-t"], base
    return WL_PASTE if shutil.which("wl-paste") else None


async def read_clipboard() -> tuple[str, bytes] | str:
    """("image/…" or "text", the bytes) from the clipboard, or one line saying why there is none."""
    tools = _tools()
    if tools is None:
        return NO_TOOL
    list_types, read_type, read_text = tools
    code, listed = await _run(list_types)
    if code != 0:
        return "the clipboard could not be read (no display, or it is empty)"
    types = listed.decode(errors="replace").split()
    for kind in IMAGE_TYPES:
        if kind in types:
            code, data = await _run([*read_type, kind])
            if code == 0 and data:
                return kind, data
    code, data = await _run(read_text)
    if code == 0 and data:
        return "text", data
    return "the clipboard holds no image and no text"


async def paste_image(app: CircleApp) -> None:
    """ctrl+v: attach the clipboard's image to the message being written (see the module doc)."""
    from circle.entrypoints.tui.screens.main import MainScreen

    screen = app.screen
    if not isinstance(screen, MainScreen) or app.host is None:
        return
    found = await read_clipboard()
    if isinstance(found, str):
        screen.conversation.notice(found, kind="warning")
        return
    kind, data = found
    if kind == "text":
        screen.composer.insert(data.decode(errors="replace"))
        return
    folder = posixpath.join(app.host.runtime.options.data_dir or tempfile.gettempdir(), "pasted_images")
    name = f"{app.host.session.session_id[:8]}-{time.strftime('%Y%m%d-%H%M%S')}.{kind.split('/')[1]}"
    path = posixpath.join(folder, name)
    await app.host.runtime.ports.files.write_bytes(path, data)
    screen.composer.insert(f'@"{path}" ' if " " in path else f"@{path} ")
    screen.composer.focus()


__all__ = ["NO_TOOL", "copy_selection", "paste_image", "read_clipboard"]
