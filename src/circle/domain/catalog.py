"""What a model can do and what it costs, as the catalog (models.dev, settings) tells it.

A :class:`ModelTable` finds a model by the id a person or an endpoint uses, trying in turn:

1. the id exactly (under the ``provider`` given, then as ``provider/id`` when its first part names
   a provider of the table, then under any provider, first-party providers first), then the same
   with leading ``vendor/`` parts dropped (``accounts/x/models/gpt-4o`` finds ``gpt-4o``);
2. the same, ignoring case;
3. the same with a dated suffix dropped (``gpt-4o-mini-2024-07-18`` finds ``gpt-4o-mini``).

``models`` in settings.json overrides what the catalog says (:func:`with_override`).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

from pydantic import BaseModel, ConfigDict, Field

DEFAULT_CONTEXT_WINDOW = 128_000
REFRESH_ENV = "CIRCLE_CATALOG_REFRESH"
"""Set to ``0`` (or off, false, no) to keep the catalog from refreshing itself from models.dev."""

_DATED = re.compile(
    r"^(?P<base>.+?)[-@_](?:\d{4}-\d{2}-\d{2}|20\d{6}|(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01]))$"
)


@dataclass(frozen=True, slots=True)
class Prices:
    """US dollars per million tokens."""

    input: float = 0.0
    output: float = 0.0
    cache_read: float = 0.0
    cache_write: float = 0.0


def prices(
    input: float, output: float, *, cache_read: float | None = None, cache_write: float | None = None
) -> Prices:
    """Prices where a missing cache price is the input price: a cost is never under-counted."""
    return Prices(
        input=input,
        output=output,
        cache_read=input if cache_read is None else cache_read,
        cache_write=input if cache_write is None else cache_write,
    )


@dataclass(frozen=True, slots=True)
class ModelInfo:
    """One model. ``known`` is False for a model the catalog does not have."""

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


class PricesOverride(BaseModel):
    """Prices in settings.json, US dollars per million tokens; a missing one keeps the catalog's."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    input: float | None = Field(default=None, ge=0)
    output: float | None = Field(default=None, ge=0)
    cache_read: float | None = Field(default=None, ge=0)
    cache_write: float | None = Field(default=None, ge=0)


class ModelOverride(BaseModel):
    """One entry of ``models`` in settings.json: what to believe about a model over the catalog."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    context: int | None = Field(default=None, gt=0)
    output: int | None = Field(default=None, gt=0)
    prices: PricesOverride | None = None
    reasoning: bool | None = None
    images: bool | None = None


def with_override(info: ModelInfo, override: ModelOverride) -> ModelInfo:
    """``info`` with what ``override`` says in place of the catalog's values."""
    price = info.prices
    given = override.prices
    if given is not None:
        base = price or Prices()
        cache_read, cache_write = given.cache_read, given.cache_write
        if price is not None:
            cache_read = price.cache_read if cache_read is None else cache_read
            cache_write = price.cache_write if cache_write is None else cache_write
        price = prices(
            base.input if given.input is None else given.input,
            base.output if given.output is None else given.output,
            cache_read=cache_read,
            cache_write=cache_write,
        )
    return replace(
        info,
        context_window=override.context or info.context_window,
        max_output=override.output or info.max_output,
        prices=price,
        reasoning=info.reasoning if override.reasoning is None else override.reasoning,
        reads_images=info.reads_images if override.images is None else override.images,
    )


def find_override(
    overrides: Mapping[str, ModelOverride], model_id: str, info: ModelInfo
) -> ModelOverride | None:
    """The override for the id asked for, or for the catalog's model it found (case ignored)."""
    if not overrides:
        return None
    folded = {key.lower(): value for key, value in overrides.items()}
    for key in (model_id, f"{info.provider}/{info.id}" if info.provider else info.id, info.id):
        if key.lower() in folded:
            return folded[key.lower()]
    return None


def strip_date(model_id: str) -> str:
    """``model_id`` without a dated suffix (``-2024-07-18``, ``-20241022``, ``@20250929``, ``-0613``)."""
    match = _DATED.match(model_id)
    return match.group("base") if match else model_id


class ModelTable:
    """Models by provider and id, found the forgiving way the module docstring describes.

    Args:
        models: every model with its ``provider``; when two providers have the same id, the
            one given first wins a lookup that names no provider.
    """

    def __init__(self, models: Iterable[ModelInfo]) -> None:
        self._exact: dict[tuple[str, str], ModelInfo] = {}
        self._folded: dict[tuple[str, str], ModelInfo] = {}
        self._bare: dict[str, ModelInfo] = {}
        self._bare_folded: dict[str, ModelInfo] = {}
        for info in models:
            self._exact.setdefault((info.provider, info.id), info)
            self._folded.setdefault((info.provider.lower(), info.id.lower()), info)
            self._bare.setdefault(info.id, info)
            self._bare_folded.setdefault(info.id.lower(), info)

    def __len__(self) -> int:
        return len(self._exact)

    def find(self, model_id: str, *, provider: str | None = None) -> ModelInfo | None:
        """The model ``model_id`` names, or None."""
        forms = [model_id]
        if (undated := strip_date(model_id)) != model_id:
            forms.append(undated)
        for form in forms:
            for fold in (False, True):
                found = self._find(form, provider, fold=fold)
                if found is not None:
                    return found
        return None

    def _find(self, model_id: str, provider: str | None, *, fold: bool) -> ModelInfo | None:
        exact, bare = (self._folded, self._bare_folded) if fold else (self._exact, self._bare)
        key = model_id.lower() if fold else model_id
        hint = (provider.lower() if fold else provider) if provider else None
        while key:
            head, slash, tail = key.partition("/")
            found = (
                (exact.get((hint, key)) if hint else None)
                or (exact.get((head, tail)) if slash else None)
                or bare.get(key)
            )
            if found is not None:
                return found
            key = tail
        return None


def similar_models(name: str, listed: Sequence[str], *, count: int = 3) -> list[str]:
    """The listed models most like ``name``, best first: those whose id holds it (ignoring case
    and a ``vendor/`` prefix), then those spelled like it."""
    wanted = name.strip().lower().rsplit("/", 1)[-1]
    by_lower = {model.lower(): model for model in listed}
    holding = [model for low, model in by_lower.items() if wanted and wanted in low]
    spelled = difflib.get_close_matches(wanted, list(by_lower), n=count, cutoff=0.6)
    found = dict.fromkeys([*holding, *(by_lower[low] for low in spelled)])
    return list(found)[:count]


def refresh_allowed(env: Mapping[str, str]) -> bool:
    """False when ``CIRCLE_CATALOG_REFRESH`` says the catalog must not go to the network."""
    return env.get(REFRESH_ENV, "").strip().lower() not in ("0", "off", "false", "no")


__all__ = [
    "DEFAULT_CONTEXT_WINDOW",
    "REFRESH_ENV",
    "ModelInfo",
    "ModelOverride",
    "ModelTable",
    "Prices",
    "PricesOverride",
    "find_override",
    "prices",
    "refresh_allowed",
    "similar_models",
    "strip_date",
    "unknown_model",
    "with_override",
]
