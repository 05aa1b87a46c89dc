"""``kernel`` of piecewise exp-polynomial activations at correlations near ±1
(``moments.bivariate_conditional``): against an independent route — mpmath's tanh-sinh
quadrature over u of φ(u)·E[φ(v) | u], the inner expectation written out here by hand from
Φ and ϕ (a linear piece: m·ΔΦ + s·Δϕ; an exponential one: e^{m + s²/2}·ΔΦ shifted by s),
with the kinks and the points where the conditional mean meets them as breakpoints; relu's
through the arc-cosine kernels; layers whose correlation goes to 1."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest
from flint import arb, ctx

from momentcalc.catalog import resolve
from momentcalc.catalog.expression_pieces import exp_poly_pieces
from momentcalc.catalog.kernels import BALL_KERNELS
from momentcalc.computations.kernel import kernel
from momentcalc.moments.bivariate_certified import _polys, _size_log2, signed_cross_balls
from momentcalc.moments.bivariate_conditional import conditional_cross
from tests.conftest import invoke

INF = mpmath.inf


def _selu():
    """selu's (λ, α) at the working precision, from their closed form (Klambauer et al., 2017):
    e1 = √e·Φ(−1), e2 = e²·Φ(−2), α = (1/√(2π))/(1/2 − e1), λ = 1/√(1/2 + α²(e2 − 2e1 + 1/2))."""
    e1 = mpmath.sqrt(mpmath.e) * mpmath.ncdf(-1)
    e2 = mpmath.exp(2) * mpmath.ncdf(-2)
    alpha = 1 / mpmath.sqrt(2 * mpmath.pi) / (mpmath.mpf(1) / 2 - e1)
    lam = 1 / mpmath.sqrt(mpmath.mpf(1) / 2 + alpha**2 * (e2 - 2 * e1 + mpmath.mpf(1) / 2))
    return lam, alpha


# Each activation and its derivative as pieces (low, high, [(kind, coefficient)]), kind "1"
# (constant), "x" (linear) or "e" (e^x).
def _pieces(name):
    if name == "elu":
        return (
            [(-INF, 0, [("e", 1), ("1", -1)]), (0, INF, [("x", 1)])],
            [(-INF, 0, [("e", 1)]), (0, INF, [("1", 1)])],
        )
    if name == "selu":
        lam, alpha = _selu()
        return (
            [(-INF, 0, [("e", lam * alpha), ("1", -lam * alpha)]), (0, INF, [("x", lam)])],
            [(-INF, 0, [("e", lam * alpha)]), (0, INF, [("1", lam)])],
        )
    if name == "relu6":
        return ([(0, 6, [("x", 1)]), (6, INF, [("1", 6)])], [(0, 6, [("1", 1)])])
    if name == "min(x,1)":
        return ([(-INF, 1, [("x", 1)]), (1, INF, [("1", 1)])], [(-INF, 1, [("1", 1)])])
    if name == "hard_sigmoid":
        return (
            [(-3, 3, [("x", mpmath.mpf(1) / 6), ("1", mpmath.mpf(1) / 2)]), (3, INF, [("1", 1)])],
            [(-3, 3, [("1", mpmath.mpf(1) / 6)])],
        )
    if name == "hardtanh":
        return ([(-INF, -1, [("1", -1)]), (-1, 1, [("x", 1)]), (1, INF, [("1", 1)])], [(-1, 1, [("1", 1)])])
    raise KeyError(name)


def _at(pieces, x):
    for low, high, terms in pieces:
        if low < x <= high:
            total = mpmath.mpf(0)
            for kind, c in terms:
                total += c * {"1": 1, "x": x, "e": mpmath.exp(x) if kind == "e" else 0}[kind]
            return total
    return mpmath.mpf(0)


def _smoothed(pieces, m, s):
    """E[g(m + s·V)] from Φ and ϕ: ∫_a^b over the piece in t = (x − m)/s."""
    total = mpmath.mpf(0)
    for low, high, terms in pieces:
        a, b = (low - m) / s, (high - m) / s
        for kind, c in terms:
            if kind == "1":
                total += c * (mpmath.ncdf(b) - mpmath.ncdf(a))
            elif kind == "x":
                total += c * (m * (mpmath.ncdf(b) - mpmath.ncdf(a)) + s * (mpmath.npdf(a) - mpmath.npdf(b)))
            else:  # e^{m + s t}ϕ(t) = e^{m + s²/2}ϕ(t − s)
                total += c * mpmath.exp(m + s * s / 2) * (mpmath.ncdf(b - s) - mpmath.ncdf(a - s))
    return total


def _reference(name, rho, which, dps=34):
    """E[g(u)g(v)], u, v standard with correlation ρ, g = φ (which 0) or φ' (1)."""
    with mpmath.workdps(dps):
        rho = mpmath.mpf(rho.numerator) / rho.denominator
        pieces = _pieces(name)[which]
        s = mpmath.sqrt(1 - rho * rho)
        kinks = sorted({p for low, high, _ in pieces for p in (low, high) if mpmath.isfinite(p)})
        points = set(kinks)
        for k in kinks:  # where the conditional mean ρu meets a kink, and around it on ψ's scale s
            for j in (0, -1, 1, -4, 4, -16, 16):
                points.add((k + j * s) / rho)
        points = [-30] + sorted(p for p in points if -30 < p < 30) + [30]
        f = lambda u: _at(pieces, u) * _smoothed(pieces, rho * u, s) * mpmath.npdf(u)
        return mpmath.quad(f, points)


