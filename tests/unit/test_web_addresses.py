"""circle.domain.web: IP literals in every form, which addresses are not public, sites and subjects."""

from __future__ import annotations

import pytest

from circle.domain.approval_rules import Rule
from circle.domain.errors import ToolError
from circle.domain.web import address_concern, addresses_concern, ip_literal, site_rule, web_site, web_subject


@pytest.mark.parametrize(
    ("host", "address"),
    [
        ("127.0.0.1", "127.0.0.1"),
        ("2130706433", "127.0.0.1"),
        ("0x7f.1", "127.0.0.1"),
        ("0x7F000001", "127.0.0.1"),
        ("0177.0.0.1", "127.0.0.1"),
        ("127.1", "127.0.0.1"),
        ("10.0x10.1", "10.16.0.1"),
        ("127.0.0.1.", "127.0.0.1"),
        ("[::1]", "::1"),
        ("::FFFF:7F00:1", "::ffff:7f00:1"),
    ],
)
def test_ip_literals_are_read_in_every_form_a_resolver_reads(host: str, address: str) -> None:
    assert str(ip_literal(host)) == address


@pytest.mark.parametrize(
    "host", ["example.com", "1.2.3.foo", "256.1.1.1", "1.2.3.4.5", "08.1.1.1", "0x1g", ""]
)
def test_names_are_not_ip_literals(host: str) -> None:
    assert ip_literal(host) is None


@pytest.mark.parametrize(
    ("address", "concern"),
    [
        ("127.0.0.1", "a loopback address"),
        ("::1", "a loopback address"),
        ("10.0.0.1", "a private address"),
        ("172.31.255.255", "a private address"),
        ("192.168.0.1", "a private address"),
        ("fd12::1", "a private address"),
        ("100.127.0.1", "a private address (shared, carrier-grade NAT)"),
        ("169.254.169.254", "a link-local address (where cloud metadata is served)"),
        ("fe80::1", "a link-local address (where cloud metadata is served)"),
        ("0.0.0.0", "the unspecified address"),
        ("::", "the unspecified address"),
        ("::ffff:10.0.0.1", "a private address, 10.0.0.1 written as IPv6"),
        ("64:ff9b::7f00:1", "a loopback address, 127.0.0.1 written as IPv6"),
        ("224.0.0.1", "an address that is not public (reserved or multicast)"),
        ("8.8.8.8", ""),
        ("172.32.0.1", ""),
        ("2606:4700::1111", ""),
    ],
)
def test_which_addresses_are_not_public(address: str, concern: str) -> None:
    assert address_concern(address) == concern


def test_the_concern_names_the_host_and_the_address_it_resolves_to() -> None:
    assert (
        addresses_concern("a.example", ("8.8.8.8", "10.0.0.1"))
        == "a.example resolves to 10.0.0.1, a private address"
    )
    assert addresses_concern("0x7f.1", ("127.0.0.1",)) == "127.0.0.1 is a loopback address"
    assert addresses_concern("a.example", ("8.8.8.8",)) == ""
    assert "not known here" in addresses_concern("a.example", ())


@pytest.mark.parametrize(
    ("url", "site", "subject"),
    [
        ("HTTPS://Docs.Python.org", "https://docs.python.org", "https://docs.python.org/"),
        (
            "https://docs.python.org:443/3/?q=1#top",
            "https://docs.python.org",
            "https://docs.python.org/3/?q=1",
        ),
        ("http://user:pw@example.com:8080/a", "http://example.com:8080", "http://example.com:8080/a"),
        ("http://2130706433/x", "http://127.0.0.1", "http://127.0.0.1/x"),
        ("http://[::1]:80/", "http://[::1]", "http://[::1]/"),
    ],
)
def test_the_site_and_the_subject_rules_match(url: str, site: str, subject: str) -> None:
    assert web_site(url) == site
    assert web_subject(url) == subject


def test_a_remembered_site_covers_its_pages_and_no_other_site() -> None:
    rule = site_rule("https://docs.python.org/3/")
    assert rule == Rule("webfetch", "https://docs.python.org/*", "allow")
    assert rule.matches("webfetch", "https://docs.python.org/3/library/")
    assert not rule.matches("webfetch", "https://docs.python.org.example/")
    assert not rule.matches("webfetch", "https://docs.python.org:8443/")
    assert not site_rule("").matches("webfetch", "https://docs.python.org/")  # a hook's question has no URL


def test_a_bad_port_is_a_clear_error() -> None:
    with pytest.raises(ToolError, match="not a valid URL"):
        web_subject("http://example.com:99999/")
