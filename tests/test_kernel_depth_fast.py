"""``kernel --depth``'s fast tail (``moments.fading_tail``): where the variance fades
geometrically (σ_b² = 0, φ(0) = 0, σ_w²·φ'(0)² < 1) every later layer is proven without
integrals. Checked against the layer-by-layer route to every printed digit, against a Gauss–
Hermite trajectory, and the proof must refuse where it does not hold."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import numpy as np
import pytest
from flint import arb, ctx

from momentcalc.catalog import resolve
from momentcalc.computations.kernel import kernel
from momentcalc.engine.rounding import ball_text
from momentcalc.moments import kernel_maps, propagation
from momentcalc.moments.fading_tail import fading_tail, linear_remainder


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


def _trajectory(name, depth, digits, fast):
    return layer_trajectory(
        resolve(name, None), Fraction(1), Fraction(3, 10), depth, Fraction(1), Fraction(0), digits, fast=fast
    )


def test_fast_tail_agrees_with_every_layer(monkeypatch):
    """swish at depth 50, 6 digits: the tail starts after a few dozen layers and every
    layer's q and c print the same digits as the layer-by-layer balls (which contain them)."""
    calls = []
    real = kernel_maps.layer_boxes
    monkeypatch.setattr(kernel_maps, "layer_boxes", lambda *a, **k: calls.append(1) or real(*a, **k))
    fast = _trajectory("swish", 50, 6, True)
    used = len(calls)
    slow = _trajectory("swish", 50, 6, False)
    assert used < 45 and len(calls) - used == 50  # the tail did take over
    for fast_balls, slow_balls in zip(fast, slow):
        for a, b in zip(fast_balls, slow_balls):
            assert a.overlaps(b)
            assert ball_text(a, 6) is not None and ball_text(a, 6) == ball_text(b, 6)


def _gauss_hermite_layers(phi, depth, nodes=120):
    """(q, c) after ``depth`` layers (σ_w² = 1, σ_b² = 0) by 2-D Gauss–Hermite in doubles."""
    x, w = np.polynomial.hermite_e.hermegauss(nodes)
    w = w / w.sum()
    X, Y = np.meshgrid(x, x, indexing="ij")
    W = np.outer(w, w)
    q, c = 1.0, 0.3
    for _ in range(depth):
        s = np.sqrt(q)
        a = float((w * phi(s * x) ** 2).sum())
        k = float((W * phi(s * X) * phi(s * (c * X + np.sqrt(1 - c * c) * Y))).sum())
        q, c = a, k / a
    return q, c


# 3 s of CPU (300 layers); by default test_fast_tail_agrees_with_every_layer holds swish's fast
# tail to the layer-by-layer balls, and test_settled_box_agrees_with_every_layer goes 260 layers deep
@pytest.mark.reference
def test_deep_correlation_against_gauss_hermite():
    """swish's correlation at depth 300 (σ_w² = 1) against 80 layers of a double-precision
    Gauss–Hermite trajectory (the drift after layer 80 is below 1e-20): 11 digits."""
    result = kernel("swish", rho="0.3", depth=300)
    layers = result.value("correlation_layers")
    assert len(layers) == 301
    _, c = _gauss_hermite_layers(lambda t: t / (1 + np.exp(-t)), 80, nodes=100)
    assert float(layers[-1]) == pytest.approx(c, rel=1e-11, abs=0)
    assert float(layers[-1]) == pytest.approx(float(layers[200]), rel=1e-15)


@pytest.mark.parametrize(
    "name",
    ["gelu", "swish", "hard_swish", "sin(x)"]
    # smooth entries as gelu and swish are (0.7 s of CPU): -m reference
    + [
        pytest.param(name, marks=pytest.mark.reference)
        for name in ("gelu_tanh", "mish", "quick_gelu", "x*tanh(log(1+exp(x)))")
    ],
)
def test_remainder_bound_holds(name):
    """|φ(x) − φ'(0)·x| ≤ B·x² at 4000 points of [−40, 40] (mpmath at 30 digits)."""
    act = resolve(name, None)
    rem = linear_remainder(act, 128)
    assert rem is not None
    params = act.param_values()
    with mpmath.workdps(30):
        a = mpmath.mpf(float(rem.slope.mid()))
        bound = mpmath.mpf(float(rem.bound.upper()))
        worst = max(
            abs(act.fn(x, params) - a * x) / (x * x)
            for x in (mpmath.mpf(k) / 100 + mpmath.mpf(1) / 7 for k in range(-4000, 4000, 2))
        )
    assert worst <= bound
    assert bound < 4 * worst + 1  # a bound, not a blow-up


