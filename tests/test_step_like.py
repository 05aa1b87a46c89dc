"""Kernels and moments at large variances of the sign-like activations (``catalog.relu_like``'s
tanh and sigmoid: φ = d·[x > 0] + c·[x < 0] + g, ``moments.relu_like``), and erf's E[φ''²] in
closed form (issue 35): against erf's arcsine kernel (erf declared as a step in the test), the
identity sigmoid(x) = (1 + tanh(x/2))/2, mpmath quadratures, seeded Monte Carlo, and the CLI
at the commands that were exit 3."""

from __future__ import annotations

import re
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from flint import acb, arb, ctx
from mpmath import mp

from momentcalc.catalog import resolve
from momentcalc.catalog.ball_parts import _m
from momentcalc.catalog.kernels import BALL_KERNELS
from momentcalc.catalog.relu_like import RELU_LIKE, ReluLike
from momentcalc.moments import relu_like
from momentcalc.moments.normal_cdf import normal_cdf_ball, normal_cdf_curvature
from momentcalc.moments.relu_like import relu_like_expectations, relu_like_kernel
from tests.conftest import invoke
from tests.test_relu_like import _assert_digits, _moment_reference


def _erf_right(z: acb) -> acb:
    return -(z.erfc())


# erf = sign(x) + g: g = erfc(−x) on x ≤ 0, −erfc(x) on x ≥ 0, g' = erf' = (2/√π)·e^{−x²}. For
# every real x, erfc(|x|) ≤ e^{−x²} (Chernoff) and −x² ≤ 1 − 2|x| ((|x| − 1)² ≥ 0), so
# |g| ≤ e·e^{−2|x|} ≤ 3e^{−2|x|} and |g'| ≤ (2e/√π)·e^{−2|x|} ≤ 4e^{−2|x|}: C₀ = 3, C₁ = 4, λ = 2.
ERF_STEP = ReluLike(
    (_m(lambda z, p: (-z).erfc()), _m(lambda z, p: 2 / arb.pi().sqrt() * (-z * z).exp())),
    (_m(lambda z, p: _erf_right(z)), _m(lambda z, p: 2 / arb.pi().sqrt() * (-z * z).exp())),
    lambda p: arb(3),
    lambda p: arb(4),
    lambda p: arb(2),
    scale=lambda p: arb(0),
    floor=lambda p: arb(-1),
    top=lambda p: arb(1),
)


@pytest.mark.parametrize(
    "q1, q2, rho, digits",
    [
        pytest.param(10**300, 10**300, Fraction(-7, 10), 20, id="q=1e300"),
        pytest.param(10**6, 2 * 10**6, Fraction(1, 2), 16, marks=pytest.mark.reference),
        pytest.param(10**4, 3 * 10**4, Fraction(9, 10), 30, marks=pytest.mark.reference),
        pytest.param(2 * 10**4, 10**8, Fraction(-1, 5), 40, marks=pytest.mark.reference),
    ],
)
def test_erf_as_a_step_against_its_arcsine_kernel(monkeypatch, q1, q2, rho, digits):
    """erf declared as a step (the catalog takes its closed forms first) through the sign-like
    route: both kernels hold erf's arcsine closed forms (Williams 1997), to the digits asked."""
    monkeypatch.setitem(RELU_LIKE, "erf", ERF_STEP)
    act = resolve("erf", None)
    got = relu_like_kernel(act, rho, Fraction(q1), Fraction(q2), digits)
    assert got is not None
    with ctx.workprec(4 * digits + 64):
        want = BALL_KERNELS["erf"](arb(q1), arb(q2), arb(rho.numerator) / rho.denominator, {})
        for ball, exact in zip(got, want):
            assert ball.overlaps(exact), (ball, exact)
            assert ball.rad() <= abs(exact) * arb(10) ** -digits


@pytest.mark.reference
def test_erf_as_a_step_univariate_moments(monkeypatch):
    """The univariate moments of the same route against erf's closed forms (Stein's identity
    down to orthant probabilities), at q = 1e6."""
    monkeypatch.setitem(RELU_LIKE, "erf", ERF_STEP)
    act = resolve("erf", None)
    monomials = [(0, 2, 0), (0, 0, 2), (1, 1, 1), (0, 4, 0), (2, 2, 0)]
    got = relu_like_expectations(act, monomials, Fraction(10**6), 16)
    assert got is not None
    for monomial, ball in zip(monomials, got):
        exact = normal_cdf_ball(act, monomial, Fraction(0), Fraction(1000), 30)
        assert exact is not None and ball.overlaps(exact), (monomial, ball, exact)
        assert ball.rad() <= abs(exact) * arb(10) ** -16


