"""HTML to Markdown: the parts a model needs to read a page, nothing invisible."""

from __future__ import annotations

import pytest

from circle.adapters.web.html_markdown import html_to_markdown


def md(html: str, base_url: str = "https://example.com/a/b.html") -> str:
    return html_to_markdown(html, base_url=base_url)


def test_headings_and_paragraphs_become_blocks() -> None:
    out = md("<h1>Title</h1><p>First   paragraph\nwrapped.</p><h3>Sub <em>part</em></h3><p>Second</p>")
    assert out == "# Title\n\nFirst paragraph wrapped.\n\n### Sub *part*\n\nSecond\n"


def test_links_are_resolved_against_the_page() -> None:
    out = md('<p><a href="/x">root</a>, <a href="c.html">near</a>, <a href="https://o.org/">abs</a></p>')
    assert (
        out.strip()
        == "[root](https://example.com/x), [near](https://example.com/a/c.html), [abs](https://o.org/)"
    )


def test_links_without_a_target_keep_their_text() -> None:
    assert md('<p><a href="javascript:void(0)">click</a> <a href="#top">top</a></p>').strip() == "click top"


def test_scripts_styles_and_the_head_are_dropped() -> None:
    html = "<html><head><title>T</title><style>p{}</style></head><body><script>alert(1)</script><p>Seen</p>"
    assert md(html + "<noscript>no</noscript><svg><text>s</text></svg></body></html>") == "Seen\n"


def test_a_head_never_closed_does_not_hide_the_body() -> None:
    assert md("<html><head><title>T</title><body><p>Body</p>") == "Body\n"


def test_nested_and_numbered_lists() -> None:
    out = md("<ul><li>a</li><li>b<ol start='3'><li>x</li><li>y</li></ol></li></ul><p>after</p>")
    assert out == "- a\n- b\n  3. x\n  4. y\n\nafter\n"


def test_pre_keeps_its_spacing_and_code_is_marked() -> None:
    out = md("<p>Call <code>f(x)</code>:</p><pre><code>def f(x):\n    return x  # <b>bold</b>\n</code></pre>")
    assert out == "Call `f(x)`:\n\n```\ndef f(x):\n    return x  # bold\n```\n"


def test_tables_become_pipe_rows() -> None:
    html = (
        "<table><tr><th>Name</th><th>Value</th></tr><tr><td>a|b</td><td><a href='/v'>v</a></td></tr></table>"
    )
    assert md(html) == "| Name | Value |\n| --- | --- |\n| a\\|b | [v](https://example.com/v) |\n"


def test_breaks_quotes_rules_images_and_entities() -> None:
    out = md(
        "<p>one<br>two &amp; three</p><blockquote><p>said</p></blockquote><hr><img src='i.png' alt='pic'>"
    )
    assert out == "one\ntwo & three\n\n> said\n\n---\n\n![pic](https://example.com/a/i.png)\n"


@pytest.mark.parametrize(
    "html", ["<p>unclosed <b>bold", "</div></li></table>", "<table><td>x", "<<>>&&;", ""]
)
def test_broken_html_never_raises(html: str) -> None:
    assert isinstance(md(html), str)
