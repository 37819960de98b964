"""The ``images`` of an RPC ``prompt`` (pi's ``ImageContent``: ``{type, data, mimeType}``) as the
media parts a message carries, made as ``@file`` attachments make them (scaled, checked, sized)."""

from __future__ import annotations

import base64
import binascii

from pydantic import JsonValue

from circle.application.attachments import MediaPart, check_media_size, media_part
from circle.application.ports.image_codec import ImageCodec
from circle.domain.errors import AttachmentError


class ImagesError(ValueError):
    """``images`` that cannot be sent: the one line saying why."""


async def image_parts(given: JsonValue, images: ImageCodec | None) -> tuple[MediaPart, ...]:
    """The media parts for ``given`` (None or a list of ``ImageContent``), in their order.

    Raises:
        ImagesError: ``given`` is not a list of images, one is not base64, or cannot be read.
    """
    if given is None:
        return ()
    if not isinstance(given, list):
        raise ImagesError('"images" is a list of {"type": "image", "data": <base64>, "mimeType"}')
    parts: list[MediaPart] = []
    for number, item in enumerate(given, 1):
        shown = f"image {number}"
        if not isinstance(item, dict) or not isinstance(item.get("data"), str):
            raise ImagesError(f'{shown} needs "data" (base64) and "mimeType"')
        media_type = item.get("mimeType")
        if not isinstance(media_type, str) or not media_type.strip():
            raise ImagesError(f'{shown} needs "mimeType", such as "image/png"')
        try:
            data = base64.b64decode(str(item["data"]), validate=True)
        except (binascii.Error, ValueError):
            raise ImagesError(f'{shown}: "data" is not base64') from None
        try:
            check_media_size(len(data), media_type, shown)
            part, _ = await media_part(data, media_type, shown=shown, images=images)
        except AttachmentError as exc:
            raise ImagesError(exc.message) from None
        parts.append(part)
    return tuple(parts)


__all__ = ["ImagesError", "image_parts"]
