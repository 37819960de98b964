"""`circle settings [FOLDER]`: the settings in effect in a folder, each with the file it came from.

The person's settings.json, and a trusted project's .circle/settings.json over it key by key,
except the keys only the person sets (:data:`~circle.domain.settings.PERSON_ONLY`); a project key
left out is named with why, and so is an environment variable that beats a file.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import TextIO

from circle.adapters._shared.settings_files import data_dir, load_settings_layers
from circle.domain.settings import SettingsFile, SettingsLayers

BEATEN_BY: Mapping[str, tuple[str, ...]] = {
    "model": ("CIRCLE_MODEL",),
    "endpoint": ("CIRCLE_BASE_URL", "CIRCLE_PROTOCOL"),
}
"""The environment variables that beat a settings key (the command line's options beat both)."""


async def show_settings(folder: Path, *, out: TextIO, env: Mapping[str, str] | None = None) -> int:
    """Print the settings in effect in ``folder``, each with its source; the exit code."""
    env = dict(os.environ) if env is None else env
    data = data_dir(env)
    trusted = await _trusted(data, folder)
    layers = load_settings_layers(data, folder, project_trusted=trusted)
    out.write(render(layers, env=env, person=data / "settings.json", project=_project(folder, trusted)))
    return 0


def render(layers: SettingsLayers, *, env: Mapping[str, str], person: Path, project: tuple[Path, str]) -> str:
    """The report: both files, then each key set somewhere, its value and where it came from."""
    project_path, project_state = project
    lines = [
        f"settings: {person}{'' if person.exists() else ' (none)'}",
        f"project settings: {project_path} ({project_state})",
    ]
    values = layers.settings.model_dump(mode="json")
    for key in SettingsFile.model_fields:
        if key not in layers.sources:
            continue
        shown = json.dumps(values[key], ensure_ascii=False, separators=(", ", ": "))
        said = [name for name in BEATEN_BY.get(key, ()) if env.get(name)]
        beaten = f"; {', '.join(said)} in the environment beats it" if said else ""
        lines.append(f"  {key} = {shown}  (from {layers.sources[key]}{beaten})")
    if len(lines) == 2:
        lines.append("  nothing is set: Circle's defaults apply")
    lines += [f"  {line}" for line in layers.ignored]
    return "\n".join(lines) + "\n"


def _project(folder: Path, trusted: bool) -> tuple[Path, str]:
    path = folder / ".circle" / "settings.json"
    if not path.exists():
        return path, "none"
    if trusted:
        return path, "read: the folder is trusted"
    return path, f"not read: the folder is not trusted; `circle trust {folder}` trusts it"


async def _trusted(data: Path, folder: Path) -> bool:
    """Whether ``folder`` is trusted, asking nothing (and creating no store where there is none)."""
    store = data / "circle.sqlite"
    if not store.exists():
        return False
    from circle.adapters.storage.sqlite_store import SqliteTrustList

    trust_list = SqliteTrustList(store)
    try:
        return await trust_list.is_trusted(str(folder))
    finally:
        await trust_list.aclose()


__all__ = ["render", "show_settings"]
