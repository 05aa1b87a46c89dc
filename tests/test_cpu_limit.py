"""engine.cpu_limit: a limit's error is held while a C extension runs Python callbacks."""

from __future__ import annotations

import time

import pytest

from momentcalc.engine.cpu_limit import cpu_limit, due, held


class Spent(Exception):
    pass


def _burn(seconds: float, stop=lambda: False) -> bool:
    """Use CPU time until ``seconds`` have gone or ``stop()``; True if stopped."""
    end = time.process_time() + seconds
    while time.process_time() < end:
        if stop():
            return True
    return False


def test_held_error_is_raised_when_the_block_ends_not_inside_it():
    """Inside ``held`` the expired limit only sets ``due()`` (Arb's integrator polls it and
    stops); the error comes when the block ends, once, and ``due`` is clear afterwards."""
    with pytest.raises(Spent):
        with cpu_limit(0.05, Spent):
            with held():
                assert _burn(2.0, due)  # stopped by due(), no exception inside
            pytest.fail("the held error was not raised at the end of the block")
    assert not due()


def test_unheld_limit_raises_inside():
    with pytest.raises(Spent):
        with cpu_limit(0.05, Spent):
            _burn(2.0)
            pytest.fail("the limit did not fire")


def test_an_error_swallowed_in_a_finaliser_comes_again(monkeypatch):
    """The signal may land while a finaliser or a gc callback runs (hypothesis registers one),
    where Python prints the exception as unraisable and drops it; the timer repeats every
    REPEAT seconds until the error leaves its block, so the limit still ends the work."""
    dropped = []
    monkeypatch.setattr("sys.unraisablehook", lambda unraisable: dropped.append(unraisable.exc_type))

    class Finalised:
        def __del__(self):
            _burn(0.2)  # the deadline passes in here

    with pytest.raises(Spent):
        with cpu_limit(0.05, Spent):
            Finalised()  # dropped at once: __del__ runs now
            _burn(2.0)
            pytest.fail("the limit did not fire again after the finaliser dropped it")
    assert Spent in dropped
