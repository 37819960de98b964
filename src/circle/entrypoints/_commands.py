"""Subcommands: `circle trust`, `circle settings`, `circle sessions`, `circle models`, `circle export`
and `circle import`."""

from __future__ import annotations

import asyncio
import functools
import os
import time
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Annotated

import typer

from circle.adapters._shared.settings_files import approve_project_hooks, data_dir, project_hooks_state
from circle.application.ports.session_store import SessionStore
from circle.domain.catalog import Prices, refresh_allowed
from circle.domain.pricing import format_usd, session_cost
from circle.domain.spend import stand_ins

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
        hooks = resolved / ".circle" / "hooks.json"
        if project_hooks_state(data_dir(os.environ), hooks) in ("new", "changed"):
            approve_project_hooks(data_dir(os.environ), hooks)
            typer.echo(
                f"approved its hooks as they are now: {hooks} (run `circle trust` again after it changes)"
            )
        return 0

    raise typer.Exit(guard(lambda: _run(go)))


@commands.command()
def settings(
    folder: Annotated[Path, typer.Argument(help="The folder whose settings to show.")] = Path("."),
) -> None:
    """Show the settings in effect in FOLDER, each with the file it came from."""
    import sys

    from ._settings_view import show_settings

    resolved = folder.resolve()
    if not resolved.is_dir():
        raise typer.BadParameter(f"{folder} is not a folder")
    raise typer.Exit(guard(lambda: _run(lambda: show_settings(resolved, out=sys.stdout))))


@commands.command()
def sessions(
    args: Annotated[
        list[str] | None,
        typer.Argument(
            metavar="[FOLDER] | delete ID | show ID | label ID[:CHECKPOINT] NAME",
            help="Only this folder's sessions.",
        ),
    ] = None,
    limit: Annotated[int, typer.Option("--limit", "-n", min=1)] = 20,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Delete without asking.")] = False,
) -> None:
    """List sessions, newest first; `delete ID` deletes one (it asks), `show ID` prints its tree,
    `label ID[:CHECKPOINT] NAME` names a checkpoint (by default where the session goes on)."""
    from . import _sessions

    words = list(args or [])
    if words and words[0] == "label":
        if len(words) != 3:
            raise typer.BadParameter("`circle sessions label ID[:CHECKPOINT] NAME` takes a target and a name")
        _, target, text = words
        raise typer.Exit(guard(lambda: _run(lambda: _sessions.label(_store_path(), target, text))))
    if words and words[0] in ("delete", "show"):
        if len(words) != 2:
            raise typer.BadParameter(f"`circle sessions {words[0]} ID` takes one session id")
        verb, session_id = words
        act = (
            (lambda: _sessions.delete(_store_path(), session_id, yes=yes))
            if verb == "delete"
            else (lambda: _sessions.show(_store_path(), session_id))
        )
        raise typer.Exit(guard(lambda: _run(act)))
    if len(words) > 1:
        raise typer.BadParameter("give one FOLDER, or `delete ID`, `show ID` or `label ID[:CHECKPOINT] NAME`")
    folder = Path(words[0]) if words else None

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
            size = _sessions.human_size(info.size_bytes)
            typer.echo(
                f"{info.id}  {info.name or '-'}  {when}  {info.message_count:4} msgs  {spent:>10}"
                f"  {size:>8}  {info.workspace}  {title}"
            )
        return 0

    raise typer.Exit(guard(lambda: _run(go)))


@commands.command()
def rewind(
    folder: Annotated[Path, typer.Argument(help="The folder whose latest session to rewind.")] = Path("."),
    session: Annotated[str | None, typer.Option(help="The session (default: the folder's latest).")] = None,
    list_turns: Annotated[bool, typer.Option("--list", help="List the turns that changed files.")] = False,
    turn: Annotated[int | None, typer.Option(min=1, help="The turn (default: the newest to rewind).")] = None,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Restore without asking.")] = False,
) -> None:
    """Put back the files a turn changed: all of them, or none when one changed since."""
    import sys

    from ._rewind import RewindRequest, run_rewind

    request = RewindRequest(folder=folder, session=session, list_turns=list_turns, turn=turn, yes=yes)
    raise typer.Exit(guard(lambda: _run(lambda: run_rewind(request, out=sys.stdout, err=sys.stderr))))


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


@commands.command("export")
def export_(
    session_id: Annotated[str, typer.Argument(metavar="ID", help="The session to export.")],
    export_format: Annotated[
        str | None, typer.Option("--format", "-f", help="md, html or jsonl (else from --output's extension).")
    ] = None,
    output: Annotated[Path | None, typer.Option("--output", "-o", help="Write here, not to stdout.")] = None,
) -> None:
    """Export session ID as Markdown (the default on stdout), a self-contained HTML page, or JSONL."""
    from circle.domain.errors import ConfigError
    from circle.domain.export import ExportFormat, format_from_name, parse_format

    try:
        chosen: ExportFormat = (
            parse_format(export_format)
            if export_format
            else format_from_name(output.name)
            if output
            else "md"
        )
    except ConfigError as exc:
        raise typer.BadParameter(exc.message, param_hint="--format") from None

    async def go() -> int:
        from circle.adapters.storage.sqlite_store import SqliteSessionStore
        from circle.application.session_branches import latest_branch
        from circle.application.transfer import export_session, render

        from ._transfer import write_text

        if not _store_path().exists():
            raise ConfigError(f"no session {session_id}")
        store = SqliteSessionStore(_store_path())
        try:
            archive = await export_session(store, session_id)
            branch = await latest_branch(store, session_id)  # the one it opens on, as --session does
        finally:
            await store.aclose()
        text = render(archive, chosen, branch=branch)
        if output is None:
            typer.echo(text, nl=False)
        else:
            write_text(output, text)
            typer.echo(f"exported {session_id} to {output}", err=True)
        return 0

    raise typer.Exit(guard(lambda: _run(go)))


@commands.command("import")
def import_(
    path: Annotated[
        Path, typer.Argument(metavar="FILE", help="A JSONL export (circle export ID -o FILE.jsonl).")
    ],
    folder: Annotated[
        Path | None, typer.Option("--folder", help="The new session's folder (else the export's).")
    ] = None,
) -> None:
    """Import a JSONL export as a new session, and print its id."""

    async def go() -> int:
        from circle.adapters.storage.sqlite_store import SqliteSessionStore
        from circle.application.transfer import import_session

        from ._transfer import read_archive

        archive = read_archive(path)
        store = SqliteSessionStore(_store_path())
        try:
            info = await import_session(
                store, archive, workspace=str(folder.resolve()) if folder is not None else None
            )
        finally:
            await store.aclose()
        typer.echo(info.id)
        return 0

    raise typer.Exit(guard(lambda: _run(go)))


async def _costs(store: SessionStore, session_ids: list[str]) -> dict[str, float | None]:
    """What each session's calls cost (on all its branches, its compactions' own too), priced by
    the catalog and settings.json's ``models``.

    An answer whose model name the catalog cannot price (a gateway's own name) counts at the
    prices of a priced model among the session's (the last by name), as the loop counts it at the
    session model's.
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
        messages = stand_ins(await store.spent(session_id))  # all its calls, as its footer counts them
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
