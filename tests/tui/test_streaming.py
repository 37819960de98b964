"""A streamed answer grows at its end: each draw adds to its last block, and the blocks above it
are neither parsed nor drawn again (so the terminal gets only the rows that changed)."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets.markdown import MarkdownBlock

from circle.entrypoints.tui.widgets.conversation import Answer

from .conftest import until

PARAGRAPHS = [f"paragraph {n} of the answer, streamed a few words at a time" for n in range(6)]


class OneAnswer(App[None]):
    def __init__(self) -> None:
        super().__init__()
        self.answer = Answer()

    def compose(self) -> ComposeResult:
        yield self.answer


def blocks(answer: Answer) -> list[MarkdownBlock]:
    return list(answer.query_children(MarkdownBlock))


async def test_the_blocks_above_the_growing_one_stay_as_they_were_drawn() -> None:
    app = OneAnswer()
    async with app.run_test(size=(80, 30)) as pilot:
        answer = app.answer
        answer.add(PARAGRAPHS[0] + "\n\n")
        await until(pilot, lambda: len(blocks(answer)) == 1)
        first = blocks(answer)[0]
        for paragraph in PARAGRAPHS[1:]:
            words = paragraph.split(" ")
            for index, word in enumerate(words):
                answer.add(word + (" " if index < len(words) - 1 else ""))
            await pilot.pause(0.1)
            answer.add("\n\n")
        answer.finish(answer.text)
        await until(pilot, lambda: len(blocks(answer)) == len(PARAGRAPHS))
        shown = [str(block.source).strip() for block in blocks(answer)]
        assert shown == PARAGRAPHS
        assert blocks(answer)[0] is first


async def test_an_answer_that_changes_above_its_end_is_drawn_again_whole() -> None:
    app = OneAnswer()
    async with app.run_test(size=(80, 30)) as pilot:
        answer = app.answer
        answer.add("first words\n\nsecond words")
        await until(pilot, lambda: len(blocks(answer)) == 2)
        answer.finish("other words")
        await until(pilot, lambda: [str(block.source).strip() for block in blocks(answer)] == ["other words"])
