"""A key settings.json does not know is ignored with one warning naming the closest known key."""

from __future__ import annotations

from pathlib import Path

from circle.adapters._shared.settings_files import load_settings_layers
from circle.domain.settings import unknown_keys


def test_a_misspelt_key_names_the_closest_one() -> None:
    said = unknown_keys({"aproval_mode": "auto", "model": "m"}, source="settings.json")
    assert said == ("settings.json: unknown setting 'aproval_mode' is ignored: did you mean approval_mode?",)


def test_sections_are_checked_and_known_keys_are_quiet() -> None:
    data = {
        "$schema": "x",
        "endpoint": {"base_url": "u", "protocl": "anthropic"},
        "compaction": {"keep": 0.2},
    }
    assert unknown_keys(data, source="s") == (
        "s: unknown setting 'endpoint.protocl' is ignored: did you mean endpoint.protocol?",
    )


def test_a_key_like_nothing_lists_the_known_ones() -> None:
    (line,) = unknown_keys({"zzz": 1}, source="s")
    assert "unknown setting 'zzz' is ignored (known: endpoint, model," in line


def test_loading_the_file_carries_the_warning(tmp_path: Path) -> None:
    (tmp_path / "settings.json").write_text('{"aproval_mode": "auto"}')
    layers = load_settings_layers(tmp_path)
    where = tmp_path / "settings.json"
    assert [line for line in layers.ignored if "aproval_mode" in line] == [
        f"{where}: unknown setting 'aproval_mode' is ignored: did you mean approval_mode?"
    ]
    assert layers.settings.approval_mode is None
