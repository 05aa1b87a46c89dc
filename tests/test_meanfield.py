"""meanfield: closed forms against quadrature, quadrature against an actual random network
(Monte Carlo), published critical points, exit codes, infinite depth scales."""

from __future__ import annotations

import json
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from mpmath import mp

from momentcalc.catalog import resolve
from tests.conftest import invoke
from momentcalc.computations.meanfield import meanfield
from momentcalc.computations.meanfield.model import Model
from momentcalc.errors import InputError


def _quadrature_model(name: str, params: dict | None = None) -> Model:
    """The model without its closed-form kernel: every expectation by quadrature."""
    model = Model(resolve(name, params or {}), name, params or {})
    model.kernel = None
    return model


def _kernel_model(name: str, params: dict | None = None) -> Model:
    model = Model(resolve(name, params or {}), name, params or {})
    assert model.kernel is not None
    return model


def _agree(a: mpmath.mpf, b: mpmath.mpf, digits: int) -> bool:
    return abs(a - b) <= max(abs(a), abs(b)) * mpmath.mpf(10) ** -digits


@pytest.mark.parametrize(
    "name, params", [("relu", None), ("leaky_relu", {"slope": "0.2"}), ("erf", None), ("identity", None)]
)
def test_length_kernels_match_quadrature(name, params):
    closed, quad = _kernel_model(name, params), _quadrature_model(name, params)
    with mp.workdps(40):
        for q in (mpmath.mpf("0.3"), mpmath.mpf("2.5")):
            a, b = closed.length(q, 30), quad.length(q, 30)
            for x, y in zip(a, b):
                assert _agree(x, y, 28), (name, q, x, y)


@pytest.mark.parametrize(
    "name, params, c, digits",
    [
        ("erf", None, "0.6", 15),
        ("erf", None, "-0.4", 10),
        ("identity", None, "0.3", 20),
        ("relu", None, "0.6", 15),
        ("leaky_relu", {"slope": "0.2"}, "-0.4", 12),
    ],
)
def test_bivariate_kernels_match_quadrature(name, params, c, digits):
    """arc-cosine (relu, leaky_relu) and arcsine (erf) kernels against the bivariate quadrature
    (for relu and leaky_relu: the outer Gaussian rule over the inner expectations in closed
    form, the route selu and elu take)."""
    closed, quad = _kernel_model(name, params), _quadrature_model(name, params)
    with mp.workdps(digits + 10):
        q, c = mpmath.mpf("1.3"), mpmath.mpf(c)
        for x, y in zip(closed.cross(q, c, digits), quad.cross(q, c, digits)):
            assert _agree(x, y, digits), (name, c, x, y)


def test_relu_closed_forms():
    r = meanfield("relu", sigma_w2="1.5", sigma_b2="0.1", digits=30)
    with mp.workdps(40):
        assert _agree(r.value("q_star"), mpmath.mpf("0.1") / (1 - mpmath.mpf("0.75")), 30)
        assert _agree(r.value("chi1"), mpmath.mpf("0.75"), 30)
        assert _agree(r.value("depth_scale_c"), -1 / mpmath.log(mpmath.mpf("0.75")), 30)
    assert r.value("c_star") == 1


def test_erf_chaotic_fixed_point_against_quadrature():
    """c* from the arcsine kernel and from the bivariate quadrature agree."""
    a = meanfield("erf", sigma_w2="3", sigma_b2="0.1", digits=12)
    model = _quadrature_model("erf")
    with mp.workdps(25):
        q, c = a.value("q_star"), a.value("c_star")
        k, kd = model.cross(q, c, 15)
        assert _agree((3 * k + mpmath.mpf("0.1")) / q, c, 12)  # c* is a fixed point of the map
        assert _agree(-1 / mpmath.log(3 * kd), a.value("depth_scale_c"), 12)
    assert 0 < c < 1


def test_a_bounded_activation_at_a_huge_weight_variance_has_its_fixed_point():
    """erf is bounded, so q* <= sigma_w2 and never runs off: at sigma_w2 = 1e30 the fixed point
    of q = sigma_w2·(2/pi)·asin(2q/(1 + 2q)) (the arcsine kernel) is just below 1e30. (The search
    used to count its run-off bound from max(q0, sigma_b2, 1) and said the signal explodes.)"""
    r = meanfield("erf", sigma_w2="1e30", digits=20)
    with mp.workdps(60):
        w = mpmath.mpf(10) ** 30
        q = mpmath.findroot(lambda q: w * 2 / mp.pi * mpmath.asin(2 * q / (1 + 2 * q)) - q, w)
        assert _agree(r.value("q_star"), q, 20)
        assert q < w


def test_erf_critical_line_closed_form():
    """On erf's critical line sigma_w2 = pi*sqrt(1 + 4q)/4 and sigma_b2 = q - sigma_w2*(2/pi)*asin(2q/(1 + 2q))."""
    r = meanfield("erf", sigma_b2="0.05", critical=True, digits=40)
    with mp.workdps(50):
        q, w = r.value("q_star"), r.value("sigma_w2")
        assert _agree(w, mp.pi * mpmath.sqrt(1 + 4 * q) / 4, 40)
        assert _agree(q - w * 2 / mp.pi * mpmath.asin(2 * q / (1 + 2 * q)), mpmath.mpf("0.05"), 38)


