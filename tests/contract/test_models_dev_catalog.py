"""ModelsDevCatalog's data: the shipped snapshot, the daily refresh (a fake fetch, a fake clock)."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from circle.adapters.catalog._snapshot import decode, encode, from_api, from_fixture
from circle.adapters.catalog.models_dev import SNAPSHOT_NAME, STAMP_NAME, ModelsDevCatalog
from circle.domain.catalog import Prices
from circle.testing import FakeClock

REPO = Path(__file__).resolve().parents[2]
PACKAGED = REPO / "src" / "circle" / "adapters" / "catalog" / SNAPSHOT_NAME
FIXTURE = REPO.parent / "shared" / "fixtures" / "models" / "models-dev.json"
DAY = 86_400.0
NOW = 1_900_000_000.0  # later than the packaged snapshot, so a refreshed copy is the newer


def api_json(*, price: float = 9.0) -> bytes:
    """A small document in models.dev's api.json shape."""
    model = {
        "id": "fresh-model",
        "name": "Fresh",
        "limit": {"context": 1000, "output": 100},
        "cost": {"input": price, "output": price * 2},
        "modalities": {"input": ["text", "image"], "output": ["text"]},
        "reasoning": True,
        "tool_call": True,
    }
    return json.dumps({"acme": {"id": "acme", "name": "Acme", "models": {"fresh-model": model}}}).encode()


class FakeFetch:
    """Answers each fetch from a script: bytes, or an exception to raise; counts the calls."""

    def __init__(self, *answers: bytes | Exception) -> None:
        self.answers = list(answers)
        self.calls = 0

    def __call__(self) -> bytes:
        self.calls += 1
        answer = self.answers.pop(0) if len(self.answers) > 1 else self.answers[0]
        if isinstance(answer, Exception):
            raise answer
        return answer


def inline(work: Callable[[], None]) -> None:
    work()


def catalog(tmp_path: Path, fetch: FakeFetch, clock: FakeClock) -> ModelsDevCatalog:
    return ModelsDevCatalog(tmp_path, clock=clock.now, fetch=fetch, spawn=inline)


@pytest.mark.skipif(not FIXTURE.is_file(), reason=f"no models.dev fixture at {FIXTURE}")
def test_the_packaged_snapshot_is_the_fixture_compacted() -> None:
    source = json.loads(FIXTURE.read_text())
    rebuilt = encode(
        from_fixture(source, updated=decode(PACKAGED.read_bytes()).updated, source=_source_label(source))
    )
    assert rebuilt == PACKAGED.read_bytes(), "run scripts/update_catalog.py on the fixture"
    assert len(decode(rebuilt).models) == len(source["models"])


def _source_label(source: dict[str, dict[str, str]]) -> str:
    return f"{source['_source']['repository']} @ {source['_source']['commit']}"


def test_a_first_lookup_refreshes_once_and_uses_the_fresh_data(tmp_path: Path) -> None:
    fetch, clock = FakeFetch(api_json()), FakeClock(now=NOW)
    models = catalog(tmp_path, fetch, clock)
    fresh = models.lookup("fresh-model")
    assert fetch.calls == 1 and models.updated == NOW
    assert (fresh.provider, fresh.context_window, fresh.prices) == ("acme", 1000, Prices(9, 18, 9, 9))
    assert fresh.reads_images and fresh.reasoning
    assert models.lookup("gpt-4o-mini").known is False  # the refreshed copy is all there is now
    assert (tmp_path / STAMP_NAME).read_text().split() == [str(NOW), "done"]
    assert decode((tmp_path / SNAPSHOT_NAME).read_bytes()).updated == NOW


def test_the_refreshed_copy_is_read_by_the_next_process_without_fetching(tmp_path: Path) -> None:
    clock = FakeClock(now=NOW)
    catalog(tmp_path, FakeFetch(api_json()), clock).lookup("x")
    clock.advance(DAY - 60)
    later = FakeFetch(api_json(price=1.0))
    again = catalog(tmp_path, later, clock)
    assert again.lookup("fresh-model").prices == Prices(9, 18, 9, 9)
    assert later.calls == 0


