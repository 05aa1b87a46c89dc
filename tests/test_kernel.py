"""``kernel``: every route against an independent one — the closed arc-cosine/arcsine kernels
against the certified bivariate route, the bivariate route (tanh, gelu, an expression; unequal
variances; negative ρ) against 2-D mpmath quadrature, ρ = −1 against a 1-D quadrature of
φ(x)φ(−x), DKS's local quantities against quadrature of their definitions (Martens et al. 2021),
the deep composition against the closed C map iterated in mpmath."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import numpy as np
import pytest
from flint import arb, ctx

from momentcalc.catalog import resolve
from momentcalc.catalog.kernels import BALL_KERNELS
from momentcalc.computations.kernel import kernel
from momentcalc.moments.bivariate_certified import signed_cross_balls
from tests.conftest import invoke


def _expectation2(f, g, rho, q1=1, q2=1):
    """E[f(u)g(v)] by scipy's 2-D adaptive quadrature in doubles (about 1e-12 here): u = √q1·x,
    v = √q2·(ρx + √(1 − ρ²)·y), x, y independent standard normals."""
    import math

    from scipy import integrate

    rho, q1, q2 = float(rho), float(q1), float(q2)
    s1, s2, r = math.sqrt(q1), math.sqrt(q2), math.sqrt(1 - rho * rho)
    density = lambda t: math.exp(-t * t / 2) / math.sqrt(2 * math.pi)
    value, _ = integrate.dblquad(
        lambda y, x: f(s1 * x) * g(s2 * (rho * x + r * y)) * density(x) * density(y),
        -12,
        12,
        -12,
        12,
        epsabs=1e-14,
        epsrel=1e-13,
    )
    return value


def _value(result, name):
    return result.value(name)


def test_relu_ntk_derivative_is_a_third_at_one_half():
    """E[relu'(u)relu'(v)] = (π − arccos ρ)/(2π): 1/3 at ρ = 1/2."""
    run = invoke("kernel", "relu", "--rho", "0.5", "--get", "ntk_derivative", "--digits", "30")
    assert run.code == 0
    assert run.stdout.strip() == "0." + "3" * 30


@pytest.mark.parametrize("name", ["relu", "leaky_relu", "relu2", "erf"])
@pytest.mark.parametrize(
    "rho, q1, q2",
    [(Fraction(1, 2), 1, 1), (Fraction(-7, 10), 1, 1), (Fraction(3, 10), Fraction(3, 2), Fraction(1, 3))],
)
def test_closed_kernels_against_the_bivariate_route(name, rho, q1, q2):
    act = resolve(name)
    q1, q2 = Fraction(q1), Fraction(q2)
    found = signed_cross_balls(act, q1, q2, rho, 20)
    with ctx.workprec(120):
        params = {
            p.name: arb(Fraction(p.default).numerator) / Fraction(p.default).denominator for p in act.params
        }
        closed = BALL_KERNELS[name](
            arb(q1.numerator) / q1.denominator,
            arb(q2.numerator) / q2.denominator,
            arb(rho.numerator) / rho.denominator,
            params,
        )
        for a, b in zip(found, closed):
            assert abs(a - b) < arb(10) ** -19 * (1 + abs(b))


def _gelu(x):
    import math

    return x * (1 + math.erf(x / math.sqrt(2))) / 2


def _gelu_slope(x):
    import math

    return (1 + math.erf(x / math.sqrt(2))) / 2 + x * math.exp(-x * x / 2) / math.sqrt(2 * math.pi)


def _tanh_slope(x):
    import math

    return 1 / math.cosh(x) ** 2


# tanh at the three inputs, gelu at one by default; gelu's other two (0.6 s of CPU) with -m reference
@pytest.mark.parametrize(
    "name, f, df, rho, q1, q2",
    [
        pytest.param(
            name,
            f,
            df,
            rho,
            q1,
            q2,
            # tanh at a negative ρ (the same route as at 0.5) and gelu's other two: -m reference
            marks=pytest.mark.reference if (name == "gelu" and rho != "0.5") or rho == "-0.7" else (),
        )
        for name, f, df in (("tanh", __import__("math").tanh, _tanh_slope), ("gelu", _gelu, _gelu_slope))
        for rho, q1, q2 in (("0.5", 1, 1), ("-0.7", 1, 1), ("0.3", 2, "0.5"))
    ],
)
def test_bivariate_route_against_2d_quadrature(name, f, df, rho, q1, q2):
    split = {"q1": q1, "q2": q2} if q1 != q2 else {"q": q1}
    result = kernel(name, rho=rho, digits=15, **split)
    nngp = _expectation2(f, f, rho, q1, q2)
    ntk = _expectation2(df, df, rho, q1, q2)
    assert abs(_value(result, "nngp") - nngp) < 1e-11
    assert abs(_value(result, "ntk_derivative") - ntk) < 1e-11


def test_expression_with_unequal_variances_against_2d_quadrature():
    import math

    mish = lambda x: x * math.tanh(math.log1p(math.exp(x)))
    result = kernel("x*tanh(softplus(x))", rho="-0.3", q1="1", q2="2", digits=12)
    expected = _expectation2(mish, mish, "-0.3", 1, 2)
    assert abs(_value(result, "nngp") - expected) < 1e-11
    assert "c_map_at_0" not in result.names  # unequal variances: no DKS quantities


@pytest.mark.parametrize(
    "name, f",
    [  # gelu's (0.5 s of CPU; softplus is smooth too) with -m reference
        pytest.param("gelu", lambda x: x * mpmath.ncdf(x), marks=pytest.mark.reference),
        ("selu", None),
        ("softplus", None),
    ],
)
def test_anticorrelated_against_1d_quadrature(name, f):
    act = resolve(name)
    f = f or (lambda x: act.fn(x, {}))
    result = kernel(name, rho="-1", digits=14)
    with mpmath.workdps(25):
        expected = mpmath.quad(lambda x: f(x) * f(-x) * mpmath.npdf(x), [-20, 0, 20])
        second = mpmath.quad(lambda x: f(x) ** 2 * mpmath.npdf(x), [-20, 0, 20])
    assert abs(_value(result, "nngp") - expected) < 1e-14
    assert abs(_value(result, "correlation_out") - expected / second) < 1e-14


@pytest.mark.parametrize("name, printed", [("selu", None), ("hard_swish", None), ("relu6", "0")])
def test_anticorrelated_at_a_variance_without_a_rational_root(name, printed):
    """ρ = −1 at q = 3 (√3 irrational): the exp-polynomial route with a ball for the standard
    deviation (was exit 3, "no expression tree"); relu6(x)·relu6(−x) = 0 is an exact 0."""
    act = resolve(name)
    run = invoke("kernel", name, "--rho", "-1", "--q", "3", "--digits", "30", "--get", "nngp")
    assert run.code == 0, run
    if printed is not None:
        assert run.stdout.strip() == printed
        return
    with mpmath.workdps(45):
        s = mpmath.sqrt(3)
        expected = mpmath.quad(
            lambda z: act.fn(s * z, {}) * act.fn(-s * z, {}) * mpmath.npdf(z),
            [-30, -mpmath.sqrt(3), 0, mpmath.sqrt(3), 30],
        )
        assert mpmath.mpf(run.stdout.strip()) == mpmath.mpf(mpmath.nstr(expected, 30))


def test_dks_local_quantities_of_tanh_against_quadrature():
    """Martens et al. 2021 (deepmind/dks ``_calc_c_map`` & co. at q = 1): C(0) = E[φ]²/E[φ²],
    C'(1) = E[φ'²]/E[φ²], C''(1) = E[φ''²]/E[φ²], Q'(1) = E[Z·φ·φ'], here at q = 2."""
    q = 2
    result = kernel("tanh", rho="0.5", q=q, digits=14)
    with mpmath.workdps(25):
        s = mpmath.sqrt(q)
        E = lambda g: mpmath.quad(lambda z: g(s * z) * mpmath.npdf(z), [-20, 0, 20])
        a = E(lambda x: mpmath.tanh(x) ** 2)
        slope = q * E(lambda x: mpmath.sech(x) ** 4) / a
        curvature = q * q * E(lambda x: (2 * mpmath.tanh(x) * mpmath.sech(x) ** 2) ** 2) / a
        q_slope = E(lambda x: x * mpmath.tanh(x) * mpmath.sech(x) ** 2) / q
    assert _value(result, "c_map_at_0") == 0
    assert abs(_value(result, "c_map_slope_at_1") - slope) < 1e-14
    assert abs(_value(result, "c_map_curvature_at_1") - curvature) < 1e-14
    assert abs(_value(result, "q_map_slope_at_1") - q_slope) < 1e-14


# quick_gelu's (0.5 s of CPU; x·σ(kx) as swish's, at another k) with -m reference
@pytest.mark.parametrize(
    ("name", "k", "q"),
    [
        ("swish", 1, 400),
        pytest.param("quick_gelu", "1.702", 10, marks=pytest.mark.reference),
        ("sigmoid", None, 400),
    ],
)
def test_curvature_of_the_sigmoid_family_at_a_large_variance_against_quadrature(name, k, q):
    """C''(1) = q² E[φ''(u)²]/E[φ(u)²] at Var u = q for φ = x·σ(kx) (swish, quick_gelu) and σ: φ''
    is written with σ' = σ(1 − σ), so its growth bound is polynomial (as x/(1 + exp(−x)) it was
    e^{3|x|}: swish at q = 400 exit 3, "the expectation cancels"; at q = 10 over the 4 s budget)."""
    result = kernel(name, q=q, digits=12)
    with mpmath.workdps(25):
        s = mpmath.sqrt(q)
        sig = lambda x: 1 / (1 + mpmath.exp(-x))
        if k is None:
            phi = sig
            d2 = lambda x: sig(x) * (1 - sig(x)) * (1 - 2 * sig(x))
        else:
            c = mpmath.mpf(k)
            phi = lambda x: x * sig(c * x)
            d1 = lambda x: c * sig(c * x) * (1 - sig(c * x))  # (σ(cx))'
            d2 = lambda x: 2 * d1(x) + x * c * d1(x) * (1 - 2 * sig(c * x))
        E = lambda g: mpmath.quad(lambda z: g(s * z) * mpmath.npdf(z), [-30, -1, 0, 1, 30])
        curvature = q * q * E(lambda x: d2(x) ** 2) / E(lambda x: phi(x) ** 2)
    assert abs(_value(result, "c_map_curvature_at_1") / curvature - 1) < 1e-11


def test_curvature_of_gelu_at_a_large_variance_against_quadrature():
    """gelu's φ''² = ϕ(x)²(2 − x²)² decays like e^{−x²}, so its growth bound far out put the
    integrand's size near 2^−92000 at Var u = 1000 (the value is 0.0098): the goals chased that and
    ran out of tail (exit 3, "the tails ... cannot be bounded"); the size now also takes g's values
    at the mean, the mean ± std and 0."""
    q = 1000
    result = kernel("gelu", q=q, digits=12)
    with mpmath.workdps(25):
        s = mpmath.sqrt(q)
        E = lambda g: mpmath.quad(lambda z: g(s * z) * mpmath.npdf(z), [-30, -1, -0.1, 0, 0.1, 1, 30])
        a = E(lambda x: (x * mpmath.ncdf(x)) ** 2)
        curvature = q * q * E(lambda x: (mpmath.npdf(x) * (2 - x * x)) ** 2) / a
    assert abs(_value(result, "c_map_curvature_at_1") / curvature - 1) < 1e-11


@pytest.mark.parametrize("name", ["relu", "leaky_relu", "selu"])
def test_kinked_activations_have_infinite_curvature(name):
    assert _value(kernel(name), "c_map_curvature_at_1") == mpmath.inf


def test_curvature_of_elu_is_finite_where_its_derivative_is_continuous():
    result = kernel("elu", digits=14)
    with mpmath.workdps(25):
        a = mpmath.quad(lambda x: (x if x > 0 else mpmath.expm1(x)) ** 2 * mpmath.npdf(x), [-20, 0, 20])
        b = mpmath.quad(lambda x: mpmath.exp(2 * x) * mpmath.npdf(x), [-20, 0])
    assert abs(_value(result, "c_map_curvature_at_1") - b / a) < 1e-14


def test_depth_composes_the_relu_c_map():
    """The arc-cosine C map iterated in mpmath (σ_b² = 0: q drops out)."""
    result = kernel("relu", rho="0.1", depth=6, sigma_w2=2, digits=20)
    with mpmath.workdps(30):
        c, expected = mpmath.mpf("0.1"), [mpmath.mpf("0.1")]
        for _ in range(6):
            c = (mpmath.sqrt(1 - c * c) + (mpmath.pi - mpmath.acos(c)) * c) / mpmath.pi
            expected.append(c)
    for got, want in zip(_value(result, "correlation_layers"), expected):
        assert abs(got - want) < mpmath.mpf(10) ** -20


def test_depth_with_bias_against_a_mpmath_recursion():
    result = kernel("erf", rho="0.2", depth=4, sigma_w2="1.5", sigma_b2="0.1", digits=18)
    with mpmath.workdps(30):
        w, b = mpmath.mpf("1.5"), mpmath.mpf("0.1")
        q, c, expected = mpmath.mpf(1), mpmath.mpf("0.2"), [mpmath.mpf("0.2")]
        for _ in range(4):
            k = 2 / mpmath.pi * mpmath.asin(2 * q * c / (1 + 2 * q))
            q_next = w * 2 / mpmath.pi * mpmath.asin(2 * q / (1 + 2 * q)) + b
            c, q = (w * k + b) / q_next, q_next
            expected.append(c)
    for got, want in zip(_value(result, "correlation_layers"), expected):
        assert abs(got - want) < mpmath.mpf(10) ** -18


def test_bivariate_route_at_30_digits_against_the_arcsine_kernel():
    """erf through the lattice route (its closed kernel bypassed) at 30 digits."""
    found = signed_cross_balls(resolve("erf"), Fraction(2), Fraction(1, 2), Fraction(-9, 10), 30)
    with mpmath.workdps(45):
        q1, q2, rho = mpmath.mpf(2), mpmath.mpf(1) / 2, -mpmath.mpf(9) / 10
        spread = (1 + 2 * q1) * (1 + 2 * q2)
        nngp = 2 / mpmath.pi * mpmath.asin(2 * rho * mpmath.sqrt(q1 * q2) / mpmath.sqrt(spread))
        ntk = 4 / mpmath.pi / mpmath.sqrt(spread - 4 * rho**2 * q1 * q2)
        for ball, want in zip(found, (nngp, ntk)):
            assert abs(mpmath.mpf(ball.mid().str(45, radius=False)) - want) < mpmath.mpf(10) ** -31


@pytest.mark.parametrize(
    "argv, option",
    [
        (("relu", "--rho", "1.5"), "--rho"),
        (("relu", "--q", "0"), "--q"),
        (("relu", "--q", "1", "--q1", "2"), "--q"),
        (("relu", "--sigma-w2", "2"), "--sigma-w2"),
        (("relu", "--depth", "0"), "--depth"),
    ],
)
def test_bad_input_is_one_line_exit_2(argv, option):
    run = invoke("kernel", *argv)
    assert run.code == 2 and run.stdout == ""
    assert option in run.stderr and run.stderr.count("\n") == 1


def test_no_route_is_exit_3_not_a_number():
    """x/sinh(x): bounded, but its derivative's growth rules give e^|x| (no bivariate route)."""
    run = invoke("kernel", "x/sinh(x)", "--rho", "0.5")
    assert run.code == 3 and run.stdout == ""


