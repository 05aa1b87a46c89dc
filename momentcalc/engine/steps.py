"""Where long work reports its steps: ``report(done, total)`` does nothing unless a reporter is
set (``set_reporter``). The command line sets one in its computing child for a call that is one
deep trajectory (``cli.child.report_progress``), so that its spinner shows the layer and a CPU
limit's exit 3 says how far it got and what budget the pace asks for. Here, in the engine, so
that any layer may report without knowing who listens."""

from __future__ import annotations

from collections.abc import Callable

_reporter: Callable[[int, int], None] | None = None


def set_reporter(reporter: Callable[[int, int], None] | None) -> None:
    global _reporter
    _reporter = reporter


def report(done: int, total: int) -> None:
    """``done`` steps of ``total`` are finished (nothing unless a reporter is set)."""
    if _reporter is not None:
        _reporter(done, total)
