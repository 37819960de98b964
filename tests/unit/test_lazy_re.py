"""LazyPattern: a regular expression compiled on its first use, matching as re.compile's does."""

from __future__ import annotations

import re

from circle.domain.lazy_re import lazy_compile


def test_a_lazy_pattern_compiles_on_first_use_and_matches_as_re_does() -> None:
    pattern = lazy_compile(r"(?P<word>[a-z]+)(\d+)", re.IGNORECASE)
    assert pattern._compiled is None
    text = "ab12 CD34 -"
    eager = re.compile(r"(?P<word>[a-z]+)(\d+)", re.IGNORECASE)
    assert pattern.search(text).group("word") == eager.search(text).group("word")  # type: ignore[union-attr]
    assert pattern._compiled is not None
    assert [m.group(0) for m in pattern.finditer(text)] == ["ab12", "CD34"]
    assert pattern.sub(lambda m: m.group("word"), text) == eager.sub(lambda m: m.group("word"), text)
    assert pattern.subn("x", text) == ("x x -", 2)
    assert pattern.fullmatch("ab12") is not None and pattern.match("-ab12") is None
    assert pattern.split(text) == eager.split(text)
