import pytest

from circle.domain.errors import ConfigError
from circle.domain.settings import (
    DEFAULT_BASE_URL,
    SettingsFile,
    merge_files,
    parse_settings_file,
    resolve_endpoint,
)


def test_environment_beats_settings() -> None:
    settings = parse_settings_file(
        {"endpoint": {"base_url": "http://127.0.0.1:1/v1"}, "model": "from-file"}, source="s"
    )
    env = {"CIRCLE_BASE_URL": "http://127.0.0.1:2/v1", "CIRCLE_MODEL": "from-env", "CIRCLE_API_KEY": "k"}
    endpoint = resolve_endpoint(settings, env)
    assert (endpoint.base_url, endpoint.model, endpoint.api_key) == ("http://127.0.0.1:2/v1", "from-env", "k")


def test_defaults_and_openai_variables() -> None:
    endpoint = resolve_endpoint(SettingsFile(), {"OPENAI_API_KEY": "sk"})
    assert (endpoint.base_url, endpoint.protocol, endpoint.api_key, endpoint.model) == (
        DEFAULT_BASE_URL,
        "openai-chat",
        "sk",
        None,
    )
    assert (
        resolve_endpoint(SettingsFile(), {"OPENAI_BASE_URL": "http://127.0.0.1:9"}).base_url
        == "http://127.0.0.1:9"
    )


def test_key_from_a_named_variable_then_credentials() -> None:
    settings = parse_settings_file({"endpoint": {"api_key_env": "MY_KEY"}}, source="s")
    assert resolve_endpoint(settings, {"MY_KEY": "named"}).api_key == "named"
    assert resolve_endpoint(settings, {}, {"api_key": "stored"}).api_key == "stored"


def test_the_command_line_model_wins() -> None:
    assert resolve_endpoint(SettingsFile(model="a"), {"CIRCLE_MODEL": "b"}, model_override="c").model == "c"


def test_bad_values_are_config_errors() -> None:
    with pytest.raises(ConfigError, match="unknown protocol 'grpc'"):
        resolve_endpoint(SettingsFile(), {"CIRCLE_PROTOCOL": "grpc"})
    with pytest.raises(ConfigError, match="CIRCLE_LLM_TIMEOUT"):
        resolve_endpoint(SettingsFile(), {"CIRCLE_LLM_TIMEOUT": "soon"})
    with pytest.raises(ConfigError, match=r"settings.json: endpoint.protocol"):
        parse_settings_file({"endpoint": {"protocol": "smoke"}}, source="settings.json")


def test_project_settings_override_key_by_key() -> None:
    base = parse_settings_file(
        {"endpoint": {"base_url": "u", "protocol": "anthropic"}, "model": "m"}, source="a"
    )
    merged = merge_files(base, parse_settings_file({"endpoint": {"base_url": "v"}}, source="b"))
    assert (merged.endpoint.base_url, merged.endpoint.protocol, merged.model) == ("v", "anthropic", "m")


def test_a_projects_compaction_settings_stay_a_model() -> None:
    base = parse_settings_file({"compaction": {"threshold": 0.9}}, source="a")
    merged = merge_files(base, parse_settings_file({"compaction": {"keep": 0.2}}, source="b"))
    assert merged.compaction.keep == 0.2
    assert merge_files(base, parse_settings_file({}, source="c")).compaction.threshold == 0.9