@pytest.mark.reference
def test_sigmoid_is_half_tanh():
    """sigmoid(x) = (1 + tanh(x/2))/2 and E[tanh] = 0: E[σ(u)σ(v)] = (1 + K_tanh(q/4))/4 and
    E[σ'(u)σ'(v)] = K'_tanh(q/4)/16 (tanh(u/2), u/2 of variance q/4): two declarations, one identity."""
    q, rho = Fraction(4 * 10**6), Fraction(3, 10)
    sig = relu_like_kernel(resolve("sigmoid", None), rho, q, 3 * q, 18)
    tan = relu_like_kernel(resolve("tanh", None), rho, q / 4, 3 * q / 4, 18)
    assert sig is not None and tan is not None
    with ctx.workprec(128):
        assert sig[0].overlaps((1 + tan[0]) / 4) and sig[1].overlaps(tan[1] / 16)


def _step_reference(q1, q2, rho, dps, top, floor, g, dg):
    """(E[φ(u)φ(v)], E[φ'(u)φ'(v)]) for φ = top·[x > 0] + floor·[x < 0] + g by mpmath: the steps'
    sign kernel, the cross terms ∫ g(y)·(floor − c·Φ(ωy))·n(y/σ)/σ dy (c = floor − top, the
    conditional probability in closed form), and E[g(u)g(v)] = p₀·Σ_j (−β)^j/j!·X_j·Y_j with
    X_j = ∫ g(x)·x^j·e^{−αx²} dx (p(x, y) = p₀·e^{−αx²−βxy−γy²}, the exponential's series in
    βxy, every moment a 1-D quadrature)."""
    with mp.workdps(dps + 10):
        q1, q2, rho = (mpmath.mpf(x.numerator) / x.denominator for x in map(Fraction, (q1, q2, rho)))
        s1, s2, r = mpmath.sqrt(q1), mpmath.sqrt(q2), mpmath.sqrt(1 - rho**2)
        n, N, c = mpmath.npdf, mpmath.ncdf, floor - top
        closed = top * top + top * c + c * c * (mpmath.pi - mpmath.acos(rho)) / (2 * mpmath.pi)
        cut = [-90, -40, -10, -3, -1, 0, 1, 3, 10, 40, 90]  # (sigmoid's g is e^{−|x|}: 1e-39 beyond 90)

        def cross(sb):
            omega = rho / (sb * r)
            return mpmath.quad(lambda y: g(y) * (floor - c * N(omega * y)) * n(y / sb) / sb, cut)

        p0 = 1 / (2 * mpmath.pi * s1 * s2 * r)
        a, b, e = 1 / (2 * q1 * r * r), -rho / (s1 * s2 * r * r), 1 / (2 * q2 * r * r)

        def square(f):
            total, term, j, small = mpmath.mpf(0), mpmath.mpf(1), 0, 0
            while True:
                X = mpmath.quad(lambda x: f(x) * x**j * mpmath.exp(-a * x * x), cut)
                Y = X if a == e else mpmath.quad(lambda x: f(x) * x**j * mpmath.exp(-e * x * x), cut)
                total += term * X * Y
                # (two small terms in a row: an odd g has X_j = 0 at every even j)
                small = small + 1 if abs(term * X * Y) < mpmath.mpf(10) ** -(dps + 5) * abs(total) else 0
                if small == 2:
                    return p0 * total
                j += 1
                term = term * (-b) / j

        return closed + cross(s2) + cross(s1) + square(g), square(dg)


def _tanh_reference(q1, q2, rho, dps):
    return _step_reference(
        q1,
        q2,
        rho,
        dps,
        1,
        -1,
        lambda x: -mpmath.sign(x) * 2 / (1 + mpmath.exp(2 * abs(x))),
        lambda x: mpmath.sech(x) ** 2,
    )


def _sigmoid_reference(q1, q2, rho, dps):
    return _step_reference(
        q1,
        q2,
        rho,
        dps,
        1,
        0,
        lambda x: (
            mpmath.sign(x) * mpmath.exp(-abs(x)) / (1 + mpmath.exp(-abs(x))) * -mpmath.sign(x)
            if x > 0
            else mpmath.exp(x) / (1 + mpmath.exp(x))
        ),
        lambda x: mpmath.exp(-abs(x)) / (1 + mpmath.exp(-abs(x))) ** 2,
    )


