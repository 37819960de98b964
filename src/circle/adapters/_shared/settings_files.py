"""settings.json and credentials.json: where they are and what they say."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path

from circle.domain.errors import ConfigError
from circle.domain.settings import SettingsFile, merge_files, parse_settings_file


def data_dir(env: Mapping[str, str]) -> Path:
    """The data folder: ``CIRCLE_HOME``, else the platform's user data folder."""
    home = env.get("CIRCLE_HOME")
    if home:
        return Path(home).expanduser().resolve()
    import platformdirs

    return Path(platformdirs.user_data_dir("circle", appauthor=False))


def _read_json(path: Path) -> object:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror}") from None
    if not text.strip():
        return None
    try:
        return json.loads(text)
    except ValueError as exc:
        raise ConfigError(f"{path} is not valid JSON: {exc}") from None


def load_settings(
    data: Path, workspace: Path | None = None, *, project_trusted: bool = False
) -> SettingsFile:
    """The data folder's settings.json, with a trusted project's .circle/settings.json over it."""
    path = data / "settings.json"
    raw = _read_json(path)
    settings = parse_settings_file(raw or {}, source=str(path))
    if workspace is not None and project_trusted:
        project_path = workspace / ".circle" / "settings.json"
        project_raw = _read_json(project_path)
        if project_raw is not None:
            settings = merge_files(settings, parse_settings_file(project_raw, source=str(project_path)))
    return settings


def load_credentials(data: Path) -> dict[str, str]:
    """credentials.json (kept 0600): string values only."""
    path = data / "credentials.json"
    raw = _read_json(path)
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise ConfigError(f"{path} must hold a JSON object")
    return {str(k): v for k, v in raw.items() if isinstance(v, str)}


def save_credentials(data: Path, values: Mapping[str, str]) -> None:
    data.mkdir(parents=True, exist_ok=True)
    path = data / "credentials.json"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        json.dump(dict(values), handle, indent=2)
    os.chmod(path, 0o600)


def load_probed(data: Path, base_url: str) -> dict[str, str] | None:
    """What an earlier probe found for ``base_url`` (endpoints.json), if anything."""
    raw = _read_json(data / "endpoints.json")
    entry = raw.get(base_url) if isinstance(raw, dict) else None
    if (
        isinstance(entry, dict)
        and isinstance(entry.get("protocol"), str)
        and isinstance(entry.get("base_url"), str)
    ):
        return {"protocol": entry["protocol"], "base_url": entry["base_url"]}
    return None


def save_probed(data: Path, base_url: str, *, protocol: str, probed_base_url: str) -> None:
    path = data / "endpoints.json"
    try:
        raw = _read_json(path)
    except ConfigError:
        raw = None
    entries = raw if isinstance(raw, dict) else {}
    entries[base_url] = {"protocol": protocol, "base_url": probed_base_url}
    data.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(entries, indent=2), encoding="utf-8")
    os.replace(tmp, path)
