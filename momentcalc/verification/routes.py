"""Independent routes used by ``verify`` to confirm momentcalc's primary computation.

Each route recomputes a value by a different method than the command that reported it:
direct quadrature of the density (a different rule, Gauss-Legendre, than the catalog's
tanh-sinh), a sympy closed form, a seeded Monte Carlo estimate with its standard error, or
plugging a solution back into quadrature. A route answers ``(agrees, detail)``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import mpmath
from mpmath import mp

from ..engine.precision import working_dps

MC_SAMPLES = 1 << 20
MC_BATCHES = 16
MC_SIGMAS = 5


@dataclass(frozen=True)
class Route:
    """How a second route confirms a value: ``run(value, digits) -> (agrees, detail)``."""

    name: str
    run: Callable[[mpmath.mpf, int], tuple[bool, str]]


def _agreement(a: mpmath.mpf, b: mpmath.mpf) -> float:
    """Significant decimal digits on which a and b agree (inf when equal)."""
    if a == b:
        return float("inf")
    scale = max(abs(a), abs(b))
    return float(-mpmath.log10(abs(a - b) / scale))


def same_value(name: str, compute: Callable[[], mpmath.mpf]) -> Route:
    """A route that recomputes the value at working precision; it must agree to ``digits``."""

    def run(value: mpmath.mpf, digits: int) -> tuple[bool, str]:
        with mp.workdps(working_dps(digits)):
            other = compute()
            agree = _agreement(value, other)
        shown = "all" if agree == float("inf") else f"{int(agree)}"
        return agree >= digits, f"agrees to {shown} digits"

    return Route(name, run)


def monte_carlo(name: str, estimator: Callable[[Any], Any], seed: int = 0) -> Route:
    """A seeded Monte Carlo route: ``estimator(z)`` maps standard normal samples ``z`` (one
    batch, shape (MC_SAMPLES // MC_BATCHES,)) to an estimate; the spread over MC_BATCHES
    batches gives its standard error, and the value must lie within MC_SIGMAS errors."""

    def run(value: mpmath.mpf, digits: int) -> tuple[bool, str]:
        import numpy as np

        rng = np.random.default_rng(seed)
        size = MC_SAMPLES // MC_BATCHES
        estimates = np.array([estimator(rng.standard_normal(size)) for _ in range(MC_BATCHES)])
        mean = float(estimates.mean())
        stderr = float(estimates.std(ddof=1) / np.sqrt(MC_BATCHES))
        distance = abs(float(value) - mean) / stderr if stderr > 0 else float("inf")
        return distance <= MC_SIGMAS, f"MC {mean:.6g} ± {stderr:.2g} ({distance:.1f} SE)"

    return Route(name, run)


def gauss_legendre_expectation(f: Callable[[mpmath.mpf], mpmath.mpf]) -> mpmath.mpf:
    """E[f(Z)], Z ~ N(0, 1), by Gauss-Legendre quadrature on (−inf, 0] and [0, inf)."""
    density = lambda t: f(t) * mpmath.exp(-t * t / 2)  # noqa: E731
    return mpmath.quad(density, [-mpmath.inf, 0, mpmath.inf], method="gauss-legendre") / mpmath.sqrt(2 * mp.pi)


def truncated_gamma_by_quadrature(low: int, high: int) -> mpmath.mpf:
    """Var[X]/σ² of N(0,1) on [low, high] as seed 004 writes it: a ratio of integrals."""
    w = lambda x: mpmath.exp(-x * x / 2)  # noqa: E731
    z = mpmath.quad(w, [low, 0, high])
    m = mpmath.quad(lambda x: x * w(x), [low, 0, high]) / z
    return mpmath.quad(lambda x: (x - m) ** 2 * w(x), [low, 0, high]) / z


def sympy_integral(integrand: Callable[[Any, Any], Any], lower: str = "-oo") -> Callable[[], mpmath.mpf]:
    """∫ integrand(x)·φ(x) dx from ``lower`` to ∞, integrated by sympy in closed form, then
    evaluated at the working precision. Only for integrands sympy does quickly (relu)."""

    def compute() -> mpmath.mpf:
        import sympy as sp

        x = sp.Symbol("x", real=True)
        density = sp.exp(-x**2 / 2) / sp.sqrt(2 * sp.pi)
        start = -sp.oo if lower == "-oo" else sp.Integer(0)
        closed = sp.integrate(integrand(sp, x) * density, (x, start, sp.oo))
        return mpmath.mpf(str(sp.N(closed, mp.dps)))

    return compute


def selu_plug_back(name: str) -> Route:
    """Plug the solved (λ, α) into quadrature of selu under N(0, 1): mean 0, second moment 1."""

    def run(value: mpmath.mpf, digits: int) -> tuple[bool, str]:
        from ..computations.selu import selu_solve

        solved = selu_solve(digits=digits)
        with mp.workdps(working_dps(digits)):
            lam, alpha = solved.value("lambda"), solved.value("alpha")
            selu = lambda t: lam * t if t > 0 else lam * alpha * mpmath.expm1(t)  # noqa: E731
            mean = gauss_legendre_expectation(selu)
            second = gauss_legendre_expectation(lambda t: selu(t) ** 2)
            error = max(abs(mean), abs(second - 1))
            ok = error < mpmath.mpf(10) ** (-digits)
        return ok, f"E[selu]={mpmath.nstr(mean, 2)}, E[selu²]−1={mpmath.nstr(second - 1, 2)}"

    return Route(name, run)
