"""The collector's full passes kept short while the interface draws.

Python's cyclic collector now and then walks every object the process holds; in the interface
that is the imported modules (some 75,000 objects) as well as the rows drawn, and such a pass came
in the middle of drawing a long session's rows, holding a key typed then for 70-150 ms. The
objects loaded before the interface starts live as long as the process, so they are moved out of
the collector's sight (:func:`gc.freeze`): a full pass walks the rows and what came after them
only (20-60 ms in the same session). Rows taken away later are still collected: they are newer.

A resumed session's earlier messages, read once its tail is drawn (10,000 of them), hold no
cycles and live as long as the session is open: a full pass over them came some 0.5 s later and
held the keys typed then for 99 ms. They are read with no pass of the collector, and then what is
held is moved out of sight again (:func:`keeping_read`). What that leaves out of later passes is
what was alive then: the messages (freed as ever when the session closes: they hold no cycles),
the tail's rows drawn by then and the cyclic garbage not yet collected (a screenful of rows and
some thousands of objects at most, once a session is resumed).
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

_held = False
"""Whether :func:`hold_passes` turned the collector off (and :func:`keep_loaded` turns it on)."""


def hold_passes() -> None:
    """No pass of the collector while the interface loads: the modules imported then (some 75,000
    objects, nearly all of them kept for the life of the process) made it walk the heap again and
    again, some 40 ms of a start's 0.6 s. :func:`keep_loaded` moves them out of its sight and turns
    it on again (and :func:`let_passes` does if the interface stops before that)."""
    global _held
    if gc.isenabled():
        gc.disable()
        _held = True


def let_passes() -> None:
    """The collector on again if :func:`hold_passes` turned it off and it still is."""
    global _held
    if _held:
        _held = False
        gc.enable()


def keep_loaded() -> None:
    """Leave the objects held now (the modules loaded, the settings read) out of later full passes
    of the collector, and let it run again if it was held. Done once, when the interface has loaded
    and before it draws a session."""
    gc.freeze()
    let_passes()


@contextmanager
def keeping_read() -> Iterator[None]:
    """While a resumed session's earlier messages are read, no pass of the collector (it would walk
    them as they come); then what is held is left out of later full passes (see the module)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if enabled:
            gc.enable()


__all__ = ["hold_passes", "keep_loaded", "keeping_read", "let_passes"]
