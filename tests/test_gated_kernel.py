"""``kernel`` and ``hermite`` of the gated units a·g(b) (glu, geglu, swiglu; ``moments.gated_maps``)
against independent routes: a composite Gauss–Legendre rule in mpmath for the gate's bivariate
expectations (30 digits), a seeded Monte Carlo of the whole product a·a'·g(b)·g(b') and of the
gradients' dot product (its factoring and the NTK's definition), finite differences of the
certified C map for C'(1) and C''(1), mpmath quadrature of Q(q) = q·E[g(√q·Z)²] for Q'(1), a
double-precision Gauss–Hermite trajectory for ``depth``, and mpmath quadrature of the gate's
Hermite coefficients."""

from __future__ import annotations

import json
from decimal import ROUND_HALF_UP, Decimal, localcontext
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from mpmath import mp
from flint import arb, ctx
from mpmath.calculus.quadrature import GaussLegendre

from momentcalc import activation_moment, hermite, kernel
from tests.conftest import invoke

SIGMOID = lambda x: 1 / (1 + mpmath.exp(-x))
GATES = {  # unit: (g, g') in mpmath
    "glu": (SIGMOID, lambda x: SIGMOID(x) * (1 - SIGMOID(x))),
    "geglu": (lambda x: x * mpmath.ncdf(x), lambda x: mpmath.ncdf(x) + x * mpmath.npdf(x)),
    "swiglu": (lambda x: x * SIGMOID(x), lambda x: SIGMOID(x) * (1 + x * (1 - SIGMOID(x)))),
}
GATE_NAMES = {"glu": "sigmoid", "geglu": "gelu", "swiglu": "swish"}


def _rounded(value: mpmath.mpf, digits: int) -> str:
    with localcontext() as context:
        context.prec = digits + 20
        d = Decimal(mpmath.nstr(value, digits + 10, strip_zeros=False))
        return str(d.quantize(Decimal(1).scaleb(d.adjusted() - digits + 1), rounding=ROUND_HALF_UP))


def _nodes(dps: int, reach: int = 13, width: int = 2, degree: int = 4) -> list:
    """Composite Gauss–Legendre on [−reach, reach] (panels of ``width``, 24 nodes each) with the
    N(0, 1) density in the weights: the gates are analytic in a strip |Im z| < π (sigmoid's
    poles), so each panel's error is below 1e−33, and the tail past 13 below 1e−37."""
    with mp.workdps(dps):
        base = GaussLegendre(mp).calc_nodes(degree, mp.prec)
        out = []
        for left in range(-reach, reach, width):
            centre, half = mpmath.mpf(left) + mpmath.mpf(width) / 2, mpmath.mpf(width) / 2
            out += [(centre + half * x, half * w * mpmath.npdf(centre + half * x)) for x, w in base]
        return out


ARB_GATES = {  # (g, g') on python-flint's arb, for the 2-D rule's 10^5 evaluations (plain arithmetic, fast)
    "glu": (lambda x: 1 / (1 + (-x).exp()), lambda x: (-x).exp() / (1 + (-x).exp()) ** 2),
    "geglu": (
        lambda x: x * (-x / arb(2).sqrt()).erfc() / 2,
        lambda x: (-x / arb(2).sqrt()).erfc() / 2 + x * (-x * x / 2).exp() / (2 * arb.pi()).sqrt(),
    ),
    "swiglu": (
        lambda x: x / (1 + (-x).exp()),
        lambda x: (1 + (-x).exp() + x * (-x).exp()) / (1 + (-x).exp()) ** 2,
    ),
}


