"""What a model that reads no images (or PDFs) is sent instead of them.

The stored conversation keeps the bytes; only the outbound request changes. Each message is
looked at once and its rewrite (or itself) reused, so adapters' per-message caches keep working;
the part of the last request's messages a request begins with is taken as it was
(:func:`~circle.domain.prefix.seen_length`), so a round costs what it added.
"""

from __future__ import annotations

from collections.abc import Sequence

from circle.domain.media import PDF_TYPE, image_note
from circle.domain.messages import DocumentPart, ImagePart, Message, Part, TextPart, ToolResultPart
from circle.domain.prefix import seen_length


class MediaFilter:
    def __init__(self, *, reads_images: bool, reads_pdfs: bool) -> None:
        self.reads_images = reads_images
        self.reads_pdfs = reads_pdfs
        self._rewritten: dict[int, tuple[Message, Message]] = {}
        self._last: tuple[tuple[Message, ...], tuple[Message, ...]] = ((), ())

    def apply(self, messages: Sequence[Message]) -> tuple[Message, ...]:
        if self.reads_images and self.reads_pdfs:
            return tuple(messages)
        seen, sent = self._last
        known = seen_length(seen, messages)
        result = sent[:known] + tuple(self._one(m) for m in messages[known:])
        self._last = (tuple(messages), result)
        return result

    def _one(self, message: Message) -> Message:
        cached = self._rewritten.get(id(message))
        if cached is not None and cached[0] is message:
            return cached[1]
        result = message
        if any(self._drops(p) or isinstance(p, ToolResultPart) for p in message.parts):
            parts = tuple(self._part(p) for p in message.parts)
            result = message if parts == message.parts else message.model_copy(update={"parts": parts})
        self._rewritten[id(message)] = (message, result)  # kept unchanged too: looked at once
        return result

    def _drops(self, part: object) -> bool:
        if isinstance(part, ImagePart):
            return not self.reads_images
        if isinstance(part, DocumentPart):
            return not (self.reads_pdfs if part.media_type == PDF_TYPE else self.reads_images)
        return False

    def _part(self, part: Part) -> Part:
        if isinstance(part, ToolResultPart):
            content = tuple(self._note(c) if self._drops(c) else c for c in part.content)
            return part if content == part.content else part.model_copy(update={"content": content})
        return self._note(part) if self._drops(part) else part

    @staticmethod
    def _note(part: Part) -> TextPart:
        assert isinstance(part, ImagePart | DocumentPart)
        name = part.name if isinstance(part, DocumentPart) else None
        return TextPart(text=image_note(name, part.media_type))
