"""Frames filtered by ScreenDiff leave the terminal showing what the whole frames would: a pyte
screen fed Textual's own frames of a streaming conversation, and one fed the filtered ones."""

from __future__ import annotations

import re

import pyte

from circle.entrypoints.tui._screen_diff import ScreenDiff
from circle.entrypoints.tui._sgr import fewer_styles

COLUMNS, ROWS = 40, 12


def frame(lines: dict[int, str], *, cursor: tuple[int, int] = (0, ROWS - 1)) -> str:
    """A frame as Textual writes one: each row moved to, styled, padded to the width."""
    out = [f"\x1b[{y + 1};1H\x1b[38;5;253;48;5;233m{text.ljust(COLUMNS)}\x1b[0m" for y, text in lines.items()]
    return "\r\n".join(out) + f"\x1b[{cursor[1] + 1};{cursor[0] + 1}H"


def chops(lines: dict[int, str], *, thumb: int) -> str:
    """A frame as Textual writes a scrolled view: padding, the text, a scrollbar, padding."""
    out = []
    for y, text in lines.items():
        bar = "\x1b[38;5;23;48;5;16m▂" if y == thumb else "\x1b[48;5;16m "
        padded = text.ljust(COLUMNS - 4)
        out.append(
            f"\x1b[{y + 1};1H\x1b[48;5;233m \x1b[0m\x1b[{y + 1};2H\x1b[1;38;5;253;48;5;233m{padded[:3]}"
            f"\x1b[0m\x1b[38;5;253;48;5;233m{padded[3:]}\x1b[0m"
            f"\x1b[{y + 1};{COLUMNS - 2}H{bar}\x1b[0m\x1b[{y + 1};{COLUMNS - 1}H\x1b[48;5;233m  \x1b[0m"
        )
    return "\r\n".join(out) + f"\x1b[{ROWS};3H"


def screens(frames: list[str]) -> tuple[object, object, int, int, list[str]]:
    whole, diffed = pyte.Screen(COLUMNS, ROWS), pyte.Screen(COLUMNS, ROWS)
    feed_whole, feed_diffed = pyte.Stream(whole), pyte.Stream(diffed)
    diff = ScreenDiff(COLUMNS)
    sent = written = 0
    outs = []
    for data in frames:
        out = diff.write(data)
        outs.append(out)
        feed_whole.feed(data)
        feed_diffed.feed(out)
        assert diffed.buffer == whole.buffer, f"after frame {len(outs)}"
        sent, written = sent + len(data), written + len(out)
    return whole.display, diffed.display, sent, written, outs


def conversation(lines: list[str], *, top: int = 0) -> dict[int, str]:
    """The view's rows: the last ``ROWS - 2`` lines of the conversation, then a footer."""
    shown = lines[-(ROWS - 2) :] if len(lines) > ROWS - 2 else lines
    rows = {y: (shown[y - top] if 0 <= y - top < len(shown) else "") for y in range(ROWS - 2)}
    rows[ROWS - 1] = "footer · 3 tokens"
    return rows


def test_a_streamed_answer_shows_the_same_with_fewer_bytes() -> None:
    lines: list[str] = []
    frames = [frame(conversation(lines))]
    for n in range(40):  # a line grows word by word, then the next begins below it
        for words in range(1, 5):
            current = " ".join(f"w{n}x{k}" for k in range(words))
            frames.append(frame(conversation([*lines, current])))
        lines.append(current)
    whole, diffed, sent, written, _ = screens(frames)
    assert diffed == whole
    assert written * 4 < sent


