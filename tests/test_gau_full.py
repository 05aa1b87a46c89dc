"""gau-scale's full estimate (issue 11): the column-sum series against exhaustive enumeration,
the finite-width expansion against moments at a perturbed std and the bivariate engine, the relu's
part against Monte Carlo, the λ⁷ law for relu, and output_rms against drawn GAUs.

The drawn-GAU comparisons take minutes: they are marked ``gau_simulation`` and left out of the
default run (``python -m pytest -m gau_simulation tests/test_gau_full.py`` runs them)."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import mpmath
import pytest

from momentcalc import gau_scale
from momentcalc.catalog import CATALOG, resolve
from momentcalc.computations.gau import full as gau_full
from momentcalc.engine.column_sums import column_sum_moment

# --- the column-sum series -----------------------------------------------------------------

# A two-point Y (exact rationals): every expectation below can be enumerated outright.
POINTS = ((Fraction(-1, 3), Fraction(1, 4)), (Fraction(2), Fraction(3, 4)))


def y_moment(b: int) -> Fraction:
    return sum(p * y**b for y, p in POINTS)


def enumerate_expectation(tokens, f, s):
    """E[f(rows)] over all values of the tokens' rows (s entries each, iid two-point Y)."""
    total = Fraction(0)
    for values in itertools.product(POINTS, repeat=s * len(tokens)):
        weight = math.prod(p for _, p in values)
        rows = {t: [v for v, _ in values[k * s : (k + 1) * s]] for k, t in enumerate(tokens)}
        total += weight * f(rows)
    return total


def dot(a, b):
    return sum(x * y for x, y in zip(a, b))


@pytest.mark.parametrize("s", [2, 3])
def test_column_sums_equal_enumeration(s):
    """E[‖Z_i‖⁸], E[⟨Z_i,Z_j⟩⁴], E[‖Z_i‖⁴⟨Z_i,Z_k⟩²], E[⟨Z_i,Z_j⟩²⟨Z_i,Z_k⟩²] exactly."""
    cases = [
        (("i",), ({"i": 2},), (4,), lambda r: dot(r["i"], r["i"]) ** 4),
        (("i", "j"), ({"i": 1, "j": 1},), (4,), lambda r: dot(r["i"], r["j"]) ** 4),
        (
            ("i", "k"),
            ({"i": 2}, {"i": 1, "k": 1}),
            (2, 2),
            lambda r: dot(r["i"], r["i"]) ** 2 * dot(r["i"], r["k"]) ** 2,
        ),
        (
            ("i", "j", "k"),
            ({"i": 1, "j": 1}, {"i": 1, "k": 1}),
            (2, 2),
            lambda r: dot(r["i"], r["j"]) ** 2 * dot(r["i"], r["k"]) ** 2,
        ),
    ]
    for tokens, sums, powers, f in cases:
        series = column_sum_moment(sums, powers, lambda b, r: math.prod(y_moment(b[t]) for t in b), s, 0)
        assert series[0] == enumerate_expectation(tokens, f, s)


def test_fourth_moment_shared_with_the_seed_moments():
    """At LeCun init a strip activation's E[φ⁴] comes from the trapezoidal rule that gives E[φ] and
    E[φ²]: attention_diag_mean against mpmath's quadrature (the independent route) at 30 digits."""
    from momentcalc.catalog import resolve
    from momentcalc.moments.expectations import expectations_by_quadrature

    r = gau_scale(activation="swish", s=32, n=64, digits=30)
    m2, m4 = expectations_by_quadrature(resolve("swish"), [(0, 2, 0), (0, 4, 0)], mean=0, std=1, digits=32)
    with mpmath.workdps(40):
        assert abs(r.value("attention_diag_mean") - (m4 + 31 * m2**2) / 64) < mpmath.mpf(10) ** -30


