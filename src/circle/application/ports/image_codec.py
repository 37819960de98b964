"""ImageCodec: measuring images and scaling large ones down before they are sent."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True, slots=True)
class FittedImage:
    data: bytes
    media_type: str
    width: int
    height: int
    original_width: int
    original_height: int

    @property
    def scaled(self) -> bool:
        return (self.width, self.height) != (self.original_width, self.original_height)


class ImageCodec(Protocol):
    async def fit(self, data: bytes, *, max_side: int, max_bytes: int) -> FittedImage:
        """The image within ``max_side`` pixels a side and ``max_bytes``; ``ValueError`` if not an image."""
        ...
