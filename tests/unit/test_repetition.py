"""The repetition detector on real-looking degenerate output, and on text that only looks repetitive."""

from __future__ import annotations

import json
import time

import pytest

from circle.domain.repetition import RepetitionDetector


def feed(text: str, *, step: int = 7, detector: RepetitionDetector | None = None) -> RepetitionDetector:
    """Stream ``text`` in deltas of ``step`` characters, stopping when the detector fires."""
    detector = detector or RepetitionDetector()
    for start in range(0, len(text), step):
        if detector.feed(text[start : start + step]):
            break
    return detector


THINKING_PARAGRAPH = (
    "Okay, so the user wants me to fix the failing test in tests/test_parser.py. The failure says "
    "the tokenizer returns an empty list when the input has trailing whitespace. I should look at how "
    "strip() is applied before splitting, because that is probably where the problem is. Let me read "
    "src/parser/tokenizer.py first and then run the test again.\n\n"
)


def test_a_sentence_said_over_and_over_is_caught_and_cut_after_its_first_copy() -> None:
    text = "The test still fails. " + "I need to check the file. " * 40
    detector = feed(text)
    assert detector.fired and detector.cut is not None
    assert detector.fed < len("The test still fails. ") + 26 * 16
    assert text[: detector.cut] == "The test still fails. I need to check the file. "


def test_a_thinking_loop_of_a_repeated_paragraph_is_caught_by_its_third_copy() -> None:
    text = "Let me think about this.\n\n" + THINKING_PARAGRAPH * 6
    detector = feed(text, step=11)
    assert detector.fired and detector.cut is not None
    assert detector.fed <= 26 + 3 * len(THINKING_PARAGRAPH) + 64
    assert text[: detector.cut].rstrip() == ("Let me think about this.\n\n" + THINKING_PARAGRAPH).rstrip()


def test_a_loop_of_lines_with_small_variations_is_caught_by_the_repeated_line() -> None:
    lines = []
    for n in range(20):
        lines.append("Wait, let me check the imports in the config module again.")
        lines.append(f"The value on line {n * 7 + 3} looks like it is {n} characters long.")
    text = "I will look at the config.\n" + "\n".join(lines) + "\n"
    detector = feed(text)
    assert detector.fired and detector.cut is not None
    kept = text[: detector.cut]
    assert kept.count("Wait, let me check the imports") == 1
    assert kept.startswith("I will look at the config.\n")


def test_one_token_repeated_without_end_is_caught() -> None:
    assert feed("The answer is " + "the " * 1000).fired
    assert feed("Here it is:" + "\n" * 5000).fired
    assert feed("x = " + "0" * 5000).fired


def test_it_fires_whatever_the_size_of_the_deltas() -> None:
    text = "Sure. " + "I will now run the tests to confirm the fix works. " * 30
    for step in (1, 3, 64, 500, len(text)):
        assert feed(text, step=step).fired, step


def test_it_stays_fired_and_a_fresh_detector_starts_clean() -> None:
    detector = feed("I need to check the file. " * 40)
    assert detector.feed("Something new entirely.")
    assert not RepetitionDetector().feed("I need to check the file. ")


MARKDOWN_TABLE = "| # | test | result | time |\n|---|------|--------|------|\n" + "".join(
    f"| {n} | test_parse_case_{n} | {'passed' if n % 7 else 'failed'} | 0.0{n % 10}s |\n"
    for n in range(1, 51)
)

PYTHON_FILE = (
    "from __future__ import annotations\n\n"
    + "".join(f"from app.handlers.h{n} import handle_{n}\n" for n in range(30))
    + "\n\nclass Settings(BaseModel):\n"
    + "".join(f'    option_{n}: int = Field({n}, description="Option number {n}.")\n' for n in range(40))
    + "\n\ndef build():\n    return {\n"
    + "".join(f'        "key_{n}": {{\n            "value": {n},\n        }},\n' for n in range(30))
    + "    }\n"
)

JAVASCRIPT_FILE = "".join(
    f"describe('case {n}', () => {{\n  it('works', () => {{\n"
    f"    expect(run({n})).toBe(true);\n  }});\n}});\n\n"
    for n in range(40)
) + "".join(" " * depth + "}\n" for depth in range(30, -1, -2))

JSON_ARRAY = json.dumps(
    [{"id": n, "name": f"item-{n}", "tags": ["alpha", "beta"], "active": True} for n in range(120)], indent=2
)

LOG = "".join(
    f"2024-05-01 12:{n // 60:02d}:{n % 60:02d},{n * 37 % 1000:03d} INFO worker-{n % 4} "
    f"processed batch {n} in 0.{n * 13 % 100:02d}s\n"
    for n in range(400)
)

CSV = "date,region,product,units,price\n" + "".join(
    f"2024-01-{n % 28 + 1:02d},{['north', 'south', 'east', 'west'][n % 4]},widget-{n % 9},{n * 3},9.99\n"
    for n in range(300)
)

GRID = "board = [\n" + "".join("    [0, 0, 0, 0, 0, 0, 0, 0, 0],\n" for _ in range(9)) + "]\n"

PROSE = (
    "Circle keeps every message in SQLite as it happens, so a crash loses at most the step that was "
    "running. When the conversation grows past most of the context window, older messages are summarized "
    "and the most recent tenth is kept. Tool output outside a recent window is replaced by a short stub in "
    "requests, while the stored conversation keeps the full text. A person can cancel a turn at any time: "
    "the running command is stopped with everything it started, and background jobs go on. "
) * 1 + (
    "The tests drive the loop with a scripted model. Each test states the behaviour it checks, and the fakes "
    "record what they saw, so assertions look at state instead of at calls. Contract suites run the same "
    "assertions against the fake and the real adapter, which keeps the two honest."
)

INDENTED = "\n".join(("    " * (n % 6)) + f"step_{n}()" for n in range(200)) + "\n" + "\n" * 20

SEPARATORS = ("=" * 78 + "\n" + "Section\n" + "-" * 78 + "\n") * 6


@pytest.mark.parametrize(
    "text",
    [MARKDOWN_TABLE, PYTHON_FILE, JAVASCRIPT_FILE, JSON_ARRAY, LOG, CSV, GRID, PROSE, INDENTED, SEPARATORS],
    ids=["table", "python", "javascript", "json", "log", "csv", "grid", "prose", "indentation", "rules"],
)
@pytest.mark.parametrize("step", [1, 9, 200])
def test_code_tables_logs_and_prose_do_not_trip_it(text: str, step: int) -> None:
    assert not feed(text, step=step).fired


def test_a_test_file_that_repeats_one_assertion_does_not_trip_it() -> None:
    text = "".join(
        f"    def test_case_{n}(self):\n        result = parse('{n}')\n"
        "        self.assertEqual(result, expected)\n\n"
        for n in range(40)
    )
    assert not feed(text).fired


def test_feeding_a_long_stream_stays_cheap() -> None:
    text = LOG * 10
    started = time.perf_counter()
    detector = feed(text, step=4)
    assert not detector.fired and detector.fed == len(text)
    assert time.perf_counter() - started < 2.0
