"""The whole-line trapezoidal rule with a proven error bound (engine.trapezoid) and the strip
bounds of the catalog entries it serves (ball_functions.STRIP_FUNCTIONS): the bounds hold on
their strips, the balls hold the mpmath route's values, and an understated bound is caught."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest
from flint import arb, ctx
from mpmath import mp

from momentcalc.catalog import resolve
from momentcalc.catalog.ball_functions import STRIP_FUNCTIONS
from momentcalc.engine import trapezoid
from momentcalc.engine.gaussian_balls import Term
from momentcalc.moments.activation_balls import trapezoid_balls
from momentcalc.moments.expectations import expectations_by_quadrature


def _c():
    """gelu_tanh's constant 0.044715 (Hendrycks & Gimpel) at the working precision."""
    return mpmath.mpf(44715) / 10**6


def _u(z):
    return mpmath.sqrt(2 / mpmath.pi) * (z + _c() * z**3)


# The functions themselves, complex, by mpmath (an independent route to the bounds).
COMPLEX = {
    "sigmoid": (lambda z: 1 / (1 + mpmath.exp(-z)), lambda z: mpmath.exp(-z) / (1 + mpmath.exp(-z)) ** 2),
    "tanh": (mpmath.tanh, lambda z: mpmath.sech(z) ** 2),
    "swish": (
        lambda z: z / (1 + mpmath.exp(-z)),
        lambda z: 1 / (1 + mpmath.exp(-z)) + z * mpmath.exp(-z) / (1 + mpmath.exp(-z)) ** 2,
    ),
    "softplus": (lambda z: mpmath.log(1 + mpmath.exp(z)), lambda z: 1 / (1 + mpmath.exp(-z))),
    "mish": (
        lambda z: z * mpmath.tanh(mpmath.log(1 + mpmath.exp(z))),
        lambda z: (
            mpmath.tanh(mpmath.log(1 + mpmath.exp(z)))
            + z * mpmath.sech(mpmath.log(1 + mpmath.exp(z))) ** 2 / (1 + mpmath.exp(-z))
        ),
    ),
    "gelu_tanh": (
        lambda z: z * (1 + mpmath.tanh(_u(z))) / 2,
        lambda z: (
            (1 + mpmath.tanh(_u(z))) / 2
            + z * mpmath.sech(_u(z)) ** 2 * mpmath.sqrt(2 / mpmath.pi) * (1 + 3 * _c() * z**2) / 2
        ),
    ),
    "log_sigmoid": (lambda z: -mpmath.log(1 + mpmath.exp(-z)), lambda z: 1 / (1 + mpmath.exp(z))),
    "quick_gelu": (
        lambda z: z / (1 + mpmath.exp(-mpmath.mpf("1.702") * z)),
        lambda z: (
            1 / (1 + mpmath.exp(-mpmath.mpf("1.702") * z))
            + mpmath.mpf("1.702")
            * z
            * mpmath.exp(-mpmath.mpf("1.702") * z)
            / (1 + mpmath.exp(-mpmath.mpf("1.702") * z)) ** 2
        ),
    ),
}


def _poly(coefficients, r):
    return sum(float(c.upper()) * r**k for k, c in enumerate(coefficients))


# mish's, gelu_tanh's and quick_gelu's grids (2 s of CPU; strips of the same kinds as tanh's, softplus's
# and swish's, which the default run checks) with -m reference
STRIP_BOUNDS_REFERENCE = {"mish", "gelu_tanh", "quick_gelu"}


