"""A streamed answer's open spans are closed for the frame, and only where Markdown opens them."""

from __future__ import annotations

import pytest

from circle.entrypoints.tui.widgets.md_stream import close_open_spans


@pytest.mark.parametrize(
    ("streamed", "drawn"),
    [
        ("Some **bold te", "Some **bold te**"),
        ("Some **bold te**", "Some **bold te**"),
        ("Some **bold ", "Some **bold**"),
        ("Some **bold*", "Some **bold**"),  # half of its closing came
        ("Some **", "Some "),  # nothing after it yet: held back
        ("a `code", "a `code`"),
        ("a ``", "a "),
        ("an _it", "an _it_"),
        ("***both", "***both***"),
        ("a ~~gone", "a ~~gone~~"),
        ("see **`x", "see **`x`**"),
        ("**a\nb", "**a\nb**"),  # one paragraph over two lines
        ("my_var_name is", "my_var_name is"),
        ("x**2 and 2 * 3", "x**2 and 2 * 3"),
        ("* item", "* item"),
        ("- a **x\n- b", "- a **x\n- b"),  # an item above is not the block that grows
        ("p **a\n\nq", "p **a\n\nq"),
        ("```py\nx = **y", "```py\nx = **y"),  # in a code block
        ("a \\*b", "a \\*b"),
    ],
)
def test_the_open_spans_of_the_last_block_are_closed(streamed: str, drawn: str) -> None:
    assert close_open_spans(streamed) == drawn