def _bivariate(f, rho, q1, q2, dps: int = 40) -> mpmath.mpf:
    """E[f(u)f(v)], (u, v) centred Gaussian, Var u = q1, Var v = q2, correlation rho, by the
    tensor rule of ``_nodes`` (f on arb balls; only their midpoints are used)."""
    with ctx.workprec(int(dps * 3.33) + 20):
        nodes = [(arb(mpmath.nstr(z, dps + 5)), arb(mpmath.nstr(w, dps + 5))) for z, w in _nodes(dps)]
        rho, q1, q2 = (arb(str(x)) for x in (rho, q1, q2))
        s1, s2, r = q1.sqrt(), q2.sqrt(), (1 - rho * rho).sqrt()
        total = arb(0)
        for z1, w1 in nodes:
            inner = sum((w2 * f(s2 * (rho * z1 + r * z2)) for z2, w2 in nodes), arb(0))
            total += w1 * f(s1 * z1) * inner
        with mp.workdps(dps):
            return mpmath.mpf(total.mid().str(dps + 5, radius=False))


def _check_against_quadrature(unit, rho, q1, q2, digits):
    g = GATES[unit][0]
    result = kernel(unit, rho=rho, q1=q1, q2=q2, digits=digits)
    k, k1 = (_bivariate(f, rho, q1, q2) for f in ARB_GATES[unit])
    with mp.workdps(40):
        scale = mpmath.mpf(rho) * mpmath.sqrt(mpmath.mpf(q1) * mpmath.mpf(q2))
        second = [
            mpmath.quad(
                lambda z: g(mpmath.sqrt(mpmath.mpf(q)) * z) ** 2 * mpmath.npdf(z),
                [-mpmath.inf, 0, mpmath.inf],
            )
            for q in (q1, q2)
        ]
        expected = {
            "nngp": scale * k,
            "ntk_derivative": k + scale * k1,
            "correlation_out": mpmath.mpf(rho) * k / mpmath.sqrt(second[0] * second[1]),
        }
    for key, value in expected.items():
        assert result[key].decimal(digits) == _rounded(value, digits), key
        assert result[key].certified


def test_swiglu_against_quadrature_at_30_digits():
    """Unequal variances and a negative correlation."""
    _check_against_quadrature("swiglu", "-0.4", "1", "2", 30)


@pytest.mark.reference
@pytest.mark.parametrize("unit", ["glu", "geglu"])
def test_glu_geglu_against_quadrature_at_30_digits(unit):
    _check_against_quadrature(unit, "0.3", "0.5", "2", 30)


def test_the_factoring_and_the_ntk_against_a_monte_carlo_of_the_product():
    """(a, a') and (b, b') independent pairs of correlation 0.5, Var 1 at x and 2 at x': the
    products a·a'·g(b)·g(b') and ∇φ(x)·∇φ(x') = g(b)g(b') + a·a'·g'(b)g'(b') sampled directly
    (glu), 2·10^6 draws, within 5 standard errors."""
    rng = np.random.default_rng(20261127)
    n, rho, s1, s2 = 2_000_000, 0.5, 1.0, np.sqrt(2.0)
    z = rng.standard_normal((4, n))
    a, a2 = s1 * z[0], s2 * (rho * z[0] + np.sqrt(1 - rho**2) * z[1])
    b, b2 = s1 * z[2], s2 * (rho * z[2] + np.sqrt(1 - rho**2) * z[3])
    sig = lambda x: 1 / (1 + np.exp(-x))
    dsig = lambda x: sig(x) * (1 - sig(x))
    samples = {
        "nngp": a * a2 * sig(b) * sig(b2),
        "ntk_derivative": sig(b) * sig(b2) + a * a2 * dsig(b) * dsig(b2),
    }
    result = kernel("glu", rho="0.5", q1="1", q2="2")
    for key, sample in samples.items():
        assert abs(sample.mean() - float(result.value(key))) <= 5 * sample.std() / np.sqrt(n), key