@pytest.mark.reference
@pytest.mark.parametrize(
    "name, q1, q2, rho, digits",
    [
        ("tanh", 10**4, 10**4, Fraction(1, 2), 25),
        ("tanh", 10**5, 3 * 10**5, Fraction(-7, 10), 25),
        ("sigmoid", 2 * 10**4, 10**6, Fraction(1, 5), 25),
        ("sigmoid", 10**6, 10**6, Fraction(-9, 10), 25),
    ],
)
def test_kernel_against_quadrature(name, q1, q2, rho, digits):
    reference = _tanh_reference if name == "tanh" else _sigmoid_reference
    want = reference(q1, q2, rho, digits + 5)
    got = relu_like_kernel(resolve(name, None), rho, Fraction(q1), Fraction(q2), digits)
    assert got is not None
    for ball, value in zip(got, want):
        _assert_digits(ball, value, digits)


MONOMIALS = [(0, 1, 0), (0, 2, 0), (2, 2, 0), (0, 0, 2), (1, 1, 1), (0, 4, 0), (0, 0, 4)]


@pytest.mark.reference
@pytest.mark.parametrize(
    "name, monomials, digits",
    [
        pytest.param("tanh", MONOMIALS[1:], 25, marks=pytest.mark.reference),
        pytest.param("sigmoid", MONOMIALS, 25, marks=pytest.mark.reference),
    ],
)
def test_univariate_moments_against_quadrature(name, monomials, digits):
    act = resolve(name, None)
    got = relu_like_expectations(act, monomials, Fraction(10**5), digits)
    assert got is not None
    for monomial, ball in zip(monomials, got):
        _assert_digits(ball, _moment_reference(act, monomial, 10**5, 2 * digits), digits)


def test_tanh_kernel_by_monte_carlo():
    """Seeded Monte Carlo, each within 5 standard errors: at q = 1e300, E[tanh(u)tanh(v)] by plain
    sampling (its leading term, the sign kernel); at q = 1e4, E[tanh'(u)tanh'(v)] =
    (∫sech²)²·E[p(X, Y)] with X, Y drawn from sech²(x)/2 (logistic of scale 1/2), p the joint
    density of (u, v): the square term's series, near-flat weight and all."""
    rng = np.random.default_rng(20261203)
    rho = 0.6
    z1, z2 = rng.standard_normal((2, 50000))
    u, v = 1e150 * z1, 1e150 * (rho * z1 + np.sqrt(1 - rho * rho) * z2)
    samples = np.tanh(u) * np.tanh(v)
    got = relu_like_kernel(resolve("tanh", None), Fraction(3, 5), Fraction(10**300), Fraction(10**300), 15)
    assert got is not None
    se = samples.std() / np.sqrt(samples.size)
    assert abs(float(got[0].mid()) - samples.mean()) <= 5 * se
    q = 1e4
    x, y = (rng.logistic(0, 0.5, 50000) for _ in range(2))
    root = 1 - rho * rho
    density = np.exp(-(x * x - 2 * rho * x * y + y * y) / (2 * q * root)) / (2 * np.pi * q * np.sqrt(root))
    samples = 4 * density
    got = relu_like_kernel(resolve("tanh", None), Fraction(3, 5), Fraction(10**4), Fraction(10**4), 15)
    assert got is not None
    se = samples.std() / np.sqrt(samples.size)
    assert se < 1e-6 * samples.mean()  # (the weight is nearly flat: a sharp test)
    assert abs(float(got[1].mid()) - samples.mean()) <= 5 * se


@pytest.mark.parametrize(
    "name, q",
    [
        # (the default run checks erf's at q = 1e8 through the CLI: test_erf_cli_at_a_large_variance)
        pytest.param("erf", Fraction(10**5), marks=pytest.mark.reference),
        pytest.param("erf", Fraction(1), marks=pytest.mark.reference),
        pytest.param("gelu", Fraction(10**5), marks=pytest.mark.reference),
        pytest.param("gelu", Fraction(1, 3), marks=pytest.mark.reference),
    ],
)
def test_curvature_in_closed_form(name, q):
    """E[φ''(X)²], X ~ N(0, q), against mpmath quadrature of the catalog's own φ'' (erf'' =
    −(4x/√π)·e^{−x²}, gelu'' = (2 − x²)·n(x)), to 30 digits."""
    act = resolve(name, None)
    got = normal_cdf_curvature(act, q, 30)
    assert got is not None
    with mp.workdps(50):
        s = mpmath.sqrt(mpmath.mpf(q.numerator) / q.denominator)
        second = (
            (lambda x: -4 * x / mpmath.sqrt(mpmath.pi) * mpmath.exp(-x * x))
            if name == "erf"
            else (lambda x: (2 - x * x) * mpmath.npdf(x))
        )
        want = mpmath.quad(
            lambda x: second(x) ** 2 * mpmath.npdf(x / s) / s, [-mpmath.inf, -5, 0, 5, mpmath.inf]
        )
    _assert_digits(got, want, 30)


