"""Subcommands: `circle trust [FOLDER]` and `circle sessions [FOLDER]`."""

from __future__ import annotations

import asyncio
import functools
import os
import time
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Annotated

import typer

from circle.adapters._shared.settings_files import data_dir
from circle.application.ports.session_store import SessionStore
from circle.domain.catalog import Prices, refresh_allowed
from circle.domain.pricing import format_usd, session_cost

from ._crash import guard

commands = typer.Typer(
    add_completion=False, no_args_is_help=True, context_settings={"help_option_names": ["-h", "--help"]}
)


def _store_path() -> Path:
    return data_dir(os.environ) / "circle.sqlite"


@commands.command()
def trust(folder: Annotated[Path, typer.Argument(help="The folder to trust.")] = Path(".")) -> None:
    """Trust FOLDER (and everything below it): Circle may work there."""
    resolved = folder.resolve()
    if not resolved.is_dir():
        raise typer.BadParameter(f"{folder} is not a folder")

    async def go() -> int:
        from circle.adapters.storage.sqlite_store import SqliteTrustList

        trust_list = SqliteTrustList(_store_path())
        try:
            await trust_list.trust(str(resolved))
        finally:
            await trust_list.aclose()
        typer.echo(f"trusted {resolved}")
        return 0

    raise typer.Exit(guard(lambda: _run(go)))


@commands.command()
def sessions(
    folder: Annotated[Path | None, typer.Argument(help="Only this folder's sessions.")] = None,
    limit: Annotated[int, typer.Option("--limit", "-n", min=1)] = 20,
) -> None:
    """List sessions, newest first."""

    async def go() -> int:
        from circle.adapters.storage.sqlite_store import SqliteSessionStore

        path = _store_path()
        if not path.exists():
            typer.echo("no sessions yet")
            return 0
        store = SqliteSessionStore(path)
        try:
            found = await store.list_sessions(
                workspace=str(folder.resolve()) if folder else None, limit=limit
            )
            costs = await _costs(store, [info.id for info in found])
        finally:
            await store.aclose()
        if not found:
            typer.echo("no sessions yet")
        for info in found:
            when = time.strftime("%Y-%m-%d %H:%M", time.localtime(info.updated_at))
            title = (info.title or "").replace("\n", " ")[:60]
            cost = costs[info.id]
            spent = "-" if cost is None else format_usd(cost)
            typer.echo(
                f"{info.id}  {when}  {info.message_count:4} msgs  {spent:>10}  {info.workspace}  {title}"
            )
        return 0

    raise typer.Exit(guard(lambda: _run(go)))


@commands.command()
def models(
    base_url: Annotated[str | None, typer.Option("--base-url", help="Probe this URL instead.")] = None,
) -> None:
    """Ask the endpoint for its models, and tell its protocol and base URL."""

    async def go() -> int:
        from circle.adapters._shared.settings_files import load_credentials, load_settings, save_probed
        from circle.domain.settings import resolve_endpoint

        from .discovery import make_probe

        env = dict(os.environ)
        if base_url:
            env["CIRCLE_BASE_URL"] = base_url
        data = data_dir(env)
        endpoint = resolve_endpoint(load_settings(data), env, load_credentials(data))
        found = await make_probe().probe(endpoint.base_url, endpoint.api_key, timeout_s=endpoint.timeout_s)
        save_probed(data, endpoint.base_url, protocol=found.protocol, probed_base_url=found.base_url)
        typer.echo(f"endpoint {found.base_url} speaks {found.protocol}; {len(found.models)} models:")
        for model in found.models:
            typer.echo(f"{'*' if model == endpoint.model else ' '} {model}")
        return 0

    raise typer.Exit(guard(lambda: _run(go)))


async def _costs(store: SessionStore, session_ids: list[str]) -> dict[str, float | None]:
    """What each session's answers cost, priced by the catalog and settings.json's ``models``.

    An answer whose model name the catalog cannot price (a gateway's own name) counts at the
    prices of the session's last priced answer, as the loop counts it at the session model's.
    """
    from circle.adapters._shared.settings_files import load_settings
    from circle.adapters.catalog.models_dev import ModelsDevCatalog

    data = data_dir(os.environ)
    catalog = ModelsDevCatalog(
        data, overrides=load_settings(data).models, refresh=refresh_allowed(os.environ)
    )

    @functools.cache
    def prices_for(model: str | None) -> Prices | None:
        return catalog.lookup(model).prices if model else None

    costs: dict[str, float | None] = {}
    for session_id in session_ids:
        messages = [cp.message for cp in await store.history(session_id)]
        priced = [p for m in messages if m.role == "assistant" and (p := prices_for(m.model)) is not None]
        fallback = priced[-1] if priced else None

        def price(model: str | None, fallback: Prices | None = fallback) -> Prices | None:
            found = prices_for(model)
            return found if found is not None else fallback

        costs[session_id] = session_cost(messages, price)
    return costs


def _run(go: Callable[[], Coroutine[None, None, int]]) -> int:
    from circle.domain.errors import CircleError

    try:
        return asyncio.run(go())
    except CircleError as exc:
        typer.echo(f"circle: {exc.message}", err=True)
        return 1
