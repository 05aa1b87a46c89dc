"""``kernel`` at high --digits against an independent route.

gelu's inner smoothing has a closed form: for V standard normal and s = sqrt(1 + b²),
ψ(m) = E[gelu(m + b·V)] = m·Φ(m/s) + b²·ϕ(m/s)/s and ψ'(m) = E[gelu'(m + b·V)] =
Φ(m/s) + (m/s)·ϕ(m/s)·(1 − b²/s²); with a = sqrt(q·|ρ|), b = sqrt(q·(1 − |ρ|)),
E[φ(u)φ(v)] = ∫ ϕ(w)·ψ(a·w)·ψ(±a·w) dw, one mpmath quadrature (the engine instead evaluates
gelu on a lattice and convolves, choosing the strip width of its trapezoidal rules).
"""

from __future__ import annotations

from fractions import Fraction
from functools import cache

import mpmath
import pytest

from momentcalc.catalog import resolve
from momentcalc.computations.kernel import kernel
from momentcalc.moments.kernel_maps import kernel_pair

CHECKED = 50  # digits of the quadrature compared


@cache
def _gelu_pair(rho: Fraction) -> tuple[mpmath.mpf, mpmath.mpf]:
    with mpmath.workdps(CHECKED + 20):
        c = abs(mpmath.mpf(rho.numerator) / rho.denominator)
        sign = 1 if rho > 0 else -1
        a, b = mpmath.sqrt(c), mpmath.sqrt(1 - c)
        s = mpmath.sqrt(1 + b * b)

        def psi(m):
            return m * mpmath.ncdf(m / s) + b * b * mpmath.npdf(m / s) / s

        def slope(m):
            return mpmath.ncdf(m / s) + (m / s) * mpmath.npdf(m / s) * (1 - b * b / (s * s))

        # Gauss–Legendre on |w| ≤ 20 (beyond, ϕ(w)·ψ·ψ is below 1e-80, far under the 50 digits
        # compared; the integrands are entire): 0.6 s of CPU, where tanh-sinh on the whole line
        # took 2.2 s for the same 70 digits.
        pieces = [-20, -6, 0, 6, 20]
        nngp = mpmath.quad(
            lambda w: mpmath.npdf(w) * psi(a * w) * psi(sign * a * w), pieces, method="gauss-legendre"
        )
        ntk = mpmath.quad(
            lambda w: mpmath.npdf(w) * slope(a * w) * slope(sign * a * w), pieces, method="gauss-legendre"
        )
        return +nngp, +ntk


def _prefix_agrees(text: str, value: mpmath.mpf) -> None:
    with mpmath.workdps(CHECKED + 20):
        assert abs(mpmath.mpf(text) - value) < mpmath.mpf(10) ** -(CHECKED - 2) * max(abs(value), 1)


def test_gelu_300_digits_against_the_smoothing_closed_form() -> None:
    rho = "-0.3"  # the mirrored integrand
    result = kernel("gelu", rho=rho, digits=300)
    nngp, ntk = _gelu_pair(Fraction(rho))
    _prefix_agrees(result["nngp"].decimal(300), nngp)
    _prefix_agrees(result["ntk_derivative"].decimal(300), ntk)
    assert len(result["nngp"].decimal(300).lstrip("-0.")) >= 299


@pytest.mark.slow
@pytest.mark.reference
def test_gelu_1000_digit_balls_against_the_smoothing_closed_form() -> None:
    """The 1000-digit balls (a wide strip for the entire gelu: about 7x fewer lattice points
    than width 1) are narrow enough and hold the quadrature's value."""
    nngp, ntk = kernel_pair(resolve("gelu", None), Fraction(1, 2), Fraction(1), Fraction(1), 1003)
    for ball, value in zip((nngp, ntk), _gelu_pair(Fraction(1, 2))):
        assert ball.rad() < abs(ball.mid()) * mpmath.mpf(10) ** -1003
        _prefix_agrees(ball.mid().str(CHECKED + 5, radius=False), value)
