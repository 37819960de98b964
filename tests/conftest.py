"""Suite-wide guards and paths."""

from __future__ import annotations

import ipaddress
import os
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlparse

import pytest

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO.parent / "shared" / "fixtures"


def _is_loopback(url: str) -> bool:
    host = urlparse(url).hostname or ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@pytest.fixture(autouse=True)
def _isolated_home(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Iterator[None]:
    """Every test gets its own data folder and no endpoint from the machine's environment."""
    monkeypatch.setenv("CIRCLE_HOME", str(tmp_path_factory.mktemp("circle-home")))
    monkeypatch.setenv("CIRCLE_CATALOG_REFRESH", "0")  # the model catalog never goes to models.dev
    for name in (
        "CIRCLE_BASE_URL",
        "CIRCLE_API_KEY",
        "CIRCLE_MODEL",
        "CIRCLE_PROTOCOL",
        "OPENAI_BASE_URL",
        "OPENAI_API_KEY",
        "ANTHROPIC_API_KEY",
        "ANTHROPIC_BASE_URL",
    ):
        monkeypatch.delenv(name, raising=False)
    yield
    for name in ("CIRCLE_BASE_URL", "OPENAI_BASE_URL"):
        url = os.environ.get(name)
        assert url is None or _is_loopback(url), f"a test pointed {name} at a non-loopback URL: {url}"


def fixtures_dir() -> Path:
    if not FIXTURES.is_dir():
        pytest.skip(f"the shared fixtures folder is absent ({FIXTURES})")
    return FIXTURES