def _printed_digits(text):
    mantissa = text.split("e")[0]
    return len(mantissa.replace(".", "").replace("-", "").lstrip("0")) - 1


def test_tanh_cli_at_the_largest_variances():
    """Issue 35: ``kernel tanh`` at q = 1e300 against the leading terms, whose corrections are
    O(1/σ) = 1e-150 or smaller: nngp = (2/π)·arcsin ρ, ntk = (∫sech²)²·p₀ = 4/(2πq·sqrt(1 − ρ²)),
    and with E[φ²] = 1, E[φ'²] = (∫sech⁴)·n(0)/σ = (4/3)·n(0)/σ, E[φ''²] = (∫4tanh²sech⁴)·n(0)/σ =
    (16/15)·n(0)/σ, E[u·φ·φ'] = (∫x·tanh·sech²)·n(0)/σ = n(0)/σ (n(0) = 1/√(2π)): every printed
    digit."""
    run = invoke("kernel", "tanh", "--q", "1e300", "--rho", "0.5", "--json")
    assert run.code == 0, run.stderr
    results = run.json()["results"]
    with mp.workdps(40):
        q = mpmath.mpf(10) ** 300
        n0 = 1 / mpmath.sqrt(q * 2 * mpmath.pi)
        wants = {
            "nngp": mpmath.mpf(1) / 3,
            "ntk_derivative": 4 / (2 * mpmath.pi * q * mpmath.sqrt(mpmath.mpf(3) / 4)),
            "correlation_out": mpmath.mpf(1) / 3,
            "c_map_slope_at_1": q * 4 * n0 / 3,
            "c_map_curvature_at_1": q * q * 16 * n0 / 15,
            "q_map_slope_at_1": n0 / q,
        }
        assert results["c_map_at_0"]["decimal"] == "0"
        for key, want in wants.items():
            text = results[key]["decimal"]
            assert abs(mpmath.mpf(text) - want) <= abs(want) * mpmath.mpf(10) ** -_printed_digits(text), (
                key,
                text,
            )


def _assert_kernels_printed(results: dict, k: mpmath.mpf, k1: mpmath.mpf) -> None:
    """Every printed digit of the command's nngp and ntk_derivative against the references."""
    with mp.workdps(30):
        for key, want in (("nngp", k), ("ntk_derivative", k1)):
            text = results[key]["decimal"]
            assert abs(mpmath.mpf(text) - want) <= abs(want) * mpmath.mpf(10) ** -_printed_digits(text), (
                key,
                text,
            )


@pytest.mark.reference
def test_tanh_cli_at_a_large_variance():
    """Issue 35: ``kernel tanh --q 1e8 --rho 0.5`` was exit 3 ("the rules' nodes ... grow with
    sqrt(q)"); every printed digit of both kernels against the quadrature."""
    run = invoke("kernel", "tanh", "--q", "1e8", "--rho", "0.5", "--json")
    assert run.code == 0, run.stderr
    results = run.json()["results"]
    k, k1 = _tanh_reference(10**8, 10**8, Fraction(1, 2), 20)
    _assert_kernels_printed(results, k, k1)


def test_erf_cli_at_a_large_variance():
    """Issue 35: ``kernel erf --q 1e8 --rho 0.3`` was exit 3 (E[φ''²]'s tails); now instant at 40
    digits: C''(1) = q²·E[φ''²]/E[φ²] against a quadrature of φ''² and the arcsine form of E[φ²]."""
    run = invoke("kernel", "erf", "--q", "1e8", "--rho", "0.3", "--digits", "40", "--json")
    assert run.code == 0, run.stderr
    text = run.json()["results"]["c_map_curvature_at_1"]["decimal"]
    with mp.workdps(60):
        q = mpmath.mpf(10) ** 8
        s = mpmath.sqrt(q)
        curvature = mpmath.quad(
            lambda x: 16 / mpmath.pi * x * x * mpmath.exp(-2 * x * x) * mpmath.npdf(x / s) / s,
            [-mpmath.inf, 0, mpmath.inf],
        )
        second = 2 / mpmath.pi * mpmath.asin(2 * q / (1 + 2 * q))
        want = q * q * curvature / second
        assert abs(mpmath.mpf(text) - want) <= want * mpmath.mpf(10) ** -_printed_digits(text), (text, want)


