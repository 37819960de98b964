"""The ImageCodec port: Pillow and the fake agree on sizes and scaling."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from circle._testing.images import FakeImageCodec
from circle.adapters.local.images import PillowImageCodec
from circle.application.ports.image_codec import ImageCodec


def make_png(width: int, height: int) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (width, height), (200, 30, 30)).save(out, format="PNG")
    return out.getvalue()


@pytest.fixture(params=["fake", "pillow"])
def codec(request: pytest.FixtureRequest) -> ImageCodec:
    return FakeImageCodec() if request.param == "fake" else PillowImageCodec()


async def test_a_small_image_is_kept(codec: ImageCodec) -> None:
    data = make_png(100, 50)
    fitted = await codec.fit(data, max_side=2000, max_bytes=10_000_000)
    assert (fitted.width, fitted.height, fitted.scaled, fitted.data) == (100, 50, False, data)


async def test_a_wide_image_is_scaled_to_the_limit(codec: ImageCodec) -> None:
    fitted = await codec.fit(make_png(4000, 100), max_side=2000, max_bytes=10_000_000)
    assert fitted.width == 2000 and fitted.height == 50 and fitted.scaled
    assert (fitted.original_width, fitted.original_height) == (4000, 100)


async def test_bytes_that_are_no_image_raise_value_error(codec: ImageCodec) -> None:
    with pytest.raises(ValueError, match="not a readable image"):
        await codec.fit(b"plain text", max_side=10, max_bytes=10)


async def test_pillow_shrinks_to_the_byte_limit() -> None:
    noisy = Image.effect_noise((1500, 1500), 100).convert("RGB")
    out = io.BytesIO()
    noisy.save(out, format="PNG")
    fitted = await PillowImageCodec().fit(out.getvalue(), max_side=2000, max_bytes=200_000)
    assert len(fitted.data) <= 200_000 and fitted.scaled
    assert Image.open(io.BytesIO(fitted.data)).size == (fitted.width, fitted.height)
