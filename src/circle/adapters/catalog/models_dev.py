"""ModelsDevCatalog: the ModelCatalog port on models.dev data, shipped and refreshed once a day.

On first use it reads the snapshot shipped beside this module (``models_dev.json.gz``, made by
``scripts/update_catalog.py``) and the refreshed copy in the data folder, and keeps the newer.
Then, at most once a day (``models_dev.stamp`` in the data folder holds the last try), it fetches
https://models.dev/api.json in a daemon thread: a turn never waits for it, and any failure (no
network, a bad answer, a read-only folder) keeps the data in use and says nothing. A try cut short
by the process ending is made again an hour later. httpx is imported only when a fetch runs.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import tempfile
import threading
import time
from collections.abc import Callable, Mapping
from importlib import resources
from pathlib import Path

from circle.adapters._shared.private_files import private_folder
from circle.domain.catalog import (
    ModelInfo,
    ModelOverride,
    ModelTable,
    find_override,
    unknown_model,
    with_override,
)

from ._snapshot import Snapshot, decode, encode, from_api

API_URL = "https://models.dev/api.json"
SNAPSHOT_NAME = "models_dev.json.gz"
STAMP_NAME = "models_dev.stamp"
REFRESH_EVERY_S = 86_400.0
RETRY_UNFINISHED_S = 3_600.0
"""A refresh that never finished (the process ended first) is tried again after an hour."""

log = logging.getLogger("circle.catalog")

Fetch = Callable[[], bytes]
Spawn = Callable[[Callable[[], None]], None]


def fetch_api_json(url: str = API_URL, *, timeout_s: float = 15.0) -> bytes:
    """models.dev's api.json (imports httpx; proxies come from the environment)."""
    import httpx

    response = httpx.get(
        url,
        timeout=httpx.Timeout(timeout_s, connect=5.0),
        follow_redirects=True,
        headers={"user-agent": "circle"},
    )
    response.raise_for_status()
    return response.content


def _in_daemon_thread(work: Callable[[], None]) -> None:
    threading.Thread(target=work, name="circle-catalog-refresh", daemon=True).start()


class ModelsDevCatalog:
    """Models and prices from models.dev, with settings.json's ``models`` over them.

    Args:
        data_dir: the data folder, where the refreshed copy and the stamp live.
        overrides: ``models`` from settings.json, by model id.
        clock: seconds since the epoch (the stamp and the refreshed copy's date).
        fetch: returns the bytes of api.json; by default an httpx GET of :data:`API_URL`.
        refresh: False never goes to the network.
        spawn: runs the refresh; by default in a daemon thread.
    """

    def __init__(
        self,
        data_dir: Path,
        *,
        overrides: Mapping[str, ModelOverride] | None = None,
        clock: Callable[[], float] = time.time,
        fetch: Fetch | None = None,
        refresh: bool = True,
        spawn: Spawn | None = None,
    ) -> None:
        self.data_dir = Path(data_dir)
        self.overrides = dict(overrides or {})
        self._clock = clock
        self._fetch = fetch or fetch_api_json
        self._refresh = refresh
        self._spawn = spawn or _in_daemon_thread
        self._table: ModelTable | None = None
        self._updated = 0.0
        self._lock = threading.Lock()
        self._refreshing = False

    def lookup(self, model_id: str, *, provider: str | None = None) -> ModelInfo:
        """The model ``model_id`` names (see :class:`~circle.domain.catalog.ModelTable`), or unknown."""
        info = self._loaded().find(model_id, provider=provider) or unknown_model(model_id)
        override = find_override(self.overrides, model_id, info)
        return with_override(info, override) if override is not None else info

    @property
    def updated(self) -> float:
        """When the data in use was made, in seconds since the epoch (0 before the first lookup)."""
        return self._updated

    def refresh_if_due(self) -> bool:
        """Start a refresh when refreshing is on and the last try is a day old; True if one started."""
        if not self._refresh or not self._due():
            return False
        with self._lock:
            if self._refreshing:
                return False
            self._refreshing = True
        try:
            self._spawn(self._refresh_in_background)
        except RuntimeError:  # no thread can start (interpreter shutting down)
            self._refreshing = False
            return False
        return True

    def refresh(self) -> bool:
        """Fetch api.json now, keep a copy in the data folder and use it. False on any failure."""
        try:
            private_folder(self.data_dir)
            self._stamp("started")
            try:
                blob = encode(from_api(json.loads(self._fetch()), updated=self._clock()))
                fresh = decode(blob)
                if not fresh.models:
                    raise ValueError("models.dev answered without models")
                _write_atomically(self.data_dir / SNAPSHOT_NAME, blob)
            finally:
                self._stamp("done")
        except Exception as exc:
            log.debug("the model catalog was not refreshed: %s: %s", type(exc).__name__, exc)
            return False
        self._use(fresh)
        return True

    def _stamp(self, state: str) -> None:
        (self.data_dir / STAMP_NAME).write_text(f"{self._clock()} {state}\n", encoding="utf-8")

    def _refresh_in_background(self) -> None:
        try:
            self.refresh()
        finally:
            self._refreshing = False

    def _loaded(self) -> ModelTable:
        if self._table is None:
            self._use(self._newest())
            self.refresh_if_due()
        assert self._table is not None
        return self._table

    def _use(self, snapshot: Snapshot) -> None:
        self._table = ModelTable(snapshot.models)
        self._updated = snapshot.updated

    def _newest(self) -> Snapshot:
        found: list[Snapshot] = []
        with contextlib.suppress(OSError, ValueError):
            found.append(decode((self.data_dir / SNAPSHOT_NAME).read_bytes()))
        try:
            found.append(
                decode(resources.files("circle.adapters.catalog").joinpath(SNAPSHOT_NAME).read_bytes())
            )
        except (OSError, ValueError) as exc:
            log.warning("the packaged model catalog cannot be read: %s", exc)
        return max(found, key=lambda s: s.updated, default=Snapshot(updated=0.0, models=()))

    def _due(self) -> bool:
        try:
            when, _, state = (self.data_dir / STAMP_NAME).read_text(encoding="utf-8").strip().partition(" ")
            last = float(when)
        except (OSError, ValueError):
            return True
        wait = REFRESH_EVERY_S if state == "done" else RETRY_UNFINISHED_S
        now = self._clock()
        return not (now - wait < last <= now + REFRESH_EVERY_S)


def _write_atomically(path: Path, data: bytes) -> None:
    handle = tempfile.NamedTemporaryFile(dir=path.parent, prefix=f".{path.name}.", delete=False)  # noqa: SIM115
    try:
        with handle:
            handle.write(data)
        os.replace(handle.name, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(handle.name)
        raise


__all__ = ["API_URL", "ModelsDevCatalog", "fetch_api_json"]
