"""CPU-time limits that nest: the command line's budget per computation (``cli.budget``),
sympy's limit per integral (``symbolic.activation``) and a test harness's limit per call all
use this one timer.

    with cpu_limit(4.0, lambda: OverBudget(4.0)):
        ...  # raises OverBudget once the process has used 4 more seconds of CPU time

CPU time (ITIMER_PROF: user + system time of the process), not wall-clock time, so that a busy
machine neither cuts a computation short nor changes what it finds. Limits nest: the timer is
set for the nearest deadline of all open limits, and when it fires the outermost expired
limit's error is raised (an outer limit that has run out wins over an inner one). The signal
repeats every REPEAT seconds until the error leaves its block: an error raised inside a
finaliser or swallowed by a broad ``except`` (sympy's fallbacks) is raised again. In another
thread than the main one (or without setitimer) there is no limit.
"""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

REPEAT = 0.05
# The timer and process_time() account CPU time separately: a signal this close to a deadline
# counts as on time.
SLACK = 0.02

_open: list[tuple[float, Callable[[], BaseException]]] = []
_previous: list[Any] = []
_holding: list[bool] = []  # one entry per open ``held`` block
_due: list[Callable[[], BaseException]] = []  # an error that came due while held


def _expired(signum: int, frame: Any) -> None:
    now = time.process_time()
    for deadline, error in _open:  # outermost first
        if now >= deadline - SLACK:
            if _holding:
                _due[:] = [error]
                return
            raise error()
    _arm()  # early: set the timer again for what is left


@contextmanager
def held() -> Iterator[None]:
    """Hold a limit's error while a C extension runs Python callbacks (Arb's integrator): an
    exception raised inside such a call, between or within callbacks, is lost or corrupts its
    state (a SystemError, then a segmentation fault). The callbacks poll ``due()`` and stop
    work; the error is raised when the block ends."""
    _holding.append(True)
    try:
        yield
    finally:
        _holding.pop()
    if not _holding and _due:
        error = _due.pop()
        if any(error is e for _, e in _open):
            raise error()


def due() -> bool:
    """Has a limit run out inside the current ``held`` block?"""
    return bool(_due)


def _arm() -> None:
    if not _open:  # a signal handled after the last limit closed
        return
    left = min(deadline for deadline, _ in _open) - time.process_time()
    signal.setitimer(signal.ITIMER_PROF, max(left, 1e-4), REPEAT)


@contextmanager
def cpu_limit(seconds: float, error: Callable[[], BaseException]) -> Iterator[None]:
    """Raise ``error()`` once this process has used ``seconds`` more of CPU time."""
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "setitimer"):
        yield
        return
    entry = (time.process_time() + seconds, error)
    if not _open:
        _previous.append(signal.signal(signal.SIGPROF, _expired))
    _open.append(entry)
    try:
        _arm()
        yield
    finally:
        # Stop the timer before touching the list: a late signal (the repeat of the error
        # that is leaving) raised here would leave a spent limit open for good.
        while True:
            try:
                signal.setitimer(signal.ITIMER_PROF, 0)
                break
            except BaseException:  # noqa: BLE001  (that late signal's error: already leaving)
                continue
        _open.remove(entry)
        if not _open:
            _due.clear()
        if _open:
            _arm()
        else:
            signal.setitimer(signal.ITIMER_PROF, 0)  # again: a handler run since may have re-armed it
            signal.signal(signal.SIGPROF, _previous.pop())