def test_a_view_that_scrolls_is_scrolled_by_the_terminal_with_its_styles_and_scrollbar() -> None:
    lines: list[str] = []
    full = "\r\n".join(f"\x1b[{y + 1};1H\x1b[48;5;233m{' ' * COLUMNS}\x1b[0m" for y in range(ROWS))
    frames = [full + f"\x1b[{ROWS};1H"]
    for n in range(30):
        for words in range(1, 4):
            current = " ".join(f"w{n}x{k}" for k in range(words))
            shown = conversation([*lines, current])
            del shown[ROWS - 1]
            frames.append(chops(shown, thumb=min(n // 3, ROWS - 3)))
        lines.append(current)
    _, _, sent, written, outs = screens(frames)
    assert any("\x1b[r" in out for out in outs)  # the terminal scrolled the view
    assert written * 5 < sent


def test_a_frame_it_does_not_understand_is_written_whole_and_forgets() -> None:
    first = frame({0: "hello", 1: "world"})
    strange = "\x1b[1;1H\x1b[2Kcleared"
    again = frame({0: "hello", 1: "world"})
    whole, diffed, _, _, _ = screens([first, strange, again])
    assert diffed == whole
    diff = ScreenDiff(COLUMNS)
    diff.write(first)
    assert diff.write(strange).endswith(strange)  # after a reset of the style the frame left on
    assert "hello" in diff.write(again)


def test_a_clear_forgets_the_screen() -> None:
    diff = ScreenDiff(COLUMNS)
    shown = frame({0: "hello"})
    diff.write(shown)
    assert "hello" not in diff.write(shown)
    diff.write("\x1b[2J")
    assert "hello" in diff.write(shown)


def test_rows_written_over_by_a_popup_come_back() -> None:
    base = frame({y: f"row {y}" for y in range(ROWS)})
    popup = "\x1b[3;10H\x1b[7m popup \x1b[0m\x1b[12;1H"
    whole, diffed, _, _, _ = screens([base, popup, base])
    assert diffed == whole


def test_tmux_is_trusted_with_synchronized_output_from_3_6() -> None:
    from circle.entrypoints.tui._driver import known_sync

    assert not known_sync({"TERM_PROGRAM": "tmux", "TERM_PROGRAM_VERSION": "3.3a"})
    assert not known_sync({"TERM_PROGRAM": "tmux", "TERM_PROGRAM_VERSION": "3.5a"})
    assert known_sync({"TERM_PROGRAM": "tmux", "TERM_PROGRAM_VERSION": "3.6a"})
    assert known_sync({"TERM_PROGRAM": "tmux", "TERM_PROGRAM_VERSION": "3.10"})
    assert not known_sync({"TERM_PROGRAM": "Apple_Terminal", "TERM_PROGRAM_VERSION": "455"})
    assert not known_sync({})


def test_a_span_with_a_link_or_wide_characters_is_written_whole() -> None:
    link = "\x1b]8;id=1;https://example.com\x1b\\"
    before = f"\x1b[1;1H\x1b[1m{link}see{link}\x1b[0m abc\x1b[1;1H"
    after = f"\x1b[1;1H\x1b[1m{link}see{link}\x1b[0m abd\x1b[1;1H"
    wide = "\x1b[2;1H\x1b[1m日本 x\x1b[0m\x1b[1;1H"
    wider = "\x1b[2;1H\x1b[1m日本 y\x1b[0m\x1b[1;1H"
    diff = ScreenDiff(COLUMNS)
    for first, second in ((before, after), (wide, wider)):
        diff.write(first)
        out = diff.write(second)
        assert out.startswith(second[: second.index("H") + 1])
        assert _plain(second[second.index("H") + 1 : second.rindex("\x1b[1;1H")]) in _plain(out)


def _plain(text: str) -> str:
    return re.sub(r"\x1b\[[0-9;:]*m|\x1b\]8;[^\x1b]*\x1b\\", "", text)


def test_a_frame_that_changes_nothing_writes_nothing_and_a_moved_cursor_is_still_written() -> None:
    diff = ScreenDiff(COLUMNS)
    shown = {0: "the answer so far", 1: "⠋ Answering…"}
    assert diff.write(frame(shown, cursor=(2, 5)))
    assert diff.write(frame(shown, cursor=(2, 5))) == ""
    assert diff.write(frame(shown, cursor=(3, 5))) == "\x1b[6;4H"
    diff.write("\x1b[?25h")  # anything else written: where the cursor is is no longer known
    assert diff.write(frame(shown, cursor=(3, 5))) == "\x1b[6;4H"


def styled_line(y: int, segments: list[tuple[str, str]]) -> str:
    """A row as Textual writes one: each segment styled on its own and reset after."""
    return f"\x1b[{y + 1};1H" + "".join(f"{style}{text}\x1b[0m" for style, text in segments)


DIM, BOLD, CODE = "\x1b[2;38;5;253;48;5;233m", "\x1b[1;38;5;253;48;5;233m", "\x1b[38;5;81;48;5;235m"


def test_a_changed_line_writes_its_changed_cells_with_their_style_and_each_style_once() -> None:
    rows = [
        [(BOLD, "| name "), (BOLD, "| what "), (DIM, "| count |".ljust(COLUMNS - 14))],
        [(CODE, "def step(v): "), (CODE, "return v * 2"), (DIM, "".ljust(COLUMNS - 25))],
        [(DIM, "⠋ Answering… "), (DIM, "· 1s · "), (DIM, "↓ 5 tokens".ljust(COLUMNS - 20))],
        [(DIM, "emoji 🙂 and "), (BOLD, "日本語"), (DIM, " wide".ljust(COLUMNS - 19))],
    ]
    changed = [
        [(BOLD, "| name "), (BOLD, "| what "), (DIM, "| total |".ljust(COLUMNS - 14))],
        [(CODE, "def step(v): "), (BOLD, "return v * 3"), (DIM, "".ljust(COLUMNS - 25))],
        [(DIM, "⠙ Answering… "), (DIM, "· 2s · "), (DIM, "↓ 6 tokens".ljust(COLUMNS - 20))],
        [(DIM, "emoji 🙃 and "), (BOLD, "日本人"), (DIM, " wide".ljust(COLUMNS - 19))],
    ]
    cursor = f"\x1b[{ROWS};3H"
    first = "\r\n".join(styled_line(y, row) for y, row in enumerate(rows)) + cursor
    second = "\r\n".join(styled_line(y, row) for y, row in enumerate(changed)) + cursor
    _, _, sent, written, outs = screens([first, second, first])  # each read back as a full redraw
    for out in outs[1:]:
        assert "| name" not in out and "def step" not in out and "Answering" not in out
        assert out.count(DIM) <= 3  # once a changed span, not once a segment
    assert written < sent


def test_styles_are_written_once_where_segments_repeat_them() -> None:
    line = styled_line(0, [(DIM, "one "), (DIM, "two "), (DIM, "three")]) + "\x1b[3;1H"
    out = fewer_styles(line)
    assert out.count(DIM) == 1 and _plain(out) == "\x1b[1;1Hone two three\x1b[3;1H"
    screen, fewer = pyte.Screen(COLUMNS, ROWS), pyte.Screen(COLUMNS, ROWS)
    pyte.Stream(screen).feed(line)
    pyte.Stream(fewer).feed(out)
    assert fewer.buffer == screen.buffer


def test_long_blanks_are_erased_where_an_erased_cell_looks_the_same() -> None:
    for style, erased in (("\x1b[1;38;5;253;48;5;233m", True), ("\x1b[4;48;5;233m", False)):
        line = f"\x1b[1;1H{style}ab{' ' * 30}cd\x1b[0m{style}{' ' * 6}\x1b[0m\x1b[5;3H"
        out = fewer_styles(line)
        assert ("\x1b[30X\x1b[30Ccd" in out and "\x1b[6X\x1b[5;3H" in out) is erased, out
        assert (" " * 30 in out) is not erased
        screen, fewer = pyte.Screen(COLUMNS, ROWS), pyte.Screen(COLUMNS, ROWS)
        for each, data in ((screen, line), (fewer, out)):
            pyte.Stream(each).feed("\x1b[1;1H" + "x" * COLUMNS + data)
        assert fewer.buffer == screen.buffer and fewer.cursor.x == screen.cursor.x


def test_a_style_change_writes_only_what_changes_and_the_screen_is_the_same() -> None:
    bg = "48;5;235"
    segments = [
        (f"\x1b[38;5;253;{bg}m", " x"),
        (f"\x1b[38;5;81;{bg}m", "def"),
        (f"\x1b[1;38;5;81;{bg}m", "X"),
    ]
    segments += [(f"\x1b[38;5;81;{bg}m", "Y"), ("\x1b[4m", "u"), ("", "plain"), ("\x1b[7;31;42m", "r")]
    line = styled_line(0, segments) + "\x1b[3;1H"
    out = fewer_styles(line)
    assert "\x1b[38;5;81mdef\x1b[1mX" in out and len(out) < len(line)
    screen, fewer = pyte.Screen(COLUMNS, ROWS), pyte.Screen(COLUMNS, ROWS)
    pyte.Stream(screen).feed(line)
    pyte.Stream(fewer).feed(out)
    assert fewer.buffer == screen.buffer


def test_a_frame_goes_on_in_the_style_the_last_one_left_and_other_writes_start_plain() -> None:
    shown = {0: "the answer so far", 1: "⠋ Answering…"}
    then = {0: "the answer so far", 1: "⠙ Answering…"}
    _, _, _, _, outs = screens([frame(shown), frame(then), "\x1b[1;1Hx\x1b[2K", frame(shown)])
    assert outs[1] == "\x1b[2;1H⠙\x1b[12;1H"  # the spinner alone: its style is still on
    assert outs[2].startswith("\x1b[0m")