@pytest.mark.parametrize(
    "activation, init_std, d", [("swish", None, 768), ("x*tanh(x)", None, 768), ("tanh", "0.02", 256)]
)
def test_attention_diag_mean_is_certified_where_lambda_is_exact(activation, init_std, d):
    """E[A_ii] = (m4 + (s−1)·m2²)/n on proven balls when λ = init_std·sqrt(d) is exact (LeCun
    init, d a perfect square): its ball holds mpmath's quadrature value (the independent route,
    32 digits); with λ irrational (d = 768 under init_std) it stays an uncertified value."""
    from momentcalc.catalog import resolve
    from momentcalc.moments.expectations import expectations_by_quadrature

    r = gau_scale(activation=activation, init_std=init_std, d=d, s=32, n=64, digits=20)
    lam = 1 if init_std is None else Fraction(init_std) * math.isqrt(d)  # exact: d is a square here
    m2, m4 = expectations_by_quadrature(
        resolve(activation), [(0, 2, 0), (0, 4, 0)], mean=0, std=lam, digits=32
    )
    q = r["attention_diag_mean"]
    assert q.certified and 0 < q.error_bound < mpmath.mpf(10) ** -21 * q.value
    with mpmath.workdps(40):
        assert abs(q.value - (m4 + 31 * m2**2) / 64) <= q.error_bound
    assert not gau_scale(activation=activation, init_std="0.02", d=768, s=32, n=64)[
        "attention_diag_mean"
    ].certified


def test_attention_means_closed_forms():
    """E[‖Z_i‖⁴] = s·m4 + s(s−1)·m2² and E[⟨Z_i,Z_j⟩²] = s·m2² + s(s−1)·m1⁴, as attention_diag_mean
    and (for relu, nothing removed) attention_offdiag_mean say."""
    r = gau_scale(activation="relu", s=32, n=64, digits=30)
    with mpmath.workdps(35):
        m1, m2, m4 = 1 / mpmath.sqrt(2 * mpmath.pi), mpmath.mpf(1) / 2, mpmath.mpf(3) / 2
        assert abs(r.value("attention_diag_mean") - (m4 + 31 * m2**2) / 64) < mpmath.mpf(10) ** -32
        assert abs(r.value("attention_offdiag_mean") - (m2**2 + 31 * m1**4) / 64) < mpmath.mpf(10) ** -32
    assert r["attention_offdiag_mean"].stderr is None and r["output_rms"].stderr > 0


# --- the finite-width expansion ------------------------------------------------------------


def _patterns(table, s, d):
    sigma = mpmath.sqrt(table[0, 2])
    h = {key: float(value / sigma ** key[1]) for key, value in table.items()}
    return {name: gau_full._pattern(h, name, s, d) for name in gau_full.PATTERNS}


def test_token_norm_terms_equal_moments_at_a_perturbed_std():
    """P1 = m2²·E[‖Z_i‖⁸] depends on token i's variance only: its 1/d term is (2/d)·½·∂²P1/∂δ² at
    δ = 0 with φ(λ·sqrt(1+δ)·ε) — here by differences of the engine's moments at three stds."""
    from momentcalc.moments import expectations

    lam, s, d = mpmath.mpf("0.8"), 16, 100

    def p1(delta):
        """m2²·E[‖Z_i‖⁸] at std λ·sqrt(1 + δ), from the engine's m_1 … m_8 at that std."""
        m = [
            1,
            *expectations(
                "swish", [(0, b, 0) for b in range(1, 9)], std=lam * mpmath.sqrt(1 + delta), digits=12
            ),
        ]
        eighth = column_sum_moment(({"i": 2},), (4,), lambda b, r: float(m[b["i"]]), s, 0)[0]
        return float(m[2]) ** 2 * eighth / float(lam**12)

    h = mpmath.mpf("0.01")
    second = (p1(h) - 2 * p1(0) + p1(-h)) / float(h * h)
    table = gau_full.hermite_table("swish", None, lam)
    base, width = _patterns(table, s, d)["P1"]
    scale = float(table[0, 2] ** 6 / lam**12)
    assert width * scale == pytest.approx(second / d, rel=2e-3)  # the difference quotient's own error: O(h²)
    assert base * scale == pytest.approx(p1(0), rel=1e-12)


