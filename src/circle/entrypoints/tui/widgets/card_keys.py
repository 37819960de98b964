"""A card's keys line, in the longest of its wordings that fits the width on one line.

At 50 columns the approval card's ``1 once · 2 this session · n deny · esc stop · ↑↓ enter · pgup
pgdn scroll`` went on over two lines, and at 40 over three, taking rows from what the card asks
about. A card gives its keys in several wordings, longest first, each one shorter by words or by
the least needed keys; the line is drawn in the first that fits the width it is given, measured
as it is laid out (so the first frame already has it). The last wording shows whole however
narrow the width, wrapping if it must: a key it names is never cut.

A card whose body scrolls (a long command or diff, a plan) is read to its end only with pgup and
pgdn: its line is drawn in the wordings that name them (:func:`keeping_scroll`). At 50 columns,
with words typed above the card, its line was ``enter sends the words · 1-3 pick · esc stop``,
and nothing said how to reach the rest of the command.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, RenderResult
from rich.measure import Measurement
from rich.text import Text

APPROVAL_KEYS = (
    "1 once · 2 this session · n deny · esc stop · ↑↓ enter · pgup pgdn scroll",
    "1 once · 2 session · n deny · esc stop · ↑↓ enter · pgup pgdn scroll",
    "1 once · 2 session · n deny · esc stop · pgup pgdn scroll",
    "1 once · 2 session · n deny · esc stop · pgup pgdn",
    "1-3 pick · n deny · esc stop · pgup pgdn scroll",
    "1-3 pick · esc stop · pgup pgdn scroll",
    "1-3 pick · esc stop · pgup pgdn",
    "1-3 pick · esc stop",
    "1-3 pick · esc",
    "1-3 · esc",
)
"""An approval card's keys: shorter words first, then ↑↓ enter goes (the options are numbered
above), then the options' names (``1-3 pick``, 3 denying as n does); the scroll keys, which
alone reach the rest of a long diff at a narrow width, and esc stay longest."""
SCROLL_KEYS = "pgup pgdn"


SECRET_KEYS = (
    "enter saves it in secrets.json (0600) · esc cancels · the model only sees %NAME%",
    "enter saves it in secrets.json · esc cancels · the model only sees %NAME%",
    "enter saves it in secrets.json · esc cancels · the model sees %NAME%",
    "enter saves it in secrets.json · esc cancels",
    "enter saves · esc cancels",
    "enter · esc",
)
"""The secret card's keys: it wrapped to two rows at 80 columns and at 50. The file's mode goes
first, then what the model sees (the card's body says it), then where it is saved."""


def question_keys(*, options: bool, several: bool) -> tuple[str, ...]:
    """A question card's keys, longest first: with ``options`` to pick from (``several`` of them
    may be marked with space), or an answer to type. The scroll keys, which reach the rest of a
    plan at a narrow width, stay longer than the word for esc."""
    marks = " · space marks" if several else ""
    full, pick = f"1-9 or ↑↓ enter picks{marks}", f"1-9 ↑↓ enter{marks}"
    if not options:
        full = pick = "type, then enter"
    wordings = (
        f"{full} · esc dismisses · pgup pgdn scroll",
        f"{pick} · esc dismisses · pgup pgdn scroll",
        f"{pick} · esc · pgup pgdn scroll",
        f"{pick} · esc · pgup pgdn",
        f"{pick} · esc",
    )
    return tuple(dict.fromkeys(wordings))


def typed_answer_keys(esc: str) -> tuple[str, ...]:
    """What a question card with no options says, longest first, once the typing of the words shown
    in the input box above it has paused: what is typed now is its answer (its own field takes
    it), and enter sends the words above first, then the answer. The line for cards whose keys pick
    (what you type goes to the box, the card waits) stayed, and was not so."""
    return (
        f"typing answers it · enter sends the words above, then the answer · {esc} · pgup pgdn scroll",
        f"typing answers it · enter sends the words above, then the answer · {esc}",
        f"typing answers it · enter sends the words first · {esc}",
        "typing answers · enter sends the words first · esc",
        "typing answers · enter sends the words · esc",
        "typing answers · enter sends · esc",
        "typing answers · enter · esc",
        "type · enter · esc",
    )


def typing_keys(esc: str) -> tuple[str, ...]:
    """What a card's keys line says, longest first, while the input box above it shows words typed
    (``esc``: the card's own word for its esc). A toast said it at 80x24 over the options."""
    return (
        f"what you type goes to the input box: enter sends it, the card waits · {esc}",
        f"what you type goes to the box: enter sends it, the card waits · {esc}",
        f"typing goes to the box: enter sends it, the card waits · {esc}",
        f"enter sends what you typed, the card waits · {esc}",
        "enter sends the words, the card waits · esc",
        "enter sends them, card waits · esc",
        "enter sends, card waits · esc",
        "enter sends · esc",
    )


def paused_keys(keys: str | Sequence[str]) -> tuple[str, ...]:
    """What a card's keys line says, longest first, once the typing of the words shown in the
    input box above it has paused: the card's own keys (``keys``, its wordings) answer it again,
    and enter sends the words (it picks nothing while they show); its shorter word for that comes
    before the card's next shorter wording: a key left out costs more than the words."""
    wordings = (keys,) if isinstance(keys, str) else tuple(keys)
    bare = [said.replace("↑↓ enter picks", "↑↓ picks").replace("↑↓ enter", "↑↓") for said in wordings]
    longer = ((f"enter sends the words · {said}", f"enter sends · {said}") for said in bare)
    return tuple(dict.fromkeys(said for pair in longer for said in pair))


def keeping_scroll(wordings: Sequence[str]) -> tuple[str, ...]:
    """``wordings`` for a card whose body scrolls, in the same order: those that name the scroll
    keys, then each of the others with them added (``… · esc · pgup pgdn``), so the narrowest still
    say how to read the rest. The last, a last resort, wraps rather than leave them out."""
    named = [said for said in wordings if SCROLL_KEYS in said]
    added = [f"{said} · {SCROLL_KEYS}" for said in wordings if SCROLL_KEYS not in said]
    return tuple(dict.fromkeys([*named, *added]))


def pick(wordings: Sequence[str], width: int) -> str:
    """The first of ``wordings`` that fits ``width`` cells, else the last."""
    return next((said for said in wordings if cell_len(said) <= width), wordings[-1])


class KeysLine:
    """A Rich renderable: the first of its wordings that fits the width it is rendered at."""

    def __init__(self, wordings: str | Sequence[str], *, style: str = "dim") -> None:
        self.wordings = (wordings,) if isinstance(wordings, str) else tuple(wordings)
        assert self.wordings, "a keys line needs a wording"
        self.style = style

    def __str__(self) -> str:
        return self.wordings[0]

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield Text(pick(self.wordings, options.max_width), style=self.style)

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        return Measurement(min(cell_len(said) for said in self.wordings), cell_len(self.wordings[0]))


__all__ = [
    "APPROVAL_KEYS",
    "SCROLL_KEYS",
    "SECRET_KEYS",
    "KeysLine",
    "keeping_scroll",
    "paused_keys",
    "pick",
    "question_keys",
    "typed_answer_keys",
    "typing_keys",
]
