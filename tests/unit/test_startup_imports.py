"""What a one-shot run loads on its way to the first request, checked in a fresh interpreter."""

from __future__ import annotations

import json
import subprocess
import sys


def _loaded(code: str, names: tuple[str, ...]) -> list[str]:
    shown = f"json.dumps(sorted(n for n in {names!r} if n in sys.modules))"
    probe = f"{code}\nimport json, sys\nprint({shown})"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    return list(json.loads(out))


def test_the_container_loads_no_web_framework() -> None:
    names = ("starlette", "starlette.requests", "fastapi")
    assert _loaded("import circle.entrypoints.container", names) == []


def test_the_web_framework_still_imports_after_the_container() -> None:
    code = "import circle.entrypoints.container\nimport starlette.requests"
    assert _loaded(code, ("starlette.requests",)) == ["starlette.requests"]