@pytest.mark.parametrize(
    "text",
    # the same divergence with a bounded φ (1.1 s of CPU more: its other moments are proven first): -m reference
    ["abs(x)**0.5", pytest.param("exp(-x*x)*abs(x)**0.5", marks=pytest.mark.reference)],
)
def test_a_diverging_moment_is_exit_2_before_any_route(text):
    """abs(x)**0.5, exp(-x*x)*abs(x)**0.5: phi' ~ |x|^(-1/2) at 0, so E[phi'(u)^2] (C'(1)) is infinite."""
    run = invoke("kernel", text, "--rho", "0.5")
    assert run.code == 2 and run.stdout == "" and "derivative_second_moment diverges" in run.stderr


def test_derive_gives_the_closed_forms():
    result = kernel("relu", rho="0.5", derive=True)
    assert result["ntk_derivative"].closed_form == "1/3"
    assert result["nngp"].closed_form is not None


POLYNOMIALS = [
    ("x**2", lambda x: x**2, lambda x: 2 * x),
    ("x**3 - 3*x", lambda x: x**3 - 3 * x, lambda x: 3 * x**2 - 3),
    ("2*x + 1", lambda x: 2 * x + 1, lambda x: 2 + 0 * x),
    ("(x - 1)**4/24", lambda x: (x - 1) ** 4 / 24, lambda x: (x - 1) ** 3 / 6),
]