@pytest.mark.parametrize("name", ["relu6", "elu", "x**3", "exp(x)", "cos(x)", "x/(1+100*x**2)", "relu2"])
def test_remainder_refused(name):
    """No global B (a kink at 0, φ'(0) = 0, φ(0) ≠ 0, a pole near 0, growth past x²)."""
    assert linear_remainder(resolve(name, None), 128) is None


def test_tail_refused_where_it_does_not_contract():
    """The proof must fail: tanh at σ_w² = 1 (λ = σ_w²·φ'(0)² = 1: the variance fades like 1/L,
    not geometrically), gelu at σ_w² = 4 (λ = 1 + ε), and any activation while q is not small."""
    with ctx.workprec(200):
        tiny, c = arb(10) ** -80, arb("0.3")
        tanh = linear_remainder(resolve("tanh", None), 200)
        gelu = linear_remainder(resolve("gelu", None), 200)
        assert fading_tail(tanh, tiny, Fraction(1), 15, c) is None
        assert fading_tail(gelu, tiny, Fraction(4), 15, c) is None
        assert fading_tail(gelu, arb(10) ** -8, Fraction(1), 15, c) is None
        assert fading_tail(gelu, tiny, Fraction(1), 15, arb(0)) is None  # c's relative width unprovable
        tail = fading_tail(gelu, tiny, Fraction(1), 15, c)
        assert tail is not None and tail.ratio.overlaps(arb(1) / 4) and tail.drift < arb(10) ** -30


def test_default_depth_unchanged():
    """--depth 10 never reaches the tail (q is still far from 0): the same balls as before."""
    fast = _trajectory("gelu", 10, 15, True)
    slow = _trajectory("gelu", 10, 15, False)
    assert all(a.mid() == b.mid() and a.rad() == b.rad() for x, y in zip(fast, slow) for a, b in zip(x, y))


@pytest.mark.parametrize(
    "args, layer",
    [
        (["relu2", "--depth", "100", "--sigma-w2", "1.5", "--sigma-b2", "0.05"], 15),
        (["x**3", "--depth", "10"], 9),
    ],
)
def test_exploding_length_is_exit_2(args, layer):
    """q' ≈ 3σ_w²q² (relu2) or 15σ_w²q³ (x³): one line naming --depth and the layer, exit 2."""
    from tests.conftest import invoke

    result = invoke("kernel", *args, "--rho", "0.3")
    assert result.code == 2 and result.stdout == ""
    assert f"passes 1e10000 at layer {layer}" in result.stderr and "--depth of at most" in result.stderr
    assert "float" not in result.stderr


def test_collapsing_length_is_exit_2():
    from tests.conftest import invoke

    result = invoke("kernel", "x**3", "--rho", "0.3", "--depth", "30", "--sigma-w2", "0.01")
    assert result.code == 2 and "falls below 1e-10000 at layer 10" in result.stderr


def test_polynomial_kernel_against_the_bivariate_route():
    """x³ − 2x + 1 at ρ = 0.3, q1 = 1, q2 = 2: Isserlis' closed form against the certified
    bivariate quadrature, and E[u³v³] = (q1q2)^{3/2}(9ρ + 6ρ³) exactly."""
    from momentcalc.moments.bivariate_certified import signed_cross_balls
    from momentcalc.moments.polynomial_kernel import polynomial_kernel

    act = resolve("x**3 - 2*x + 1", None)
    closed = polynomial_kernel(act, Fraction(3, 10), Fraction(1), Fraction(2), 25)
    quadrature = signed_cross_balls(act, Fraction(1), Fraction(2), Fraction(3, 10), 20)
    for a, b in zip(closed, quadrature):
        assert a.overlaps(b) and ball_text(a, 20) == ball_text(b, 20)
    with ctx.workprec(200):
        cube = polynomial_kernel(resolve("x**3", None), Fraction(3, 10), Fraction(1), Fraction(2), 40)[0]
        exact = arb(8).sqrt() * arb("2.862")
        assert cube.overlaps(exact) and cube.rad() < arb(10) ** -40