NEAR = Fraction(999999, 1000000)
# The default run checks the route once for exponential pieces (elu, ρ → 1) and once for
# polynomial pieces (relu6, ρ → −1, a value near 1e−10); the other activations and signs are
# marked ``reference`` (``python -m pytest -n 2 -m reference``; also ``slow``, as ``-m "not slow"``
# replaces the default ``-m``).
REFERENCE = (pytest.mark.reference, pytest.mark.slow)
CASES = [("elu", NEAR), ("relu6", -NEAR)] + [
    pytest.param(*case, marks=REFERENCE)
    for case in [
        ("elu", 1 - Fraction(1, 10**10)),
        ("elu", -NEAR),
        ("selu", NEAR),
        ("selu", -NEAR),
        ("relu6", 1 - Fraction(1, 10**10)),
        ("hardtanh", NEAR),
        ("min(x,1)", -NEAR),
    ]
]


@pytest.mark.parametrize("name, rho", CASES)
def test_near_one_against_quadrature_of_the_conditional_expectation(name, rho):
    """30 digits, each proven by its radius, against the reference at 34 (more where the value
    is small: relu6's at ρ → −1 is about 1.5e−10)."""
    act = resolve(name)
    found = signed_cross_balls(act, Fraction(1), Fraction(1), rho, 30)
    assert found is not None
    for which, ball in enumerate(found):
        with mpmath.workdps(40):
            value = mpmath.mpf(ball.mid().str(40, radius=False))
            radius = mpmath.mpf(ball.rad().str(5, radius=False))
            assert radius <= abs(value) * mpmath.mpf(10) ** -32
            lost = max(0, -int(mpmath.floor(mpmath.log10(abs(value)))))
        reference = _reference(name, rho, which, dps=34 + lost)
        with mpmath.workdps(40):
            assert abs(value - reference) <= mpmath.mpf(10) ** -30 * abs(reference)