# the quartic at the second input (0.5 s of CPU, sympy) with -m reference
@pytest.mark.parametrize(
    "text, f, df, rho, q1, q2",
    [
        pytest.param(
            text,
            f,
            df,
            rho,
            q1,
            q2,
            marks=pytest.mark.reference if text.startswith("(x - 1)**4") and rho == "-0.7" else (),
        )
        for rho, q1, q2 in (("0.3", "4", "0.25"), ("-0.7", "1", "9"))
        for text, f, df in POLYNOMIALS
    ],
)
def test_polynomial_closed_forms_by_isserlis_against_gauss_hermite(text, f, df, rho, q1, q2):
    """--derive's closed form of a polynomial φ (Isserlis) equals the proven value to every
    printed digit, and both equal a 40-node Gauss-Hermite product rule (exact for these degrees,
    to rounding in doubles)."""
    import sympy

    result = kernel(text, rho=rho, q1=q1, q2=q2, derive=True)
    nodes, weights = np.polynomial.hermite_e.hermegauss(40)
    weights = weights / weights.sum()
    z1, z2 = np.meshgrid(nodes, nodes, indexing="ij")
    w = np.outer(weights, weights)
    r, a, b = float(rho), float(q1), float(q2)
    u, v = np.sqrt(a) * z1, np.sqrt(b) * (r * z1 + np.sqrt(1 - r * r) * z2)
    for key, g in (("nngp", f), ("ntk_derivative", df)):
        closed = result[key].closed_form
        assert closed is not None, key
        exact = sympy.sympify(closed)  # momentcalc's own output, not a user's text
        assert result[key].decimal(15) == _decimal15(exact)
        assert abs(float(exact) - float((w * g(u) * g(v)).sum())) <= 1e-12 * max(1, abs(float(exact)))