@pytest.mark.parametrize(
    "name",
    [
        pytest.param(name, marks=pytest.mark.reference if name in STRIP_BOUNDS_REFERENCE else ())
        for name in sorted(STRIP_FUNCTIONS)
    ],
)
def test_strip_bounds_hold_on_the_strip(name):
    """|φ(z)| ≤ P(|z|) and |φ'(z)| ≤ Q(|z|) on a grid of the strip |Im z| ≤ w, its edges
    included, and the real-axis evaluation from (x, e^x) is φ, φ'."""
    spec = STRIP_FUNCTIONS[name]
    f, df = COMPLEX[name]
    with ctx.workprec(80), mp.workdps(30):
        w = spec.width()
        P, Q = spec.value_bound(w), spec.slope_bound(w)
        wf = float(w.lower())
        for i in range(-40, 41):
            x = mpmath.mpf(i) * 3 / 4
            for j in range(-8, 9):
                z = mpmath.mpc(x, wf * j / 8)
                assert abs(f(z)) <= _poly(P, abs(z)), (name, z)
                assert abs(df(z)) <= _poly(Q, abs(z)), (name, z)
            xb = arb(mpmath.nstr(x, 20))
            power = arb(0)
            for c in reversed(spec.exponent()):
                power = power * xb + c
            value, slope = spec.at(xb, power.exp())
            assert mpmath.almosteq(f(x), mpmath.mpf(value.mid().str(25, radius=False)), 1e-20)
            assert mpmath.almosteq(df(x), mpmath.mpf(slope.mid().str(25, radius=False)), 1e-20)


# Every function at the first two inputs; the wide shifted one for tanh by default, for the others
# (2.9 s of CPU, the same strips; swish's 0.8 s of it) with -m reference.
@pytest.mark.parametrize(
    ("name", "mean", "std"),
    [
        pytest.param(
            name,
            mean,
            std,
            marks=pytest.mark.reference if std == 4 and name != "tanh" else (),
        )
        for mean, std in ((0, 1), (Fraction(-7, 10), Fraction(1, 3)), (Fraction(2), Fraction(4)))
        for name in sorted(STRIP_FUNCTIONS)
    ],
)
def test_trapezoid_balls_hold_the_mpmath_values_at_50_digits(name, mean, std):
    """The second route: mpmath quadrature (split at the kinks, error-checked) at 50 digits."""
    act = resolve(name)
    shapes = [((0, 1, 0), None), ((0, 2, 0), None), ((0, 0, 2), None), ((1, 1, 0), None)]
    if mean == 0 and act.parity == "odd":
        shapes = shapes[1:]  # exactly 0, which no ball proves (the caller uses parity)
    balls = trapezoid_balls(act, shapes, mean, std, 50)
    reference = expectations_by_quadrature(act, [s for s, _ in shapes], mean=mean, std=std, digits=50)
    with mp.workdps(60), ctx.workprec(400):
        for ball, expected in zip(balls, reference):
            value = arb(mpmath.nstr(expected, 60))
            assert (ball - value).abs_lower() <= abs(value) * arb(10) ** -50, (name, ball, expected)
            assert ball.rad() <= abs(ball.mid()) * arb(10) ** -53


def _tanh_squared_at(x, ex):
    e2 = ex * ex
    t = 1 - 2 / (e2 + 1)
    return [t * t]


def _tanh_squared(goal_log2):
    spec = STRIP_FUNCTIONS["tanh"]
    with ctx.workprec(200):
        w = spec.width()
        (ball,) = trapezoid.trapezoid_expectations(
            _tanh_squared_at,
            [[spec.value_bound(w)[0] ** 2]],
            w,
            [(Term(1),)],
            Fraction(1, 5),
            Fraction(3, 2),
            goal_log2,
        )
    return ball


def test_an_understated_strip_bound_would_be_caught(monkeypatch):
    """E[tanh(X)²], X ~ N(1/5, 9/4): the ball holds the mpmath value; with the strip integral
    bound M understated the step h comes out too large and the ball misses it."""
    with mp.workdps(40), ctx.workprec(200):
        exact = mpmath.quad(
            lambda t: mpmath.tanh(mpmath.mpf(1) / 5 + 1.5 * t) ** 2 * mpmath.npdf(t),
            [-mpmath.inf, -2, 0, 2, mpmath.inf],
        )
        value = arb(mpmath.nstr(exact, 40)) + arb(0, arb(10) ** -38)
        assert _tanh_squared(-100).overlaps(value)
        assert _tanh_squared(-100).rad() < arb(10) ** -29
        monkeypatch.setattr(trapezoid, "strip_integral_bound", lambda *args: arb(2) ** -2000)
        assert not _tanh_squared(-100).overlaps(value)


