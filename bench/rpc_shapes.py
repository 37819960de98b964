"""Run pi's RpcClient scenario (tests/e2e/pi_rpc_client.mjs) against pi itself and against Circle,
both pointed at the loopback gateway with the same answers, and diff the shapes of what each sent:
every response's ``data`` and every event, by type, as the set of key paths with their JSON types.

    .venv/bin/python bench/rpc_shapes.py [--out PATH]

pi is the npm package @mariozechner/pi-coding-agent, installed as the RPC test installs it (in
``CIRCLE_TEST_PI_DIR``, else the temporary folder). Each side runs in a throwaway home: pi reads
the gateway from ``~/.pi/agent/models.json`` as the provider ``loopback``; Circle from its
environment. The summary says, for each command and event, what only pi sends, what only Circle
sends, and where the types differ; the exit code is 0 either way (the diff is the result).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from circle._testing.gateway import ScriptedGateway
from circle._testing.rpc_scenario import pi_models_json, scenario_answer

ROOT = Path(__file__).resolve().parents[1]

SCRIPT = ROOT / "tests" / "e2e" / "pi_rpc_client.mjs"
PACKAGE = "@mariozechner/pi-coding-agent"


def pi_folder() -> Path:
    folder = Path(os.environ.get("CIRCLE_TEST_PI_DIR") or Path(tempfile.gettempdir()) / "circle-pi-client")
    if not (folder / "node_modules" / PACKAGE / "dist" / "cli.js").exists():
        folder.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            ["npm", "install", "--no-audit", "--no-fund", "--prefix", str(folder), PACKAGE], check=True
        )
    return folder


def trust(data: Path, folder: Path) -> None:
    """Trust ``folder`` in the data folder ``data``, as `circle trust` would."""
    from circle.adapters.storage.sqlite_store import SqliteTrustList

    async def go() -> None:
        trusted = SqliteTrustList(data / "circle.sqlite")
        try:
            await trusted.trust(str(folder))
        finally:
            await trusted.aclose()

    asyncio.run(go())


def run(agent: str, package: Path, base_url: str, home: Path) -> dict[str, Any]:
    """One side's scenario: what pi's client saw, as the script prints it."""
    workspace = home / "work"
    workspace.mkdir(parents=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CIRCLE_", "OPENAI_", "ANTHROPIC_"))}
    env.update(HOME=str(home), PI_OFFLINE="1", PI_SKIP_VERSION_CHECK="1")
    if agent == "pi":
        (home / ".pi" / "agent").mkdir(parents=True)
        (home / ".pi" / "agent" / "models.json").write_text(pi_models_json(base_url))
        command = ["node", str(SCRIPT), str(package), "pi", str(workspace), "loopback", "scripted"]
    else:
        data = home / "circle-data"
        trust(data, workspace)
        env.update(CIRCLE_HOME=str(data), CIRCLE_BASE_URL=base_url, CIRCLE_API_KEY="test-key")
        env.update(CIRCLE_MODEL="scripted", CIRCLE_CATALOG_REFRESH="0")
        circle = shutil.which("circle", path=str(Path(sys.executable).parent)) or "circle"
        command = ["node", str(SCRIPT), str(package), circle, str(workspace), "openai", "scripted"]
    done = subprocess.run(command, env=env, cwd=workspace, capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        raise SystemExit(f"{agent}: the scenario failed ({done.returncode}): {done.stderr[-2000:]}")
    seen: dict[str, Any] = json.loads(done.stdout)
    return seen


def paths(value: Any, prefix: str = "") -> Iterator[tuple[str, str]]:
    """Each key path of ``value`` with its JSON type (``[]`` for a list's items)."""
    kind = type(value).__name__
    names = {"dict": "object", "list": "array", "str": "string", "int": "number", "float": "number"}
    yield prefix or ".", names.get(kind, "null" if value is None else kind)
    if isinstance(value, dict):
        for key, item in value.items():
            yield from paths(item, f"{prefix}.{key}")
    elif isinstance(value, list):
        for item in value:
            yield from paths(item, f"{prefix}[]")


def shapes(seen: dict[str, Any]) -> dict[str, dict[str, set[str]]]:
    """By ``event <type>`` and ``call <method>``: each key path and the types seen at it."""
    found: dict[str, dict[str, set[str]]] = {}
    for event in seen["all"]:
        kind = event["type"]
        if kind == "message_update":
            kind += " " + event["assistantMessageEvent"]["type"]
        into = found.setdefault(f"event {kind}", {})
        for path, kind_of in paths(event):
            into.setdefault(path, set()).add(kind_of)
    for name, call in seen["calls"].items():
        into = found.setdefault(f"call {name}", {})
        if not call["ok"]:
            into.setdefault("(failed)", set()).add(call["error"][:120])
            continue
        for path, kind_of in paths(call["data"]):
            into.setdefault(path, set()).add(kind_of)
    return found


def diff(pi: dict[str, dict[str, set[str]]], circle: dict[str, dict[str, set[str]]]) -> list[str]:
    lines: list[str] = []
    for name in sorted(set(pi) | set(circle)):
        if name not in circle:
            lines.append(f"{name}: only pi sends it")
            continue
        if name not in pi:
            lines.append(f"{name}: only Circle sends it")
            continue
        left, right = pi[name], circle[name]
        only_pi = sorted(p for p in left if p not in right)
        only_circle = sorted(p for p in right if p not in left)
        typed = sorted(p for p in left if p in right and not left[p] & right[p])
        if not (only_pi or only_circle or typed):
            lines.append(f"{name}: same shape")
            continue
        lines.append(f"{name}:")
        lines.extend(f"    only pi:     {p} ({'/'.join(sorted(left[p]))})" for p in only_pi)
        lines.extend(f"    only Circle: {p} ({'/'.join(sorted(right[p]))})" for p in only_circle)
        lines.extend(f"    types:       {p} pi {sorted(left[p])} Circle {sorted(right[p])}" for p in typed)
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, help="also write the summary here")
    args = parser.parse_args()
    package = pi_folder()
    seen: dict[str, dict[str, Any]] = {}
    for agent in ("pi", "circle"):
        with tempfile.TemporaryDirectory() as home, ScriptedGateway(fallback=scenario_answer) as gateway:
            seen[agent] = run(agent, package, gateway.base_url, Path(home))
    lines = diff(shapes(seen["pi"]), shapes(seen["circle"]))
    heads = [line for line in lines if not line.startswith(" ")]
    same = sum(line.endswith("same shape") for line in heads)
    lacking, name = set(), ""
    for line in lines:
        if not line.startswith(" "):
            name = line.split(":")[0]
            if line.endswith("only pi sends it"):
                lacking.add(name)
        elif line.lstrip().startswith(("only pi", "types")):
            lacking.add(name)
    summary = [
        f"{len(heads)} commands and events compared: {same} have the same shape; "
        f"{len(heads) - len(lacking)} hold everything pi's do (Circle may add fields); "
        f"{len(lacking)} lack or retype something of pi's: {', '.join(sorted(lacking))}",
        "",
        *lines,
    ]
    text = "\n".join(summary) + "\n"
    sys.stdout.write(text)
    if args.out is not None:
        args.out.write_text(text)


if __name__ == "__main__":
    main()
