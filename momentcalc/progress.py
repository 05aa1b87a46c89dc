"""Signs of progress for long work, shown only where a person is watching.

``Spinner`` is what the command line shows while it waits for a computation's child process
(``cli.child``): after DELAY seconds, a spinner and the elapsed time on stderr — for a sweep,
"point N of M" and an estimate of the time left — rewritten in place and erased at the end;
nothing when stderr is not a terminal, so JSON and CSV (on stdout) and logs (stderr to a file)
never see it.

``delayed_progress(total, label)`` yields a ``step()`` callback for work counted in steps run
in the foreground: a transient rich bar on a terminal's stderr after ``delay`` seconds. In the
child process stderr is collected, not a terminal, so there it draws nothing.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from .engine.steps import report, set_reporter

__all__ = ["DELAY", "Spinner", "delayed_progress", "duration", "report", "set_reporter"]

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


def duration(seconds: float) -> str:
    """A time span as a person reads it: "8 s", "3 min 20 s", "2 h 05 min"."""
    whole = int(seconds + 0.5)
    if whole < 60:
        return f"{whole} s"
    if whole < 3600:
        return f"{whole // 60} min {whole % 60:02d} s"
    return f"{whole // 3600} h {whole // 60 % 60:02d} min"


class Spinner:
    """``spinner(elapsed)`` draws "⠋ computing 2.4 s" on stderr (a terminal only, after DELAY
    seconds), ``spinner(elapsed, (done, total))`` a sweep's "⠋ point 38 of 2816, 4.1 s, about
    2 min 10 s left" (the time left from the pace so far); ``spinner.clear()`` erases it. At most
    one drawing per REDRAW seconds. Plain text and ANSI erase-line codes: no rich."""

    FRAMES = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
    ASCII_FRAMES = "|/-\\"

    def __init__(self, label: str = "computing", delay: float | None = None, unit: str = "point") -> None:
        self.label = label
        self.unit = unit
        self.delay = DELAY if delay is None else delay
        self.shown = False
        self._frame = 0
        self._drawn = 0.0
        try:
            self.watched = sys.stderr is not None and sys.stderr.isatty()
        except (AttributeError, ValueError, OSError):
            self.watched = False

    REDRAW = 0.1

    def __call__(self, elapsed: float, progress: tuple[int, int] | None = None) -> None:
        if not self.watched or elapsed < self.delay:
            return
        if self.shown and elapsed - self._drawn < self.REDRAW:
            return
        self._drawn = elapsed
        frames = self.FRAMES
        try:
            frames.encode(sys.stderr.encoding or "ascii")
        except (UnicodeEncodeError, LookupError):
            frames = self.ASCII_FRAMES
        frame = frames[self._frame % len(frames)]
        self._frame += 1
        try:
            sys.stderr.write(f"\r{frame} {self.text(elapsed, progress)}\x1b[K")
            sys.stderr.flush()
            self.shown = True
        except (OSError, ValueError):
            self.watched = False

    def text(self, elapsed: float, progress: tuple[int, int] | None) -> str:
        if progress is None:
            return f"{self.label} {elapsed:.1f} s"
        done, total = progress
        if done >= total:
            return f"all {total} {self.unit}s computed, {elapsed:.1f} s"
        text = f"{self.unit} {done + 1} of {total}, {elapsed:.1f} s"
        if 0 < done < total:
            text += f", about {duration(elapsed / done * (total - done))} left"
        return text

    def clear(self) -> None:
        if self.shown:
            try:
                sys.stderr.write("\r\x1b[K")
                sys.stderr.flush()
            except (OSError, ValueError):
                pass
            self.shown = False