def test_tanh_critical_point_published():
    """Schoenholz et al. 2017 (Fig. 1): tanh's critical sigma_w2 at sigma_b2 = 0.05 is about 1.76
    (the second route, plain quadrature and a secant root, runs in test_verify's registry check)."""
    r = meanfield("tanh", sigma_b2="0.05", critical=True, digits=16)
    w = r.value("sigma_w2")
    assert abs(float(w) - 1.76) < 0.005
    # chi1 really is 1 there: recompute at the (rounded) critical value, sigma_w2 given.
    again = meanfield("tanh", sigma_w2=mpmath.nstr(w, 22), sigma_b2="0.05", digits=16)
    assert abs(again.value("chi1") - 1) < mpmath.mpf(10) ** -16
    assert r.value("depth_scale_c") == mpmath.inf


def test_relu_critical_is_he_init():
    r = meanfield("relu", critical=True)
    assert r.value("sigma_w2") == 2 and r.value("depth_scale_c") == mpmath.inf


def test_tanh_at_origin_is_critical_with_infinite_depth_scales():
    r = meanfield("tanh")
    assert r.value("q_star") == 0 and r.value("chi1") == 1
    assert r.value("depth_scale_q") == mpmath.inf and r.value("depth_scale_c") == mpmath.inf
    assert any("critical" in note for note in r.notes)


def test_ordered_and_chaotic_notes():
    ordered = meanfield("tanh", sigma_w2="1.5", sigma_b2="0.05")
    chaotic = meanfield("erf", sigma_w2="3", sigma_b2="0.1")
    assert "ordered phase" in ordered.notes[0] and "raise sigma_w2" in ordered.notes[0]
    assert "chaotic phase" in chaotic.notes[0] and "lower sigma_w2" in chaotic.notes[0]


def test_odd_activation_without_bias_has_c_star_zero_in_the_chaotic_phase():
    r = meanfield("tanh", sigma_w2="2", digits=20)
    assert r.value("c_star") == 0
    assert r.value("chi1") > 1


def test_q_star_converges_to_full_precision():
    low = meanfield("tanh", sigma_w2="1.5", sigma_b2="0.05", digits=15)
    high = meanfield("tanh", sigma_w2="1.5", sigma_b2="0.05", digits=60)
    with mp.workdps(70):
        for name in ("q_star", "chi1", "depth_scale_q", "depth_scale_c"):
            assert _agree(low.value(name), high.value(name), 15)
        # q* is a fixed point of the length map to 60 digits.
        q = high.value("q_star")
        a = _quadrature_model("tanh").length(q, 62).A
        assert _agree(mpmath.mpf("1.5") * a + mpmath.mpf("0.05"), q, 60)


# --- Monte Carlo: an actual seeded wide deep random network --------------------------------------

WIDTH, LAYERS, NETWORKS = 1000, 2, 12


def _simulate(phi, sigma_w2: float, sigma_b2: float, q0: float, c0: float, seed: int = 0):
    """q and c per layer for two inputs of squared length q0 and correlation c0, through
    NETWORKS independent random networks: (mean, standard error) over the networks."""
    rng = np.random.default_rng(seed)
    qs, cs = [], []
    for _ in range(NETWORKS):
        z1, z2 = rng.standard_normal(WIDTH), rng.standard_normal(WIDTH)
        h1 = np.sqrt(q0) * z1
        h2 = np.sqrt(q0) * (c0 * z1 + np.sqrt(1 - c0 * c0) * z2)
        per_q, per_c = [], []
        for _ in range(LAYERS):
            w = rng.standard_normal((WIDTH, WIDTH)) * np.sqrt(sigma_w2 / WIDTH)
            bias = rng.standard_normal(WIDTH) * np.sqrt(sigma_b2)
            h1, h2 = w @ phi(h1) + bias, w @ phi(h2) + bias
            q1, q2 = np.mean(h1 * h1), np.mean(h2 * h2)
            per_q.append(q1)
            per_c.append(np.mean(h1 * h2) / np.sqrt(q1 * q2))
        qs.append(per_q)
        cs.append(per_c)
    qs, cs = np.array(qs), np.array(cs)
    return (qs.mean(0), qs.std(0, ddof=1) / np.sqrt(NETWORKS)), (
        cs.mean(0),
        cs.std(0, ddof=1) / np.sqrt(NETWORKS),
    )


