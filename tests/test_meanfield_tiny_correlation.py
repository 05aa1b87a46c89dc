"""meanfield's chaotic c* where it is tiny (tanh, σ_b² ≪ 1): Mehler's series locates and proves it
at any digits (``locate.correlation_fixed_point`` → ``correlation_proof.mehler_locate``), against
independent routes: the first terms of Mehler's expansion with mpmath's quadrature of the Gaussian
expectations E[tanh^(n)(√q·Z)], and (reference) the lattice route the series replaces."""

from __future__ import annotations

import mpmath
import pytest
from mpmath import mp

from momentcalc.computations.meanfield import correlation_proof, meanfield


def _gauss(f, q: mpmath.mpf) -> mpmath.mpf:
    """E[f(√q·Z)] by mpmath's quadrature."""
    s = mpmath.sqrt(q)
    density = 1 / mpmath.sqrt(2 * mpmath.pi)
    return mpmath.quad(
        lambda x: f(s * x) * mpmath.exp(-x * x / 2) * density, [-mpmath.inf, -4, 0, 4, mpmath.inf]
    )


def test_tiny_c_star_agrees_with_mehlers_first_terms():
    """Mehler's expansion K(c) = Σ_n q^n·E[φ⁽ⁿ⁾(√q·Z)]²·c^n/n! (odd φ = tanh: n = 1, 3, 5, …), so
    c* solves c = (σ_w²·(β₁·c + β₃·c³) + σ_b²)/q* up to β₅·c⁵ (c*⁴ ≈ 4·10⁻⁴³ here, far below
    the 20 digits compared), with tanh' = 1 − t², tanh''' = −2(1 − t²)(1 − 3t²) (t = tanh);
    the slope of the correlation map is σ_w²·(β₁ + 3β₃·c²)/q*, ξ_c = −1/ln(slope)."""
    digits = 20
    run = meanfield("tanh", sigma_w2="20", sigma_b2="1e-10", digits=digits)
    for name in ("q_star", "c_star", "depth_scale_c"):
        assert run[name].certified
    with mp.workdps(digits + 15):
        q = mpmath.mpf(run.value("q_star"))
        w, b = mpmath.mpf(20), mpmath.mpf("1e-10")
        d1 = _gauss(lambda x: 1 - mpmath.tanh(x) ** 2, q)
        d3 = _gauss(lambda x: -2 * (1 - mpmath.tanh(x) ** 2) * (1 - 3 * mpmath.tanh(x) ** 2), q)
        beta1, beta3 = q * d1 * d1, q**3 * d3 * d3 / 6
        c = mpmath.mpf(0)
        for _ in range(8):  # a contraction (slope about 0.75): 8 steps from c ≈ σ_b²/q far past 25 digits
            c = b / (q - w * beta1) + w * beta3 * c**3 / (q - w * beta1)
        slope = w * (beta1 + 3 * beta3 * c * c) / q
        xi = -1 / mpmath.log(slope)
        printed_c, printed_xi = run.value("c_star"), run.value("depth_scale_c")
        assert abs(mpmath.mpf(printed_c) - c) <= mpmath.mpf(10) ** -(digits - 1) * c
        assert abs(mpmath.mpf(printed_xi) - xi) <= mpmath.mpf(10) ** -(digits - 1) * xi


@pytest.mark.reference
@pytest.mark.parametrize("sigma_b2", ["1e-6", "1e-10"])
def test_tiny_c_star_agrees_with_the_lattice_route(monkeypatch, sigma_b2):
    """At 40 digits every printed result equals the lattice route's (the series not taken to
    locate c*: ``mehler_locates`` off), and both are certified."""
    names = ("q_star", "chi1", "c_star", "depth_scale_q", "depth_scale_c")
    series = meanfield("tanh", sigma_w2="20", sigma_b2=sigma_b2, digits=40)
    monkeypatch.setattr(correlation_proof, "mehler_locates", lambda *a: False)
    lattice = meanfield("tanh", sigma_w2="20", sigma_b2=sigma_b2, digits=40)
    with mp.workdps(60):
        for name in names:
            assert series[name].certified and lattice[name].certified
            assert mpmath.nstr(series.value(name), 40) == mpmath.nstr(lattice.value(name), 40)
