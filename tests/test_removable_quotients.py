"""Quotients with a removable singularity (sin(x)/x, (1 - cos(x))/x**2, tanh(x)/x, x/tanh(x),
erf(x)/x, (exp(x) - 1)/x) on balls (catalog.expression_ball.removable_quotient): their kernels
and moments against independent routes, and the quotients that are poles refused."""

from __future__ import annotations

import math

import mpmath
import pytest
from flint import acb, arb, ctx

from momentcalc.catalog import resolve
from momentcalc.catalog.expression_ball import compile_ball, removable_quotient
from momentcalc.computations.activation import activation_moment
from momentcalc.computations.kernel import kernel
from tests.conftest import invoke


def _rounded_to(decimal: str, value: mpmath.mpf, digits: int) -> bool:
    """|decimal − value| ≤ half a unit in the last of ``digits`` significant digits."""
    unit = mpmath.mpf(10) ** (mpmath.floor(mpmath.log10(abs(value))) - digits + 1)
    return abs(mpmath.mpf(decimal) - value) <= unit / 2


def _fourier_kernel(weight, rho: str, slope: bool = False) -> mpmath.mpf:
    """E[φ(u)φ(v)] (or E[φ'(u)φ'(v)]) for φ(x) = ∫_{−1}^{1} w(t)·e^{itx} dt, (u, v) standard
    with correlation ρ: E[e^{i(tu + sv)}] = e^{−(t² + 2ρts + s²)/2}, so the kernel is the
    smooth double integral ∫∫ w(t)w(s)·e^{−(t² + 2ρts + s²)/2} (times −ts for the slopes)."""
    r = mpmath.mpf(rho)

    def integrand(t, s):
        factor = -t * s if slope else 1
        return factor * weight(t) * weight(s) * mpmath.exp(-(t * t + 2 * r * t * s + s * s) / 2)

    return mpmath.quad(integrand, [-1, 0, 1], [-1, 0, 1], method="gauss-legendre")


@pytest.mark.parametrize("rho", ["-0.3"])
def test_sinc_kernel_at_30_digits_against_its_fourier_integral(rho):
    """sin(x)/x = (1/2)∫_{−1}^{1} e^{itx} dt."""
    found = kernel("sin(x)/x", rho=rho, digits=30)
    with mpmath.workdps(40):
        half = lambda t: mpmath.mpf(1) / 2
        assert _rounded_to(found["nngp"].decimal(30), _fourier_kernel(half, rho), 30)
        assert _rounded_to(found["ntk_derivative"].decimal(30), _fourier_kernel(half, rho, slope=True), 30)


def test_fejer_kernel_of_order_two_at_30_digits():
    """(1 − cos x)/x² = (1/2)∫_{−1}^{1} (1 − |t|)·e^{itx} dt: a zero of order 2 over x², whose
    derivatives divide by x³ and x⁴ (the quotient rule keeps w^(k+1), not w^(2k))."""
    found = kernel("(1-cos(x))/x**2", rho="0.5", digits=30)
    with mpmath.workdps(40):
        fejer = lambda t: (1 - abs(t)) / 2
        assert _rounded_to(found["nngp"].decimal(30), _fourier_kernel(fejer, "0.5"), 30)


def _expectation2(f, g, rho):
    from scipy import integrate

    r = math.sqrt(1 - rho * rho)
    density = lambda t: math.exp(-t * t / 2) / math.sqrt(2 * math.pi)
    value, _ = integrate.dblquad(
        lambda y, x: f(x) * g(rho * x + r * y) * density(x) * density(y),
        -12,
        12,
        -12,
        12,
        epsabs=1e-14,
        epsrel=1e-13,
    )
    return value


def _tanh_over_x(x):
    return math.tanh(x) / x if x else 1.0


def _tanh_over_x_slope(x):
    return (x / math.cosh(x) ** 2 - math.tanh(x)) / (x * x) if abs(x) > 1e-4 else -2 * x / 3


def _x_over_tanh(x):
    return x / math.tanh(x) if x else 1.0


def _x_over_tanh_slope(x):
    return (math.tanh(x) - x / math.cosh(x) ** 2) / math.tanh(x) ** 2 if abs(x) > 1e-4 else 2 * x / 3


@pytest.mark.parametrize(
    "text, f, df",
    [
        ("tanh(x)/x", _tanh_over_x, _tanh_over_x_slope),
        # the same removable quotient's kernel the other way up (0.7 s of CPU; its enclosure around
        # the zero is checked by default below): -m reference
        pytest.param("x/tanh(x)", _x_over_tanh, _x_over_tanh_slope, marks=pytest.mark.reference),
    ],
)
def test_tanh_quotients_against_2d_quadrature(text, f, df):
    found = kernel(text, rho="0.5", digits=15)
    assert abs(found.value("nngp") - _expectation2(f, f, 0.5)) < 1e-11
    assert abs(found.value("ntk_derivative") - _expectation2(df, df, 0.5)) < 1e-11


def test_exp_minus_one_over_x_against_its_integral_at_30_digits():
    """E[(e^Z − 1)/Z] = ∫_0^1 E[e^{tZ}] dt = ∫_0^1 e^{t²/2} dt."""
    found = activation_moment("(exp(x)-1)/x", digits=30)
    with mpmath.workdps(40):
        assert _rounded_to(
            found["mean"].decimal(30), mpmath.quad(lambda t: mpmath.exp(t * t / 2), [0, 1]), 30
        )


def test_erf_over_x_mean_at_30_digits():
    """E[erf(Z)/Z] = ∫_0^1 E[erf'(tZ)] dt = ∫_0^1 (2/√π)/√(1 + 2t²) dt = (2/√π)·asinh(√2)/√2."""
    found = activation_moment("erf(x)/x", digits=30)
    with mpmath.workdps(40):
        want = 2 / mpmath.sqrt(mpmath.pi) * mpmath.asinh(mpmath.sqrt(2)) / mpmath.sqrt(2)
        assert _rounded_to(found["mean"].decimal(30), want, 30)


@pytest.mark.parametrize(
    "text",
    [
        "sin(x)/x",
        "(exp(x)-1)/x",
        "tanh(x)/x",
        "x/sinh(x)",
        "x/tanh(x)",
        "log1p(x)/x",
        "(x-1/2)/sin(x-1/2)",
        "erf(x)/x",
        "(1-cos(x))/x**2",
    ],
)
def test_removable_quotients_are_enclosed_around_their_zero(text):
    """A ball around the common zero gets a finite enclosure that holds the limit there."""
    node = resolve(text).tree
    found = removable_quotient(node)
    assert found is not None
    z0 = found[0]
    with ctx.workprec(64):
        around = compile_ball(node)(acb(arb(float(z0), 1e-3)), False)
        assert around.is_finite() and around.rad() < 1e-2
    with mpmath.workdps(30):
        fn = resolve(text).fn
        near = fn(mpmath.mpf(z0.numerator) / z0.denominator + mpmath.mpf(10) ** -12, {})
        assert around.real.contains(arb(mpmath.nstr(near, 20)))


@pytest.mark.parametrize("text", ["1/x", "sin(x)/x**2", "cos(x)/x", "x/(x-1)", "(x-1)/x", "abs(x)/x"])
def test_poles_are_not_removable(text):
    assert removable_quotient(resolve(text).tree) is None


def test_a_pole_is_never_a_number():
    """sin(x)/x**2 ~ 1/x at 0: its moments diverge; no digits are printed."""
    run = invoke("kernel", "sin(x)/x**2", "--rho", "0.5")
    assert run.code in (2, 3)
    assert run.stdout == ""