@pytest.mark.parametrize(
    "activation, phi",
    [
        ("tanh", np.tanh),
        # an expression's trajectory (0.6 s of CPU, the same comparison as tanh's): -m reference
        pytest.param(
            "x*tanh(log(1+exp(x)))", lambda x: x * np.tanh(np.logaddexp(0, x)), marks=pytest.mark.reference
        ),
    ],
)
def test_trajectories_match_a_random_network(activation, phi):
    r = meanfield(activation, sigma_w2="1.5", sigma_b2="0.05", depth=LAYERS, c0="0.5", digits=3)
    q_theory = [float(v) for v in r.value("q_layers")[1:]]
    c_theory = [float(v) for v in r.value("c_layers")[1:]]
    (q_mean, q_se), (c_mean, c_se) = _simulate(phi, 1.5, 0.05, 1.0, 0.5)
    for theory, mean, se in ((q_theory, q_mean, q_se), (c_theory, c_mean, c_se)):
        for t, m, s in zip(theory, mean, se):
            # 5 standard errors, plus the O(1/width) finite-width bias.
            assert abs(t - m) <= 5 * s + 2.0 / WIDTH, (activation, theory, mean, se)


# --- bad input --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs, words",
    [
        ({"sigma_w2": "2.5", "sigma_b2": "0.1"}, "no fixed point"),
        ({"sigma_w2": "0"}, "sigma_w2 must be"),
        ({"sigma_b2": "-1"}, "sigma_b2 must be"),
        ({"q0": "0"}, "q0 must be"),
        ({"depth": "3", "c0": "1.5"}, "c0 must be"),
        ({"c0": "0.5"}, "applies only with"),
        ({"depth": "0"}, "depth must be"),
        ({"critical": True, "sigma_b2": "0.1"}, "no edge of chaos"),
        ({"critical": True, "sigma_w2": "2"}, "cannot be given"),
    ],
)
def test_bad_input(kwargs, words):
    with pytest.raises(InputError, match=words):
        meanfield("relu", **kwargs)


def test_cli_exit_codes_and_json(cli):
    ok = cli("meanfield", "relu", "--sigma-w2", "1.5", "--sigma-b2", "0.1", "--json")
    assert ok.code == 0
    doc = json.loads(ok.stdout)
    assert doc["results"]["q_star"]["decimal"] == "0.400000000000000"
    bad = cli("meanfield", "relu", "--sigma-w2", "3", "--sigma-b2", "0.1")
    assert bad.code == 2 and "--sigma-w2" in bad.stderr and bad.stdout == ""
    critical = cli("meanfield", "tanh", "--sigma-b2", "0.05", "--critical", "--json")
    assert json.loads(critical.stdout)["results"]["depth_scale_c"]["decimal"] == "inf"


# --- certified ------------------------------------------------------------------------------


def _tanh_by_quadrature(q: mpmath.mpf, which: str = "abs") -> tuple[mpmath.mpf, ...]:
    """Those of (a) E[tanh²], (b) E[sech⁴], (s) E[X·tanh·sech²]/q at X ~ N(0, q) that ``which``
    names, in its order, by mpmath quadrature alone (the three integrands are even: twice the
    half-line). The root finder needs a and b, the results b and s: each quadrature is done only
    where it is read (the three at every step cost a third more CPU)."""
    s = mpmath.sqrt(q)
    norm = 1 / mpmath.sqrt(2 * mp.pi)  # once, not at every node
    e = lambda f: 2 * norm * mpmath.quad(lambda z: f(s * z) * mpmath.exp(-z * z / 2), [0, mpmath.inf])
    integrals = {
        "a": lambda: e(lambda x: mpmath.tanh(x) ** 2),
        "b": lambda: e(lambda x: mpmath.sech(x) ** 4),
        "s": lambda: e(lambda x: x * mpmath.tanh(x) * mpmath.sech(x) ** 2) / q,
    }
    return tuple(integrals[name]() for name in which)


def test_certified_tanh_critical_line_against_quadrature_at_50_digits():
    """The critical line of tanh at sigma_b2 = 0.05 (Schoenholz et al. 2017): q solves
    A(q)/B(q) + sigma_b2 = q by mpmath's root finder on plain quadrature at 60 digits; every
    result certified, with its error bound below half a unit of its last digit."""
    from momentcalc.engine.precision import to_decimal

    from .certified_checks import assert_certified

    r = meanfield("tanh", sigma_b2="0.05", critical=True, digits=50)
    with mp.workdps(60):
        b = mpmath.mpf("0.05")
        # The secant method from the certified value (it only has to converge, to the same root).
        q = mpmath.findroot(
            lambda x: (lambda a, bb: a / bb + b - x)(*_tanh_by_quadrature(x, "ab")),
            (r.value("q_star") * (1 + mpmath.mpf(10) ** -20), r.value("q_star")),
            solver="secant",
        )
        bb, s = _tanh_by_quadrature(q, "bs")
        w = 1 / bb
        want = {
            "sigma_w2": w,
            "q_star": q,
            "chi1": 1,
            "c_star": 1,
            "depth_scale_q": -1 / mpmath.log(abs(w * s)),
        }
    for name, value in want.items():
        assert assert_certified(r[name], 50) == to_decimal(value, 50), name
    assert r["depth_scale_c"].certified and r["depth_scale_c"].value == mpmath.inf