@pytest.mark.parametrize(
    "unit",
    [unit if unit != "swiglu" else pytest.param(unit, marks=pytest.mark.reference) for unit in sorted(GATES)],
)
def test_at_rho_one_the_kernel_is_activation_moments(unit):
    """ρ = 1, q = 1: nngp = E[φ²] and ntk_derivative = E[|∇φ|²] = E[g²] + E[a²]E[g'²],
    activation-moment's second_moment and derivative_second_moment (its own route), and
    C'(1) = q·E[|∇φ|²]/E[φ²]."""
    for digits in (15, 30):
        k = kernel(unit, rho="1", digits=digits)
        m = activation_moment(unit, digits=digits)
        assert k["nngp"].decimal(digits) == m["second_moment"].decimal(digits)
        assert k["ntk_derivative"].decimal(digits) == m["derivative_second_moment"].decimal(digits)
        assert k["correlation_out"].decimal(digits) == "1"[:1] + "." + "0" * (digits - 1)
        assert k["c_map_at_0"].decimal(digits) == "0"
    with mp.workdps(50):
        ratio = mpmath.mpf(m["derivative_second_moment"].decimal(30)) / mpmath.mpf(
            m["second_moment"].decimal(30)
        )
        assert abs(ratio - mpmath.mpf(k["c_map_slope_at_1"].decimal(30))) < mpmath.mpf(10) ** -28


# glu by default (1.1 s of CPU; swiglu's same route 1.75 s with -m reference)
@pytest.mark.parametrize("unit", ["glu", pytest.param("swiglu", marks=pytest.mark.reference)])
def test_local_quantities_against_finite_differences_of_the_c_map(unit):
    """C'(1) and C''(1) from the certified C map (correlation_out at 30 digits) at ρ = 1 − jh,
    h = 1e−5, by the one-sided differences of order 4 (error ~h⁴, rounding 1e−30/h²): 14
    digits. So the formulas C'(1) = 1 + q·E[g'²]/E[g²] and C''(1) = (2q·E[g'²] + q²·E[g''²])/E[g²]
    are checked against their definition C(c) = c·K_g(c)/E[g²], not against themselves."""
    with mp.workdps(40):
        h = mpmath.mpf("1e-5")
        c = [
            mpmath.mpf(kernel(unit, rho=mpmath.nstr(1 - j * h, 10), digits=30)["correlation_out"].decimal(30))
            for j in range(6)
        ]
        slope = (25 * c[0] - 48 * c[1] + 36 * c[2] - 16 * c[3] + 3 * c[4]) / (12 * h)
        curve = (45 * c[0] - 154 * c[1] + 214 * c[2] - 156 * c[3] + 61 * c[4] - 10 * c[5]) / (12 * h * h)
        result = kernel(unit, rho="0.5", digits=20)
        assert abs(slope - mpmath.mpf(result["c_map_slope_at_1"].decimal(20))) < mpmath.mpf("1e-14")
        assert abs(curve - mpmath.mpf(result["c_map_curvature_at_1"].decimal(20))) < mpmath.mpf("1e-11")


@pytest.mark.parametrize("unit, q", [("glu", "2"), pytest.param("geglu", "1", marks=pytest.mark.reference)])
def test_q_map_slope_against_quadrature(unit, q):
    """Q'(q) = d/dq (q·E[g(√q·Z)²]) by a 4-point central difference (h = 1e−8, error ~h⁴) of
    mpmath quadratures at 50 digits: 20 digits."""
    g = GATES[unit][0]
    with mp.workdps(50):
        Q = lambda v: (
            v
            * mpmath.quad(
                lambda z: g(mpmath.sqrt(v) * z) ** 2 * mpmath.npdf(z),
                [-mpmath.inf, -5, 0, 5, mpmath.inf],
            )
        )
        x, h = mpmath.mpf(q), mpmath.mpf("1e-8")
        slope = (-Q(x + 2 * h) + 8 * Q(x + h) - 8 * Q(x - h) + Q(x - 2 * h)) / (12 * h)
        assert kernel(unit, rho="0.5", q=q, digits=20)["q_map_slope_at_1"].decimal(20) == _rounded(slope, 20)


