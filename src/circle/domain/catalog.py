"""What a model can do and what it costs, as the catalog (models.dev, settings) tells it."""

from __future__ import annotations

from dataclasses import dataclass

DEFAULT_CONTEXT_WINDOW = 128_000


@dataclass(frozen=True, slots=True)
class Prices:
    """US dollars per million tokens."""

    input: float = 0.0
    output: float = 0.0
    cache_read: float = 0.0
    cache_write: float = 0.0


@dataclass(frozen=True, slots=True)
class ModelInfo:
    id: str
    name: str = ""
    provider: str = ""
    context_window: int = DEFAULT_CONTEXT_WINDOW
    max_output: int | None = None
    prices: Prices | None = None
    reads_images: bool = False
    reads_pdfs: bool = False
    reasoning: bool = False
    tool_calls: bool = True
    known: bool = True


def unknown_model(model_id: str) -> ModelInfo:
    """A sensible default for a model the catalog does not know: text only, 128k, no price."""
    return ModelInfo(id=model_id, known=False)


__all__ = ["DEFAULT_CONTEXT_WINDOW", "ModelInfo", "Prices", "unknown_model"]