@pytest.mark.parametrize("digits", [1, 2, 30])
def test_certified_relu_ordered_phase(digits):
    """relu at sigma_w2 = 1.5, sigma_b2 = 0.1 (its kernel on balls): q* = 0.4, chi1 = 0.75 (an
    exact binary ball: the tie at one digit rounds away from zero), xi = -1/ln(3/4)."""
    from momentcalc.engine.precision import to_decimal

    from .certified_checks import assert_certified

    r = meanfield("relu", sigma_w2="1.5", sigma_b2="0.1", digits=digits)
    with mp.workdps(60):
        xi = -1 / mpmath.log(mpmath.mpf("0.75"))
        want = {
            "q_star": mpmath.mpf("0.4"),
            "chi1": mpmath.mpf("0.75"),
            "depth_scale_q": xi,
            "depth_scale_c": xi,
        }
    for name, value in want.items():
        assert assert_certified(r[name], digits) == to_decimal(value, digits), name
    assert digits != 1 or to_decimal(r["chi1"].rounded_from, 1) == "0.8"
    assert r["c_star"].certified and r["c_star"].exact == 1


def test_certified_chaotic_phase_where_provable():
    """erf's c* from its kernel on balls, tanh's c* = 0 without bias and tanh's c* with bias
    (certified bivariate expectations) are certified."""
    from .certified_checks import assert_certified

    erf = meanfield("erf", sigma_w2="3", sigma_b2="0.1")
    assert all(assert_certified(q, 15) for q in erf.results)
    odd = meanfield("tanh", sigma_w2="2")
    assert odd["c_star"].exact == 0 and all(assert_certified(q, 15) for q in odd.results)
    biased = meanfield("tanh", sigma_w2="2", sigma_b2="0.05")
    assert all(assert_certified(q, 15) for q in biased.results)


def test_certified_marker_in_title_only_when_all_are(cli=None):
    from tests.conftest import invoke

    assert (
        invoke("meanfield", "relu", "--sigma-w2", "1.5", "--sigma-b2", "0.1")
        .stdout.splitlines()[0]
        .rstrip()
        .endswith("certified")
    )
    # relu's trajectories are proven too (its kernels on balls), and tanh's (the layer balls of
    # kernel --depth); where they are not, the title does not claim every result
    # (tests/test_kinked_routes.py, tests/test_meanfield_layers.py).
    assert (
        invoke("meanfield", "relu", "--sigma-w2", "1.5", "--sigma-b2", "0.1", "--depth", "3", "--c0", "0.5")
        .stdout.splitlines()[0]
        .rstrip()
        .endswith("certified")
    )
    assert (
        invoke("meanfield", "tanh", "--sigma-w2", "1.5", "--sigma-b2", "0.1", "--depth", "3", "--c0", "0.5")
        .stdout.splitlines()[0]
        .rstrip()
        .endswith("certified")
    )


def test_certified_limits_at_q_star_zero_from_the_kernels():
    """At sigma_b2 = 0 the kernels give the q -> 0 limits on balls: relu's critical sigma_w2 is
    He's 2, erf's pi/4 (to 50 digits against mpmath), c* = 1 and xi_c = inf for relu (homogeneous);
    erf's and tanh's undefined c* is not claimed (tanh's other limits are: tangent_bound)."""
    from momentcalc.engine.precision import to_decimal

    from .certified_checks import assert_certified

    he = meanfield("relu", critical=True)
    assert he["sigma_w2"].certified and to_decimal(he["sigma_w2"].rounded_from, 15) == "2.00000000000000"
    assert all(q.certified for q in he.results) and he["c_star"].exact == 1
    erf = meanfield("erf", critical=True, digits=50)
    with mp.workdps(60):
        assert assert_certified(erf["sigma_w2"], 50) == to_decimal(mp.pi / 4, 50)
    assert not erf["c_star"].certified and erf["q_star"].exact == 0
    ordered = meanfield("erf", sigma_w2="0.5", digits=30)
    with mp.workdps(40):
        chi = mpmath.mpf("0.5") * 4 / mp.pi
        assert assert_certified(ordered["chi1"], 30) == to_decimal(chi, 30)
        assert assert_certified(ordered["depth_scale_q"], 30) == to_decimal(-1 / mpmath.log(chi), 30)
    tanh = meanfield("tanh")  # within its tangent at 0 (no kernel): all but the undefined c* proven
    assert not tanh["c_star"].certified
    assert all(tanh[name].certified for name in ("q_star", "chi1", "depth_scale_q", "depth_scale_c"))


@pytest.mark.parametrize(
    "name, params, sigma_w2, q0",
    [
        ("relu", None, "2", "3"),  # He initialization, no bias
        ("leaky_relu", {"slope": "0.5"}, "1.6", "1"),  # 1.6·(1 + 0.25)/2 = 1: printed q* = 0 before
        ("leaky_relu", {"slope": "0.75"}, "1.28", "0.25"),  # 1.28·(1 + 0.5625)/2 = 1
    ],
)
def test_length_preserving_map_keeps_q0(name, params, sigma_w2, q0):
    """sigma_w2*E[phi(Z)^2] = 1 and sigma_b2 = 0 for a positively homogeneous phi: the length map
    is q -> q, so q* is q0 exactly (it was an exit 3 'zero derivative', or q* = 0 for leaky_relu),
    chi1 = 1, c* = 1 and both depth scales infinite, all exact. Second route: the length map by
    quadrature (no kernel) at q0 returns q0, and E[phi'^2] = E[phi^2] by quadrature (chi1 = 1)."""
    r = meanfield(name, sigma_w2=sigma_w2, q0=q0, params=params, digits=30)
    assert r["q_star"].exact == Fraction(q0)
    assert r["chi1"].exact == 1 and r["c_star"].exact == 1
    assert r.value("depth_scale_q") == mpmath.inf and r.value("depth_scale_c") == mpmath.inf
    assert all(q.certified for q in r.results)
    with mp.workdps(40):
        q, w = (mpmath.mpf(Fraction(t).numerator) / Fraction(t).denominator for t in (q0, sigma_w2))
        length = _quadrature_model(name, params).length(q, 35)
        assert _agree(w * length.A, q, 30) and _agree(w * length.B, mp.one, 30)


