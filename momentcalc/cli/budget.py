"""The CPU-time budget of one command-line call, and the sweep-size rule it implies.

Extreme inputs (``--mean 1e309``, ``--input-std 1e-320``) can need more working precision than
any machine gives in reasonable time. The command line runs each computation in a child
process (``cli.child``) whose CPU time the operating system limits to the call's budget:

- one computation: ``default_seconds(digits, derive, layers)`` — BASE_SECONDS up to EXTRA_FROM_DIGITS
  digits, growing with the square of ``--digits`` to about 44 s at 1000 (their quadratures
  legitimately take seconds), DERIVE_SECONDS more with ``--derive`` (sympy), and LAYER_SECONDS
  per layer of a ``--depth`` trajectory up to MAX_LAYERS_SECONDS (a layer is one proven
  bivariate integral where no fixed-point box covers the rest: elu at --depth 1000 takes ~18 s,
  tanh at --depth 10000 at σ_w² = 1, where the variance fades like 1/L, 50-80 s; softsign, whose φ'' jumps at
  0, about 0.2 s a layer while the variance is large and a few ms once it is small (its Taylor
  series at the kink: --depth 1000 about 5 s, 10000 about 30 s); a kinked expression such as
  x*tanh(abs(x)) about 1 s a layer). Past the limit, a trajectory's exit 3 says how many layers it finished
  and the budget its pace asks for (``progress.report`` from the propagation core);
- a sweep: at least SWEEP_SECONDS for all its points together (and the writing of its output).

``--budget SECONDS`` (or ``MOMENTCALC_BUDGET``) replaces that default for one call. A sweep is
first weighed by a work model decided before anything is computed — its points times the cost
of one point of its command at its ``--digits`` (``point_seconds``) — and one estimated past the
budget is refused at once (exit 2, naming the ``--budget`` it needs, and that with half again to
spare); the CPU time its points really take is then the only stop that depends on timing: a
sweep that spends its budget part way prints the points it computed and refuses the others in
their rows (exit 3, ``runner._Plan``), the operating system's limits staying a backstop. CPU time, not wall-clock time, so that a busy machine
does not cut a computation short. The library itself has no budget.
"""

from __future__ import annotations

import contextlib
import math
import os
from collections.abc import Iterable, Mapping

from ..errors import InputError
from ..engine.numbers import quoted

# Seconds of CPU time: the base, and what 1000 digits add (their quadratures take 15-20 s),
# added only past EXTRA_FROM_DIGITS.
BASE_SECONDS = 4.0
THOUSAND_DIGITS_SECONDS = 40.0
EXTRA_FROM_DIGITS = 250
DERIVE_SECONDS = 20.0
# What each layer of --depth adds to one computation's default, and at most.
LAYER_SECONDS = 0.1
MAX_LAYERS_SECONDS = 150.0
# A sweep's default budget, for all its points.
SWEEP_SECONDS = 12.0
# The work model: a point at up to 15 digits is counted as POINT_SECONDS of CPU (the cheap
# commands take 0.2-1.5 ms, a catalog activation's moments a few ms), or as its command's
# COMMAND_POINT_SECONDS, more digits as (digits / 15)^1.5 times that.
POINT_SECONDS = 0.003
# meanfield: a point of the tanh phase diagram (σ_w² 0.5..4 × σ_b² 0..0.3 at 0.02 steps) takes
# 15-22 ms at 15 digits and 23-32 ms at 30 (measured 2026-12-02 in one process and with
# tests/bench/bench_sweeps.py at load 12; relu and erf, with closed-form kernels, about 2 ms;
# gelu 5 ms; swish about 70 ms): 2816 points are counted as 56 s at 15 digits, 159 s at 30.
COMMAND_POINT_SECONDS = {"meanfield": 0.02}
# The work model decides which sweeps are refused at once; the --budget a refusal advises has
# half again to spare, as the pace of a sweep that ran out does (``runner.suggested_budget``):
# 576 points of that diagram (σ_w² 0.5:4:0.1) took 11.7 s of CPU at 15 digits (20 ms a point, the
# model's count) with --jobs 1 at load 4 (2026-12-03), and a run at --budget 57 under more load
# spent it after 2580 of the 2816 points (22 ms a point).
SPARE = 1.5
# What --budget accepts.
MAX_BUDGET = 1_000_000.0
ENVIRONMENT = "MOMENTCALC_BUDGET"


