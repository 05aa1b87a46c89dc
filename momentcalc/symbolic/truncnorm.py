"""sympy derivation of the truncated-normal results as ratios of integrals (Wu 2022, NLP reading notes).

    gamma = ∫_a^b x² φ / ∫_a^b φ − (∫_a^b x φ / ∫_a^b φ)²

For a = −2, b = 2 this gives 1 − 2·sqrt(2)·e^−2 / (sqrt(pi)·erf(sqrt(2))).
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache
from typing import Any

from . import forms, shortest, sympy_number

GAMMA_INTEGRALS = (
    "gamma = Int(x**2*phi, (x, a, b))/Int(phi, (x, a, b)) - (Int(x*phi, (x, a, b))/Int(phi, (x, a, b)))**2"
)
GAMMA_INTEGRALS_LATEX = (
    r"\gamma = \frac{\int_a^b x^2 \varphi(x)\,dx}{\int_a^b \varphi(x)\,dx}"
    r" - \left(\frac{\int_a^b x \varphi(x)\,dx}{\int_a^b \varphi(x)\,dx}\right)^2,"
    r"\quad \varphi(x) = \frac{e^{-x^2/2}}{\sqrt{2\pi}}"
)


@lru_cache(maxsize=16, typed=True)
def _integrals(low: Fraction | float, high: Fraction | float) -> tuple[Any, Any, Any]:
    """∫_a^b φ, ∫_a^b x φ, ∫_a^b x² φ: sympy's integration takes a second or more, and a sweep
    (or `init --distribution truncnorm`, which needs gamma on [-2, 2]) asks for the same ones again."""
    import sympy as sp

    x = sp.Symbol("x", real=True)
    a, b = sympy_number(low), sympy_number(high)
    phi = sp.exp(-(x**2) / 2) / sp.sqrt(2 * sp.pi)
    return sp.integrate(phi, (x, a, b)), sp.integrate(x * phi, (x, a, b)), sp.integrate(x**2 * phi, (x, a, b))


def derive(
    low: Fraction | float,
    high: Fraction | float,
    mean: Fraction,
    std: Fraction,
    target_std: Fraction | None,
) -> dict[str, tuple[str, str]]:
    """Closed forms (str, LaTeX) of every truncnorm result for these exact inputs."""
    import sympy as sp

    z, m1, m2 = _integrals(low, high)
    shift = shortest(m1 / z)
    gamma = shortest(m2 / z - (m1 / z) ** 2)
    mu, sigma = sympy_number(mean), sympy_number(std)
    exprs = {
        "gamma": gamma,
        "std_ratio": sp.sqrt(gamma),
        "correction": 1 / sp.sqrt(gamma),
        "acceptance": shortest(z),
        "expected_draws": shortest(1 / z),
        "mean_shift": shift,
        "mean": shortest(mu + sigma * shift),
        "std": sigma * sp.sqrt(gamma),
    }
    if target_std is not None:
        exprs["std_to_pass"] = sympy_number(target_std) / sp.sqrt(gamma)
    return {name: forms(expr) for name, expr in exprs.items()}