@pytest.mark.parametrize("name, slope", [("relu", None), ("leaky_relu", Fraction(1, 10))])
@pytest.mark.parametrize(
    "rho", [Fraction(999999, 1000000), 1 - Fraction(1, 10**12), Fraction(-999999, 1000000)]
)
def test_the_route_against_the_arc_cosine_kernels(name, slope, rho):
    """relu and leaky_relu take their closed forms in ``kernel``; the route itself (as mean-field
    theory's correlation map reaches it) against them, at 40 digits."""
    act = resolve(name, None if slope is None else {"slope": slope})
    polys = _polys(act)
    sizes = [_size_log2(p, arb(1)) for p in polys]
    found = conditional_cross(act, polys, Fraction(1), Fraction(1), rho, 40, (0, 1), max(sizes), min(sizes))
    assert found is not None
    with ctx.workprec(300):
        params = {
            p.name: arb(Fraction(v).numerator) / Fraction(v).denominator
            for p in act.params
            for v in [dict(act.values).get(p.name, p.default)]
        }
        closed = BALL_KERNELS[name](arb(1), arb(1), arb(rho.numerator) / rho.denominator, params)
        for a, b in zip(found, closed):
            assert a.rad() <= abs(a.mid()) * arb(10) ** -43
            assert abs(a - b) < arb(10) ** -40 * abs(b)


def test_unequal_variances_against_quadrature():
    """q1 = 1/2, q2 = 2: v | u ~ N(2ρu, 2(1 − ρ²)); the reference in the standard scale."""
    act = resolve("elu")
    rho = Fraction(999999, 1000000)
    found = signed_cross_balls(act, Fraction(1, 2), Fraction(2), rho, 20)
    with mpmath.workdps(30):
        r = mpmath.mpf(rho.numerator) / rho.denominator
        pieces = _pieces("elu")[0]
        s = mpmath.sqrt(2 * (1 - r * r))
        points = [-20, 0, 1 / (2 * r), 20]
        points = [-20] + sorted({0} | {j * s / (2 * r) for j in (-16, -4, -1, 1, 4, 16)}) + [20]
        f = lambda x: (
            _at(pieces, x / mpmath.sqrt(2))
            * _smoothed(pieces, 2 * r * x / mpmath.sqrt(2), s)
            * mpmath.npdf(x)
        )
        reference = mpmath.quad(f, points)
        value = mpmath.mpf(found[0].mid().str(30, radius=False))
        assert abs(value - reference) <= mpmath.mpf(10) ** -20 * abs(reference)


# exponential, polynomial and clipped pieces by default; selu, celu, hard_sigmoid and hard_swish
# (the same pieces) with -m reference
@pytest.mark.parametrize(
    "name",
    ["elu", "relu6", "hardtanh"]
    + [pytest.param(name, marks=REFERENCE) for name in ("selu", "celu", "hard_sigmoid", "hard_swish")],
)
def test_cli_near_one_prints_proven_digits(name):
    """The printed 15 digits are the 30-digit ball's (itself checked against quadrature above)."""
    run = invoke("kernel", name, "--rho", "0.999999", "--get", "nngp")
    assert run.code == 0, run.stderr
    ball = signed_cross_balls(resolve(name), Fraction(1), Fraction(1), NEAR, 30)[0]
    with mpmath.workdps(40):
        assert run.stdout.strip() == mpmath.nstr(
            mpmath.mpf(ball.mid().str(40, radius=False)), 15, strip_zeros=False
        )


def test_30_and_100_digits_at_one_minus_1e_12():
    """Both printed, the first 30 of the 100 digits the 30 (the 30 against the reference)."""
    rho = 1 - Fraction(1, 10**12)
    runs = [
        invoke("kernel", "elu", "--rho", str(rho), "--get", "ntk_derivative", "--digits", str(digits))
        for digits in (30, 100)
    ]
    assert all(run.code == 0 for run in runs), [run.stderr for run in runs]
    thirty, hundred = (run.stdout.strip() for run in runs)
    reference = _reference("elu", rho, 1, dps=36)
    with mpmath.workdps(40):
        assert thirty == mpmath.nstr(reference, 30, strip_zeros=False)
    with mpmath.workdps(110):
        assert mpmath.nstr(mpmath.mpf(hundred), 30, strip_zeros=False) == thirty
    assert len(hundred.replace("0.", "", 1)) == 100


