"""Means far below the std (moments.tiny_mean): E[g(sZ)] + (m/s²)·E[X·g(X)] with a proven
remainder, against quadrature and against integrating at the mean itself."""

from __future__ import annotations

import mpmath
import pytest

from momentcalc.catalog import resolve
from momentcalc.moments import expectation_balls
from momentcalc.moments.monomials import MEAN, SECOND_MOMENT


def test_tanh_at_mean_1e_minus_100000_is_the_mean_times_e_sech2():
    """E[tanh(m + Z)] = m·E[sech²(Z)] + O(m³): 6.05705509602159e-100001 (quadrature of sech²·φ
    for the factor); the second moment is the one at mean 0."""
    mean, second = expectation_balls("tanh", [MEAN, SECOND_MOMENT], mean="1e-100000", digits=15)
    with mpmath.workdps(30):
        factor = mpmath.quad(lambda x: mpmath.sech(x) ** 2 * mpmath.npdf(x), [-mpmath.inf, 0, mpmath.inf])
        tanh2 = mpmath.quad(lambda x: mpmath.tanh(x) ** 2 * mpmath.npdf(x), [-mpmath.inf, 0, mpmath.inf])
    assert mean.mid().str(15, radius=False) == mpmath.nstr(factor * 10, 15) + "e-100001"
    assert second.mid().str(15, radius=False) == mpmath.nstr(tanh2, 15)


@pytest.mark.parametrize("name", ["tanh", "sin(x)", "softsign", "x*exp(-x**2)"])
def test_the_tiny_route_agrees_with_integrating_at_the_mean(name, monkeypatch):
    """At mean 1e-40 (below the tiny threshold at 15 digits) both routes can answer."""
    from momentcalc.moments import tiny_mean

    act = resolve(name)
    tiny = expectation_balls(act, [MEAN, SECOND_MOMENT], mean="1e-40", std="1.5", digits=15)
    monkeypatch.setattr(tiny_mean, "is_tiny", lambda *args: False)
    direct = expectation_balls(act, [MEAN, SECOND_MOMENT], mean="1e-40", std="1.5", digits=15)
    for a, b in zip(tiny, direct):
        assert a.mid().str(15, radius=False) == b.mid().str(15, radius=False)
        assert a.overlaps(b)


def test_the_remainder_bound_holds_where_it_is_not_negligible():
    """At u = m/s = 1e-3 the remainder is visible: |E[tanh(m + Z)] − m·E[Z·tanh(Z)]| (integrated
    at the mean, 30 digits) must lie below u²·K, the bound the tiny route adds."""
    from fractions import Fraction

    from flint import arb, ctx

    from momentcalc.engine.gaussian_balls import normalise
    from momentcalc.moments.activation_balls import integrand, model_of
    from momentcalc.moments.tiny_mean import remainder_constant

    act = resolve("tanh")
    with ctx.workprec(64):
        bound = remainder_constant(
            normalise(integrand(model_of(act, Fraction(0)), MEAN).terms(arb(0))), arb(1)
        )
    at_mean = expectation_balls(act, [MEAN], mean="0.001", digits=30)[0]
    first = expectation_balls(act, [(1, 1, 0)], mean=0, digits=30)[0] / 1000
    with ctx.workprec(200):
        assert abs(at_mean - first) > 0  # the remainder is there (m³ E[tanh'''])
        assert abs(at_mean - first) <= bound * arb(10) ** -6


def test_a_catalog_activation_that_cannot_be_proven_is_not_searched_for_divergence():
    """Catalog activations grow at most polynomially (every moment finite): when their proof
    fails (erf --std 1e100000) exit 3 comes at once, without the 1.5 s divergence quadrature."""
    from momentcalc.engine.gaussian_balls import NotCertified
    from momentcalc.errors import PrecisionError
    import importlib

    expectations = importlib.import_module("momentcalc.moments.expectations")

    def prove():
        raise NotCertified("the integrand could not be enclosed on the integration path")

    def compute(evaluation):
        raise AssertionError("the divergence check ran")

    with pytest.raises(PrecisionError, match="cannot be proven"):
        expectations._certified(resolve("erf"), 0, 10**100000, 15, prove, compute)
    with pytest.raises(AssertionError, match="divergence check"):
        expectations._certified(resolve("erf(x)"), 0, 10**100000, 15, prove, compute)
