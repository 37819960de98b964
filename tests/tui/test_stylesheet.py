"""Each CSS source is parsed once while the interface runs: a screen with CSS of its own no longer
makes every source be parsed again (into a fresh stylesheet whose cache Textual threw away)."""

from __future__ import annotations

from textual.css.stylesheet import Stylesheet

from circle.entrypoints.tui._history import InputHistory
from circle.entrypoints.tui._stylesheet import KeptStylesheet, keep_parsed
from circle.entrypoints.tui.app import CircleApp

from .conftest import SIZE, FakeBackend, FixedClock, main_screen, options, until


def _filled(stylesheet: Stylesheet, count: int) -> Stylesheet:
    for n in range(count):
        stylesheet.add_source(f"Widget{n} {{ color: red; }}", read_from=("test", f"W{n}.DEFAULT_CSS"))
    stylesheet.parse()
    return stylesheet


def _parsed(stylesheet: Stylesheet) -> int:
    return stylesheet._parse_cache.misses


def test_a_source_added_parses_that_source_only() -> None:
    kept = _filled(KeptStylesheet(), 30)
    before = _parsed(kept)
    kept.add_source("Widget30 { color: blue; }", read_from=("test", "W30.DEFAULT_CSS"))
    kept.parse()
    assert _parsed(kept) == before + 1
    assert len(kept.rules) == 31


def test_a_screens_own_css_parses_that_css_only_and_nothing_is_parsed_again_after() -> None:
    kept = _filled(KeptStylesheet(), 30)
    before = _parsed(kept)
    kept.add_source("Screen { color: blue; }", read_from=("test", "MainScreen.CSS"))
    kept.reparse()  # what Textual does when a screen with CSS is pushed
    assert _parsed(kept) == before + 1
    kept.add_source("Widget31 { color: blue; }", read_from=("test", "W31.DEFAULT_CSS"))
    kept.parse()  # a widget class of that screen, mounted
    assert _parsed(kept) == before + 2


def test_a_reparse_gives_the_same_rules() -> None:
    kept = _filled(KeptStylesheet(), 20)
    before, rules = _parsed(kept), [rule.css for rule in kept.rules]
    kept.reparse()
    assert _parsed(kept) == before
    assert [rule.css for rule in kept.rules] == rules


def test_new_variables_parse_again() -> None:
    kept = _filled(KeptStylesheet(variables={"accent": "red"}), 3)
    kept.add_source("Label { color: $accent; }", read_from=("test", "Label.DEFAULT_CSS"))
    kept.parse()
    kept.set_variables({"accent": "blue"})
    kept.reparse()
    assert "#0000FF" in kept.rules[-1].css


def test_a_stylesheet_with_sources_is_left_as_it_is() -> None:
    used = _filled(Stylesheet(), 2)
    assert keep_parsed(used) is used
    fresh = keep_parsed(Stylesheet(variables={"accent": "red"}))
    assert isinstance(fresh, KeptStylesheet)
    assert fresh._variables == {"accent": "red"}


async def test_the_interface_parses_each_source_once_and_a_theme_change_still_shows(
    backend: FakeBackend, clock: FixedClock
) -> None:
    app = CircleApp(backend, options(), clock=clock, history=InputHistory())
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        assert isinstance(app.stylesheet, KeptStylesheet)
        sources = len(app.stylesheet.source)
        assert _parsed(app.stylesheet) <= sources + 5  # each once (a few screens' own CSS twice)
        screen = main_screen(app)
        before = screen.composer.styles.color
        app.theme = "textual-light" if app.current_theme.dark else "textual-dark"
        await pilot.pause()
        assert screen.composer.styles.color != before
