"""ctrl+f finds in the conversation, /editor and ctrl+g edit the message in the person's editor,
a mouse selection is copied (OSC 52 and tmux's buffer), ctrl+v attaches the clipboard's image."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from textual import events
from textual.content import Content
from textual.pilot import Pilot
from textual.selection import Selection
from textual.widgets import Static

from circle.entrypoints.tui._clipboard import NO_TOOL
from circle.entrypoints.tui.app import CircleApp
from circle.entrypoints.tui.screens.main import MainScreen
from circle.entrypoints.tui.widgets.conversation import UserRow
from circle.entrypoints.tui.widgets.find_bar import CURRENT_STYLE, FindBar
from circle.testing import answer

from .conftest import SIZE, FakeBackend, main_screen, screen_lines, send, texts, until

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 32


async def turns(pilot: Pilot[object], app: CircleApp, *said: str) -> MainScreen:
    await until(pilot, lambda: app.host is not None)
    screen = main_screen(app)
    for text in said:
        await send(pilot, screen, text)
        await until(pilot, lambda: not screen.busy.display and not screen.host.session.is_busy)
    return screen


def styled(row: UserRow) -> bool:
    visual = row.visual
    return isinstance(visual, Content) and any(str(span.style) == CURRENT_STYLE for span in visual.spans)


def script(folder: Path, name: str, body: str) -> None:
    path = folder / name
    path.write_text(f"#!/bin/sh\n{body}\n")
    path.chmod(0o755)


async def test_ctrl_f_finds_highlights_steps_and_esc_gives_the_focus_back(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.model.add(answer("one"), answer("two"))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await turns(pilot, app, "find the needle", "a NEEDLE again")
        bar = screen.query_one(FindBar)
        for key, character in [("ctrl+f", None), *((c, c) for c in "needle")]:  # as one burst
            app.post_message(events.Key(key, character))
        await until(pilot, lambda: bar.field.value == "needle")
        assert bar.display and screen.focused is bar.field
        assert bar.field.value == "needle" and screen.composer.text == ""
        await until(pilot, lambda: str(bar.count.content) == "1 of 2")
        first, second = screen.conversation.query(UserRow)
        assert styled(first) and not styled(second)
        await pilot.press("enter")
        await until(pilot, lambda: str(bar.count.content) == "2 of 2")
        assert styled(second) and not styled(first)
        await pilot.press("up")
        await until(pilot, lambda: str(bar.count.content) == "1 of 2")
        await pilot.press("escape")
        await until(pilot, lambda: not bar.display)
        assert screen.focused is screen.composer
        assert not styled(first) and not styled(second)
        assert not screen.host.session.is_busy  # esc closed the bar; no turn was cancelled
        await pilot.press(*"typed")
        assert screen.composer.text == "typed"


async def test_editor_and_ctrl_g_put_the_edited_text_in_the_input(
    make_app: Callable[..., CircleApp], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script(tmp_path, "edit", 'printf "%s, edited" "$(cat "$1")" > "$1"')
    monkeypatch.setenv("VISUAL", str(tmp_path / "edit"))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await turns(pilot, app)
        await pilot.press(*"a draft")
        await pilot.press("ctrl+g")
        await until(pilot, lambda: screen.composer.text == "a draft, edited")
        screen.composer.clear_all()
        await send(pilot, screen, "/editor start here")
        await until(pilot, lambda: screen.composer.text == "start here, edited")
        monkeypatch.delenv("VISUAL")
        monkeypatch.delenv("EDITOR", raising=False)
        await pilot.press("ctrl+g")
        await until(pilot, lambda: "neither is set" in texts(screen))
        assert screen.composer.text == "start here, edited"


async def test_a_line_the_editor_appends_goes_on_a_line_of_its_own(
    make_app: Callable[..., CircleApp], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Found in tmux: the draft was written without a final line break, so an editor (or a
    script) that adds a line put it right after the draft: 'my draftline added'."""
    script(tmp_path, "append", 'echo "line added" >> "$1"')
    monkeypatch.setenv("VISUAL", str(tmp_path / "append"))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await turns(pilot, app)
        await pilot.press(*"my draft")
        await pilot.press("ctrl+g")
        await until(pilot, lambda: screen.composer.text != "my draft")
        assert screen.composer.text == "my draft\nline added"


async def test_a_selection_is_copied_with_osc_52_and_into_tmux(
    make_app: Callable[..., CircleApp], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script(tmp_path, "tmux", f'cat > "{tmp_path}/buffer"')
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("TMUX", "/tmp/tmux-0/default,1,0")
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await turns(pilot, app)
        screen.conversation.notice("copy these words")
        await pilot.pause(0.1)
        notice = screen.conversation.children[-1]
        screen.selections = {notice: Selection(None, None)}
        await pilot.pause(0.05)
        screen.post_message(events.TextSelected())
        await until(pilot, lambda: "copy these words" in app.clipboard)
        buffer = tmp_path / "buffer"
        await until(pilot, lambda: buffer.exists() and "copy these words" in buffer.read_text())
        app.copy_to_clipboard("")
        await pilot.press("ctrl+c")  # with text selected: copied again, nothing cancelled or left
        await until(pilot, lambda: "copy these words" in app.clipboard)
        assert not screen.selections and screen.last_interrupt == float("-inf")


async def test_ctrl_v_attaches_the_clipboards_image_or_says_why_not(
    make_app: Callable[..., CircleApp], backend: FakeBackend, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "image.png").write_bytes(PNG)
    cat = shutil.which("cat")
    image = tmp_path / "image.png"
    script(tmp_path, "xclip", f'case "$*" in *TARGETS*) echo image/png;; *image/png*) {cat} "{image}";; esac')
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await turns(pilot, app)
        await pilot.press("ctrl+v")
        await until(pilot, lambda: "pasted_images/" in screen.composer.text)
        path = screen.composer.text.strip().lstrip("@")
        assert path.endswith(".png") and backend.files.files[path] == PNG
        (tmp_path / "xclip").unlink()
        await pilot.press("ctrl+v")
        await until(pilot, lambda: NO_TOOL in texts(screen))


@pytest.mark.parametrize("size", [SIZE, (80, 24)])
async def test_a_match_deep_in_a_long_answer_is_scrolled_into_view_itself(
    make_app: Callable[..., CircleApp], backend: FakeBackend, size: tuple[int, int]
) -> None:
    """The view went to the top of the block holding the match: in an answer taller than the
    screen, the matching line was never in sight."""
    lines = "\n".join(f"Filler line {n}: some words after it to fill the row." for n in range(120))
    backend.model.add(answer(f"# Long answer\n\n{lines}\n\nThe end."), answer("Short."))
    app = make_app()
    async with app.run_test(size=size) as pilot:
        screen = await turns(pilot, app, "a long one", "a short one")
        count = screen.query_one("#find-count", Static)
        await pilot.press("ctrl+f", *"line", "space", *"11")  # line 11, then lines 110 to 119: 11 matches
        await until(pilot, lambda: str(count.content).endswith(" of 11"))
        for step in range(12):
            current = int(str(count.content).split(" of ")[0])
            number = 11 if current == 1 else 108 + current
            await pilot.pause(0.1)
            shown = "\n".join(screen_lines(app))
            assert f"Filler line {number}:" in shown, (step, str(count.content), shown)
            await pilot.press("enter")