def test_too_many_nodes_hands_back_to_the_integrator():
    """A std so large that the strip in t is thin would need more than MAX_NODES nodes: None
    (the caller integrates with acb.integral), never a coarse rule."""
    assert trapezoid_balls(resolve("tanh"), [((0, 2, 0), None)], Fraction(0), Fraction(10**6), 30) is None


def test_the_exponential_recurrence_follows_a_cubic_exponent():
    """e^{P(x_k)} by the forward-difference recurrence (multiplications only) holds the direct
    exponential at every node, P cubic as gelu_tanh's 2u(x), on both sides of the mean."""
    with ctx.workprec(200):
        coefficients = [arb(3) / 10, arb(-1), arb(1) / 2, arb(1) / 7]
        m, step = arb(-7) / 10, arb(1) / 64
        for sign in (1, -1):
            table = trapezoid._exp_table(coefficients, m, sign * step)
            for k in range(1, 2000):
                value = trapezoid._advance(table)
                if k % 199 == 0:
                    x = m + sign * step * k
                    direct = (
                        coefficients[0] + x * (coefficients[1] + x * (coefficients[2] + x * coefficients[3]))
                    ).exp()
                    assert value.overlaps(direct), (sign, k)
                    assert value.rad() < abs(value) * arb(2) ** -150


def test_even_integrands_summed_from_one_side():
    """At mean 0 the integrands x^a·φ^b·φ'^c that φ's parity makes even are summed over the
    right half of the nodes, doubled: the balls hold mpmath's quadrature (50 digits); only
    even integrands of an activation with a parity take that route."""
    from momentcalc.moments.activation_balls import _even

    tanh, sigmoid = resolve("tanh", {}), resolve("sigmoid", {})
    assert (
        _even(tanh, ((0, 2, 0), None)) and _even(tanh, ((1, 1, 0), None)) and _even(tanh, ((0, 0, 1), None))
    )
    assert not _even(tanh, ((0, 1, 0), None)) and not _even(tanh, ((1, 0, 2), None))
    assert _even(tanh, ((0, 2, 0), arb(0))) and not _even(tanh, ((0, 2, 0), arb(1) / 4))
    assert not _even(sigmoid, ((0, 2, 0), None))
    monomials = [(0, 2, 0), (1, 1, 1), (0, 0, 2)]
    std = Fraction(7, 10)
    balls = trapezoid_balls(resolve("tanh", {}), [(m, None) for m in monomials], Fraction(0), std, 50)
    with mp.workdps(56):
        f, df = COMPLEX["tanh"]
        var = mpmath.mpf(49) / 100
        for (a, b, c), ball in zip(monomials, balls):
            # the even integrand on [0, 12] twice (beyond 12 the density is below 1e-60)
            value = (
                2
                * mpmath.quad(
                    lambda x: x**a * f(x) ** b * df(x) ** c * mpmath.exp(-x * x / (2 * var)), [0, 12]
                )
                / mpmath.sqrt(2 * mp.pi * var)
            )
            assert ball.rad() < abs(ball.mid()) * arb(10) ** -50
            assert abs(mpmath.mpf(ball.mid().str(60, radius=False)) - value) < mpmath.mpf(10) ** -49 * abs(
                value
            )


def test_far_nodes_at_fewer_bits(monkeypatch):
    """From FEWER_BITS_FROM bits on a far node's values are taken at fewer bits: the balls overlap
    those with every node at full precision and prove the digits asked."""
    act, std, digits = resolve("swish"), Fraction(3, 2), 320
    shapes = [((0, 1, 0), None), ((0, 2, 0), None)]
    assert min(trapezoid._node_precisions(3400, 0.01, 7000)) == 64
    fewer = trapezoid_balls(act, shapes, Fraction(1, 3), std, digits)
    monkeypatch.setattr(trapezoid, "FEWER_BITS_FROM", 10**9)
    full = trapezoid_balls(act, shapes, Fraction(1, 3), std, digits)
    assert fewer is not None and full is not None
    for ball, other in zip(fewer, full):
        assert ball.overlaps(other) and ball.rad() <= abs(ball.mid()) * arb(10) ** -(digits + 3)
