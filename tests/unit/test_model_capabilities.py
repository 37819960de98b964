"""What the catalog says a model can do shapes the request: thinking, and images or notes."""

from __future__ import annotations

import base64

from circle.domain.catalog import ModelInfo
from circle.testing import Call, InMemoryCatalog, ScriptedModel, answer

from ._harness import WORKSPACE, Harness
from .test_read_media import png


def harness(info: ModelInfo | None) -> Harness:
    h = Harness(catalog=InMemoryCatalog([info] if info else []))
    h.model = ScriptedModel()
    return h


async def _request_thinking(h: Harness) -> object:
    runtime = h.runtime()
    runtime.options.thinking = "high"
    h.model.add(answer("ok"))
    session = await runtime.new_session()
    await session.prompt("hi")
    return h.model.requests[0].thinking


async def test_thinking_is_sent_only_where_the_model_reasons() -> None:
    assert await _request_thinking(harness(ModelInfo(id="scripted", provider="p", reasoning=True))) == "high"
    assert await _request_thinking(harness(ModelInfo(id="scripted", provider="p", reasoning=False))) is None
    assert await _request_thinking(harness(None)) == "high"


async def _image_request(h: Harness) -> str:
    h.files.put(f"{WORKSPACE}/shot.png", png(20, 10))
    h.model.add(answer("", Call("read_file", {"file_path": "shot.png"})), answer("seen"))
    session = await h.runtime().new_session()
    await session.prompt("look")
    result = h.model.requests[1].messages[-1].tool_results[0]
    stored = (await h.store.history(session.session_id))[-2].message.tool_results[0]
    assert stored.content[1].type == "image", "the store keeps the image whatever the model reads"
    return " | ".join(getattr(p, "text", p.type) for p in result.content)


async def test_a_model_that_reads_images_gets_them_others_get_a_note() -> None:
    seeing = await _image_request(harness(ModelInfo(id="scripted", provider="p", reads_images=True)))
    assert seeing == "Image shot.png (20x10, image/png) | image"
    blind = await _image_request(harness(ModelInfo(id="scripted", provider="p", reads_images=False)))
    assert blind.startswith("Image shot.png") and "does not read images" in blind
    assert base64.b64encode(png(20, 10)).decode() not in blind
