"""The compact models.dev snapshot: its format, how it is made, and how it is read.

The snapshot is gzip-compressed JSON keeping only what Circle uses::

    {"format": 1, "source": "...", "updated": 1782950400.0,
     "providers": {"openai": {"gpt-4o-mini": {
         "name": "GPT-4o mini", "context": 128000, "output": 16384,
         "cost": {"input": 0.15, "output": 0.6, "cache_read": 0.075},
         "image": true, "pdf": true, "reasoning": false, "tool_call": true}}}}

``cost`` is US dollars per million tokens; ``updated`` (seconds since the epoch) decides which
of two snapshots is newer. It is made from models.dev's ``api.json`` (:func:`from_api`) or from
the per-model fixture of ``shared/fixtures/models`` (:func:`from_fixture`).
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from circle.domain.catalog import DEFAULT_CONTEXT_WINDOW, ModelInfo, Prices, prices

FORMAT = 1
PREFERRED = ("openai", "anthropic", "google", "deepseek", "mistral", "xai", "moonshotai")
"""First-party providers win a lookup that names no provider, in this order; aggregators lose."""
AGGREGATORS = frozenset({"openrouter"})
_COSTS = ("input", "output", "cache_read", "cache_write")

Compact = dict[str, object]


@dataclass(frozen=True, slots=True)
class Snapshot:
    updated: float
    models: tuple[ModelInfo, ...]


def _number(value: object) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _mapping(value: object) -> Mapping[str, object]:
    return value if isinstance(value, Mapping) else {}


def compact_model(
    *,
    name: object,
    context: object,
    output: object,
    cost: object,
    inputs: object,
    reasoning: object,
    tool_call: object,
) -> Compact:
    """One model in the snapshot's shape; absent or malformed values are left out."""
    entry: Compact = {}
    if isinstance(name, str) and name:
        entry["name"] = name
    for key, value in (("context", context), ("output", output)):
        number = _number(value)
        if number is not None and number > 0:
            entry[key] = int(number)
    costs = {key: _number(_mapping(cost).get(key)) for key in _COSTS}
    if costs["input"] is not None and costs["output"] is not None:
        entry["cost"] = {key: value for key, value in costs.items() if value is not None}
    modalities = inputs if isinstance(inputs, list) else []
    for flag, value in (
        ("image", "image" in modalities),
        ("pdf", "pdf" in modalities),
        ("reasoning", reasoning is True),
        ("tool_call", tool_call is True),
    ):
        entry[flag] = value
    return entry


def snapshot(providers: Mapping[str, Mapping[str, Compact]], *, updated: float, source: str) -> Compact:
    """The whole snapshot, providers and models in a stable order."""
    ordered = {p: {m: dict(providers[p][m]) for m in sorted(providers[p])} for p in sorted(providers)}
    return {"format": FORMAT, "source": source, "updated": updated, "providers": ordered}


def from_api(data: object, *, updated: float, source: str = "https://models.dev/api.json") -> Compact:
    """A snapshot of models.dev's ``api.json`` (``{provider: {models: {id: {...}}}}``)."""
    top = _mapping(data)
    wrapped = top.get("providers")
    providers_in = _mapping(wrapped) if isinstance(wrapped, Mapping) else top
    providers: dict[str, dict[str, Compact]] = {}
    for provider, body in providers_in.items():
        models = _mapping(_mapping(body).get("models"))
        for model_id, raw in models.items():
            model = _mapping(raw)
            limit = _mapping(model.get("limit"))
            providers.setdefault(provider, {})[model_id] = compact_model(
                name=model.get("name"),
                context=limit.get("context"),
                output=limit.get("output"),
                cost=model.get("cost"),
                inputs=_mapping(model.get("modalities")).get("input"),
                reasoning=model.get("reasoning"),
                tool_call=model.get("tool_call"),
            )
    return snapshot(providers, updated=updated, source=source)


def from_fixture(data: object, *, updated: float, source: str) -> Compact:
    """A snapshot of the fixture's ``{"models": {"provider/id": {...}}}`` shape."""
    providers: dict[str, dict[str, Compact]] = {}
    for key, raw in _mapping(_mapping(data).get("models")).items():
        provider, slash, model_id = key.partition("/")
        if not slash:
            continue
        model = _mapping(raw)
        providers.setdefault(provider, {})[model_id] = compact_model(
            name=model.get("name"),
            context=model.get("context"),
            output=model.get("output"),
            cost=model.get("cost_per_mtok"),
            inputs=model.get("modalities_in"),
            reasoning=model.get("reasoning"),
            tool_call=model.get("tool_call"),
        )
    return snapshot(providers, updated=updated, source=source)


def encode(data: Compact) -> bytes:
    """Gzip-compressed JSON; the same snapshot always gives the same bytes."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return gzip.compress(text.encode("utf-8"), compresslevel=9, mtime=0)


def decode(blob: bytes) -> Snapshot:
    """Read a snapshot; its models come first-party providers first, aggregators last.

    Raises:
        ValueError: the bytes are not a snapshot of a format this version reads.
    """
    try:
        data = json.loads(gzip.decompress(blob))
    except (OSError, EOFError, UnicodeDecodeError) as exc:
        raise ValueError(f"not a gzip-compressed JSON snapshot: {exc}") from None
    top = _mapping(data)
    updated = _number(top.get("updated"))
    if top.get("format") != FORMAT or updated is None:
        raise ValueError(f"not a snapshot of format {FORMAT}")
    providers = _mapping(top.get("providers"))
    models = tuple(
        _model_info(provider, model_id, _mapping(entry))
        for provider in _provider_order(providers)
        for model_id, entry in _mapping(providers[provider]).items()
    )
    return Snapshot(updated=updated, models=models)


def _provider_order(providers: Iterable[str]) -> list[str]:
    rank = {name: index for index, name in enumerate(PREFERRED)}
    return sorted(providers, key=lambda p: (p in AGGREGATORS, rank.get(p, len(rank)), p))


def _model_info(provider: str, model_id: str, entry: Mapping[str, object]) -> ModelInfo:
    context = _number(entry.get("context"))
    output = _number(entry.get("output"))
    name = entry.get("name")
    return ModelInfo(
        id=model_id,
        name=name if isinstance(name, str) else model_id,
        provider=provider,
        context_window=int(context) if context else DEFAULT_CONTEXT_WINDOW,
        max_output=int(output) if output else None,
        prices=_prices(_mapping(entry.get("cost"))),
        reads_images=entry.get("image") is True,
        reads_pdfs=entry.get("pdf") is True,
        reasoning=entry.get("reasoning") is True,
        tool_calls=entry.get("tool_call") is True,
    )


def _prices(cost: Mapping[str, object]) -> Prices | None:
    given = {key: _number(cost.get(key)) for key in _COSTS}
    input_price, output_price = given["input"], given["output"]
    if input_price is None or output_price is None:
        return None
    return prices(input_price, output_price, cache_read=given["cache_read"], cache_write=given["cache_write"])


__all__ = ["FORMAT", "Snapshot", "decode", "encode", "from_api", "from_fixture", "snapshot"]
