from pathlib import Path

from circle.adapters.models.probe import candidates, read_listing
from circle.application.ports.endpoint_probe import ProbeResult
from circle.domain.errors import ModelConnectionError
from circle.domain.settings import SettingsFile, resolve_endpoint
from circle.entrypoints.discovery import settle_protocol


def test_candidates_try_with_and_without_v1() -> None:
    assert candidates("http://h:1") == ["http://h:1", "http://h:1/v1"]
    assert candidates("http://h:1/v1/") == ["http://h:1/v1", "http://h:1"]


def test_listings_tell_anthropic_from_openai() -> None:
    anthropic = {"data": [{"type": "model", "id": "claude-x", "display_name": "X"}], "has_more": False}
    openai = {"object": "list", "data": [{"id": "b", "object": "model"}, {"id": "a", "object": "model"}]}
    assert read_listing(anthropic) == (True, ["claude-x"])
    assert read_listing(openai) == (False, ["a", "b"])
    assert read_listing({"error": "nope"}) is None
    assert read_listing(["not", "a", "listing"]) is None


def test_the_url_and_keys_tell_the_protocol_when_they_can() -> None:
    said = resolve_endpoint(
        SettingsFile(), {"CIRCLE_PROTOCOL": "anthropic", "CIRCLE_BASE_URL": "http://127.0.0.1:1"}
    )
    assert (said.protocol, said.protocol_known) == ("anthropic", True)
    by_host = resolve_endpoint(SettingsFile(), {"CIRCLE_BASE_URL": "https://api.anthropic.com"})
    assert (by_host.protocol, by_host.protocol_known) == ("anthropic", True)
    by_key = resolve_endpoint(SettingsFile(), {"ANTHROPIC_API_KEY": "k"})
    assert (by_key.protocol, by_key.base_url, by_key.api_key) == (
        "anthropic",
        "https://api.anthropic.com",
        "k",
    )
    unknown = resolve_endpoint(SettingsFile(), {"CIRCLE_BASE_URL": "http://127.0.0.1:8000"})
    assert (unknown.protocol, unknown.protocol_known) == ("openai-chat", False)


class FakeProbe:
    def __init__(self, result: ProbeResult | None) -> None:
        self.result = result
        self.calls: list[str] = []

    async def probe(self, base_url: str, api_key: str | None, *, timeout_s: float) -> ProbeResult:
        self.calls.append(base_url)
        if self.result is None:
            raise ModelConnectionError("cannot reach it")
        return self.result


async def test_an_unknown_protocol_is_probed_once_and_remembered(tmp_path: Path) -> None:
    endpoint = resolve_endpoint(SettingsFile(), {"CIRCLE_BASE_URL": "http://127.0.0.1:8000"})
    probe = FakeProbe(ProbeResult(base_url="http://127.0.0.1:8000", protocol="anthropic", models=("m",)))
    settled = await settle_protocol(endpoint, tmp_path, probe)
    assert (settled.protocol, settled.protocol_known) == ("anthropic", True)
    again = await settle_protocol(endpoint, tmp_path, FakeProbe(None))
    assert again.protocol == "anthropic"
    assert probe.calls == ["http://127.0.0.1:8000"]


async def test_a_failed_probe_keeps_the_default(tmp_path: Path) -> None:
    endpoint = resolve_endpoint(SettingsFile(), {"CIRCLE_BASE_URL": "http://127.0.0.1:8000"})
    settled = await settle_protocol(endpoint, tmp_path, FakeProbe(None))
    assert settled.protocol == "openai-chat"
    assert not (tmp_path / "endpoints.json").exists()