def test_length_preserving_critical_and_linear():
    """relu --critical: sigma_w2 = 2 with q* = q0 (not 0); identity: every c is a fixed point too
    (c* undefined, nan, not claimed); sigma_b2 > 0 on the same map: q grows by sigma_b2 per layer,
    no fixed point (exit 2)."""
    he = meanfield("relu", critical=True, q0="5")
    assert he["sigma_w2"].exact == 2 and he["q_star"].exact == 5 and he["chi1"].exact == 1
    linear = meanfield("identity", q0="2")
    assert (
        linear["q_star"].exact == 2
        and mpmath.isnan(linear.value("c_star"))
        and not linear["c_star"].certified
    )
    assert any("undefined" in note for note in linear.notes)
    with pytest.raises(InputError, match="no fixed point"):
        meanfield("relu", sigma_w2="2", sigma_b2="0.1")
    with pytest.raises(InputError, match="no fixed point"):
        meanfield("leaky_relu", sigma_w2="1.6", sigma_b2="0.01", params={"slope": "0.5"})


def _direct_length_map(phi, w: mpmath.mpf, b: mpmath.mpf, q: mpmath.mpf) -> mpmath.mpf:
    """sigma_w2*E[phi(sqrt(q) Z)^2] + sigma_b2 by mpmath.quad, for the independent route."""
    s, norm = mpmath.sqrt(q), 1 / mpmath.sqrt(2 * mp.pi)  # once, not at every node
    f = lambda z: phi(s * z) ** 2 * mpmath.exp(-z * z / 2)
    return w * norm * mpmath.quad(f, [-mpmath.inf, 0, mpmath.inf]) + b


@pytest.mark.parametrize(
    "name, sigma_b2, words",
    [
        ("gelu", "0", "q* = 0 (sigma_w2 = 4.0), where q grows away from 0"),
        ("swish", "0.1", "q* = 1.55191 (sigma_w2 = 2.43955), where the length map's slope is 1.091 > 1"),
    ],
)
def test_critical_line_only_at_fixed_points_that_repel(name, sigma_b2, words):
    """chi1 = 1 for gelu at sigma_b2 = 0 holds only at q* = 0 with gelu''(0) > 0 making V(q) > q
    there, and for swish at sigma_b2 = 0.1 only at a q* where V' > 1: no network settles at
    either, so --critical says so (exit 2) instead of printing them as the edge of chaos (it
    printed gelu's as 'decays to 0' and swish's with depth_scale_q = -11.4)."""
    with pytest.raises(InputError, match="no stable edge of chaos") as caught:
        meanfield(name, critical=True, sigma_b2=sigma_b2)
    assert words in str(caught.value)


def test_repelling_critical_point_by_direct_iteration():
    """Second route for swish at sigma_b2 = 0.1: iterate the length map by mpmath.quad from 1 %
    either side of the reported q* at the reported sigma_w2: both runs move away from q*."""
    with pytest.raises(InputError) as caught:
        meanfield("swish", critical=True, sigma_b2="0.1")
    text = str(caught.value)
    q_star = mpmath.mpf(text.split("q* = ")[1].split(" ")[0])
    w = mpmath.mpf(text.split("sigma_w2 = ")[1].split(")")[0])
    swish = lambda x: x / (1 + mpmath.exp(-x))
    with mp.workdps(15):
        for side in (-1, 1):
            q = q_star * (1 + side * mpmath.mpf("0.01"))
            for _ in range(6):
                q = _direct_length_map(swish, w, mpmath.mpf("0.1"), q)
            assert side * (q - q_star) > mpmath.mpf("0.011") * q_star  # the 1 % gap grew


def test_exploding_length_is_sampled_at_widening_factors():
    """A length map with V(q) ~ 1.25 q for large q (gelu at sigma_w2 = 2.5) runs off: exit 2
    naming it, after few samples (each costs an expectation at a large q; at doublings gelu
    spent the whole CPU budget, and the budget's signal could crash Arb's integrator)."""
    from momentcalc.computations.meanfield.locate import find_fixed_point as _locate
    from momentcalc.computations.meanfield.model import Length

    class Growing:  # A(q) = q/2 + 1/10: V(q) = 1.25 q + 0.25 at sigma_w2 = 2.5
        calls = 0

        def length(self, q, digits):
            Growing.calls += 1
            return Length(q / 2 + mpmath.mpf(1) / 10, mpmath.mpf(1) / 2, mpmath.mpf(1) / 2)

    with mp.workdps(25), pytest.raises(InputError, match=r"no fixed point above q0 = 1 .*explodes"):
        _locate(Growing(), mpmath.mpf("2.5"), mp.zero, mp.one, True, ("0", "2.5", "1"))
    assert Growing.calls <= 30  # 1 to 10^30 at factors of 16 (it took about 100 at doublings)