def _reference_q(name, q, which=0, dps=22):
    """E[g(u)²], u ~ N(0, q), by quadrature with the kinks as breakpoints."""
    with mpmath.workdps(dps):
        pieces = _pieces(name)[which]
        kinks = sorted({p for low, high, _ in pieces for p in (low, high) if mpmath.isfinite(p)})
        root = mpmath.sqrt(q)
        points = [-30] + [k / root for k in kinks] + [30]
        return mpmath.quad(lambda t: _at(pieces, root * t) ** 2 * mpmath.npdf(t), points)


def _reference_kernel(name, q, c, dps=22):
    """E[φ(u)φ(v)], Var u = Var v = q, correlation c (``_reference`` in the scale √q)."""
    with mpmath.workdps(dps):
        pieces = _pieces(name)[0]
        root, s = mpmath.sqrt(q), mpmath.sqrt(1 - c * c)
        kinks = sorted({p for low, high, _ in pieces for p in (low, high) if mpmath.isfinite(p)})
        points = {k / root for k in kinks}
        for k in kinks:
            for j in (0, -1, 1, -4, 4, -16, 16):
                points.add((k / root + j * s) / c)
        points = [-30] + sorted(p for p in points if -30 < p < 30) + [30]
        f = lambda t: _at(pieces, root * t) * _smoothed(pieces, root * c * t, root * s) * mpmath.npdf(t)
        return mpmath.quad(f, points)


def test_layers_whose_correlation_goes_to_one():
    """hard_sigmoid (σ_w² = 1, σ_b² = 0): c goes 0.3, 0.93, 0.998, 0.99994 — the last two
    layers past c = 0.97 through this route — against the recursion q' = σ_w²·E[φ(√q Z)²] + σ_b²,
    c' = (σ_w²·K(q, c) + σ_b²)/q' in mpmath quadrature. (Three layers: a fourth cost 0.6 s of
    CPU of reference quadrature for one more layer through the same route.)"""
    result = kernel("hard_sigmoid", rho="0.3", depth=3, digits=15)
    got = result.value("correlation_layers")
    assert len(got) == 4
    with mpmath.workdps(22):
        w, b = mpmath.mpf(1), mpmath.mpf(0)
        q, c, expected = mpmath.mpf(1), mpmath.mpf(3) / 10, [mpmath.mpf(3) / 10]
        for _ in range(3):
            q_next = w * _reference_q("hard_sigmoid", q) + b
            c, q = (w * _reference_kernel("hard_sigmoid", q, c) + b) / q_next, q_next
            expected.append(c)
    assert expected[1] < mpmath.mpf("0.97") < expected[2]
    for value, want in zip(got, expected):
        assert abs(value - want) < mpmath.mpf(10) ** -15


@pytest.mark.parametrize("rho", [Fraction(1, 2), NEAR, -NEAR, 1 - Fraction(1, 10**12)])
def test_abs_against_its_arc_cosine_kernel(rho):
    """E[|u||v|] = (2/π)(√(1 − ρ²) + ρ·asin ρ) and E[sign u·sign v] = (2/π)·asin ρ, at 30 digits."""
    found = signed_cross_balls(resolve("abs(x)"), Fraction(1), Fraction(1), rho, 30)
    with mpmath.workdps(45):
        r = mpmath.mpf(rho.numerator) / rho.denominator
        closed = (
            2 / mpmath.pi * (mpmath.sqrt((1 - r) * (1 + r)) + r * mpmath.asin(r)),
            2 / mpmath.pi * mpmath.asin(r),
        )
        for ball, value in zip(found, closed):
            assert mpmath.mpf(ball.rad().str(5, radius=False)) <= abs(value) * mpmath.mpf(10) ** -32
            assert (
                abs(mpmath.mpf(ball.mid().str(45, radius=False)) - value)
                <= abs(value) * mpmath.mpf(10) ** -30
            )