def _gauss_hermite_layers(g, depth, w, b, q1, q2, rho, nodes=120):
    """ρ after each layer of a plain network of a·g(b) (q ← w·q·E[g(√q Z)²] + b,
    ρ ← (w·ρ·√(q1q2)·E[g(u)g(v)] + b)/√(q1'q2')), 2-D Gauss–Hermite in doubles."""
    x, weights = np.polynomial.hermite_e.hermegauss(nodes)
    weights = weights / weights.sum()
    X, Y = np.meshgrid(x, x, indexing="ij")
    W = np.outer(weights, weights)
    out = [rho]
    for _ in range(depth):
        s1, s2 = np.sqrt(q1), np.sqrt(q2)
        k = float((W * g(s1 * X) * g(s2 * (rho * X + np.sqrt(1 - rho * rho) * Y))).sum())
        n1 = w * q1 * float((weights * g(s1 * x) ** 2).sum()) + b
        n2 = w * q2 * float((weights * g(s2 * x) ** 2).sum()) + b
        rho = (w * rho * s1 * s2 * k + b) / np.sqrt(n1 * n2)
        q1, q2 = n1, n2
        out.append(rho)
    return out


@pytest.mark.parametrize(
    "unit, w, b, q1, q2, depth",
    [
        ("glu", "3", "0", "1", "1", 10),
        ("swiglu", "2", "0.1", "1", "1", 10),
        ("geglu", "1.5", "0.05", "1", "2", 3),
    ],
)
def test_depth_against_gauss_hermite(unit, w, b, q1, q2, depth):
    """correlation_layers (equal variances: ``gated_layer_balls`` in ``propagation.trajectory``;
    unequal: the layer-by-layer balls) against a double-precision Gauss–Hermite trajectory of
    the same map: 10 digits (geglu's q2 explodes, as q' ~ q² for a gelu gate, and the rule
    with it: 3 layers)."""
    sig = lambda x: 1 / (1 + np.exp(-x))
    from scipy.special import ndtr

    g = {"glu": sig, "swiglu": lambda x: x * sig(x), "geglu": lambda x: x * ndtr(x)}[unit]
    result = kernel(unit, rho="0.3", q1=q1, q2=q2, depth=str(depth), sigma_w2=w, sigma_b2=b, digits=15)
    layers = result.value("correlation_layers")
    expected = _gauss_hermite_layers(g, depth, float(w), float(b), float(q1), float(q2), 0.3)
    assert len(layers) == depth + 1 and result["correlation_layers"].certified
    for mine, theirs in zip(layers, expected):
        assert abs(float(mine) - theirs) < 1e-10 * max(1.0, abs(theirs))
    if b == "0":  # layer 1 is the C map at rho
        one = kernel(unit, rho="0.3", q1=q1, q2=q2, digits=15)["correlation_out"].decimal(15)
        assert result["correlation_layers"].decimal(15)[1] == one


@pytest.mark.parametrize("unit", sorted(GATES))
def test_hermite_is_the_gates_expansion_shifted_by_one(unit):
    """coefficients[n] = the gate's a_{n−1} (the same printed digits), coefficients[0] = 0, and
    second_moment = E[g(Z)²]."""
    mine, gate = hermite(unit, terms=8, digits=20), hermite(GATE_NAMES[unit], terms=7, digits=20)
    assert mine["coefficients"].certified
    texts = mine["coefficients"].decimal(20)
    assert texts[0] == "0" and texts[1:] == gate["coefficients"].decimal(20)
    assert mine["second_moment"].decimal(20) == gate["second_moment"].decimal(20)