def default_seconds(digits: int, derive: bool, layers: int = 0) -> float:
    """CPU seconds one computation at ``digits`` (of a trajectory of ``layers`` layers) may take
    by default."""
    extra = THOUSAND_DIGITS_SECONDS * (digits / 1000) ** 2 if digits > EXTRA_FROM_DIGITS else 0.0
    deep = min(MAX_LAYERS_SECONDS, LAYER_SECONDS * max(0, layers))
    return BASE_SECONDS + extra + deep + (DERIVE_SECONDS if derive else 0.0)


def layers_of(points: Iterable[Mapping[str, object]]) -> int:
    """The largest ``depth`` among a call's points that reads as a whole number (0 for none: a
    value the command will refuse adds nothing)."""
    deepest = 0
    for point in points:
        text = str(point.get("depth", "")).strip()
        if text.isascii() and text.isdigit() and len(text) <= 6:
            deepest = max(deepest, int(text))
    return deepest


def point_seconds(digits: int, command: str | None = None) -> float:
    """The work model's CPU seconds for one sweep point of ``command`` at ``digits``."""
    return COMMAND_POINT_SECONDS.get(command or "", POINT_SECONDS) * max(1.0, digits / 15) ** 1.5


def _each(digits: int, derive: bool, command: str | None) -> float:
    return point_seconds(digits, command) + (DERIVE_SECONDS / 10 if derive else 0.0)


def parse_budget(text: str | None) -> float | None:
    """``--budget`` (or, without it, ``MOMENTCALC_BUDGET``) in seconds; None for the default."""
    source = "budget"
    if text is None:
        text = os.environ.get(ENVIRONMENT)
        source = ENVIRONMENT
        if text is None or not text.strip():
            return None

    allowed = f"a number of seconds of CPU time, greater than 0 and at most {MAX_BUDGET:.0f}"
    stripped = text.strip()
    value = math.nan
    if stripped.isascii() and len(stripped) <= 40:
        with contextlib.suppress(ValueError):
            value = float(stripped)
    if not (0 < value <= MAX_BUDGET):
        if source == "budget":
            raise InputError(param="budget", allowed=allowed, got=quoted(text))
        raise InputError(f"{ENVIRONMENT} must be {allowed}, got {quoted(text)}")
    return value


def call_seconds(digits: int, derive: bool, points: int, chosen: float | None, layers: int = 0) -> float:
    """The CPU budget of the whole call: ``chosen`` (--budget), else the default for one
    computation (of ``layers`` layers) or for a sweep of ``points`` points."""
    if chosen is not None:
        return chosen
    single = default_seconds(digits, derive, layers)
    return single if points <= 1 else max(single, SWEEP_SECONDS)


def check_sweep(
    points: int,
    digits: int,
    derive: bool,
    seconds: float,
    swept: tuple[str, ...],
    chosen: bool,
    command: str | None = None,
) -> None:
    """Refuse (exit 2) a sweep that the work model says cannot end within ``seconds``."""
    if points <= 1:
        return
    each = _each(digits, derive, command)
    estimate = points * each
    if estimate <= seconds:
        return
    names = ", ".join("{" + name + "}" for name in swept)
    how = "the budget you gave" if chosen else "the default budget"
    raise InputError(
        f"the sweep over {names} has {points} points at {{digits}} {digits}, counted as "
        f"{_seconds_text(each)} of CPU time each: about {estimate:.3g} s, more than {how} of {seconds:.3g} s; "
        f"sweep fewer points, ask fewer digits, or raise {{budget}} (at least {math.ceil(estimate)}, better "
        f"{math.ceil(SPARE * estimate)}: half again to spare)",
        params=(*swept, "digits", "budget"),
    )


def _seconds_text(seconds: float) -> str:
    return f"{seconds * 1000:.2g} ms" if seconds < 1 else f"{seconds:.3g} s"