@pytest.mark.reference
def test_sigmoid_cli_at_a_large_variance():
    """``kernel sigmoid --q 1e6`` (3.7 s of CPU by the bivariate rules, past the budget on a loaded
    machine): both kernels against the quadrature."""
    run = invoke("kernel", "sigmoid", "--q", "1e6", "--json")
    assert run.code == 0, run.stderr
    results = run.json()["results"]
    k, k1 = _sigmoid_reference(10**6, 10**6, Fraction(1, 2), 20)
    _assert_kernels_printed(results, k, k1)


@pytest.mark.reference
@pytest.mark.parametrize("name", ["tanh", "sigmoid"])
def test_deep_network_at_a_large_weight_variance(name):
    """Issue 35: ``kernel tanh --sigma-w2 1e6 --depth 50`` (the variance about 1e6 from layer 1)
    ran out of its budget after 2 layers; now every layer, with the deep kernels."""
    run = invoke("kernel", name, "--sigma-w2", "1e6", "--depth", "50", "--json")
    assert run.code == 0, run.stderr
    results = run.json()["results"]
    layers = [float(x) for x in results["correlation_layers"]["decimal"]]
    assert len(layers) == 51 and "nngp_depth" in results and "ntk_depth" in results
    if name == "tanh":  # the sign map (2/π)·arcsin c drives c to 0 (slope 2/π at 0)
        assert all(0 < b < a for a, b in zip(layers, layers[1:])) and layers[-1] < 1e-9


def test_reach_near_one_is_named():
    """Near ρ = 1 at large variances the series need q·(1 − ρ²) to cover the unit scale:
    ``correlation_reach`` names the correlation nearest 1 they reach (by their conditions alone,
    milliseconds, with a margin: a quarter of the series' reach), about q·(1 − ρ) ≈ 200 here."""
    act = resolve("gelu", None)
    near = relu_like.correlation_reach(act, Fraction(999999999, 10**9), Fraction(10**8), Fraction(10**8), 18)
    assert near is not None and Fraction(99999, 10**5) < near < Fraction(999999, 10**6)
    assert 1 - near == Fraction(round((1 - near) * 10**8), 10**8)  # two significant digits
    far = relu_like.correlation_reach(act, Fraction(-9999, 10**4), Fraction(10**4), Fraction(10**4), 18)
    assert far is not None and Fraction(-999, 1000) < far < Fraction(-9, 10)


@pytest.mark.reference
def test_refusal_near_one_names_a_correlation_that_works():
    """Issue 35: ``kernel gelu --q 1e8 --rho 0.999999999`` is exit 3 naming the --rho to give;
    that --rho answers."""
    run = invoke("kernel", "gelu", "--q", "1e8", "--rho", "0.999999999")
    assert run.code == 3
    match = re.search(r"a --rho of ([0-9.]+) or further from ±1", run.stderr)
    assert match, run.stderr
    run = invoke("kernel", "gelu", "--q", "1e8", "--rho", match.group(1))
    assert run.code == 0, run.stderr


@pytest.mark.reference
def test_tanh_at_a_tiny_correlation():
    """ρ = 1e-30: the sign kernel's closed part without cancellation, the g-terms at the precision
    their size over the tolerance asks. For odd φ, E[φ(u)φ(v)] = Σ_k a_k²·ρ^k with a_1 = σ·E[φ']
    (Stein; Mehler's expansion), so nngp = q·E[φ']²·ρ and ntk = E[φ']² to O(ρ²) = 1e-60, E[φ'] =
    E[sech²(u)] by a 1-D quadrature."""
    rho = Fraction(1, 10**30)
    got = relu_like_kernel(resolve("tanh", None), rho, Fraction(10**6), Fraction(10**6), 25)
    assert got is not None
    with mp.workdps(40):
        slope = mpmath.quad(lambda x: mpmath.sech(x) ** 2 * mpmath.npdf(x / 1000) / 1000, [-60, 0, 60])
        _assert_digits(got[0], 10**6 * slope**2 * mpmath.mpf(10) ** -30, 25)
        _assert_digits(got[1], slope**2, 25)


@pytest.mark.reference
def test_sigmoid_at_two_far_apart_variances():
    """q1 = 1e4, q2 = 1e300: E[g'(u)g'(v)] is about p₀·(∫g')², p₀ = 1/(2π·σ₁σ₂·sqrt(1 − ρ²)), and
    its tail beyond the square is bounded by p₀ too (by 1/σ₁ it asked for T = 400, past the series)."""
    got = relu_like_kernel(resolve("sigmoid", None), Fraction(-3, 10), Fraction(10**4), Fraction(10**300), 20)
    assert got is not None
    want = _sigmoid_reference(10**4, 10**300, Fraction(-3, 10), 25)
    for ball, value in zip(got, want):
        _assert_digits(ball, value, 20)