@pytest.mark.parametrize("rho", [Fraction(3, 10), NEAR])
def test_max_x_0_is_relus_kernel(rho):
    found = signed_cross_balls(resolve("max(x,0)"), Fraction(1), Fraction(1), rho, 30)
    with ctx.workprec(200):
        closed = BALL_KERNELS["relu"](arb(1), arb(1), arb(rho.numerator) / rho.denominator, {})
        for a, b in zip(found, closed):
            assert abs(a - b) < arb(10) ** -30 * abs(b)


# one power by default; a negative ρ and the 24th power (1 s of CPU) with -m reference
@pytest.mark.parametrize(
    "n, rho",
    [(16, "0.5"), pytest.param(16, "-0.3", marks=REFERENCE), pytest.param(24, "0.9", marks=REFERENCE)],
)
def test_powers_of_relu_are_cho_and_sauls_arc_cosine_kernels(n, rho):
    """E[max(u,0)^n·max(v,0)^n] = J_n(θ)/(2π), θ = arccos ρ (Cho & Saul, 2009, "Kernel methods for
    deep learning"), with J_n = (−1)^n sin^{2n+1}θ·(1/sinθ·∂/∂θ)^n((π − θ)/sinθ) = (1 − c²)^{n+1/2}·
    ∂_c^n[(π − arccos c)/√(1 − c²)] at c = ρ (mpmath's numerical derivative at 60 digits), and
    E[φ'(u)φ'(v)] = n²·J_{n−1}(θ)/(2π): every printed digit at --digits 30 (powers above 8 were
    not expanded into pieces before: max(x,0)**16 exited 3 on a rounding tie)."""
    with mpmath.workdps(60):
        c = mpmath.mpf(rho)

        def arc_cosine(k):
            g = lambda t: (mpmath.pi - mpmath.acos(t)) / mpmath.sqrt(1 - t * t)
            return (1 - c * c) ** (k + mpmath.mpf(1) / 2) * mpmath.diff(g, c, k) / (2 * mpmath.pi)

        want = {"nngp": arc_cosine(n), "ntk_derivative": n * n * arc_cosine(n - 1)}
        found = kernel(f"max(x,0)**{n}", rho=rho, digits=30)
        for name, value in want.items():
            unit = mpmath.mpf(10) ** (mpmath.floor(mpmath.log10(abs(value))) - 29)  # of the 30th digit
            assert abs(mpmath.mpf(found[name].decimal(30)) - value) <= unit / 2, name


@pytest.mark.parametrize(
    "text",
    [
        "abs(x)",
        "max(x,0)",
        "min(x,1)",
        "x*abs(x)",
        "max(x,0)**2 - 3*abs(x-1/4)",
        "exp(x/2)*min(x,0)",
        "abs(-2*x+1)/4",
        "max(1-x,2)",
        "x",
        "min(max(x,-1),1)",
        "abs(abs(x)-1)",
        "max(abs(x),1/2)*x",
        "abs(x-1/3)",
    ],
)
def test_expression_pieces_agree_with_the_expression(text):
    """The expanded pieces against the expression's own mpmath function and derivative."""
    act = resolve(text)
    kinks, parts = exp_poly_pieces(act.tree)
    kinks = [mpmath.mpf(k.numerator) / k.denominator for k in kinks]
    for x in (mpmath.mpf(v) / 7 for v in range(-40, 41, 3)):
        for pieces, reference in zip(parts, (act.fn, act.derivative)):
            i = sum(1 for k in kinks if x > k)
            if any(x == k for k in kinks):
                continue
            value = sum(
                (
                    mpmath.mpf(t.c.numerator)
                    / t.c.denominator
                    * x**t.power
                    * mpmath.exp(mpmath.mpf(t.rate.numerator) / t.rate.denominator * x)
                    for t in pieces[i]
                ),
                mpmath.mpf(0),
            )
            assert abs(value - reference(x, {})) <= mpmath.mpf(10) ** -12 * (1 + abs(value)), (text, x)


