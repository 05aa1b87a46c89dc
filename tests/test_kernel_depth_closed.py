"""``kernel --depth`` for the activations with a closed-form kernel (``moments.closed_layers``):
every layer in the mean-value form on balls, no integrals. Checked against the closed C maps
written out here and iterated in mpmath at twice the digits (Cho & Saul 2009's arc-cosine
kernels, Williams 1997's arcsine kernel), every printed digit of every layer."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest
from flint import arb, ctx

from momentcalc.catalog import resolve
from momentcalc.catalog.kernels import BALL_KERNELS, Q_SLOPE_AT_ONE
from momentcalc.computations.kernel import kernel
from momentcalc.engine.dual_balls import Dual, value_and_slope
from momentcalc.engine.rounding import ball_text
from momentcalc.moments import kernel_maps, propagation


def layer_trajectory(act, q0, c0, layers, w, b, digits, fast=True, unit=None):
    """(q, c) balls at layers 0..L from the propagation core (``moments.propagation``)."""
    path = propagation.trajectory(
        propagation.layer_map(act, Fraction(w), Fraction(b), unit),
        propagation.KernelBox.point(q0, c0),
        layers,
        digits,
        fast=fast,
    )
    return path.q1, path.c


def _arc_cosine(c):
    """E[relu(u)relu(v)]/q at correlation c (Cho & Saul 2009, n = 1)."""
    return (mpmath.sqrt(1 - c * c) + (mpmath.pi - mpmath.acos(c)) * c) / (2 * mpmath.pi)


def _maps(name, slope=0):
    """(A(q), K(q, c)) of a plain layer, written out independently of the catalog."""
    if name == "relu":
        return (lambda q: q / 2), (lambda q, c: q * _arc_cosine(c))
    if name == "leaky_relu":
        s = mpmath.mpf(slope)
        return (lambda q: q * (1 + s * s) / 2), (lambda q, c: q * (s * c + (1 - s) ** 2 * _arc_cosine(c)))
    if name == "erf":
        return (
            lambda q: 2 / mpmath.pi * mpmath.asin(2 * q / (1 + 2 * q)),
            lambda q, c: 2 / mpmath.pi * mpmath.asin(2 * q * c / (1 + 2 * q)),
        )
    return (lambda q: q), (lambda q, c: q * c)  # identity


def _recursion(name, rho, depth, w, b, dps, slope=0):
    with mpmath.workdps(dps):
        length, cross = _maps(name, slope)
        w, b = mpmath.mpf(w), mpmath.mpf(b)
        q, c = mpmath.mpf(1), mpmath.mpf(rho)
        out = [c]
        for _ in range(depth):
            q_next = w * length(q) + b
            c, q = (w * cross(q, c) + b) / q_next, q_next
            out.append(c)
    return out


def _assert_every_digit(printed, expected, digits):
    """Each printed value is the reference rounded to ``digits`` significant digits (within
    half a unit of its last digit)."""
    assert len(printed) == len(expected)
    with mpmath.workdps(2 * digits + 10):
        for text, want in zip(printed, expected):
            mantissa = text.split("e")[0].lstrip("-").replace(".", "").lstrip("0")
            assert len(mantissa) == digits, text
            unit = mpmath.mpf(10) ** (int(mpmath.floor(mpmath.log10(abs(want)))) - digits + 1)
            assert abs(mpmath.mpf(text) - want) <= unit / 2, (text, want)


@pytest.mark.parametrize(
    "name, depth, w, b, digits, extra",
    [
        ("relu", 3000, "1", "0", 15, {}),  # c → 1 like 1 − O(1/L²): no fixed-point box
        ("erf", 2000, "1", "0", 15, {}),  # c → 0 geometrically: relative digits kept
        ("erf", 400, "1.5", "0.05", 30, {}),
        ("leaky_relu", 300, "2", "0.1", 20, {"slope": "0.2"}),
        # the linear map's layers (0.25 s of CPU, the closed route as erf's at σ_b² > 0): -m reference
        pytest.param("identity", 2000, "1.5", "0.05", 15, {}, marks=pytest.mark.reference),
    ],
)
def test_layers_against_the_mpmath_recursion(name, depth, w, b, digits, extra):
    result = kernel(name, rho="0.3", depth=depth, sigma_w2=w, sigma_b2=b, digits=digits, params=extra or None)
    printed = result["correlation_layers"].decimal(digits)
    expected = _recursion(name, "0.3", depth, w, b, 2 * digits + 10, extra.get("slope", 0))
    _assert_every_digit(printed, expected, digits)


def test_no_integral_per_layer(monkeypatch):
    """The closed route never reaches the integrals' layer (``layer_balls``)."""
    monkeypatch.setattr(kernel_maps, "layer_boxes", lambda *a, **k: pytest.fail("an integral layer"))
    qs, cs = layer_trajectory(
        resolve("relu", None), Fraction(1), Fraction(3, 10), 500, Fraction(2), Fraction(1, 10), 15
    )
    assert len(qs) == len(cs) == 501


