"""The collector's passes kept off what a resumed session reads: its earlier messages are read
with no pass, then moved out of the collector's sight, and it runs again."""

from __future__ import annotations

import gc

import pytest

from circle.entrypoints.tui._heap import keeping_read


def test_what_is_read_is_read_with_no_pass_then_left_out_of_later_ones() -> None:
    before = gc.get_freeze_count()
    try:
        with keeping_read():
            assert not gc.isenabled()
            held = [{"message": n} for n in range(1_000)]
        assert gc.isenabled()
        assert gc.get_freeze_count() >= before + len(held)
    finally:
        gc.unfreeze()


def test_the_collector_runs_again_when_the_read_fails() -> None:
    try:
        with pytest.raises(RuntimeError), keeping_read():
            raise RuntimeError("the store could not be read")
        assert gc.isenabled()
    finally:
        gc.unfreeze()


def test_a_collector_turned_off_before_stays_off() -> None:
    gc.disable()
    try:
        with keeping_read():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()
        gc.unfreeze()