def test_a_day_later_it_refreshes_again(tmp_path: Path) -> None:
    clock = FakeClock(now=NOW)
    catalog(tmp_path, FakeFetch(api_json()), clock).lookup("x")
    clock.advance(DAY + 1)
    later = FakeFetch(api_json(price=1.0))
    assert catalog(tmp_path, later, clock).lookup("fresh-model").prices == Prices(1, 2, 1, 1)
    assert later.calls == 1


@pytest.mark.parametrize(
    "answer",
    [OSError("Name or service not known"), b"<html>busy</html>", b"{}", b'{"acme": {"models": []}}'],
    ids=["offline", "not-json", "empty", "bad-shape"],
)
def test_a_failed_refresh_keeps_the_old_data_quietly_for_a_day(
    tmp_path: Path, answer: bytes | Exception, capsys: pytest.CaptureFixture[str]
) -> None:
    fetch, clock = FakeFetch(answer), FakeClock(now=NOW)
    models = catalog(tmp_path, fetch, clock)
    assert models.lookup("gpt-4o-mini").prices is not None
    assert fetch.calls == 1 and not (tmp_path / SNAPSHOT_NAME).exists()
    assert capsys.readouterr() == ("", "")
    clock.advance(DAY - 60)
    assert catalog(tmp_path, fetch, clock).refresh_if_due() is False
    assert fetch.calls == 1


def test_a_refresh_cut_short_is_tried_again_after_an_hour(tmp_path: Path) -> None:
    (tmp_path / STAMP_NAME).write_text(f"{NOW} started\n")
    fetch, clock = FakeFetch(api_json()), FakeClock(now=NOW + 60)
    assert catalog(tmp_path, fetch, clock).refresh_if_due() is False
    clock.advance(3600)
    assert catalog(tmp_path, fetch, clock).refresh_if_due() is True and fetch.calls == 1


def test_an_older_or_broken_refreshed_copy_loses_to_the_packaged_snapshot(tmp_path: Path) -> None:
    old = from_api(json.loads(api_json()), updated=1.0)
    (tmp_path / SNAPSHOT_NAME).write_bytes(encode(old))
    models = ModelsDevCatalog(tmp_path, refresh=False)
    assert models.lookup("gpt-4o-mini").known and not models.lookup("fresh-model").known
    (tmp_path / SNAPSHOT_NAME).write_bytes(b"\x1f\x8b garbage")
    assert ModelsDevCatalog(tmp_path, refresh=False).lookup("gpt-4o-mini").known


def test_no_refresh_when_turned_off_or_the_folder_is_read_only(tmp_path: Path) -> None:
    fetch = FakeFetch(api_json())
    ModelsDevCatalog(tmp_path, fetch=fetch, refresh=False, spawn=inline).lookup("gpt-4o")
    assert fetch.calls == 0
    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    models = ModelsDevCatalog(blocked, fetch=fetch, spawn=inline)
    assert models.lookup("gpt-4o").known and fetch.calls == 0


def test_the_refresh_runs_in_the_background_and_never_holds_up_a_lookup(tmp_path: Path) -> None:
    release = threading.Event()

    def slow_fetch() -> bytes:
        release.wait(10)
        return api_json()

    models = ModelsDevCatalog(tmp_path, fetch=slow_fetch, clock=lambda: NOW)
    started = time.monotonic()
    assert models.lookup("gpt-4o-mini").known
    assert models.refresh_if_due() is False  # one refresh at a time
    assert time.monotonic() - started < 5
    release.set()
    deadline = time.monotonic() + 10
    while models.updated != NOW and time.monotonic() < deadline:
        time.sleep(0.01)
    assert models.lookup("fresh-model").known


def test_loading_the_catalog_imports_no_http_client(tmp_path: Path) -> None:
    code = (
        "import sys, time; from pathlib import Path; "
        "from circle.adapters.catalog.models_dev import ModelsDevCatalog; t = time.perf_counter(); "
        f"info = ModelsDevCatalog(Path({str(tmp_path)!r}), refresh=False).lookup('gpt-4o-mini'); "
        "print(info.known, 'httpx' in sys.modules, time.perf_counter() - t)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    known, httpx_loaded, seconds = out.split()
    assert (known, httpx_loaded) == ("True", "False")
    assert float(seconds) < 0.5