@pytest.mark.parametrize(
    "text",
    [
        "tanh(x)",
        "exp(x+1)*max(x,0)",
        "abs(x)**3.5",
        "abs(x*x-1)",
        "max(x,0)**65",
        "((1+x)**33)**2",
        "(x+1/3)**64*(1+x)",
        "pi*abs(x)",
    ],
)
def test_expressions_that_are_not_exp_polynomials(text):
    assert exp_poly_pieces(resolve(text).tree) is None


@pytest.mark.parametrize("text, name", [("min(max(x,-1),1)", "hardtanh"), ("min(max(x,0),6)", "relu6")])
def test_clipping_written_out_is_the_catalog_entry(text, name):
    """The expression's pieces (derived from its tree) give the catalog entry's kernel (written as data)."""
    for rho in (Fraction(1, 2), -NEAR):
        expression = signed_cross_balls(resolve(text), Fraction(1), Fraction(1), rho, 30)
        catalog = signed_cross_balls(resolve(name), Fraction(1), Fraction(1), rho, 30)
        with ctx.workprec(200):
            for a, b in zip(expression, catalog):
                assert abs(a - b) < arb(10) ** -30 * abs(b)


@pytest.mark.parametrize("rho", [NEAR, pytest.param(-NEAR, marks=REFERENCE)])
def test_a_kink_that_is_not_dyadic(rho):
    """abs(x − 1/3): its kink a ball to the integrators. Reference: E|m + sZ − k| =
    (m − k)(2Φ(a) − 1) + 2sϕ(a), a = (m − k)/s, inside mpmath quadrature, at 30 digits."""
    found = signed_cross_balls(resolve("abs(x-1/3)"), Fraction(1), Fraction(1), rho, 30)
    with mpmath.workdps(36):
        r = mpmath.mpf(rho.numerator) / rho.denominator
        s, k = mpmath.sqrt(1 - r * r), mpmath.mpf(1) / 3

        def smoothed(m):
            a = (m - k) / s
            return (m - k) * (2 * mpmath.ncdf(a) - 1) + 2 * s * mpmath.npdf(a)

        points = sorted(
            {mpmath.mpf(-30), k, mpmath.mpf(30)} | {(k + j * s) / r for j in (0, -1, 1, -4, 4, -16, 16)}
        )
        reference = mpmath.quad(lambda t: abs(t - k) * smoothed(r * t) * mpmath.npdf(t), points)
        assert (
            abs(mpmath.mpf(found[0].mid().str(40, radius=False)) - reference)
            <= mpmath.mpf(10) ** -30 * reference
        )
        assert mpmath.mpf(found[0].rad().str(5, radius=False)) <= mpmath.mpf(10) ** -32 * reference


def test_one_minus_1e_300_and_its_mirror():
    """An exact ρ that rounds to 1 at the working precision is still inside (0, 1): elu's
    values there are those at ρ = ±1 to far more than 15 digits (the slope is bounded)."""
    near = "0." + "9" * 300
    for sign, one in (("", "1"), ("-", "-1")):
        run = invoke("kernel", "elu", "--rho", sign + near, "--get", "nngp")
        at_one = invoke("kernel", "elu", "--rho", one, "--get", "nngp")
        assert run.code == 0 and at_one.code == 0, run.stderr
        assert run.stdout == at_one.stdout


def test_abs_at_very_unequal_variances():
    """E[|u||v|] = √(q1q2)·(2/π)(√(1 − ρ²) + ρ·asin ρ) at q1 = 1e−10, q2 = 1e10."""
    q1, q2, rho = Fraction(1, 10**10), Fraction(10**10), Fraction(99, 100)
    found = signed_cross_balls(resolve("abs(x)"), q1, q2, rho, 20)
    with mpmath.workdps(30):
        r = mpmath.mpf(rho.numerator) / rho.denominator
        value = 2 / mpmath.pi * (mpmath.sqrt(1 - r * r) + r * mpmath.asin(r))
        assert abs(mpmath.mpf(found[0].mid().str(30, radius=False)) - value) <= mpmath.mpf(10) ** -20 * value
