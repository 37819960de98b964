"""Saved secrets and Circle's own keys hidden in what the model reads, also when encoded or cut."""

from __future__ import annotations

import base64
import random
import string
import time
import uuid
from urllib.parse import quote

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from circle.domain.masking import Hide, Masker
from circle.domain.secrets import Secrets, own_keys, scrub_environment

VALUE = "demo-secret-value-4242"
ODD = "p@ss w/rd+~>?é-long-value"
"""Has characters base64 writes with + and /, percent-encoding changes, and a space."""
KEY = "circle-own-key-0123456789abcdef"
SECRETS = Secrets({"DEMO": VALUE, "ODD": ODD}, hidden=(KEY,))


def encodings(value: str) -> dict[str, str]:
    """The transforms of ``value`` a command can print, by name (written apart from the code under test)."""
    raw = value.encode()
    std, url = base64.b64encode(raw).decode(), base64.urlsafe_b64encode(raw).decode()
    hexed = raw.hex()
    return {
        "plain": value,
        "rev": value[::-1],
        "lower": value.lower(),
        "upper": value.upper(),
        "base64": std,
        "base64 unpadded": std.rstrip("="),
        "base64 url-safe": url,
        "base64 url-safe unpadded": url.rstrip("="),
        "base64 of echo": base64.b64encode(raw + b"\n").decode(),
        "base64 after 1 byte": base64.b64encode(b"x" + raw + b"tail").decode(),
        "base64 after 2 bytes": base64.b64encode(b"xy" + raw + b"tail").decode(),
        "base64 after 3 bytes": base64.b64encode(b"xyz" + raw + b"tail").decode(),
        "base64 wrapped": "\n".join(std[i : i + 6] for i in range(0, len(std), 6)),
        "hex": hexed,
        "HEX": hexed.upper(),
        "xxd -p wrapped": "\n".join(hexed[i : i + 12] for i in range(0, len(hexed), 12)),
        "xxd grouped": " ".join(hexed[i : i + 4] for i in range(0, len(hexed), 4)),
        "percent": quote(value, safe=""),
        "percent lower": quote(value, safe="").lower(),
        "percent every byte": "".join(f"%{byte:02X}" for byte in raw),
        "first half": value[: len(value) // 2],
        "second half": value[len(value) // 2 :],
        "split across lines": value[:9] + "\n" + value[9:],
        "rev, then base64": base64.b64encode(value[::-1].encode() + b"\n").decode(),
        "upper case, then hex": value.upper().encode().hex(),
    }


def runs(text: str, value: str, size: int = 8) -> list[str]:
    """The runs of ``size`` characters of ``value``'s plain, reversed, hex and base64 forms (also of the
    value reversed or in upper case) in ``text``, case and whitespace aside."""
    squeezed = "".join(text.split()).lower()
    forms = [value, value[::-1]]
    for base in (value, value[::-1], value.upper()):
        raw = base.encode()
        forms += [raw.hex(), quote(base, safe=""), "".join(f"%{byte:02x}" for byte in raw)]
        for prefix in (b"", b"x", b"xy"):
            for encode in (base64.b64encode, base64.urlsafe_b64encode):
                forms.append(encode(prefix + raw + b"\0\0").decode()[len(prefix) + 1 : -4])
    forms = ["".join(form.split()).lower() for form in forms]
    return [f[i : i + size] for f in forms for i in range(len(f) - size + 1) if f[i : i + size] in squeezed]


@pytest.mark.parametrize(("name", "value", "label"), [("DEMO", VALUE, "%DEMO%"), ("ODD", ODD, "%ODD%")])
@pytest.mark.parametrize("how", list(encodings(VALUE)))
def test_a_saved_secret_is_masked_in_every_transform(name: str, value: str, label: str, how: str) -> None:
    shown = encodings(value)[how]
    masked = SECRETS.mask(f"before\n{shown}\nafter")
    assert label in masked, masked
    assert masked.startswith("before\n") and masked.endswith("\nafter")
    assert not runs(masked, value), masked


@pytest.mark.parametrize("how", list(encodings(KEY)))
def test_circles_own_key_is_redacted_in_every_transform(how: str) -> None:
    masked = SECRETS.mask(f"env: {encodings(KEY)[how]} end")
    assert "[REDACTED]" in masked and "%" not in masked.replace("[REDACTED]", "")
    assert not runs(masked, KEY), masked


@pytest.mark.parametrize(
    ("text", "masked"),
    [
        (VALUE, "%DEMO%"),
        (VALUE[::-1], "%DEMO%"),
        (base64.b64encode(VALUE.encode()).decode(), "%DEMO%"),
        (VALUE.encode().hex().upper(), "%DEMO%"),
        (f"{VALUE[:10]}|", "%DEMO%(part)|"),
        (f"[{VALUE[8:]}]", "[%DEMO%(part)]"),
        (f"x {KEY[::-1]} y", "x [REDACTED] y"),
        (f"{VALUE[:7]} is too short a piece", f"{VALUE[:7]} is too short a piece"),
    ],
)
def test_a_whole_form_is_named_and_a_piece_says_part(text: str, masked: str) -> None:
    assert SECRETS.mask(text) == masked


def test_a_short_value_is_masked_from_half_of_it() -> None:
    secrets = Secrets({"PIN": "hunter22"})
    assert secrets.mask("echo hunt") == "echo %PIN%(part)"
    assert secrets.mask("hun\nter") == "%PIN%(part)"
    assert secrets.mask("a hun, a ter") == "a hun, a ter"


def test_a_short_key_of_circles_own_is_hidden_whole_only() -> None:
    secrets = Secrets(hidden=("test-key",))
    assert secrets.mask("CIRCLE_MODEL=test-model") == "CIRCLE_MODEL=test-model"
    assert secrets.mask("x=test-key y=yek-tset") == "x=[REDACTED] y=[REDACTED]"


def test_hashes_and_uuids_are_left_alone() -> None:
    rng = random.Random(7)
    lines = [f"{rng.getrandbits(160):040x} {uuid.UUID(int=rng.getrandbits(128))}" for _ in range(200)]
    text = "\n".join(lines)
    assert SECRETS.mask(text) == text


def test_a_hash_holding_a_secrets_run_is_masked() -> None:
    run = VALUE.encode().hex()[4:20]
    assert SECRETS.mask(f"commit 0a1b{run}9f") == "commit 0a1b%DEMO%(part)9f"


def test_overlapping_runs_of_two_secrets_are_one_mask_named_by_the_longer() -> None:
    secrets = Secrets({"SHORT": "tok-123456", "LONG": "tok-123456-extra"})
    assert secrets.mask("a tok-123456-extra b tok-123456 c") == "a %LONG% b %SHORT% c"


def test_masking_thirty_kilobytes_with_ten_secrets_is_quick() -> None:
    rng = random.Random(3)
    alphabet = string.ascii_letters + string.digits + "-_"
    values = {f"S{i}": "".join(rng.choices(alphabet, k=rng.choice((12, 24, 40, 64)))) for i in range(10)}
    secrets = Secrets(values)
    text = "\n".join(f"{rng.getrandbits(160):040x} src/module_{i}.py: def f(x): return x" for i in range(500))
    start = time.perf_counter()
    for _ in range(10):
        assert secrets.mask(text[:30_000]) == text[:30_000]
    assert (time.perf_counter() - start) / 10 < 0.1  # a generous bound: it takes about 2 ms


SECRET_TEXT = st.text(alphabet=string.ascii_letters + string.digits + "-_.~+/=@!", min_size=16, max_size=48)


@settings(max_examples=150, deadline=None)
@given(value=SECRET_TEXT, how=st.sampled_from(sorted(encodings(VALUE))), noise=st.text(max_size=40))
def test_random_secrets_are_masked_in_every_transform(value: str, how: str, noise: str) -> None:
    secrets = Secrets({"RANDOM": value})
    masked = secrets.mask(f"{noise}\n{encodings(value)[how]}\n{noise}")
    assert "%RANDOM%" in masked
    assert not runs(masked.replace("%RANDOM%", ""), value)


@settings(max_examples=150, deadline=None)
@given(
    value=SECRET_TEXT,
    text=st.one_of(
        st.text(max_size=300),
        st.lists(st.uuids().map(str) | st.binary(min_size=20, max_size=20).map(bytes.hex)).map(" ".join),
    ),
)
def test_random_ordinary_text_is_unchanged(value: str, text: str) -> None:
    assume(not runs(text, value) and not runs(text.lower(), value.lower()))
    assume(value.lower() not in "".join(text.split()).lower())
    assert Secrets({"RANDOM": value}, hidden=(value[::-1] + "x",)).mask(text) == text


def test_circles_own_keys_come_from_the_endpoint_the_environment_and_credentials() -> None:
    env = {
        "PATH": "/usr/bin",
        "GH_TOKEN": "gh-env-token-000111",
        "NPM_TOKEN_FILE": "/home/me/.npmrc",
        "TOKEN_TTL": "3600",
        "DEBUG_SECRET": "true",
        "HOOK_URL": "https://bot:hook-pass-9876@hooks.example.com/x",
        "NOTE": "nothing secret here",
    }
    keys = own_keys(env, {"api_key": "cred-file-key-abcdef"}, keys=["endpoint-key-1234567", None])
    assert set(keys) == {
        "endpoint-key-1234567",
        "gh-env-token-000111",
        "hook-pass-9876",
        "cred-file-key-abcdef",
    }


def test_a_variable_holding_circles_key_is_not_given_to_commands() -> None:
    assert scrub_environment({"COPY": KEY, "LANG": "C"}, SECRETS) == {"LANG": "C"}


def test_saving_a_secret_keeps_circles_own_keys() -> None:
    again = SECRETS.with_values({"NEW": "brand-new-value-0"})
    assert again.mask(f"{KEY} brand-new-value-0") == "[REDACTED] %NEW%"
    assert again.expand("%NEW%") == "brand-new-value-0" and "circle-own" not in repr(again)


def test_the_masker_alone_writes_each_values_labels() -> None:
    masker = Masker(
        [Hide("first-value-000000", "<1>", "<1 part>"), Hide("second-value-11111", "<2>", "<2 part>")]
    )
    assert masker.mask("first-value-000000 second-val") == "<1> <2 part>"
    assert not Masker([]) and Masker([]).mask("abc") == "abc"
