"""The certified bivariate route for gelu (its strip) and gelu_tanh (its strip evaluates φ from
e^{2u(x)}, not the lattice's e^x) against 2-D mpmath quadrature, an independent route."""

from fractions import Fraction

import mpmath
import pytest

from momentcalc.catalog import resolve
from momentcalc.moments.bivariate_certified import cross_balls


def _gelu_tanh(x):
    return x * (1 + mpmath.tanh(mpmath.sqrt(2 / mpmath.pi) * (x + mpmath.mpf("0.044715") * x**3))) / 2


def _quadrature(g, c):
    """E[g(u₁)g(u₂)], unit variances, correlation c > 0: ∫ϕ(w)·(E_V[g(√c·w + √(1−c)·V)])² dw."""
    a, b = mpmath.sqrt(c), mpmath.sqrt(1 - c)
    inner = lambda w: mpmath.quad(lambda v: g(a * w + b * v) * mpmath.npdf(v), [-14, 0, 14])  # noqa: E731
    return mpmath.quad(lambda w: mpmath.npdf(w) * inner(w) ** 2, [-14, 0, 14])


@pytest.mark.parametrize("name, g", [("gelu", lambda x: x * mpmath.ncdf(x)), ("gelu_tanh", _gelu_tanh)])
def test_gelu_kernels_against_quadrature(name, g):
    with mpmath.workdps(20):
        expected = _quadrature(g, mpmath.mpf(1) / 2)
    nngp, _ = cross_balls(resolve(name), Fraction(1), Fraction(1, 2), 14)
    assert abs(float(nngp.mid()) - float(expected)) < 1e-14
    assert nngp.rad() < 1e-15
