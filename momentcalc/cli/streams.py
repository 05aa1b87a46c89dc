"""The console script's standard streams, made safe once for every output path.

``prepare_streams()`` runs first in ``cli.app.main``, before anything is written:

- a closed stdout or stderr (``momentcalc truncnorm >&-``, ``2>&-``: Python then sets
  ``sys.stdout`` to None) gets /dev/null on its file descriptor, so that writing succeeds and is
  discarded and a successful call still exits 0;
- a stream whose encoding cannot hold what momentcalc prints (``PYTHONIOENCODING=ascii``, a C
  locale) writes what does not fit as ``\\uXXXX`` (the "momentcalc-json" handler of
  ``render.text``: the same JSON text, and readable in help and errors) instead of raising
  UnicodeEncodeError; tables spell their own characters in ASCII first (``render.text``).

A reader that closes the pipe (``| head``) is handled by the one error path (``cli.group``):
exit 141, nothing more written, for commands, ``schema``, ``--help`` and ``--version`` alike.
"""

from __future__ import annotations

import contextlib
import os
import sys

# What momentcalc's own text needs: help and errors use −, ≤, φ; tables box lines.
_PROBE = "φ−≤█"


def prepare_streams() -> None:
    for fd, name in ((1, "stdout"), (2, "stderr")):
        stream = getattr(sys, name)
        if stream is None or _closed(fd):
            _reopen_devnull(fd, name)
        _fit_encoding(getattr(sys, name))


def _closed(fd: int) -> bool:
    try:
        os.fstat(fd)
    except OSError:
        return True
    return False


def _reopen_devnull(fd: int, name: str) -> None:
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        if devnull != fd:
            os.dup2(devnull, fd)
            os.close(devnull)
        stream = open(fd, "w", encoding="utf-8", closefd=False)  # noqa: SIM115  (sys.stdout for the process)
    except OSError:
        return
    setattr(sys, name, stream)
    setattr(sys, f"__{name}__", stream)


def _fit_encoding(stream: object) -> None:
    encoding = getattr(stream, "encoding", None) or "utf-8"
    try:
        _PROBE.encode(encoding)
        return
    except (UnicodeEncodeError, LookupError):
        pass
    from ..render import text  # noqa: F401  (registers the "momentcalc-json" error handler)

    with contextlib.suppress(AttributeError, ValueError, LookupError):
        stream.reconfigure(errors="momentcalc-json")
