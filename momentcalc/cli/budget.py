"""A CPU-time budget for each computation the command line runs.

Extreme inputs (``--mean 1e309``, ``--input-std 1e-320``) can need more working precision
than any machine gives in reasonable time; the adaptive loops would keep raising it for
minutes before reporting exit 3. The command line gives each computation (each sweep point)
``budget_seconds(digits, derive)`` of CPU time (so a busy machine does not cut it short) and
past it stops the computation wherever it is and reports exit 3 at once.
The budget grows with ``--digits`` (1000 digits of a quadrature legitimately take seconds) and
with ``--derive`` (sympy). The library itself has no budget.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

# Seconds of CPU time: the base, and what 1000 digits add (their quadratures take 15-20 s),
# added only past EXTRA_FROM_DIGITS: up to there every call ends within about 4.5 s of CPU.
BASE_SECONDS = 4.0
THOUSAND_DIGITS_SECONDS = 40.0
EXTRA_FROM_DIGITS = 250
DERIVE_SECONDS = 20.0


class OverBudget(BaseException):
    """The computation used its budget. A BaseException, so that no ``except Exception`` on
    the way (sympy's fallbacks) can swallow it and let the computation run on unbounded."""

    def __init__(self, seconds: float) -> None:
        super().__init__(seconds)
        self.seconds = seconds


def budget_seconds(digits: int, derive: bool) -> float:
    """CPU seconds one computation at ``digits`` may take."""
    extra = THOUSAND_DIGITS_SECONDS * (digits / 1000) ** 2 if digits > EXTRA_FROM_DIGITS else 0.0
    return BASE_SECONDS + extra + (DERIVE_SECONDS if derive else 0.0)


@contextmanager
def cpu_budget(seconds: float) -> Iterator[None]:
    """Raise OverBudget once the process has used ``seconds`` more of CPU time (main thread
    only; ``engine.cpu_limit``, which nests with sympy's limit and a test's)."""
    from ..engine.cpu_limit import cpu_limit

    with cpu_limit(seconds, lambda: OverBudget(seconds)):
        yield