# 1.6 s of CPU; by default test_hermite_is_the_gates_expansion_shifted_by_one ties a gated
# unit's coefficients to its gate's, which test_hermite.py checks against quadrature
@pytest.mark.reference
def test_hermite_coefficients_against_quadrature():
    """swiglu's c_n = E[a·g(b)·He_1(a)·He_{n−1}(b)]/√((n−1)!) = E[g(Z)He_{n−1}(Z)]/√((n−1)!)
    (E[a·He_1(a)] = 1), by mpmath quadrature at 40 digits, to 20 digits."""
    result = hermite("swiglu", terms=6, digits=20)
    g = GATES["swiglu"][0]
    with mp.workdps(40):
        for n, text in enumerate(result["coefficients"].decimal(20)):
            if n == 0:
                assert text == "0"
                continue
            he = lambda z: mpmath.hermite(n - 1, z / mpmath.sqrt(2)) * 2 ** (-mpmath.mpf(n - 1) / 2)
            value = mpmath.quad(lambda z: g(z) * he(z) * mpmath.npdf(z), [-mpmath.inf, 0, mpmath.inf])
            value /= mpmath.sqrt(mpmath.factorial(n - 1))
            if text == "0":  # swish = x/2 + an even function: odd k >= 3 vanish (proven exactly)
                assert abs(value) < mpmath.mpf(10) ** -35 and n - 1 >= 3 and (n - 1) % 2 == 1
            else:
                assert text == _rounded(value, 20), n


@pytest.mark.parametrize(
    "unit, rho",
    [
        ("glu", "0.5"),
        pytest.param("geglu", "-0.3", marks=pytest.mark.reference),
        pytest.param("swiglu", "0.9", marks=pytest.mark.reference),
    ],
)
def test_hermite_dual_is_the_kernels_nngp(unit, rho):
    """Σ c_n²ρ^n = ρ·E[g(u)g(v)] = kernel's nngp at q = 1, within dual_tail_bound."""
    h = hermite(unit, terms=40, rho=rho, digits=20)
    with mp.workdps(30):
        nngp = mpmath.mpf(kernel(unit, rho=rho, digits=20)["nngp"].decimal(20))
        gap = abs(mpmath.mpf(h["dual"].decimal(20)) - nngp)
        assert gap <= mpmath.mpf(h["dual_tail_bound"].decimal(20)) + mpmath.mpf("1e-19")
        assert mpmath.mpf(h["energy"].decimal(20)) + mpmath.mpf(h["tail_bound"].decimal(20)) - mpmath.mpf(
            h["second_moment"].decimal(20)
        ) < mpmath.mpf("1e-19")


def test_a_sweep_over_rho_and_the_json_documents():
    from jsonschema import Draft202012Validator

    schema = json.loads(invoke("schema").stdout)
    validator = Draft202012Validator(schema)
    sweep = invoke("kernel", "glu", "--rho", "-1:1:0.5", "--json")
    assert sweep.code == 0
    for args in (("kernel", "geglu", "--rho", "0.4", "--derive", "--json"),):  # (snapshots: depth, hermite)
        run = invoke(*args)
        assert run.code == 0, run.stderr
        assert not list(validator.iter_errors(run.json()))
    assert not list(validator.iter_errors(sweep.json()))
    rows = sweep.json().get("rows")
    assert rows is None or len(rows) == 5


def test_derive_says_there_is_no_closed_form():
    run = invoke("kernel", "glu", "--rho", "0.5", "--derive")
    assert run.code == 0
    assert "rho*sqrt(q1*q2)*E(sigmoid(u)*sigmoid(v))" in run.stdout and "no closed form" in run.stdout


@pytest.mark.parametrize(
    "argv",
    [
        ("tat", "glu", "--target-slope", "2"),
        ("tat", "swiglu", "--depth", "3"),
        ("kernel", "geglu", "--slope", "0.1"),
        ("hermite", "glu", "--alpha", "1"),
    ],
)
def test_what_gated_units_refuse(argv):
    run = invoke(*argv)
    assert run.code == 2 and run.stdout == "" and run.stderr.count("\n") == 1
    if argv[0] == "tat":
        assert (
            "one input" in run.stderr and "ACTIVATION" in run.stderr and "'momentcalc kernel'" in run.stderr
        )