def test_hermite_of_cos_where_a_moment_is_zero():
    """E[Z²·cos Z] = 0 for no symmetry: cos's a_k = (−1)^{k/2}·e^{−1/2}/√(k!) (even k), 0 (odd k),
    to 30 digits."""
    from momentcalc.computations.hermite import hermite

    result = hermite("cos(x)", terms=8, digits=30)
    with mpmath.workdps(40):
        for k, text in enumerate(result.value("coefficients")):
            exact = 0 if k % 2 else (-1) ** (k // 2) * mpmath.exp(-0.5) / mpmath.sqrt(mpmath.factorial(k))
            assert (
                mpmath.mpf(str(text)) == 0 if exact == 0 else abs(mpmath.mpf(str(text)) / exact - 1) < 1e-29
            )


def test_hermite_of_max_is_relu_exactly():
    """max(x, 0) as rational pieces (its odd a_k ≥ 3 exact zeros, as relu's)."""
    from momentcalc.computations.hermite import hermite

    mine = hermite("max(x,0)", terms=12).value("coefficients")
    relu = hermite("relu", terms=12).value("coefficients")
    assert [str(a) for a in mine] == [str(a) for a in relu]
    assert all(a == 0 for a in mine[3::2])


def test_settled_box_agrees_with_every_layer():
    """tanh at σ_w² = 4, σ_b² = 0.05 (chaotic: c* ≈ 0.165): once a box around the last layer is
    proven invariant, every later layer is its image; each prints the digits of the
    layer-by-layer balls (which it overlaps). (6 digits over 200 layers, the box from about
    layer 171: 8 digits over 260 layers cost 0.6 s of CPU more for the same check.)"""
    args = (resolve("tanh", None), Fraction(1), Fraction(3, 10), 200, Fraction(4), Fraction(1, 20), 6)
    calls = []
    real = kernel_maps.layer_boxes
    try:
        kernel_maps.layer_boxes = lambda *a, **k: calls.append(1) or real(*a, **k)
        fast = layer_trajectory(*args)
        used = len(calls)
    finally:
        kernel_maps.layer_boxes = real
    slow = layer_trajectory(*args, fast=False)
    assert used < 190  # the box took over
    for fast_balls, slow_balls in zip(fast, slow):
        for a, b in zip(fast_balls, slow_balls):
            assert a.overlaps(b)
            assert ball_text(a, 6) is not None and ball_text(a, 6) == ball_text(b, 6)


def test_settled_box_refused_far_from_the_fixed_point():
    """Steps made to look settled at layer 0's point (q = 1, c = 0.3, far from tanh's fixed
    point): the box is not mapped into itself, so the proof fails (False), and the next try is
    wider."""
    with ctx.workprec(200):
        qs = [arb(1) + arb(10) ** -40 * k for k in range(3)]
        cs = [arb("0.3") + arb(10) ** -40 * k for k in range(3)]
    widen = [1, 1]
    found = propagation._settled(
        propagation.layer_map(resolve("tanh", None), Fraction(4), Fraction(1, 20)),
        qs,
        cs,
        propagation.Span(Fraction(1), Fraction(0)),
        propagation.Span(Fraction(3, 10), Fraction(0)),
        propagation.Work(15, 15, 200),
        widen,
    )
    assert found is False and 4 in widen


def test_exp_polynomial_kernels_in_closed_form():
    """exp(x): E[e^u·e^v] = E[e^u'·e^v'] = exp((q1 + q2)/2 + ρ·sqrt(q1·q2)) exactly (30 digits);
    x·e^{−x/2} against 2-D Gauss–Hermite in doubles (13 digits)."""
    result = kernel("exp(x)", rho="0.5", q1="1", q2="2", digits=30)
    with mpmath.workdps(40):
        exact = mpmath.exp(mpmath.mpf(3) / 2 + mpmath.sqrt(2) / 2)
        for name in ("nngp", "ntk_derivative"):
            text = next(q for q in result.results if q.name == name).decimal(30)
            assert abs(mpmath.mpf(text) / exact - 1) < mpmath.mpf(10) ** -29
    value = kernel("x*exp(-x/2)", rho="0.5").value("nngp")
    x, w = np.polynomial.hermite_e.hermegauss(80)  # exact to rounding for this entire integrand
    w = w / w.sum()
    X, Y = np.meshgrid(x, x, indexing="ij")
    f = lambda t: t * np.exp(-t / 2)
    ref = float((np.outer(w, w) * f(X) * f(0.5 * X + np.sqrt(0.75) * Y)).sum())
    assert float(value) == pytest.approx(ref, rel=1e-13)


def test_settled_box_near_c_equal_1():
    """softplus at σ_w² = 1 (ordered: c → 1, q* ≈ 0.856): the box at c* = 1, clipped there, is
    proven invariant once its variance side is kept narrow; every layer to the printed digits."""
    args = (resolve("softplus", None), Fraction(1), Fraction(3, 10), 70, Fraction(1), Fraction(0), 6)
    fast = layer_trajectory(*args)
    slow = layer_trajectory(*args, fast=False)
    for fast_balls, slow_balls in zip(fast, slow):
        for a, b in zip(fast_balls, slow_balls):
            assert a.overlaps(b) and ball_text(a, 5) == ball_text(b, 5)