def _decimal15(value) -> str:
    """15 significant digits of a sympy number, half away from zero, as momentcalc prints."""
    from decimal import ROUND_HALF_UP, Decimal

    d = Decimal(str(value.evalf(50)))
    if d == 0:
        return "0"
    q = Decimal(1).scaleb(d.adjusted() - 14)
    return str(d.quantize(q, rounding=ROUND_HALF_UP))


def _catalog_names():
    from momentcalc.catalog import CATALOG

    return [entry.name for entry in CATALOG]


# Smooth entries whose kernels take the bivariate route as tanh's, gelu's and mish's do
# (1.6 s of CPU): -m reference.
_SMOOTH_TWINS = ("quick_gelu", "gelu_tanh", "swish", "sigmoid")


@pytest.mark.parametrize(
    "name",
    [
        pytest.param(name, marks=pytest.mark.reference) if name in _SMOOTH_TWINS else name
        for name in _catalog_names()
    ],
)
def test_every_catalog_activation(name):
    """Every catalog activation gets proven kernels at ρ = −1 and 0.5 and proven Hermite
    coefficients."""
    run = invoke("kernel", name, "--rho", "-1,0.5", "--json")
    assert run.code == 0, run.stderr
    run = invoke("hermite", name, "--terms", "5", "--json")
    assert run.code == 0, run.stderr


@pytest.mark.parametrize("text, nngp, ntk", [("sinh(x)", "sinh", "cosh"), ("cosh(x)", "cosh", "sinh")])
def test_sinh_and_cosh_by_the_exponential_tilt_at_30_digits(text, nngp, ntk):
    """sinh, cosh are exp-polynomials: E[e^{au + bv}] = e^{(a² + 2abρ + b²)/2} at q = 1 gives
    E[sinh u sinh v] = e·sinh ρ and E[cosh u cosh v] = e·cosh ρ (were exit 3, no route)."""
    found = kernel(text, rho="0.5", digits=30)
    with mpmath.workdps(40):
        half = mpmath.mpf(1) / 2
        for name, fn in (("nngp", nngp), ("ntk_derivative", ntk)):
            want = mpmath.e * getattr(mpmath, fn)(half)
            assert abs(mpmath.mpf(found[name].decimal(30)) - want) <= mpmath.mpf(10) ** -29 * want / 2