@pytest.mark.reference
@pytest.mark.parametrize(
    "name, w, b", [("relu", "1", "0"), ("erf", "1", "0"), ("erf", "1.5", "0.05"), ("relu", "1.5", "0.05")]
)
def test_depth_10000_at_30_digits(name, w, b):
    result = kernel(name, rho="0.3", depth=10000, sigma_w2=w, sigma_b2=b, digits=30)
    printed = result["correlation_layers"].decimal(30)
    _assert_every_digit(printed, _recursion(name, "0.3", 10000, w, b, 70), 30)


@pytest.mark.parametrize("name", sorted(Q_SLOPE_AT_ONE))
def test_q_slope_largest_at_c_equal_1(name):
    """The catalog's claim the closed layers rest on: |∂K(q1, q2, c)/∂q1| ≤ ∂K(q1, q2, 1)/∂q1 at
    every |c| ≤ 1, and |d/dq K(q, q, c)| ≤ dA/dq (central differences at 60 digits on a grid)."""
    closed = BALL_KERNELS[name]
    params = {"slope": arb("0.2")} if name == "leaky_relu" else {}
    h = arb(10) ** -20

    def rational(v):
        return arb(v.numerator) / v.denominator

    with ctx.workprec(200):
        for q1, q2 in (
            (Fraction(1, 10), Fraction(1, 10)),
            (Fraction(1), Fraction(1)),
            (Fraction(7), Fraction(7)),
            (Fraction(1), Fraction(3)),
            (Fraction(5), Fraction(1, 4)),
        ):
            equal = q1 == q2

            def k(shift, c):
                a = rational(q1) + shift
                return closed(a, a if equal else rational(q2), c, params)[0]

            top = (k(h, arb(1)) - k(-h, arb(1))) / (2 * h)
            for i in range(-20, 21):
                c = arb(i) / 20
                slope = (k(h, c) - k(-h, c)) / (2 * h)
                assert abs(slope).upper() <= top.upper() * (1 + arb(10) ** -15), (q1, q2, c)


def test_dual_derivatives_against_mpmath():
    """Forward-mode derivatives on a ball enclose mpmath's numerical derivative at its centre."""

    def f(x):
        return (2 * x / (1 + 2 * x)).asin() + (x * x).sqrt() / 3 - (x / 4).acos() + 1 / x + (x - 1) ** 3

    def g(x):
        return mpmath.asin(2 * x / (1 + 2 * x)) + x / 3 - mpmath.acos(x / 4) + 1 / x + (x - 1) ** 3

    with ctx.workprec(200), mpmath.workdps(50):
        for point in ("0.3", "1.7", "2.5"):
            value, slope = value_and_slope(f(Dual(arb(point), arb(1))))
            assert abs(value.mid() - arb(mpmath.nstr(g(mpmath.mpf(point)), 45))) < arb(10) ** -40
            want = mpmath.diff(g, mpmath.mpf(point))
            assert abs(slope.mid() - arb(mpmath.nstr(want, 45))) < arb(10) ** -40


def _relu6_length(q):
    """E[relu6(u)²], u ~ N(0, q), by mpmath quadrature."""
    s = mpmath.sqrt(q)
    return mpmath.quad(lambda x: min(max(x, 0), 6) ** 2 * mpmath.npdf(x, 0, s), [0, 6, mpmath.inf])


