"""The console script's entry point: ``momentcalc`` and ``python -m momentcalc``.

Importing the command line takes a tenth of a second; a Ctrl-C that lands in it (or anywhere
before ``cli.group`` handles it) ends the run quietly with exit 130, as everywhere else.

Start-up (a default call within 1.3x the smallest Typer app; ``tests/bench/bench_startup.py``):

- Python's cyclic garbage collector is off while the command line is imported — imports make
  tens of thousands of long-lived objects and next to no garbage, and its passes over them were
  about a tenth of a default call's CPU time. Once the command is known (``cli.app``'s group
  callback, ``start_up_over``) every object made so far is frozen (``gc.freeze``: never
  scanned again, so the computation's forked child does not copy the pages a scan would touch)
  and the collector is on again for the command itself.
- The run ends with ``os._exit`` once stdout and stderr are flushed: the interpreter's
  teardown (a last collection, every module's dictionary cleared) only costs time here, as
  nothing registers ``atexit`` work.
"""

from __future__ import annotations

import gc
import os
import sys


def main() -> None:
    gc.disable()  # on again in cli.app.start_up_over
    try:
        from .cli import main as run

        run()
    except KeyboardInterrupt:
        _leave(130)
    except SystemExit as exit_:
        if exit_.code is not None and not isinstance(exit_.code, int):
            raise  # a message: Python prints it and exits 1
        _leave(exit_.code or 0)


def _leave(code: int) -> None:
    """Exit with ``code`` now, without the interpreter's teardown (see the module docstring);
    if the last flush of stdout or stderr fails, the normal exit reports it."""
    try:
        for stream in (sys.stdout, sys.stderr):
            if stream is not None:
                stream.flush()
    except (OSError, ValueError):
        sys.exit(code)
    os._exit(code)
