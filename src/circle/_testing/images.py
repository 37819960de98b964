"""A fake ImageCodec that reads PNG sizes from the header and never re-encodes."""

from __future__ import annotations

import struct

from circle.application.ports.image_codec import FittedImage


class FakeImageCodec:
    """Measures PNGs from their IHDR chunk; ``fit`` records calls and halves oversized sides."""

    def __init__(self) -> None:
        self.calls: list[tuple[int, int]] = []

    async def fit(self, data: bytes, *, max_side: int, max_bytes: int) -> FittedImage:
        self.calls.append((max_side, max_bytes))
        if not data.startswith(b"\x89PNG\r\n\x1a\n") or len(data) < 24:
            raise ValueError("not a readable image: the fake reads PNG only")
        width, height = struct.unpack(">II", data[16:24])
        new_w, new_h = width, height
        while max(new_w, new_h) > max_side:
            new_w, new_h = max(1, new_w // 2), max(1, new_h // 2)
        return FittedImage(data, "image/png", new_w, new_h, width, height)
