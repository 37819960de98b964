"""A streamed answer grows at its end: each draw draws only the block that grew, and the blocks
above it keep the lines they were drawn with (no widget per block is laid out again)."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.content import Content

from circle.entrypoints.tui.widgets.conversation import Answer

from .conftest import until

PARAGRAPHS = [f"paragraph {n} of the answer, streamed a few words at a time" for n in range(6)]


class OneAnswer(App[None]):
    def __init__(self) -> None:
        super().__init__()
        self.answer = Answer()

    def compose(self) -> ComposeResult:
        yield self.answer


def shown(answer: Answer) -> list[str]:
    return [line.rstrip() for line in str(answer.visual).splitlines()]


async def test_the_blocks_above_the_growing_one_are_not_drawn_again() -> None:
    app = OneAnswer()
    async with app.run_test(size=(80, 30)) as pilot:
        answer = app.answer
        answer.add(PARAGRAPHS[0] + "\n\n")
        await until(pilot, lambda: shown(answer) == [PARAGRAPHS[0]])
        draws = []
        for paragraph in PARAGRAPHS[1:]:
            words = paragraph.split(" ")
            for index, word in enumerate(words):
                answer.add(word + (" " if index < len(words) - 1 else ""))
                await pilot.pause(0.02)
            answer.add("\n\n")
            before = answer.units_drawn
            await until(pilot, lambda paragraph=paragraph: paragraph in shown(answer))
            draws.append(answer.units_drawn - before)
        answer.finish(answer.text)
        await until(pilot, lambda: shown(answer) == [line for p in PARAGRAPHS for line in (p, "")][:-1])
        assert not answer.children, "one widget, not one per block"
        # each block is drawn as it grows, never the ones above it: far fewer draws than blocks x frames
        assert answer.units_drawn <= sum(len(p.split(" ")) for p in PARAGRAPHS) + len(PARAGRAPHS)


async def test_an_answer_that_changes_above_its_end_is_drawn_again_whole() -> None:
    app = OneAnswer()
    async with app.run_test(size=(80, 30)) as pilot:
        answer = app.answer
        answer.add("first words\n\nsecond words")
        await until(pilot, lambda: shown(answer) == ["first words", "", "second words"])
        answer.finish("other words")
        await until(pilot, lambda: shown(answer) == ["other words"])


async def test_a_frame_draws_again_only_the_lines_that_changed() -> None:
    app = OneAnswer()
    async with app.run_test(size=(80, 30)) as pilot:
        answer = app.answer
        answer.add("".join(f"- item {n}\n" for n in range(40)))
        await until(pilot, lambda: "• item 39" in shown(answer))
        await pilot.pause(0.3)  # laid out (a scrollbar took its column)
        first, last = answer.render_line(0), answer.render_line(39)
        answer.add("- item 40\n- item 41")
        await until(pilot, lambda: "• item 41" in shown(answer))
        assert answer.render_line(0) is first and answer.render_line(39) is last
        assert "item 41" in answer.render_line(41).text


def styled(answer: Answer, said: str) -> str:
    """The style of ``said`` on the answer's lines as drawn."""
    content = answer.visual
    assert isinstance(content, Content)
    at = content.plain.index(said)
    return " ".join(str(span.style) for span in content.spans if span.start <= at < span.end)


async def test_an_open_emphasis_or_code_span_shows_styled_while_it_streams_not_its_markers() -> None:
    app = OneAnswer()
    async with app.run_test(size=(80, 30)) as pilot:
        answer = app.answer
        answer.add("First **words** above.\n\nSome **bold te")
        await until(pilot, lambda: shown(answer) == ["First words above.", "", "Some bold te"])
        first = answer._drawing.lines[0]
        assert "bold" in styled(answer, "bold te")
        answer.add("xt** then `code sp")
        await until(pilot, lambda: shown(answer)[-1] == "Some bold text then code sp")
        answer.add("an` and _it")
        await until(pilot, lambda: shown(answer)[-1] == "Some bold text then code span and it")
        assert "italic" in styled(answer, "it")
        answer.add("alic_ and **")  # a marker with nothing after it yet is held back
        await until(pilot, lambda: shown(answer)[-1] == "Some bold text then code span and italic and")
        assert answer._drawing.lines[0] is first, "the block above is not drawn again"
        answer.add("more")
        await until(pilot, lambda: shown(answer)[-1].endswith("and more"))
        answer.finish("First **words** above.\n\nSome **bold te")  # never closed: its markers show
        await until(pilot, lambda: shown(answer) == ["First words above.", "", "Some **bold te"])