def test_glu_fading_tail_agrees_with_every_layer():
    """glu at σ_w² = 1, σ_b² = 0: the variance fades as (1/4)^L and ``constant_gate_tail``
    (sigmoid(0) = 1/2, |sigmoid'| ≤ 1/4) proves every later layer at once; at depth 60, 8
    digits, each layer's q and c print the same digits as the layer-by-layer balls."""
    from fractions import Fraction

    from momentcalc.catalog import resolve
    from momentcalc.catalog.gated import gated
    from momentcalc.engine.rounding import ball_text
    from momentcalc.moments import gated_maps, propagation

    sigmoid, unit = resolve("sigmoid"), gated("glu")
    calls = []
    real = gated_maps.gated_layer_boxes

    def step(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    run, used = [], []
    gated_maps.gated_layer_boxes = step
    try:
        for fast in (True, False):
            path = propagation.trajectory(
                propagation.layer_map(sigmoid, Fraction(1), Fraction(0), unit),
                propagation.KernelBox.point(Fraction(1), Fraction(3, 10)),
                60,
                8,
                fast=fast,
            )
            run.append((path.q1, path.c))
            used.append(len(calls) - sum(used))
    finally:
        gated_maps.gated_layer_boxes = real
    assert used[0] < 40 and used[1] == 60  # the tail took over
    for fast_balls, slow_balls in zip(*run):
        for a, b in zip(fast_balls, slow_balls):
            assert a.overlaps(b) and ball_text(a, 8) is not None and ball_text(a, 8) == ball_text(b, 8)


def test_glu_at_depth_1000_against_gauss_hermite():
    """The limit correlation of a deep glu network (σ_w² = 1): layer 1000 against 40 layers of the
    double-precision Gauss–Hermite trajectory (the drift after layer 40 is below 1e−20): 12 digits."""
    sig = lambda x: 1 / (1 + np.exp(-x))
    expected = _gauss_hermite_layers(sig, 40, 1.0, 0.0, 1.0, 1.0, 0.3)[-1]
    last = kernel("glu", rho="0.3", depth="1000")["correlation_layers"]
    assert last.certified and abs(float(last.value[-1]) - expected) < 1e-12


@pytest.mark.parametrize(
    "argv", [("swiglu", "--depth", "1000"), ("geglu", "--depth", "16", "--q1", "1", "--q2", "3")]
)
def test_a_collapsing_length_is_exit_2_before_any_layer(argv):
    """A gate vanishing at 0 (gelu, swish: q/8 <= E[g(sqrt(q) Z)^2] <= q) at sigma_b2 = 0, sigma_w2 = 1:
    q' <= q^2 once q_1 = E[swish(Z)^2] = 0.356 < 1, so q_16 <= 0.356^(2^15) < 1e-10000 (the
    smaller variance's trajectory), said at once as check_length would say it."""
    run = invoke("kernel", *argv, "--rho", "0.3")
    assert run.code == 2 and run.stdout == "" and run.stderr.count("\n") == 1
    assert "falls below 1e-10000 by layer 16" in run.stderr and "--depth" in run.stderr
    assert invoke("kernel", argv[0], "--rho", "0.3", "--depth", "4").code == 0


@pytest.mark.reference  # about 50 s of CPU: 300 layers of a gated unit at unequal variances
@pytest.mark.parametrize("name", ["glu"])  # tanh now proves it: test_kernel_depth_unequal
def test_a_widened_variance_ball_claims_no_collapse(name):
    """Unequal variances at depth 300, sigma_w2 = 0.5: the variances fade geometrically (1e-17 at
    layer 56, nowhere near 1e-10000). Each length now follows its own trajectory (its fading tail
    proven), so the answer is proven; never the exit 2 claim that the length collapses."""
    run = invoke(
        "kernel", name, "--q1", "1", "--q2", "2", "--rho", "0.3", "--depth", "300", "--sigma-w2", "0.5"
    )
    assert run.code == 0 and "collapses" not in run.stderr


SECOND = {  # g'' in mpmath
    "glu": lambda x: SIGMOID(x) * (1 - SIGMOID(x)) * (1 - 2 * SIGMOID(x)),
    "geglu": lambda x: (2 - x * x) * mpmath.npdf(x),
    "swiglu": lambda x: SIGMOID(x) * (1 - SIGMOID(x)) * (2 + x * (1 - 2 * SIGMOID(x))),
}


# geglu's and swiglu's gates (1.9 s of CPU) with -m reference: the route is the same as glu's
@pytest.mark.parametrize(
    "unit, q",
    [
        ("glu", "1"),
        pytest.param("geglu", "0.5", marks=pytest.mark.reference),
        pytest.param("swiglu", "2", marks=pytest.mark.reference),
    ],
)
def test_local_quantities_at_30_digits_from_quadratures_of_the_gate(unit, q):
    """C'(1) = 1 + q·E[g'²]/E[g²], C''(1) = (2q·E[g'²] + q²·E[g''²])/E[g²], Q'(q) = E[g²] + E[u·g·g']
    (checked against their definition by finite differences above) with the gate's moments at
    u ~ N(0, q) by mpmath quadrature at 45 digits: every printed digit at 30."""
    g, dg = GATES[unit]
    ddg = SECOND[unit]
    with mp.workdps(45):
        s = mpmath.sqrt(mpmath.mpf(q))
        mean = lambda f: mpmath.quad(lambda z: f(s * z) * mpmath.npdf(z), [-mpmath.inf, -4, 0, 4, mpmath.inf])
        a, slope, curve = mean(lambda x: g(x) ** 2), mean(lambda x: dg(x) ** 2), mean(lambda x: ddg(x) ** 2)
        cross = mean(lambda x: x * g(x) * dg(x))
        v = mpmath.mpf(q)
        expected = {
            "c_map_slope_at_1": 1 + v * slope / a,
            "c_map_curvature_at_1": (2 * v * slope + v * v * curve) / a,
            "q_map_slope_at_1": a + cross,
        }
    result = kernel(unit, rho="0.5", q=q, digits=30)
    for key, value in expected.items():
        assert result[key].decimal(30) == _rounded(value, 30), key


@pytest.mark.parametrize(
    "gate, w, q0, collapse",
    [("gelu", Fraction(4), Fraction(3, 4), True), ("swish", Fraction(1, 10), Fraction(31, 2), False)],
)
def test_no_runaway_claimed_against_the_true_trajectory(gate, w, q0, collapse):
    """runaway_layer's t = σ_w²·h·q_1 with q_1 = σ_w²·q0·A(q0) (the layer's σ_w² in q_1 too):
    geglu at σ_w² = 4 from q0 = 3/4 explodes (q = 0.915, 1.41, 3.52, 23.7, 1122 in mpmath) and
    swiglu at σ_w² = 1/10 from q0 = 31/2 collapses (11.7, 6.50, 1.95, 0.151, 6.3e-4); without
    that σ_w² they were claimed to collapse by layer 19 and to pass 1e10000 by layer 17 (exit 2)."""
    from momentcalc.catalog import resolve
    from momentcalc.moments.gated_maps import runaway_layer

    assert runaway_layer(resolve(gate, {}), (Fraction(1, 8), Fraction(1)), q0, w, collapse) == 0
    # the first layers of the true trajectory go the other way
    g = (lambda x: x * mpmath.ncdf(x)) if gate == "gelu" else (lambda x: x / (1 + mpmath.exp(-x)))
    with mpmath.workdps(20):
        q = mpmath.mpf(q0.numerator) / q0.denominator
        trajectory = [q]
        for _ in range(4):
            q = (
                w
                * q
                * mpmath.quad(
                    lambda z: mpmath.npdf(z) * g(mpmath.sqrt(q) * z) ** 2, [-mpmath.inf, 0, mpmath.inf]
                )
            )
            trajectory.append(q)
    assert (trajectory[4] > 10 * trajectory[0]) if collapse else (trajectory[4] < trajectory[0] / 10)