def test_token_overlap_term_equals_bivariate_engine():
    """The Mehler expansion used for token overlaps: E[φ(x)φ(y)] at correlation ρ is
    m1² + ρ·E[ε·φ]² + ρ²/2·E[He_2·φ]² + O(ρ³) — against the engine's bivariate expectation."""
    from momentcalc.catalog import resolve
    from momentcalc.moments.bivariate_quadrature import cross_expectations

    lam = mpmath.mpf("0.7")
    table = gau_full.hermite_table("gelu", None, lam)
    rho = mpmath.mpf("0.01")
    series = table[0, 1] ** 2 + rho * table[1, 1] ** 2 + rho**2 / 2 * table[2, 1] ** 2
    with mpmath.workdps(20):
        exact, _ = cross_expectations(resolve("gelu"), lam**2, rho, 12)
    assert float(series) == pytest.approx(float(exact), rel=1e-6)  # the dropped ρ³ term: ~1e-7


# --- the relu's part -----------------------------------------------------------------------


@pytest.mark.parametrize("activation,lam,s", [("swish", 1.0, 32), ("swish", 0.5542562584220407, 128)])
def test_negative_part_against_monte_carlo(activation, lam, s):
    """E[relu(⟨Z_i,Z_j⟩)²] for iid entries: exact part minus the shifted-gamma negative part, against
    5·10⁴ drawn pairs (measured within 0.6 % of the negative part's share; the Gaussian law alone
    is off by 3.5 % at s = 32)."""
    np = pytest.importorskip("numpy")
    from momentcalc.computations.gau.negative import negative_parts

    table = gau_full.hermite_table(activation, None, mpmath.mpf(lam))
    sigma = mpmath.sqrt(table[0, 2])
    m = [float(table[0, p] / sigma**p) for p in range(9)]
    removed = negative_parts(m, s)["offdiag"]
    second = s * m[2] ** 2 + s * (s - 1) * m[1] ** 4
    rng = np.random.default_rng(11)
    swish = lambda x: x / (1 + np.exp(-x))
    draws = []
    for _ in range(5):
        zi, zj = (swish(lam * rng.standard_normal((10000, s))) / float(sigma) for _ in range(2))
        draws.append(np.maximum((zi * zj).sum(1), 0) ** 2)
    draws = np.concatenate(draws)
    stderr = draws.std() / math.sqrt(len(draws))
    assert abs((second - removed) - draws.mean()) < 3 * stderr + 0.02 * removed


def test_kummer_pair_equals_mpmath():
    """The relu's part's series for M(3, k + 3, c) and M(5, k + 5, c) against mpmath's hyp1f1,
    from a short series (small c) to the longest the estimate meets (k near MAX_SHAPE, c near k)."""
    from momentcalc.computations.gau.negative import kummer_pair

    for shape, c in ((0.7, 0.01), (7.8, 3.5), (150.0, 140.0), (1924.9, 1854.6), (1999.0, 1998.0)):
        two, four = kummer_pair(shape, c)
        with mpmath.workdps(30):
            assert two == pytest.approx(float(mpmath.hyp1f1(3, shape + 3, c)), rel=1e-13)
            assert four == pytest.approx(float(mpmath.hyp1f1(5, shape + 5, c)), rel=1e-13)


@pytest.mark.parametrize(
    "activation,lam,s",
    [("swish", 1.0, 32), ("gelu", 0.3, 32), ("elu", 1.0, 8), ("x*tanh(x)-0.3", 0.5542562584220407, 8)],
)
def test_fewer_nodes_along_t2_and_t3_suffice(activation, lam, s):
    """NODES = (10, 8, 3) against 10 nodes in every direction (what scripts/gau_negative_nodes.py
    measures over 119 configurations: ≤ 0.15 % on E[O²], ≤ 1.6 % on the removed part of E[A_ij],
    far inside the estimate's ± of 2 % and the relu part's 20 %)."""
    from momentcalc.computations.gau import negative

    table = gau_full.hermite_table(activation, None, mpmath.mpf(lam))
    sigma = mpmath.sqrt(table[0, 2])
    m = [float(table[0, p] / sigma**p) for p in range(9)]
    assert negative.NODES == (10, 8, 3)
    few, many = negative.negative_parts(m, s), negative.negative_parts(m, s, (10, 10, 10))
    assert len(negative._rule(negative.NODES)) < len(negative._rule((10, 10, 10))) / 3
    for name in ("offdiag", "P2", "P3", "P4"):
        assert few[name] == pytest.approx(many[name], rel=2e-2), name


STRIP = ["swish", "tanh", "sigmoid", "softplus", "mish", "gelu_tanh", "log_sigmoid", "quick_gelu"]


