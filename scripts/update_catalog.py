"""Rebuild the models.dev snapshot Circle ships: src/circle/adapters/catalog/models_dev.json.gz.

    .venv/bin/python scripts/update_catalog.py                      # from https://models.dev/api.json
    .venv/bin/python scripts/update_catalog.py api.json             # from a saved api.json
    .venv/bin/python scripts/update_catalog.py ../shared/fixtures/models/models-dev.json

The source is models.dev's api.json (``{provider: {models: {...}}}``) or the per-model fixture
(``{"_source": {...}, "models": {"provider/id": {...}}}``); the shape tells which. The snapshot's
date is the fixture's commit date, else ``--updated`` (YYYY-MM-DD), else now. The same input
gives the same bytes, so the file only changes when the data does.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

from circle.adapters.catalog._snapshot import Compact, decode, encode, from_api, from_fixture
from circle.adapters.catalog.models_dev import API_URL, fetch_api_json

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "src" / "circle" / "adapters" / "catalog" / "models_dev.json.gz"


def _epoch(day: str) -> float:
    return datetime.strptime(day[:10], "%Y-%m-%d").replace(tzinfo=UTC).timestamp()


def build(data: object, *, source: str, updated: str | None) -> Compact:
    """The compact snapshot of an api.json or fixture document."""
    if isinstance(data, dict) and isinstance(data.get("_source"), dict) and "models" in data:
        origin = data["_source"]
        day = updated or str(origin.get("commit_date") or "")
        label = f"{origin.get('repository', 'models.dev')} @ {origin.get('commit', '?')}"
        return from_fixture(data, updated=_epoch(day) if day else time.time(), source=label)
    return from_api(data, updated=_epoch(updated) if updated else time.time(), source=source)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("source", nargs="?", default=API_URL, help="api.json or the fixture (a path or URL)")
    parser.add_argument("-o", "--output", type=Path, default=OUT, help="where to write the snapshot")
    parser.add_argument("--updated", help="the snapshot's date, YYYY-MM-DD")
    args = parser.parse_args(argv)
    if args.source.startswith(("http://", "https://")):
        raw = fetch_api_json(args.source)
    else:
        raw = Path(args.source).read_bytes()
    blob = encode(build(json.loads(raw), source=args.source, updated=args.updated))
    models = decode(blob).models
    args.output.write_bytes(blob)
    providers = len({m.provider for m in models})
    print(f"wrote {args.output} ({len(blob):,} bytes): {len(models)} models from {providers} providers")
    return 0


if __name__ == "__main__":
    sys.exit(main())
