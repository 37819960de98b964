"""Pillow behind the ImageCodec port: decode, scale down (area averaging), re-encode."""

from __future__ import annotations

import asyncio
import io

from circle.application.ports.image_codec import FittedImage

_FORMATS = {"PNG": "image/png", "JPEG": "image/jpeg", "GIF": "image/gif", "WEBP": "image/webp"}


def _fit(data: bytes, max_side: int, max_bytes: int) -> FittedImage:
    from PIL import Image, UnidentifiedImageError

    try:
        image = Image.open(io.BytesIO(data))
        image.load()
    except UnidentifiedImageError:  # its message names a BytesIO object: of no use to anyone
        raise ValueError("not a readable image: damaged, cut short or not an image at all") from None
    except (OSError, SyntaxError) as exc:
        raise ValueError(f"not a readable image: {exc}") from None
    media_type = _FORMATS.get(image.format or "", "image/png")
    width, height = image.size
    if max(width, height) <= max_side and len(data) <= max_bytes:
        return FittedImage(data, media_type, width, height, width, height)
    scale = min(1.0, max_side / max(width, height))
    while True:
        size = (max(1, int(width * scale)), max(1, int(height * scale)))
        resized = image.convert("RGBA" if image.mode in ("RGBA", "LA", "P") else "RGB").resize(
            size, Image.Resampling.BOX
        )
        out = io.BytesIO()
        if media_type == "image/png" or resized.mode == "RGBA":
            resized.save(out, format="PNG", optimize=True)
            new_type = "image/png"
        else:
            resized.save(out, format="JPEG", quality=85)
            new_type = "image/jpeg"
        if out.tell() <= max_bytes or scale < 0.05:
            return FittedImage(out.getvalue(), new_type, size[0], size[1], width, height)
        scale *= 0.75


class PillowImageCodec:
    async def fit(self, data: bytes, *, max_side: int, max_bytes: int) -> FittedImage:
        return await asyncio.to_thread(_fit, data, max_side, max_bytes)