@pytest.mark.parametrize("activation", STRIP)
@pytest.mark.parametrize("lam", ["1", "0.5542562584220407", "2.5"])
def test_hermite_table_in_doubles_equals_certified_balls(activation, lam):
    """The trapezoidal rule in doubles (``hermite_doubles``) against the engine's certified balls
    (E[X^a·φ(X)^b], X ~ N(0, λ²), combined into E[He_n(ε)·φ(λε)^b] at 30 digits): every entry
    within 1e-12 of E[φ(λε)^(2⌈b/2⌉)], the size of the entries of that power."""
    from momentcalc.computations.gau.hermite_doubles import strip_table
    from momentcalc.moments import expectations

    lam = mpmath.mpf(lam)
    doubles = strip_table(activation, None, lam)
    assert doubles is not None
    wanted = sorted({(a, b, 0) for a in (0, 1, 2, 4) for b in range(1, 9)})
    with mpmath.workdps(30):
        raw = dict(zip(wanted, expectations(activation, wanted, std=lam, digits=25)))
        for (n, b), value in doubles.items():
            exact = mpmath.fsum(c * raw[a, b, 0] / lam**a for a, c in gau_full.HERMITE[n].items())
            size = raw[0, 2 * ((b + 1) // 2), 0]
            assert abs(value - exact) <= 1e-12 * size, (n, b, value, exact)


def test_hermite_table_in_doubles_only_for_strip_activations():
    from momentcalc.computations.gau.hermite_doubles import strip_table

    one = mpmath.mpf(1)
    assert strip_table("relu", None, one) is None and strip_table("gelu", None, one) is None
    assert strip_table("x*tanh(x)", None, one) is None  # an expression: the engine decides
    assert strip_table("swish", None, mpmath.mpf(50)) is None  # a thin strip: the engine
    assert strip_table("swish", None, mpmath.mpf("0.01")) is None


# The catalog's declared sign (Activation.nonnegative) against the grid that checks expressions;
# leaky_relu at slopes on both sides of 0.
SIGNS = [(act.name, None) for act in CATALOG if not act.params]
SIGNS += [("leaky_relu", {"slope": slope}) for slope in (None, "0", "-0.5")]


@pytest.mark.parametrize("name,params", SIGNS, ids=lambda v: str(v))
def test_declared_nonnegativity_agrees_with_the_grid(name, params):
    """Every catalog entry declares whether φ ≥ 0 (gau-scale then skips the relu's part); the
    declaration, for all x, must agree with φ's sign on the grid (20 digits, step 1/50 on
    |x| ≤ 40, and the kinks) that decides it for expressions."""
    act = resolve(name, params)
    assert act.nonnegative is not None
    declared = gau_full.nonnegative(name, params, mpmath.mpf(1))
    assert declared == gau_full.nonnegative_on_grid(act, mpmath.mpf(1))


def test_expression_nonnegativity_is_checked_on_the_grid():
    assert resolve("x**2").nonnegative is None
    assert gau_full.nonnegative("x**2", None, mpmath.mpf("0.5")) is True
    assert gau_full.nonnegative("x**2 - 1e-30", None, mpmath.mpf("0.5")) is False  # at the grid point 0


# --- the λ⁷ law ----------------------------------------------------------------------------


def test_relu_lambda_seventh_law_exact():
    """relu(λx) = λ·relu(x): every moment scales exactly, so output_rms(λ) = λ⁷·output_rms(1)."""
    d = 768
    one = gau_scale(activation="relu", digits=20)
    for std in ("0.02", "0.1"):
        scaled = gau_scale(activation="relu", init_std=std, digits=20)
        lam = mpmath.mpf(std) * mpmath.sqrt(d)
        assert scaled.value("output_rms") / one.value("output_rms") == pytest.approx(float(lam**7), rel=1e-12)
        assert scaled.value("output_rms_ratio") == pytest.approx(
            float(one.value("output_rms_ratio")), rel=1e-12
        )


def test_swish_is_not_homogeneous():
    """At λ = 0.02·sqrt(768) swish's output is about 4× below the λ⁷ law (issue 11)."""
    one = gau_scale()
    small = gau_scale(init_std="0.02")
    lam = float(small.value("lambda"))
    law = float(one.value("output_rms")) * lam**7
    assert 3 < law / float(small.value("output_rms")) < 5


def test_output_rms_prints_only_justified_digits():
    from momentcalc.render.document import shown_digits

    r = gau_scale()
    assert shown_digits(r["output_rms"], 15) <= 3
    assert shown_digits(r["attention_diag_mean"], 15) == 15
    assert any("2 %" in note for note in r.notes)


def test_divergent_higher_moment_gives_infinite_output():
    """exp(x²/5): E[φ], E[φ²] finite (the seed's results exist), E[φ⁴] infinite: so are E[A_ii] and E[O²]."""
    r = gau_scale(activation="exp(x**2/5)")
    assert mpmath.isinf(r.value("attention_diag_mean")) and mpmath.isinf(r.value("output_rms"))
    assert r.value("deepnorm_alpha_full") == 0


# --- against drawn GAUs --------------------------------------------------------------------

D768 = math.sqrt(768)
# (activation, λ, s, n, d, trials): swish, relu, gelu; λ = 1 and 0.02·sqrt(d); s 32–128; n 128–2048;
# d 256–768; e = 2d. Trials give the drawn RMS a standard error of about 0.5–1 %.
CONFIGURATIONS = [
    ("swish", 1.0, 128, 512, 768, 24),
    ("swish", 0.02 * D768, 128, 512, 768, 24),
    ("relu", 1.0, 128, 512, 768, 16),
    ("gelu", 1.0, 64, 2048, 768, 6),
    ("swish", 1.0, 32, 128, 256, 200),
    ("gelu", 0.02 * math.sqrt(256), 128, 1024, 256, 24),
    ("relu", 0.02 * math.sqrt(512), 32, 2048, 512, 10),
    ("swish", 1.0, 64, 2048, 256, 16),
    ("gelu", 0.02 * D768, 32, 128, 768, 100),
    ("relu", 1.0, 128, 128, 256, 60),
]


@pytest.mark.gau_simulation
@pytest.mark.slow  # also: `-m "not slow"` replaces addopts' -m, and must not run these minutes
@pytest.mark.parametrize("activation,lam,s,n,d,trials", CONFIGURATIONS)
def test_output_rms_against_drawn_gaus(activation, lam, s, n, d, trials):
    """More draws than --simulate's work bound allows, so simulate_gau itself (same code)."""
    from momentcalc.catalog import resolve
    from momentcalc.computations.gau.simulation import numpy_activation, simulate_gau

    init_std = repr(lam / math.sqrt(d))
    estimate = float(
        gau_scale(s=s, n=n, d=d, e=2 * d, activation=activation, init_std=init_std).value("output_rms")
    )
    drawn = simulate_gau(n, d, 2 * d, s, numpy_activation(resolve(activation)), lam, trials, seed=1)
    rms, stderr = drawn["simulated_rms"], drawn["simulated_stderr"]
    assert abs(estimate - rms) <= max(0.02 * rms, 3 * stderr), (estimate, rms, stderr)


def test_cli_derive_shows_the_polynomials():
    from .conftest import invoke

    run = invoke("gau-scale", "--activation", "relu", "--s", "8", "--n", "16", "--derive", "--json")
    assert run.code == 0, run.stderr
    doc = run.json()
    assert "x**4" in doc["results"]["attention_diag_mean"]["closed_form"]  # m4 as its integral, m2 = 1/2
    assert doc["results"]["attention_offdiag_mean"]["closed_form"] is not None  # relu: nothing removed
    labels = [line["label"] for line in doc["derivation"]]
    assert {"P1", "P2", "P3", "P4", "width"} <= set(labels)
    p1 = next(line["text"] for line in doc["derivation"] if line["label"] == "P1")
    assert "m8" in p1 and "m2" in p1


def test_gauss_hermite_nodes_equal_numpy():
    """The plain-Python Gauss rule of the relu's part against numpy's hermegauss."""
    np = pytest.importorskip("numpy")
    from momentcalc.computations.gau.negative import hermite_nodes

    for n in (1, 2, 7, 10, 16):
        nodes, weights = hermite_nodes(n)
        x, w = np.polynomial.hermite_e.hermegauss(n)
        assert np.allclose(nodes, x, rtol=0, atol=1e-13) and np.allclose(
            weights, w / w.sum(), rtol=1e-12, atol=0
        )
