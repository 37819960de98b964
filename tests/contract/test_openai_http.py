"""How the OpenAI adapters address and sign a request, now that they send it without the SDK."""

from __future__ import annotations

import pytest

from circle._testing.gateway import ScriptedGateway, chat_text
from circle.adapters.models._openai_common import endpoint_url, error_body, request_headers
from circle.domain.errors import ConfigError
from circle.domain.settings import Endpoint


def _endpoint(base_url: str, api_key: str | None = "sk-test") -> Endpoint:
    return Endpoint(base_url=base_url, protocol="openai-chat", api_key=api_key, model="m")


def test_the_path_goes_under_the_base_url_with_its_query_kept() -> None:
    url = endpoint_url("https://host.example/openai/v1?api-version=2", "/chat/completions")
    assert str(url) == "https://host.example/openai/v1/chat/completions?api-version=2"
    assert (
        str(endpoint_url("http://127.0.0.1:8080/v1/", "/responses")) == "http://127.0.0.1:8080/v1/responses"
    )


@pytest.mark.parametrize("base_url", ["not a url", "ftp://host/v1", "http:///v1"])
def test_a_base_url_that_is_not_http_is_a_config_error(base_url: str) -> None:
    with pytest.raises(ConfigError, match="cannot use the endpoint"):
        endpoint_url(base_url, "/chat/completions")


def test_the_organization_and_project_variables_become_headers() -> None:
    env = {"OPENAI_ORG_ID": "org-1", "OPENAI_PROJECT_ID": "proj-2"}
    headers = request_headers(_endpoint("http://127.0.0.1:1/v1"), env)
    assert headers["Authorization"] == "Bearer sk-test"
    assert headers["OpenAI-Organization"] == "org-1"
    assert headers["OpenAI-Project"] == "proj-2"
    assert "OpenAI-Organization" not in request_headers(_endpoint("http://127.0.0.1:1/v1"), {})


def test_an_error_body_is_its_error_object_or_its_text() -> None:
    assert error_body('{"error": {"message": "no"}}') == {"message": "no"}
    assert error_body('{"detail": "no"}') == {"detail": "no"}
    assert error_body("  Bad Gateway \n") == "Bad Gateway"


async def test_every_request_is_made_as_the_client_would_build_it() -> None:
    """The URL, headers and timeout are worked out once: later requests still carry them all."""
    import httpx2

    from circle.adapters.models.openai_chat import OpenAIChatModel
    from circle.domain.messages import Message
    from circle.domain.model import ModelRequest

    with ScriptedGateway() as gateway:
        gateway.enqueue(chat_text("one"), chat_text("two"))
        base = f"{gateway.base_url}?api-version=2"
        client = httpx2.AsyncClient(headers={"X-Client": "yes"}, cookies={"route": "a"})
        model = OpenAIChatModel(_endpoint(base), http_client=client)
        request = ModelRequest(model="m", system="s", messages=(Message.user("hi"),))
        for _ in range(2):
            async for _event in model.stream(request):
                pass
        await client.aclose()
        sent = gateway.requests
    assert [r.path for r in sent] == ["/v1/chat/completions?api-version=2"] * 2
    for recorded in sent:
        headers = {k.lower(): v for k, v in recorded.headers.items()}
        assert headers["authorization"] == "Bearer sk-test"
        assert headers["x-client"] == "yes"  # the client's own headers
        assert headers["cookie"] == "route=a"
        assert "gzip" in headers["accept-encoding"]  # httpx2's defaults
        assert int(headers["content-length"]) == len(recorded.body)
        assert recorded.json()["messages"][-1]["content"] == "hi"
