"""The collector's full passes kept short while the interface draws.

Python's cyclic collector now and then walks every object the process holds; in the interface
that is the imported modules (some 75,000 objects) as well as the rows drawn, and such a pass came
in the middle of drawing a long session's rows, holding a key typed then for 70-150 ms. The
objects loaded before the interface starts live as long as the process, so they are moved out of
the collector's sight (:func:`gc.freeze`): a full pass walks the rows and what came after them
only (20-60 ms in the same session). Rows taken away later are still collected: they are newer.
"""

from __future__ import annotations

import gc


def keep_loaded() -> None:
    """Leave the objects held now (the modules loaded, the settings read) out of later full passes
    of the collector. Done once, when the interface has loaded and before it draws a session."""
    gc.freeze()


__all__ = ["keep_loaded"]
