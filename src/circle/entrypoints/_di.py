"""dependency-injector's modules, imported without the web frameworks its wiring looks for.

``dependency_injector.containers`` imports ``dependency_injector.wiring``, which tries
``starlette.requests`` (and FastAPI, Werkzeug) at import time, only to recognize their classes
while wiring. Circle never wires (the providers are called explicitly), yet starlette is installed
beside the MCP SDK, so that probe cost every start about 13 ms. The probe is shown an absent
module for the length of the import alone: starlette imports normally afterwards.
"""

from __future__ import annotations

import sys

_PROBED = ("starlette.requests", "fastapi.params", "werkzeug.local")


def _import_without_probes() -> None:
    hidden = [name for name in _PROBED if name not in sys.modules]
    for name in hidden:
        sys.modules[name] = None  # type: ignore[assignment]
    try:
        import dependency_injector.containers  # noqa: F401
    finally:
        for name in hidden:
            if sys.modules.get(name, ...) is None:
                del sys.modules[name]


_import_without_probes()

from dependency_injector import containers, providers  # noqa: E402

__all__ = ["containers", "providers"]