def test_selu_self_normalizing_point_exactly():
    """selu at sigma_w2 = 1, sigma_b2 = 0 (Klambauer et al. 2017's self-normalizing network):
    q* = 1 and c* = 0 exactly, from the catalog's E[selu(Z)] = 0 and E[selu(Z)^2] = 1 (it spent
    its whole CPU budget on c*'s bivariate quadrature before); chi1 and depth_scale_c against
    mpmath.quad of selu'(Z)^2 and E[selu'(Z)] (c* = 0: the slope is sigma_w2*E[phi']^2)."""
    r = meanfield("selu", sigma_w2="1", digits=20)
    assert r["q_star"].exact == 1 and r["c_star"].exact == 0
    assert all(q.certified for q in r.results)
    from momentcalc.catalog.activations import selu_constants

    with mp.workdps(30):
        lam, alpha = selu_constants()
        slope = lambda z: lam if z > 0 else lam * alpha * mpmath.exp(z)
        norm = 1 / mpmath.sqrt(2 * mp.pi)  # once, not at every node
        gauss = lambda f: (
            norm * mpmath.quad(lambda z: f(z) * mpmath.exp(-z * z / 2), [-mpmath.inf, 0, mpmath.inf])
        )
        chi = gauss(lambda z: slope(z) ** 2)
        mean_slope = gauss(slope)
        assert _agree(r.value("chi1"), chi, 20)
        assert _agree(r.value("depth_scale_c"), -1 / mpmath.log(mean_slope**2), 20)


def test_length_map_parallel_to_the_diagonal_runs_off():
    """V(q) = q + 1 computed to 12 digits (x*tanh(x) + tanh(x) at sigma_w2 = 1, elu at sigma_w2 =
    2, sigma_b2 = 0.1: q grows by about a constant per layer): past q = 10^12 the digits cannot
    tell V(q) from q, and the search took that for a fixed point (then exit 3, or an imaginary
    std from a Newton step to q < 0). Rising so far, it is the run-off: exit 2."""
    from momentcalc.computations.meanfield.locate import find_fixed_point as _locate
    from momentcalc.computations.meanfield.model import Length

    class Parallel:
        def length(self, q, digits):
            with mp.workdps(12):
                return Length(+(q + 1), mp.one, mp.one)

    with mp.workdps(22), pytest.raises(InputError, match="no fixed point above q0 = 1"):
        _locate(Parallel(), mp.one, mp.zero, mp.one, True, ("0", "1", "1"))


def test_interval_taylor_step_to_its_upper_end():
    """The proof's B(q_hi) from q_lo by Taylor's theorem (slope from E[X²·φ'²], remainder from
    the He₄ bound) holds tanh's E[sech⁴(√q_hi·Z)] by mpmath quadrature at 50 digits, to second
    order in the interval's width (a wrong slope would miss it by about the width itself)."""
    from flint import arb

    from momentcalc.computations.meanfield.prove import DERIV2, _Interval

    model = Model(resolve("tanh", {}), "tanh", {})
    s_lo = mpmath.mpf(3) / 4
    s_hi = s_lo * (1 + mpmath.mpf(2) ** -30)
    with mp.workdps(56):
        ball = _Interval(model, s_lo, s_hi, 50, (DERIV2,)).at_hi(DERIV2)
        q = s_hi**2
        want = mpmath.quad(
            lambda x: 2 * mpmath.sech(x) ** 4 * mpmath.exp(-x * x / (2 * q)), [0, 12]
        ) / mpmath.sqrt(2 * mp.pi * q)
        mid = mpmath.mpf(ball.mid().str(60, radius=False))
        assert abs(mid - want) <= mpmath.mpf(ball.rad().str(5, radius=False)) + mpmath.mpf(10) ** -50
        assert ball.rad() < arb(10) ** -15


def _tangent_bound_entries():
    from momentcalc.catalog import CATALOG

    return [entry.name for entry in CATALOG if entry.tangent_bound]


@pytest.mark.parametrize("name", _tangent_bound_entries())
def test_tangent_bound_declarations_hold_on_a_grid(name):
    """The catalog's claim behind the proven q* = 0 limits: φ(0) = 0 and φ(x)² ≤ φ'(0±)²·x²,
    the one-sided slopes by mpmath's own numerical differentiation (not the ball branches),
    at 400 points from 1e-6 to 60 on each side, at 30 digits."""
    act = resolve(name)
    with mp.workdps(30):
        p = act.param_values()
        f = lambda x: act.fn(x, p)
        assert f(mp.zero) == 0
        left = mpmath.diff(f, mpmath.mpf("-1e-12"), direction=-1)
        right = mpmath.diff(f, mpmath.mpf("1e-12"), direction=1)
        for x in (mpmath.mpf(10) ** (mpmath.mpf(k) / 50 - 6) * 60 ** (k / 400) for k in range(400)):
            assert f(x) ** 2 <= right**2 * x**2 * (1 + mpmath.mpf(10) ** -20), (name, x)
            assert f(-x) ** 2 <= left**2 * x**2 * (1 + mpmath.mpf(10) ** -20), (name, -x)


