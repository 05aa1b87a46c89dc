"""A progress bar for long work, shown only where a person is watching.

``delayed_progress(total, label)`` yields a ``step()`` callback. Nothing is drawn (and rich is
not imported) unless stderr is a terminal and the work has already taken ``delay`` seconds;
then a transient rich bar appears on stderr, so stdout stays clean for JSON and CSV.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

DELAY = 1.0  # seconds of work before a bar is worth showing


@contextmanager
def delayed_progress(total: int, label: str, delay: float | None = None) -> Iterator[Callable[[], None]]:
    delay = DELAY if delay is None else delay
    start = time.monotonic()
    watched = sys.stderr.isatty()
    done = 0
    bar: list[Any] = []  # (Progress, task) once shown

    def step() -> None:
        nonlocal done
        done += 1
        if not watched:
            return
        if not bar and time.monotonic() - start > delay:
            from rich.console import Console
            from rich.progress import Progress

            progress = Progress(console=Console(stderr=True), transient=True)
            progress.start()
            bar.append((progress, progress.add_task(label, total=total, completed=done)))
        if bar:
            progress, task = bar[0]
            progress.update(task, completed=done)

    try:
        yield step
    finally:
        if bar:
            bar[0][0].stop()
