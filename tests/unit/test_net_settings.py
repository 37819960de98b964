"""settings.json's ``net``: parsed, merged key by key, and handed to the web client."""

from __future__ import annotations

from pathlib import Path

from circle.adapters.web.httpx_web import HttpxWebClient
from circle.application.runtime import RuntimeOptions
from circle.domain.settings import Endpoint, NetFile, merge_files, parse_settings_file
from circle.entrypoints.container import Config, Container


def test_net_is_read_and_only_the_persons_counts() -> None:
    base = parse_settings_file({"net": {"proxy": "http://proxy:3128", "ca_file": "/ca.pem"}}, source="a")
    merged = merge_files(base, parse_settings_file({"net": {"ca_file": "/other.pem"}}, source="b"))
    assert merged.net == NetFile(proxy="http://proxy:3128", ca_file="/ca.pem")
    assert parse_settings_file({}, source="c").net == NetFile()


def test_the_container_gives_the_web_client_the_net_settings(tmp_path: Path) -> None:
    config = Config(
        workspace=tmp_path,
        data_dir=tmp_path,
        endpoint=Endpoint(base_url="http://127.0.0.1:1", protocol="openai-chat", api_key=None, model="m"),
        options=RuntimeOptions(workspace=str(tmp_path), model="m"),
        net=NetFile(proxy="http://127.0.0.1:3128", ca_file="/ca.pem"),
    )
    web = Container(config=config).web()
    assert isinstance(web, HttpxWebClient)
    assert (web.proxy, web.ca_file) == ("http://127.0.0.1:3128", "/ca.pem")
