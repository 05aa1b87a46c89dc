"""The certified bivariate route for gelu (its strip) and gelu_tanh (its strip evaluates φ from
e^{2u(x)}, not the lattice's e^x) against 2-D quadrature (QUADPACK in doubles), an independent route."""

import math
import warnings
from fractions import Fraction

import pytest

from momentcalc.catalog import resolve
from momentcalc.moments.bivariate_certified import cross_balls


def _gelu_tanh(x):
    return x * (1 + math.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3))) / 2


def _gelu(x):
    return x * math.erfc(-x / math.sqrt(2)) / 2


def _quadrature(g, c):
    """E[g(u₁)g(u₂)], unit variances, correlation c > 0: ∫ϕ(w)·(E_V[g(√c·w + √(1−c)·V)])² dw,
    by nested adaptive Gauss–Kronrod in doubles (QUADPACK; about 0.3 s where mpmath's nested
    tanh-sinh at 20 digits took 14 s). The two agree to about 1e-17 here; QUADPACK's roundoff
    warnings at the tight tolerance are expected and silenced."""
    from scipy import integrate

    a, b = math.sqrt(c), math.sqrt(1 - c)

    def pdf(t):
        return math.exp(-t * t / 2) / math.sqrt(2 * math.pi)

    def quad(f):
        return integrate.quad(f, -14, 14, points=[0], epsabs=1e-16, epsrel=1e-14, limit=200)[0]

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return quad(lambda w: pdf(w) * quad(lambda v: g(a * w + b * v) * pdf(v)) ** 2)


# gelu_tanh's strips (the same route, 0.4 s of CPU) with -m reference
@pytest.mark.parametrize(
    "name, g", [("gelu", _gelu), pytest.param("gelu_tanh", _gelu_tanh, marks=pytest.mark.reference)]
)
def test_gelu_kernels_against_quadrature(name, g):
    expected = _quadrature(g, 0.5)
    nngp, _ = cross_balls(resolve(name), Fraction(1), Fraction(1, 2), 14)
    assert abs(float(nngp.mid()) - float(expected)) < 1e-14
    assert nngp.rad() < 1e-15