def _selu_slope_square():
    """(λ² + (λα)²)/2 from SELU's closed forms (activations' docstring), independently."""
    e, cdf = mpmath.e, mpmath.ncdf
    alpha = (1 / mpmath.sqrt(2 * mp.pi)) / (mpmath.mpf(1) / 2 - mpmath.sqrt(e) * cdf(-1))
    lam = 1 / mpmath.sqrt(
        mpmath.mpf(1) / 2 + alpha**2 * (e**2 * cdf(-2) - 2 * mpmath.sqrt(e) * cdf(-1) + mpmath.mpf(1) / 2)
    )
    return (lam**2 + (lam * alpha) ** 2) / 2


@pytest.mark.parametrize(
    "name, w, slope_square",
    [
        ("tanh", "0.5", lambda: mpmath.mpf(1)),
        ("softsign", "0.8", lambda: mpmath.mpf(1)),
        ("hardtanh", "1", lambda: mpmath.mpf(1)),
        ("relu6", "1.5", lambda: mpmath.mpf(1) / 2),
        ("celu", "0.7", lambda: mpmath.mpf(1)),
        ("selu", "0.4", _selu_slope_square),
    ],
)
def test_q_star_zero_limits_are_proven_within_the_tangents(name, w, slope_square):
    """σ_b² = 0 and χ₁ = σ_w²·(φ'(0−)² + φ'(0+)²)/2 ≤ 1: q* = 0, χ₁ and ξ_q = −1/ln χ₁ proven
    (certified) to every printed digit; c* undefined (smooth at 0) stays a noted nan."""
    r = meanfield(name, sigma_w2=w, sigma_b2="0", digits=20)
    with mp.workdps(40):
        chi = mpmath.mpf(w) * slope_square()
        assert r["q_star"].certified and r.value("q_star") == 0
        assert r["chi1"].certified and _agree(r.value("chi1"), chi, 20)
        assert r["depth_scale_q"].certified
        if chi == 1:
            assert r.value("depth_scale_q") == mpmath.inf
        else:
            assert _agree(r.value("depth_scale_q"), -1 / mpmath.log(chi), 20)
        assert r["depth_scale_c"].certified and r.value("depth_scale_c") == mpmath.inf


def test_a_zero_slope_at_zero_gives_chi1_zero_not_the_finite_difference():
    """relu2 at q* = 0: φ'(0±) = 0, so χ₁ = 0 and ξ_q = 0 (the length dies faster than any
    exponential: q -> σ_w²·(3/2)·q²). The slopes at ±2^−2prec alone gave χ₁ = 2.79e-104 and
    ξ_q = 0.0042; Richardson's step makes a slope linear in x near 0 exact."""
    r = meanfield("relu2", sigma_w2="0.5", sigma_b2="0")
    assert r.value("q_star") == 0 and r.value("chi1") == 0 and r.value("depth_scale_q") == 0


def _relu2_correlation_map(c, with_slope=True):
    """R(c) = E[relu(u)²relu(v)²]/E[relu(Z)⁴] and R'(c) = E[φ'(u)φ'(v)]/E[relu(Z)⁴] for unit
    (u, v) with correlation c, by quadrature over u > 0 of the conditional moments of
    v = c·u + s·W (s = √(1 − c²)): E[relu(a + sW)²] = (a² + s²)Φ(a/s) + a·s·ϕ(a/s) and
    E[relu(a + sW)] = a·Φ(a/s) + s·ϕ(a/s) (not the arc-cosine closed form)."""
    s = mpmath.sqrt(1 - c * c)

    def second(u):
        a = c * u
        return (a * a + s * s) * mpmath.ncdf(a / s) + a * s * mpmath.npdf(a / s)

    def first(u):
        a = c * u
        return a * mpmath.ncdf(a / s) + s * mpmath.npdf(a / s)

    top = mpmath.mpf(3) / 2
    value = mpmath.quad(lambda u: u**2 * second(u) * mpmath.npdf(u), [0, 4, mp.inf]) / top
    if not with_slope:  # (a quadrature of 0.1 s of CPU the bracket does not need)
        return value, None
    slope = mpmath.quad(lambda u: 4 * u * first(u) * mpmath.npdf(u), [0, 4, mp.inf]) / top
    return value, slope


