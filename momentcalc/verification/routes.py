"""Independent routes used by ``verify`` to confirm momentcalc's primary computation.

Each route recomputes a value by a different method than the command that reported it:
direct quadrature of the density (plain, without the catalog's kink splitting and
rescaling, or the ratio of integrals in Wu 2022, NLP reading notes), a seeded Monte Carlo estimate with its standard error. A route answers ``(agrees, detail)``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import mpmath
from mpmath import mp

from ..engine.precision import working_dps
from .tolerance import agreeing_digits

MC_SAMPLES = 1 << 18
MC_BATCHES = 16
MC_SIGMAS = 5


@dataclass(frozen=True)
class Route:
    """How a second route confirms a value: ``run(value, digits) -> (agrees, detail)``."""

    name: str
    run: Callable[[mpmath.mpf, int], tuple[bool, str]]


def same_value(name: str, compute: Callable[[], mpmath.mpf]) -> Route:
    """A route that recomputes the value at working precision; it must agree to ``digits``."""

    def run(value: mpmath.mpf, digits: int) -> tuple[bool, str]:
        with mp.workdps(working_dps(digits)):
            other = compute()
            agree = agreeing_digits(value, other, cap=mp.dps)
        shown = "all" if value == other else f"{agree}"
        return agree >= digits, f"agrees to {shown} digits"

    return Route(name, run)


@functools.lru_cache(maxsize=4)
def _normal_batches(seed: int) -> tuple[Any, ...]:
    """MC_BATCHES batches of standard normal samples, shared by every Monte Carlo route."""
    import numpy as np

    rng = np.random.default_rng(seed)
    return tuple(rng.standard_normal(MC_SAMPLES // MC_BATCHES) for _ in range(MC_BATCHES))


def monte_carlo(name: str, estimator: Callable[[Any], Any], seed: int = 0) -> Route:
    """A seeded Monte Carlo route: ``estimator(z)`` maps one batch ``z`` of standard normal
    samples (MC_SAMPLES // MC_BATCHES of them) to an estimate; the spread over MC_BATCHES
    batches gives its standard error, and the value must lie within MC_SIGMAS errors."""

    def run(value: mpmath.mpf, digits: int) -> tuple[bool, str]:
        import numpy as np

        estimates = np.array([estimator(z) for z in _normal_batches(seed)])
        mean = float(estimates.mean())
        stderr = float(estimates.std(ddof=1) / np.sqrt(MC_BATCHES))
        distance = abs(float(value) - mean) / stderr if stderr > 0 else float("inf")
        return distance <= MC_SIGMAS, f"MC {mean:.6g} ± {stderr:.2g} ({distance:.1f} SE)"

    return Route(name, run)


def direct_expectation(f: Callable[[mpmath.mpf], mpmath.mpf]) -> mpmath.mpf:
    """E[f(Z)], Z ~ N(0, 1), by plain tanh-sinh quadrature of f·φ over (−inf, 0] and [0, inf):
    no kink table, no rescaling to the input — a different path from the catalog engine."""
    density = lambda t: f(t) * mpmath.exp(-t * t / 2)
    return mpmath.quad(density, [-mpmath.inf, 0, mpmath.inf]) / mpmath.sqrt(2 * mp.pi)


def truncated_gamma_by_quadrature(low: int, high: int) -> mpmath.mpf:
    """Var[X]/σ² of N(0,1) on [low, high] as Wu 2022, NLP reading notes writes it: a ratio of integrals."""
    w = lambda x: mpmath.exp(-x * x / 2)
    z = mpmath.quad(w, [low, 0, high])
    m = mpmath.quad(lambda x: x * w(x), [low, 0, high]) / z
    return mpmath.quad(lambda x: (x - m) ** 2 * w(x), [low, 0, high]) / z


def critical_sigma_w2_directly(
    f: Callable[[mpmath.mpf], mpmath.mpf],
    df: Callable[[mpmath.mpf], mpmath.mpf],
    sigma_b2: mpmath.mpf,
    q_start: float,
) -> mpmath.mpf:
    """The critical σ_w² of mean-field theory (Schoenholz et al. 2017) by another path than
    ``meanfield --critical``: plain tanh-sinh quadrature (``direct_expectation``) of
    A(q) = E[f(√q·Z)²] and B(q) = E[f'(√q·Z)²], mpmath's secant root finder on
    q = A(q)/B(q) + σ_b² (no derivatives, no bracketing scan), then σ_w² = 1/B(q)."""

    def a_b(q: mpmath.mpf) -> tuple[mpmath.mpf, mpmath.mpf]:
        s = mpmath.sqrt(q)
        return direct_expectation(lambda t: f(s * t) ** 2), direct_expectation(lambda t: df(s * t) ** 2)

    def equation(q: mpmath.mpf) -> mpmath.mpf:
        a, b = a_b(q)
        return a / b + sigma_b2 - q

    q = mpmath.findroot(equation, (mpmath.mpf(q_start), mpmath.mpf(q_start) * 1.1), solver="secant")
    return 1 / a_b(q)[1]
