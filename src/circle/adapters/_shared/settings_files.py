"""settings.json, credentials.json, approvals.json and hooks.json: where they are and what they say."""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

from circle.adapters._shared.data_folder import data_dir as data_dir  # re-exported: its home before
from circle.adapters._shared.private_files import private_folder
from circle.domain.approval_rules import Rule, RuleLayer, parse_rules
from circle.domain.errors import ConfigError
from circle.domain.hooks import HookConfig, ProjectHooksState, parse_hooks
from circle.domain.secrets import SECRET_NAME
from circle.domain.settings import (
    SettingsFile,
    SettingsLayers,
    layer_settings,
    parse_settings_file,
    unknown_keys,
)

HOOKS_APPROVED = "hooks_approved.json"


def _read_json(path: Path) -> object:
    """The parsed JSON in ``path``; None when the file is missing or blank."""
    content = _read_bytes(path)
    return None if content is None else _parse_json(content, path)


def load_settings(
    data: Path, workspace: Path | None = None, *, project_trusted: bool = False
) -> SettingsFile:
    """The data folder's settings.json, with a trusted project's .circle/settings.json over it
    (key by key, the person's alone for what :data:`~circle.domain.settings.PERSON_ONLY` names)."""
    return load_settings_layers(data, workspace, project_trusted=project_trusted).settings


def load_settings_layers(
    data: Path, workspace: Path | None = None, *, project_trusted: bool = False
) -> SettingsLayers:
    """As :func:`load_settings`, with the file each value came from and what the project may not set.

    Raises:
        ConfigError: a settings file cannot be read, is not JSON, or does not have the settings' shape.
    """
    path = data / "settings.json"
    person_raw = _read_json(path) or {}
    person = parse_settings_file(person_raw, source=str(path))
    unknown = unknown_keys(person_raw, source=str(path))
    project = None
    project_path = workspace / ".circle" / "settings.json" if workspace is not None else None
    if project_path is not None and project_trusted:
        project_raw = _read_json(project_path)
        if project_raw is not None:
            project = parse_settings_file(project_raw, source=str(project_path))
            unknown += unknown_keys(project_raw, source=str(project_path))
    layers = layer_settings(person, project, person_source=str(path), project_source=str(project_path or ""))
    return replace(layers, ignored=(*unknown, *layers.ignored)) if unknown else layers


def load_approval_rules(path: Path) -> list[Rule]:
    """The rules of one approvals.json; none when it is missing or empty.

    Raises:
        ConfigError: the file cannot be read, is not JSON, or does not hold rules.
    """
    return parse_rules(_read_json(path), source=str(path))


def load_rule_layers(
    data: Path, workspace: Path | None = None, *, project_trusted: bool = False
) -> dict[RuleLayer, list[Rule]]:
    """The person's approvals.json (``user``) and, for a trusted project, its .circle/approvals.json."""
    layers: dict[RuleLayer, list[Rule]] = {"user": load_approval_rules(data / "approvals.json")}
    if workspace is not None and project_trusted:
        layers["project"] = load_approval_rules(workspace / ".circle" / "approvals.json")
    return layers


def load_hooks(data: Path, workspace: Path | None = None, *, project_trusted: bool = False) -> HookConfig:
    """The person's hooks.json, with a trusted project's .circle/hooks.json once it is approved.

    A project file that is new or changed since the person approved it is left out and named in
    ``unapproved``; :func:`approve_project_hooks` approves it as it is.
    """
    path = data / "hooks.json"
    config = parse_hooks(_read_json(path), source=str(path), origin="user")
    if workspace is None or not project_trusted:
        return config
    project = workspace / ".circle" / "hooks.json"
    content = _read_bytes(project)
    state = _hooks_state(data, project, content)
    if state == "approved" and content is not None:
        return config.merged(
            parse_hooks(_parse_json(content, project), source=str(project), origin="project")
        )
    if state in ("new", "changed"):
        return config.merged(HookConfig(unapproved=(str(project),)))
    return config


def project_hooks_state(data: Path, path: Path) -> ProjectHooksState:
    """Whether the project hooks file at ``path`` is as the person approved it (hooks_approved.json)."""
    return _hooks_state(data, path, _read_bytes(path))


def approve_project_hooks(data: Path, path: Path) -> str:
    """Record the project hooks file at ``path``, as it is now, as approved; return its sha256."""
    content = _read_bytes(path)
    if content is None:
        raise ConfigError(f"there is no {path} to approve")
    digest = hashlib.sha256(content).hexdigest()
    store = data / HOOKS_APPROVED
    try:
        raw = _read_json(store)
    except ConfigError:
        raw = None
    entries = raw if isinstance(raw, dict) else {}
    entries[str(path.resolve())] = digest
    _write_json(store, entries)
    return digest