def test_relu2_correlations_at_q_star_zero_settle_at_a_proven_c_star():
    """relu2 at σ_b² = 0 is homogeneous of degree 2: every layer maps c -> R(c) = k(c)/k(1),
    whose stable fixed point c* ≈ 0.38 (c = 1 repels with slope 4/3) and ξ_c = −1/ln R'(c*)
    are certified (was c* nan, ξ_c inf, nothing certified). The printed c* is bracketed by the
    quadrature route: R(c) − c changes sign within half a unit of its last digit."""
    digits = 20
    r = meanfield("relu2", sigma_w2="0.5", sigma_b2="0", digits=digits)
    assert all(r[name].certified for name in ("q_star", "chi1", "c_star", "depth_scale_q", "depth_scale_c"))
    assert r.value("q_star") == 0 and r.value("chi1") == 0 and r.value("depth_scale_q") == 0
    with mp.workdps(45):
        c = mpmath.mpf(mpmath.nstr(r.value("c_star"), digits))
        half = mpmath.mpf(10) ** (mpmath.floor(mpmath.log10(c)) - digits + 1) / 2
        assert _relu2_correlation_map(c - half, with_slope=False)[0] > c - half
        assert _relu2_correlation_map(c + half, with_slope=False)[0] < c + half
        slope = _relu2_correlation_map(c)[1]
        assert _agree(r.value("depth_scale_c"), -1 / mpmath.log(slope), 15)
    assert "c* = 0.379957" in " ".join(r.notes)


def test_relu2_q_star_zero_needs_q0_below_the_repelling_point():
    """q -> σ_w²·(3/2)·q²: from q0 = 1 the length falls to 0 for σ_w² < 2/3 only."""
    r = meanfield("relu2", sigma_w2="0.6", sigma_b2="0")
    assert r.value("q_star") == 0 and r["c_star"].certified


def test_a_flat_expression_at_q_star_zero_leaves_c_star_and_its_depth_scale_undecided():
    """x**2 + x**3 at q* = 0: phi'(0) = 0, so the correlations follow its leading term's map
    (1 + 2c²)/3 as q -> 0, not the linearisation's identity: depth_scale_c is not infinite (it
    printed inf). Not homogeneous, so both are nan, uncertified, with the reason; the length
    falls faster than any exponential."""
    r = meanfield("x**2 + x**3", sigma_w2="0.05", sigma_b2="0")
    assert r.value("q_star") == 0 and r.value("chi1") == 0 and r.value("depth_scale_q") == 0
    for name in ("c_star", "depth_scale_c"):
        assert mpmath.isnan(r.value(name)) and not r[name].certified
    notes = " ".join(r.notes)
    assert "c_star and depth_scale_c are not decided (nan): phi'(0) = 0" in notes
    assert "faster than any exponential" in notes and "1/e every 0" not in notes


@pytest.mark.parametrize(
    ("expression", "c_star", "slope"),
    [
        # E[u²v²] = 1 + 2c², E[u⁴] = 3 (Isserlis): R(c) = (1 + 2c²)/3, fixed points 1/2 and 1
        ("x**2", lambda: mpmath.mpf(1) / 2, lambda: mpmath.mpf(2) / 3),
        # E[u³v³] = 9c + 6c³, E[u⁶] = 15: R odd, below c on (0, 1), R'(0) = 3/5
        ("2*x**3", lambda: mpmath.mpf(0), lambda: mpmath.mpf(3) / 5),
    ],
)
def test_a_monomial_at_q_star_zero_is_decided_like_relu2(expression, c_star, slope):
    """κ·x^n at σ_b² = 0 is homogeneous of degree n: every layer maps c -> E[u^n v^n]/E[u^2n]
    (Isserlis' theorem by hand here, Mehler's expansion in the code), so c* and ξ_c are proven."""
    r = meanfield(expression, sigma_w2="0.01", sigma_b2="0", digits=20)
    assert all(r[name].certified for name in ("q_star", "chi1", "c_star", "depth_scale_q", "depth_scale_c"))
    with mp.workdps(40):
        assert _agree(r.value("c_star"), c_star(), 20) if c_star() else r.value("c_star") == 0
        assert _agree(r.value("depth_scale_c"), -1 / mpmath.log(slope()), 20)


@pytest.mark.parametrize(
    ("activation", "q0", "expected"),
    [
        # relu2 at sigma_b2 = 0: V(q) = 3q^2/2 repels at q = 2/3; x**2: V(q) = 3q^2 repels at 1/3
        ("relu2", "0.6666666667", None),  # above: q grows without bound (exit 2)
        ("relu2", "0.66666666666666", "0"),  # below, 7e-15 away: q falls to 0
        ("relu2", "0.66666666666666666666666", "0"),
        ("relu2", "2/3", "0.666666666666667"),  # on it exactly: stays
        ("x**2", "0.33333333333334", None),
        ("x**2", "1/3", "0.333333333333333"),
    ],
)
def test_a_repelling_length_fixed_point_is_reached_only_from_itself(activation, q0, expected):
    """q0 a hair off a fixed point the length map repels is carried away from it, layer by layer
    (found by an independent review: q0 = 0.6666666667 printed q* = 2/3, whose own --depth
    trajectory moved away)."""
    run = invoke("meanfield", activation, "--sigma-w2", "1", "--sigma-b2", "0", "--q0", q0, "--get", "q_star")
    if expected is None:
        assert run.code == 2 and "grows without bound" in run.stderr, run
    else:
        assert run.code == 0 and run.stdout.strip() == expected, run
