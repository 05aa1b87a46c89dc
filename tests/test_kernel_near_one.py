"""``kernel`` as the correlation approaches ±1 (where deep kernel shaping lives), for activations
analytic in a strip and for expressions analytic near the real line: the certified bivariate route's outer step from the strip bound (bounded as
c → 1) and its inner rule node by node (engine.bivariate_balls), checked against independent
routes — erf's arcsine kernel (Williams 1997) at 30 and 100 digits, mpmath's nested quadrature
of the conditional form E[φ(u)·E[φ(v)|u]] at 30 digits for tanh, gelu and softplus, the
univariate value at ρ = 1 (the difference from ρ = 1 − ε is ε·E[φ'²] to first order), and
the deep composition whose correlation goes to 1 in the ordered phase."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

import mpmath
import pytest
from flint import arb
from mpmath import mp

from momentcalc.catalog import resolve
from momentcalc.catalog.kernels import kernel
from momentcalc.moments.bivariate_certified import signed_cross_balls
from tests.conftest import invoke

NEAR = ["0.999999", "0.9999999999", "-0.999999"]
# The default run checks each route once (one activation, one side of ρ = ±1, the cheapest
# digits that reach the route); the other activations, signs and 100-digit cases are marked
# ``reference`` (``python -m pytest -n 2 -m reference``) and ``slow`` (``-m "not slow"`` replaces
# the default ``-m`` and must not run them).
REFERENCE = (pytest.mark.reference, pytest.mark.slow)


def _mpf(ball: arb) -> mpmath.mpf:
    mantissa, exponent = ball.mid().man_exp()
    return mpmath.ldexp(mpmath.mpf(int(mantissa)), int(exponent))


def _holds(ball: arb, value: mpmath.mpf, digits: int) -> None:
    """``ball`` holds ``value`` and its radius proves ``digits`` + 3 digits."""
    mid, rad = _mpf(ball), _mpf(arb(ball.rad()))
    assert abs(mid - value) <= rad, (mid, value, rad)
    assert rad <= abs(value) * mpmath.mpf(10) ** -(digits + 3), (rad, value)


@pytest.mark.parametrize(
    "rho, q, digits",
    [
        (Fraction(999999, 10**6), Fraction(1), 30),
        (1 - Fraction(1, 10**12), Fraction(1), 30),
        (Fraction(-999999, 10**6), Fraction(1), 30),
        (1 - Fraction(1, 10**9), Fraction(13, 10), 30),
        pytest.param(Fraction(-999999, 10**6), Fraction(1), 100, marks=REFERENCE),
        pytest.param(1 - Fraction(1, 10**12), Fraction(13, 10), 100, marks=REFERENCE),
    ],
)
def test_strip_route_holds_the_arcsine_kernel_near_one(rho, q, digits):
    """erf through the strip route (not its closed form) against (2/π)·asin(2qρ/(1 + 2q)) and
    4/(π·sqrt((1 + 2q)² − 4q²ρ²)): the exact value in every ball, the radius proving the digits."""
    k, k1 = signed_cross_balls(resolve("erf", {}), q, q, rho, digits)
    closed = kernel("erf")
    with mp.workdps(digits + 40):
        qq, r = mpmath.mpf(q.numerator) / q.denominator, mpmath.mpf(rho.numerator) / rho.denominator
        _holds(k, closed.cross(qq, r, {}), digits)
        _holds(k1, closed.derivative_cross(qq, r, {}), digits)


def _softplus(x):
    return mp.log1p(mp.exp(x)) if x < 0 else x + mp.log1p(mp.exp(-x))


def _sigmoid(x):
    return 1 / (1 + mp.exp(-x))


_PHI = {
    "tanh": mp.tanh,
    "gelu": lambda x: x * mp.erfc(-x / mp.sqrt(2)) / 2,
    "x*erf(x)": lambda x: x * mp.erf(x),
    "1/(1+x**2)": lambda x: 1 / (1 + x * x),
    "softplus": _softplus,
    "sigmoid": _sigmoid,
    "swish": lambda x: x * _sigmoid(x),
    "mish": lambda x: x * mp.tanh(_softplus(x)),
    "log_sigmoid": lambda x: -_softplus(-x),
    "quick_gelu": lambda x: x * _sigmoid(mp.mpf("1.702") * x),
    "gelu_tanh": lambda x: x * (1 + mp.tanh(mp.sqrt(2 / mp.pi) * (x + mp.mpf("0.044715") * x**3))) / 2,
}


def _nested(name: str, rho: str, dps: int = 34) -> mpmath.mpf:
    """E[φ(u)φ(v)], q = 1, as mp.quad over u of φ(u)·E[φ(v)|u]·ϕ(u), v | u ~ N(ρu, 1 − ρ²); the
    inner expectation by 16-point Gauss–Hermite (its integrand is analytic in a strip of
    half-width about 1/sqrt(1 − ρ²) ≥ 700: the rule is exact far beyond 30 digits)."""
    with mp.workdps(dps):
        root2 = mp.sqrt(2)
        f = _PHI[name]
        nodes = [(root2 * x, w / mp.sqrt(mp.pi)) for x, w in zip(*mp.gauss_quadrature(16, "hermite"))]
        r = mp.mpf(rho)
        s = mp.sqrt(1 - r * r)

        def outer(u):
            m = r * u
            return f(u) * mp.fsum(w * f(m + s * t) for t, w in nodes) * mp.npdf(u)

        return mp.quad(outer, [-mp.inf, 0, mp.inf])


def _agrees(printed: str, reference: mpmath.mpf, reference_digits: int = 32) -> None:
    """The printed value is ``reference`` rounded: within half a unit of its last digit (plus
    the reference's own error, far below: ``reference_digits``, two fewer than its dps)."""
    last = Decimal(printed).as_tuple().exponent
    with mp.workdps(40):
        gap = abs(mp.mpf(printed) - reference)
        assert gap <= mp.mpf(10) ** last / 2 + abs(reference) * mp.mpf(10) ** -reference_digits, (
            printed,
            reference,
        )


@pytest.mark.slow
@pytest.mark.parametrize(
    "name, rho",
    [("tanh", "0.9999999999")]
    + [
        pytest.param(name, rho, marks=REFERENCE)
        for name in ("tanh", "gelu", "softplus")
        for rho in NEAR
        if (name, rho) != ("tanh", "0.9999999999")
    ],
)
def test_near_one_agrees_with_nested_quadrature(name, rho):
    run = invoke("kernel", name, "--rho", rho, "--digits", "30", "--get", "nngp")
    assert run.code == 0, run.stderr
    printed = run.stdout.strip()
    assert len(Decimal(printed).as_tuple().digits) == 30
    _agrees(printed, _nested(name, rho))


@pytest.mark.slow
@pytest.mark.reference
@pytest.mark.parametrize("name", ["sigmoid", "mish", "gelu_tanh"])
def test_default_digits_agree_with_nested_quadrature(name):
    """The other strip activations at ρ = 1 − 10⁻⁶ and 15 digits against the nested quadrature."""
    run = invoke("kernel", name, "--rho", "0.999999", "--get", "nngp")
    assert run.code == 0, run.stderr
    _agrees(run.stdout.strip(), _nested(name, "0.999999", 22), 20)


@pytest.mark.parametrize(
    "name",
    ["tanh", "softplus", "mish"]
    + [
        pytest.param(name, marks=REFERENCE)  # gelu's three calls: 0.3 s of CPU
        for name in ("gelu", "sigmoid", "swish", "gelu_tanh", "log_sigmoid", "quick_gelu")
    ],
)
def test_every_strip_activation_is_certified_near_one(name):
    """Each catalog activation analytic in a strip has a certified kernel at ρ = ±(1 − 10⁻⁶) and
    1 − 10⁻¹²; ρ = −(1 − 10⁻⁶) is the mirror: for an odd φ, minus the value at +."""
    values = {}
    for rho in ("0.999999", "-0.999999", "0.999999999999"):
        run = invoke("kernel", name, "--rho", rho, "--json")
        assert run.code == 0, (rho, run.stderr)
        results = run.json()["results"]
        assert all(results[key]["certified"] for key in ("nngp", "ntk_derivative", "correlation_out"))
        values[rho] = Decimal(results["nngp"]["decimal"])
    if resolve(name, {}).parity == "odd":
        assert values["-0.999999"] == -values["0.999999"]


@pytest.mark.parametrize("name", ["tanh", "softplus"])
def test_values_approach_rho_one_continuously(name):
    """K(1) − K(1 − ε) = ε·q·K₁(1) − O(ε²) (∂K/∂ρ = q·E[φ'(u)φ'(v)], K₁(1) = E[φ'²], |∂²K/∂ρ²| ≤
    E[φ''²]): at ε = 10⁻¹² and 30 digits the difference gives E[φ'²] to about 10 digits."""
    at = {}
    for rho in ("1", "0.999999999999"):
        run = invoke("kernel", name, "--rho", rho, "--digits", "30", "--json")
        assert run.code == 0, run.stderr
        at[rho] = {
            key: Decimal(value["decimal"])
            for key, value in run.json()["results"].items()
            if key in ("nngp", "ntk_derivative")
        }
    difference = at["1"]["nngp"] - at["0.999999999999"]["nngp"]
    slope = at["1"]["ntk_derivative"]
    assert abs(difference / Decimal("1e-12") - slope) <= Decimal("1e-10")
    assert 0 < at["1"]["ntk_derivative"] - at["0.999999999999"]["ntk_derivative"] <= Decimal("1e-11")


@pytest.mark.parametrize(
    "args",
    [
        ("sigmoid", "--rho", "0.3", "--depth", "10"),
        pytest.param(
            ("softplus", "--rho", "0.3", "--depth", "30", "--sigma-w2", "1.5", "--sigma-b2", "0.05"),
            marks=REFERENCE,
        ),
    ],
)
def test_deep_ordered_phase_reaches_one(args):
    """In the ordered phase the layers' correlation goes to 1: every layer is certified, the
    correlations rise towards the fixed point c* = 1, and the first layer is the single-point
    C map at the same σ's (``correlation_out`` at σ_w² = 1, σ_b² = 0)."""
    run = invoke("kernel", *args, "--json")
    assert run.code == 0, run.stderr
    results = run.json()["results"]
    layers = results["correlation_layers"]
    assert layers["certified"]
    values = [Decimal(v) for v in layers["decimal"]]
    assert all(a <= b for a, b in zip(values, values[1:]))
    assert values[-1] > Decimal("0.99999")
    if "--sigma-w2" not in args:
        assert layers["decimal"][1] == results["correlation_out"]["decimal"]


@pytest.mark.parametrize(
    "rho, digits",
    [
        (Fraction(999999, 10**6), 30),
        (1 - Fraction(1, 10**12), 30),
        (Fraction(-999999, 10**6), 30),
        pytest.param(1 - Fraction(1, 10**12), 100, marks=pytest.mark.slow),
    ],
)
def test_expression_route_holds_the_sine_kernel_near_one(rho, digits):
    """An expression (rectangle bounds from its tree, ``moments.bivariate_expression``) near ρ = ±1:
    E[sin u·sin v] = e^{−q}·sinh(qρ) and E[cos u·cos v] = e^{−q}·cosh(qρ) (q = 1), each ball
    holding the exact value and proving the digits."""
    k, k1 = signed_cross_balls(resolve("sin(x)", {}), Fraction(1), Fraction(1), rho, digits)
    with mp.workdps(digits + 40):
        r = mpmath.mpf(rho.numerator) / rho.denominator
        _holds(k, mp.exp(-1) * mp.sinh(r), digits)
        _holds(k1, mp.exp(-1) * mp.cosh(r), digits)


@pytest.mark.slow
# x*erf(x)'s (1.1 s of CPU of nested quadrature, the same expression route) with -m reference
@pytest.mark.parametrize(
    "expression, rho",
    [pytest.param("x*erf(x)", "0.9999999999", marks=REFERENCE), ("1/(1+x**2)", "-0.999999")],
)
def test_expression_near_one_agrees_with_nested_quadrature(expression, rho):
    """Expressions at 30 digits near ρ = ±1 against the nested mpmath quadrature: x·erf(x) (even:
    half the nodes; its rectangles widened for the outer step), 1/(1 + x²) (poles at ±i: its
    strip 1/2, the outer rectangles up to 7/8)."""
    run = invoke("kernel", expression, "--rho", rho, "--digits", "30", "--get", "nngp")
    assert run.code == 0, run.stderr
    _agrees(run.stdout.strip(), _nested(expression, rho))


def test_expression_agrees_with_its_catalog_twin_near_one():
    """x·tanh(softplus(x)) (the expression route: rectangles, node by node) and mish (the catalog's
    strip route) to every printed digit at ρ = 1 − 10⁻⁸."""
    found = [
        invoke("kernel", name, "--rho", "0.99999999", "--digits", "20", "--get", "nngp")
        for name in ("x*tanh(softplus(x))", "mish")
    ]
    assert all(run.code == 0 for run in found), [run.stderr for run in found]
    assert found[0].stdout == found[1].stdout


def test_sine_kernel_near_one_at_unequal_variances():
    """q1 ≠ q2 near ρ = 1: E[sin u·sin v] = e^{−(q1 + q2)/2}·sinh(ρ·sqrt(q1·q2)), E[cos u·cos v] the
    same with cosh (each ψ from its own variance, the outer bound from the larger)."""
    rho, q2 = Fraction(999999, 10**6), Fraction(2)
    k, k1 = signed_cross_balls(resolve("sin(x)", {}), Fraction(1), q2, rho, 30)
    with mp.workdps(70):
        r, s = mpmath.mpf(rho.numerator) / rho.denominator, mp.sqrt(2)
        _holds(k, mp.exp(-1.5) * mp.sinh(r * s), 30)
        _holds(k1, mp.exp(-1.5) * mp.cosh(r * s), 30)


@pytest.mark.parametrize("name", ["tanh", "sin(x)"])
def test_cost_is_bounded_as_rho_goes_to_one(name, monkeypatch):
    """The rules' sizes stop growing as c → 1: the same outer nodes and inner nodes per outer
    node at 1 − 10⁻⁶ and 1 − 10⁻¹² (the lattice would grow like 1/sqrt(1 − c))."""
    from momentcalc.engine import bivariate_balls as bb

    sizes = []
    original = bb._node_sums

    def record(strip, a, b, h, h_v, nodes, inner, error):
        sizes.append((nodes, inner))
        return original(strip, a, b, h, h_v, nodes, inner, error)

    monkeypatch.setattr(bb, "_node_sums", record)
    for rho in (1 - Fraction(1, 10**6), 1 - Fraction(1, 10**12)):
        assert signed_cross_balls(resolve(name, {}), Fraction(1), Fraction(1), rho, 15) is not None
    assert len(sizes) == 2 and sizes[0] == sizes[1] and sizes[0][0] * (2 * sizes[0][1] + 1) < 10**4


def test_tall_boxes_are_subdivided_but_never_across_a_singular_point():
    """x·tanh(softplus(x)) is analytic for |Im z| < 2.35 (1 + e^z = i at z = ln√2 + 3πi/4): its
    rectangles of half-height 2 are proven by sub-boxes where one tall box's enclosure is not
    finite, those of half-height 3 are refused; 1/(1 + x²), with poles at ±i, is refused at
    half-height 1 and bounded at 1/2 (by at least its value 1 at 0)."""
    from momentcalc.moments.bivariate_expression import ExpressionRoute

    route = ExpressionRoute(resolve("x*tanh(softplus(x))", {}).tree)
    assert route._sup(Fraction(2), 10.0) is not None
    assert route._sup(Fraction(3), 10.0) is None
    route = ExpressionRoute(resolve("1/(1+x**2)", {}).tree)
    assert route._sup(Fraction(1), 3.0) is None
    bound = route._sup(Fraction(1, 2), 3.0)
    assert bound is not None and bound[0] >= 1