@pytest.mark.parametrize("q", ["1", "0.25"])
def test_twin_noise_bounds_the_difference(q):
    """relu6 = relu on (−∞, 6]: |E[relu6(u)²] − E[relu(u)²]| (mpmath quadrature) is below the
    proven noise bound, and the bound is not a blow-up (within 10^4 of it)."""
    from momentcalc.moments.closed_layers import twin_noise, twin_of

    route = twin_of(resolve("relu6", None), {})
    with ctx.workprec(128):
        noise = twin_noise(route, arb(q))
    with mpmath.workdps(60):
        difference = abs(_relu6_length(mpmath.mpf(q)) - mpmath.mpf(q) / 2)
        assert 0 < difference <= mpmath.mpf(noise.upper().str(30, radius=False))
        assert mpmath.mpf(noise.upper().str(30, radius=False)) < 10**4 * mpmath.sqrt(difference)
    assert twin_of(resolve("tanh", None), {}) is None


@pytest.mark.parametrize("w, b, depth", [("1", "0", 24), ("1.5", "0.05", 24)])
def test_relu6_twin_against_its_integrals(monkeypatch, w, b, depth):
    """relu6's layers through relu's closed kernel (once the variance is small against 6²)
    print the digits of the layer-by-layer certified integrals of relu6 itself."""
    args = (resolve("relu6", None), Fraction(1), Fraction(3, 10), depth, Fraction(w), Fraction(b), 15)
    calls = []
    real = kernel_maps.layer_boxes
    monkeypatch.setattr(kernel_maps, "layer_boxes", lambda *a, **k: calls.append(1) or real(*a, **k))
    fast = layer_trajectory(*args)
    assert len(calls) <= 10  # the twin took over
    from momentcalc.moments import closed_layers

    monkeypatch.setattr(closed_layers, "twin_of", lambda *a: None)
    slow = layer_trajectory(*args, fast=False)
    for fast_balls, slow_balls in zip(fast, slow):
        for a, b in zip(fast_balls, slow_balls):
            assert a.overlaps(b) and ball_text(a, 15) is not None and ball_text(a, 15) == ball_text(b, 15)


def _split_recursion(name, rho, q1, q2, depth, w, b, dps):
    """Unequal variances: q_i' = σ_w²·A(q_i) + σ_b², c' = (σ_w²·K(q1, q2, c) + σ_b²)/sqrt(q1'·q2')."""
    with mpmath.workdps(dps):
        w, b = mpmath.mpf(w), mpmath.mpf(b)
        q1, q2, c = mpmath.mpf(q1), mpmath.mpf(q2), mpmath.mpf(rho)
        if name == "relu":
            length = lambda q: q / 2
            cross = lambda q1, q2, c: mpmath.sqrt(q1 * q2) * _arc_cosine(c)
        else:
            length = lambda q: 2 / mpmath.pi * mpmath.asin(2 * q / (1 + 2 * q))
            cross = lambda q1, q2, c: (
                2
                / mpmath.pi
                * mpmath.asin(2 * c * mpmath.sqrt(q1 * q2) / mpmath.sqrt((1 + 2 * q1) * (1 + 2 * q2)))
            )
        out = [c]
        for _ in range(depth):
            n1, n2 = w * length(q1) + b, w * length(q2) + b
            c, q1, q2 = (w * cross(q1, q2, c) + b) / mpmath.sqrt(n1 * n2), n1, n2
            out.append(c)
    return out


@pytest.mark.parametrize(
    "name, depth, w, b, digits",
    [
        ("relu", 2000, "1", "0", 15),  # exit 3 from layer ~60 before (balls evaluated whole)
        # c → 0: relative digits (1.3 s of CPU; test_layers_against_the_mpmath_recursion checks erf's
        # c → 0 at equal variances by default)
        pytest.param("erf", 2000, "1", "0", 15, marks=pytest.mark.reference),
        ("erf", 300, "1.5", "0.05", 30),
    ],
)
def test_unequal_variances_against_the_mpmath_recursion(name, depth, w, b, digits):
    result = kernel(name, rho="0.3", q1="1", q2="2", depth=depth, sigma_w2=w, sigma_b2=b, digits=digits)
    printed = result["correlation_layers"].decimal(digits)
    _assert_every_digit(printed, _split_recursion(name, "0.3", 1, 2, depth, w, b, 2 * digits + 10), digits)