def _hooks_state(data: Path, path: Path, content: bytes | None) -> ProjectHooksState:
    if content is None:
        return "absent"
    try:
        raw = _read_json(data / HOOKS_APPROVED)
    except ConfigError:
        raw = None
    approved = raw.get(str(path.resolve())) if isinstance(raw, dict) else None
    if approved is None:
        return "new"
    return "approved" if approved == hashlib.sha256(content).hexdigest() else "changed"


def _read_bytes(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror}") from None


def _parse_json(content: bytes, path: Path) -> object:
    text = content.decode("utf-8", errors="replace")
    if not text.strip():
        return None
    try:
        return json.loads(text)
    except ValueError as exc:
        raise ConfigError(f"{path} is not valid JSON: {exc}") from None
    except RecursionError:
        raise ConfigError(f"{path} is not usable JSON: it is nested too deeply") from None


def save_endpoint_settings(data: Path, *, base_url: str, protocol: str, model: str) -> None:
    """Put the endpoint (base URL, protocol) and the model in settings.json, keeping the rest.

    Raises:
        ConfigError: settings.json exists but is not JSON (it is left as it is).
    """
    path = data / "settings.json"
    raw = _read_json(path)
    settings = raw if isinstance(raw, dict) else {}
    endpoint = settings.get("endpoint")
    settings["endpoint"] = {
        **(endpoint if isinstance(endpoint, dict) else {}),
        "base_url": base_url,
        "protocol": protocol,
    }
    settings["model"] = model
    _write_json(path, settings)


def _write_json(path: Path, value: object) -> None:
    """Replace ``path`` with ``value`` as JSON, whole, 0600 in a 0700 data folder."""
    private_folder(path.parent)
    tmp = path.with_suffix(".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(json.dumps(value, indent=2))
    os.replace(tmp, path)


def load_credentials(data: Path) -> dict[str, str]:
    """credentials.json (kept 0600): string values only."""
    path = data / "credentials.json"
    raw = _read_json(path)
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise ConfigError(f"{path} must hold a JSON object")
    return {str(k): v for k, v in raw.items() if isinstance(v, str)}


DOTENV_SCAN_LIMIT = 5_000
"""Entries of the workspace looked at, at most, for its dotenv files."""
_SKIPPED = frozenset({".git", "node_modules", ".venv", "venv", "__pycache__", ".tox", ".mypy_cache"})


def load_dotenv_texts(workspace: Path) -> list[str]:
    """The texts of the workspace's dotenv credential files (``.env``, ``.env.local``, ``.envrc``, not
    the templates), a few folders deep, whose values Circle hides from the model in every output."""
    from circle.domain.credentials import is_credential_path

    texts: list[str] = []
    seen = 0
    for folder, dirs, files in os.walk(workspace):
        dirs[:] = [
            d for d in dirs if d not in _SKIPPED and folder.count(os.sep) - str(workspace).count(os.sep) < 3
        ]
        seen += len(dirs) + len(files)
        for name in files:
            if name.lower().startswith(".env") and is_credential_path(name):
                try:
                    with open(os.path.join(folder, name), "rb") as handle:
                        texts.append(handle.read(1_000_000).decode("utf-8", errors="replace"))
                except OSError:
                    continue
        if seen > DOTENV_SCAN_LIMIT:
            break
    return texts


def load_secrets(data: Path) -> dict[str, str]:
    """secrets.json (kept 0600): ``{"NAME": "value"}``, the secrets the model writes ``%NAME%``.

    Raises:
        ConfigError: The file is not JSON, not an object, or has a bad name or a value that is not text.
    """
    path = data / "secrets.json"
    raw = _read_json(path)
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise ConfigError(f'{path} must hold a JSON object: {{"NAME": "value"}}')
    for name, value in raw.items():
        if not SECRET_NAME.fullmatch(name):
            raise ConfigError(f"{path}: {name!r} is not a secret name (letters, digits and _)")
        if not isinstance(value, str):
            raise ConfigError(f"{path}: the value of {name} must be a string")
    return {str(name): str(value) for name, value in raw.items()}


def save_credentials(data: Path, values: Mapping[str, str]) -> None:
    _write_private(data / "credentials.json", values)


def save_secrets(data: Path, values: Mapping[str, str]) -> None:
    """Write secrets.json (0600) with ``values``, the whole set."""
    _write_private(data / "secrets.json", values)


def _write_private(path: Path, values: Mapping[str, str]) -> None:
    """A JSON object only the person can read (0600)."""
    private_folder(path.parent)
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
    _write_json(path, entries)
