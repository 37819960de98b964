"""The session screen's styles are parsed on the loader thread, not as the screen is pushed.

Parsed then (some 15 ms of 17 sources, on the event loop), they held back the first frame of the
session screen and the keys typed as it replaced "Starting Circle…". ``first_css`` names what the
screen starts with; a widget added to it and left out of ``first_css`` is parsed on the push again,
which the first test finds.
"""

from __future__ import annotations

from textual.css.stylesheet import Stylesheet

from circle.entrypoints.tui._history import InputHistory
from circle.entrypoints.tui._stylesheet import Source, parse_ahead, take_parsed
from circle.entrypoints.tui.app import CircleApp
from circle.entrypoints.tui.screens.main import first_css

from .conftest import SIZE, WORKSPACE, FakeBackend, FixedClock, options, until


def sources(stylesheet: Stylesheet) -> set[Source]:
    return {(css, at, default, tie, scope) for at, (css, default, tie, scope) in stylesheet.source.items()}


async def test_the_session_screen_parses_none_of_its_styles_as_it_is_pushed(clock: FixedClock) -> None:
    backend = FakeBackend()
    backend.trust_list.folders[WORKSPACE] = 0.0
    starting: set[Source] = set()

    def make() -> FakeBackend:  # on the loader thread, once "Starting Circle…" has painted
        starting.update(sources(app.stylesheet))
        return backend

    app = CircleApp(None, options(), make_backend=make, clock=clock, history=InputHistory())
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        await pilot.pause()
        added = sources(app.stylesheet) - starting
        assert added, "the session screen brought styles of its own"
        assert added <= set(first_css())  # each was parsed ahead, none as the screen was pushed


def test_styles_parsed_with_other_variables_are_not_kept() -> None:
    """A theme chosen while the loader parsed would style the screen in the old colours."""
    dark, light = {"primary": "#004578"}, {"primary": "#0178d4"}
    source: Source = ("Static { color: $primary; }", ("here", "Static.DEFAULT_CSS"), True, 0, "Static")
    parsed = parse_ahead([source], dark)
    assert list(parsed) == [source]
    assert take_parsed(Stylesheet(variables=light), parsed, variables=dark) == 0
    stylesheet = Stylesheet(variables=dark)
    assert take_parsed(stylesheet, parsed, variables=dark) == 1
    assert stylesheet._parse_cache[source] is parsed[source]


def test_a_source_that_does_not_parse_is_left_for_textual_to_report() -> None:
    broken: Source = ("Static { color: $undefined_here; }", ("here", "X.DEFAULT_CSS"), True, 0, "")
    fine: Source = ("Static { height: 1; }", ("here", "Y.DEFAULT_CSS"), True, 0, "")
    assert list(parse_ahead([broken, fine], {})) == [fine]
