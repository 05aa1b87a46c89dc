"""Signs of progress for long work, shown only where a person is watching.

``Spinner`` is what the command line shows while it waits for a computation's child process
(``cli.child``): after DELAY seconds, a spinner and the elapsed time on stderr, rewritten in
place and erased at the end; nothing when stderr is not a terminal, so JSON and CSV (on
stdout) and logs (stderr to a file) never see it.

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


class Spinner:
    """``spinner(elapsed)`` draws "⠋ computing… 2.4 s" on stderr (a terminal only, after
    DELAY seconds); ``spinner.clear()`` erases it. Plain text and ANSI erase-line codes: no rich."""

    FRAMES = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
    ASCII_FRAMES = "|/-\\"

    def __init__(self, label: str = "computing", delay: float | None = None) -> None:
        self.label = label
        self.delay = DELAY if delay is None else delay
        self.shown = False
        self._frame = 0
        try:
            self.watched = sys.stderr is not None and sys.stderr.isatty()
        except (AttributeError, ValueError, OSError):
            self.watched = False

    def __call__(self, elapsed: float) -> None:
        if not self.watched or elapsed < self.delay:
            return
        frames = self.FRAMES
        try:
            frames.encode(sys.stderr.encoding or "ascii")
        except (UnicodeEncodeError, LookupError):
            frames = self.ASCII_FRAMES
        frame = frames[self._frame % len(frames)]
        self._frame += 1
        try:
            sys.stderr.write(f"\r{frame} {self.label} {elapsed:.1f} s\x1b[K")
            sys.stderr.flush()
            self.shown = True
        except (OSError, ValueError):
            self.watched = False

    def clear(self) -> None:
        if self.shown:
            try:
                sys.stderr.write("\r\x1b[K")
                sys.stderr.flush()
            except (OSError, ValueError):
                pass
            self.shown = False
