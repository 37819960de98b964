"""The collector's passes kept off what a resumed session reads: its earlier messages are read
with no pass, then moved out of the collector's sight, and it runs again."""

from __future__ import annotations

import gc

import pytest

from circle.entrypoints.tui._heap import hold_passes, keep_loaded, keeping_read, let_passes


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


def test_no_pass_while_the_interface_loads_then_the_loaded_modules_are_left_out() -> None:
    before = gc.get_freeze_count()
    try:
        hold_passes()
        assert not gc.isenabled()
        loaded = [{"module": n} for n in range(1_000)]
        keep_loaded()
        assert gc.isenabled()
        assert gc.get_freeze_count() >= before + len(loaded)
    finally:
        let_passes()
        gc.enable()
        gc.unfreeze()


def test_an_interface_that_stops_before_it_loaded_lets_the_collector_run_again() -> None:
    try:
        hold_passes()
        let_passes()
        assert gc.isenabled()
        let_passes()  # once only: a second call changes nothing
        assert gc.isenabled()
    finally:
        gc.enable()


def test_a_collector_turned_off_by_someone_else_is_left_off_by_the_interface() -> None:
    gc.disable()
    try:
        hold_passes()
        keep_loaded()
        assert not gc.isenabled()
        let_passes()
        assert not gc.isenabled()
    finally:
        gc.enable()
        gc.unfreeze()
