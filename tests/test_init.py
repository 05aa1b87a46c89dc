"""init: every result to 30 digits against the hand-derived formulas, the seeds' numbers, bad input."""

from __future__ import annotations

import functools
from fractions import Fraction

import mpmath
import pytest
from mpmath import mp

from momentcalc import init
from momentcalc.engine.precision import to_decimal
from momentcalc.errors import InputError
from tests.conftest import invoke

DPS = 60


def gamma_by_quadrature() -> mpmath.mpf:
    """Seed 004: gamma = ∫_{-2}^{2} e^{-x²/2} x² dx / ∫_{-2}^{2} e^{-x²/2} dx (no engine code)."""
    return +_gamma_at(mp.prec)


@functools.cache
def _gamma_at(prec: int) -> mpmath.mpf:
    """gamma at ``prec`` bits, integrated once per precision (every truncnorm case needs it)."""
    with mp.workprec(prec):
        w = lambda x: mpmath.exp(-x * x / 2)
        return mpmath.quad(lambda x: x * x * w(x), [-2, 0, 2]) / mpmath.quad(w, [-2, 0, 2])


def second_moment_by_quadrature(act) -> mpmath.mpf:
    """E[act(Z)²], Z ~ N(0, 1), integrated directly."""
    norm = 1 / mpmath.sqrt(2 * mp.pi)  # once, not at every node
    return mpmath.quad(lambda x: act(x) ** 2 * mpmath.exp(-x * x / 2), [-mpmath.inf, 0, mpmath.inf]) * norm


def expected(variance: mpmath.mpf, distribution: str) -> dict[str, mpmath.mpf]:
    """The hand-derived results for a variance, at the current precision."""
    std = mpmath.sqrt(variance)
    out = {"variance": variance, "std": std}
    if distribution == "uniform":
        out["bound"] = mpmath.sqrt(3) * std
    if distribution == "truncnorm":
        out["std_to_pass"] = std / mpmath.sqrt(gamma_by_quadrature())
        out["bound"] = 2 * out["std_to_pass"]
    out["bert_ratio"] = mpmath.mpf(2) / 100 / std
    return out


def cli_decimals(*args: str) -> dict[str, str]:
    run = invoke("init", *args, "--digits", "30", "--json")
    assert run.code == 0, run.stderr
    return {name: doc["decimal"] for name, doc in run.json()["results"].items()}


CASES = [
    ("lecun", "768", None, lambda n_in, n_out: 1 / n_in),
    ("lecun", "3", "5", lambda n_in, n_out: 1 / n_in),
    ("xavier", "768", "768", lambda n_in, n_out: 2 / (n_in + n_out)),
    ("xavier", "784", "300", lambda n_in, n_out: 2 / (n_in + n_out)),
    ("he", "512", None, lambda n_in, n_out: 2 / n_in),  # relu: E[relu(Z)²] = 1/2
    ("he", "7", "1000", lambda n_in, n_out: 2 / n_in),
]


@pytest.mark.parametrize("distribution", ["normal", "uniform", "truncnorm"])
@pytest.mark.parametrize("scheme,fan_in,fan_out,variance", CASES)
def test_every_result_to_30_digits(scheme, fan_in, fan_out, variance, distribution):
    args = ["--fan-in", fan_in, "--scheme", scheme, "--distribution", distribution]
    if fan_out is not None:
        args += ["--fan-out", fan_out]
    found = cli_decimals(*args)
    with mp.workdps(DPS):
        n_in = mpmath.mpf(fan_in)
        n_out = None if fan_out is None else mpmath.mpf(fan_out)
        want = expected(variance(n_in, n_out), distribution)
        if scheme == "he":
            want = {"gain": mpmath.sqrt(2), **want}
    assert set(found) == set(want)
    for name, value in want.items():
        assert found[name] == to_decimal(value, 30), name


def test_result_order_and_presence_follow_the_distribution():
    assert invoke("init", "--fan-in", "8", "--json").json()["results"].keys() == {
        "variance",
        "std",
        "bert_ratio",
    }
    names = list(invoke("init", "--fan-in", "8", "--distribution", "truncnorm", "--json").json()["results"])
    assert names == ["variance", "std", "bound", "std_to_pass", "bert_ratio"]
    names = list(
        invoke("init", "--fan-in", "8", "--scheme", "he", "--distribution", "uniform", "--json").json()[
            "results"
        ]
    )
    assert names == ["gain", "variance", "std", "bound", "bert_ratio"]


def test_seed_001_bert_versus_xavier():
    """Seed 001: Xavier at n = 768 gives std 1/sqrt(768) ≈ 0.0361; BERT's 0.02 is roughly half of it."""
    r = init(fan_in=768, fan_out=768, scheme="xavier", digits=20)
    assert to_decimal(r.value("std"), 3) == "0.0361"
    assert to_decimal(r.value("bert_ratio"), 3) == "0.554"
    # seed 000/001: pass std·1.1368472… to a ±2σ truncated normal to get std
    t = init(fan_in=768, fan_out=768, scheme="xavier", distribution="truncnorm", digits=20)
    assert to_decimal(t.value("std_to_pass") / t.value("std"), 8) == "1.1368472"


def test_seed_002_and_004_variances():
    """Seed 002: LeCun 1/n, He 2/n for ReLU; seed 004: Xavier N(0, 2/(d_in + d_out))."""
    assert to_decimal(init(fan_in=100, digits=30).value("variance"), 30) == "0.0" + "1" + "0" * 29
    assert to_decimal(init(fan_in=100, scheme="he", digits=30).value("variance"), 30) == "0.02" + "0" * 29
    assert (
        to_decimal(init(fan_in=300, fan_out=100, scheme="xavier").value("variance"), 15)
        == "0.00500000000000000"
    )


def test_uniform_draw_has_the_std():
    """U(−b, b) has variance b²/3: the bound reproduces the std (two routes to the same number)."""
    r = init(fan_in=1000, fan_out=10, scheme="xavier", distribution="uniform", digits=40)
    with mp.workdps(60):
        assert to_decimal(mpmath.sqrt(r.value("bound") ** 2 / 3), 40) == to_decimal(r.value("std"), 40)


@pytest.mark.parametrize(
    "activation,function",
    [
        ("tanh", mpmath.tanh),
        ("gelu", lambda x: x * mpmath.ncdf(x)),
        ("sigmoid", lambda x: 1 / (1 + mpmath.exp(-x))),
        ("leaky_relu", lambda x: x if x > 0 else x / 100),
    ],
)
def test_he_uses_the_exact_gain_of_the_activation(activation, function):
    found = cli_decimals("--fan-in", "256", "--scheme", "he", "--activation", activation)
    with mp.workdps(DPS):
        second = second_moment_by_quadrature(function)
        want = {"gain": 1 / mpmath.sqrt(second), **expected(1 / (second * 256), "normal")}
    for name, value in want.items():
        assert found[name] == to_decimal(value, 30), name


def test_he_sigmoid_matches_seed_004():
    """Seed 004: E[sigmoid(Z)²] = 0.2933790…, so He with sigmoid has variance 1/(0.2933790·n)."""
    r = init(fan_in=1, scheme="he", activation="sigmoid", digits=20)
    assert to_decimal(1 / r.value("variance"), 7) == "0.2933790"


def test_he_leaky_relu_slope():
    """leaky_relu with slope a: E[φ(Z)²] = (1 + a²)/2, gain² = 2/(1 + a²)."""
    found = cli_decimals("--fan-in", "10", "--scheme", "he", "--activation", "leaky_relu", "--slope", "0.2")
    with mp.workdps(DPS):
        variance = 2 / (1 + mpmath.mpf("0.2") ** 2) / 10
    assert found["variance"] == to_decimal(variance, 30)


def test_fan_values_are_exact_and_large_values_work():
    r = init(fan_in=10**30, digits=30)
    assert to_decimal(r.value("variance"), 30) == "1.00000000000000000000000000000e-30"
    assert init(fan_in=Fraction(12), digits=5).value("variance") == init(fan_in="12", digits=5).value(
        "variance"
    )


@pytest.mark.xdist_group("truncnorm-derive")  # sympy integrates the truncated density once per process
@pytest.mark.slow
def test_derive_closed_forms():
    run = invoke(
        "init",
        "--fan-in",
        "768",
        "--fan-out",
        "768",
        "--scheme",
        "xavier",
        "--distribution",
        "truncnorm",
        "--derive",
        "--digits",
        "30",
        "--json",
    )
    results = run.json()["results"]
    assert results["variance"]["closed_form"] == "1/768"
    assert results["std"]["closed_form"] == "sqrt(3)/48"
    assert results["bert_ratio"]["closed_form"] == "8*sqrt(3)/25"
    import sympy as sp

    for name in ("std_to_pass", "bound"):
        form = sp.sympify(results[name]["closed_form"])
        assert "erf" in results[name]["closed_form"]
        with mp.workdps(DPS):
            assert to_decimal(mpmath.mpf(str(sp.N(form, DPS))), 30) == results[name]["decimal"], name


def test_derive_he_relu_is_exactly_two_over_fan_in():
    results = invoke("init", "--fan-in", "512", "--scheme", "he", "--derive", "--json").json()["results"]
    assert results["variance"]["closed_form"] == "1/256"
    assert results["gain"]["closed_form"] == "sqrt(2)"
    assert results["bert_ratio"]["closed_form"] == "8/25"


@pytest.mark.xdist_group("truncnorm-derive")  # sympy integrates the truncated density once per process
@pytest.mark.slow
@pytest.mark.parametrize("activation", ["gelu", "tanh", "elu"])
def test_derive_he_closed_forms_evaluate_to_the_numbers(activation):
    """gelu and elu have closed forms (E[gelu(Z)²] = 1/3 + sqrt(3)/(6π)); tanh keeps its integral."""
    import sympy as sp

    run = invoke(
        "init",
        "--fan-in",
        "300",
        "--scheme",
        "he",
        "--activation",
        activation,
        "--distribution",
        "truncnorm",
        "--derive",
        "--digits",
        "20",
        "--json",
    )
    results = run.json()["results"]
    assert ("Integral" in results["variance"]["closed_form"]) == (activation == "tanh")
    if activation == "tanh":  # sympy's rewriting, as it was before it knew the integral is positive
        assert results["variance"]["closed_form"] == (
            "sqrt(2)*sqrt(pi)/(300*Integral(exp(-x**2/2)*tanh(x)**2, (x, -oo, oo)))"
        )
    for name, doc in results.items():
        expr = sp.sympify(doc["closed_form"])
        with mp.workdps(DPS):
            for integral in expr.atoms(sp.Integral):  # sympy's own N() of these is slow
                ((x, *_),) = integral.limits
                f = sp.lambdify(x, integral.function, "mpmath")
                expr = expr.subs(integral, sp.Float(str(mpmath.quad(f, [-mpmath.inf, 0, mpmath.inf])), DPS))
            value = mpmath.mpf(str(sp.N(expr, DPS)))
            assert to_decimal(value, 20) == doc["decimal"], name


def test_default_path_imports_no_heavy_modules():
    import subprocess
    import sys

    code = (
        "import sys; from momentcalc import init; init(fan_in=768, fan_out=768, scheme='xavier', distribution='truncnorm');"
        "bad = [m for m in ('sympy', 'numpy', 'scipy') if m in sys.modules]; assert not bad, bad"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.parametrize(
    "args,fragment",
    [
        ([], "--fan-in is required"),
        (["--fan-in", "0"], "--fan-in must be a whole number >= 1, got 0"),
        (["--fan-in", "1.5"], "--fan-in must be a whole number >= 1, got 1.5"),
        (["--fan-in", "-3"], "--fan-in must be a whole number >= 1"),
        (["--fan-in", "abc"], "--fan-in must be a decimal number"),
        (["--fan-in", "inf"], "--fan-in must be a finite number"),
        (
            ["--fan-in", "8", "--fan-out", "2.5", "--scheme", "xavier"],
            "--fan-out must be a whole number >= 1",
        ),
        (["--fan-in", "8", "--scheme", "xavier"], "--fan-out is required with --scheme xavier"),
        (
            ["--fan-in", "8", "--scheme", "kaiming"],
            "--scheme must be one of lecun, xavier, he, got 'kaiming'",
        ),
        (
            ["--fan-in", "8", "--distribution", "gamma"],
            "--distribution must be one of normal, uniform, truncnorm, got 'gamma'",
        ),
        (["--fan-in", "8", "--activation", "tanh"], "--activation applies only to --scheme he"),
        (
            ["--fan-in", "8", "--scheme", "xavier", "--fan-out", "8", "--slope", "0.1"],
            "--slope applies only to --scheme he",
        ),
        (["--fan-in", "8", "--scheme", "he", "--activation", "nosuchthing"], "nosuchthing"),
    ],
)
def test_bad_input_exits_2_with_one_line(args, fragment):
    run = invoke("init", *args)
    assert run.code == 2
    assert run.stdout == ""
    assert fragment in run.stderr
    assert run.stderr.count("\n") == 1 and "Traceback" not in run.stderr
    as_json = invoke("init", *args, "--json")
    assert as_json.code == 2 and as_json.json()["error"]["code"] == 2


def test_api_raises_input_error():
    with pytest.raises(InputError, match="^fan_in"):
        init()
    with pytest.raises(InputError, match="^scheme must"):
        init(fan_in=3, scheme="orthogonal")


def test_expect_against_seed_value():
    ok = invoke("init", "--fan-in", "768", "--fan-out", "768", "--scheme", "xavier", "--expect", "std=0.0361")
    assert ok.code == 0
    bad = invoke("init", "--fan-in", "768", "--expect", "std=0.0200")
    assert bad.code == 1


_SECOND_AT_80: dict[str, mpmath.mpf] = {}  # E[act(Z)²] by quadrature at 80 digits, once per activation


# one worker runs them all, so each activation's 80-digit quadrature is done once, not once per worker
@pytest.mark.xdist_group("init-second-moments")
@pytest.mark.parametrize(
    "scheme,activation,function,fan_in,fan_out",
    [
        ("lecun", None, None, "768", None),
        ("xavier", None, None, "784", "300"),
        ("he", "relu", lambda x: max(x, 0), "7", None),
        ("he", "gelu", lambda x: x * mpmath.ncdf(x), "256", None),
        ("he", "leaky_relu", lambda x: x if x > 0 else x / 100, "12", None),
    ],
)
@pytest.mark.parametrize("distribution", ["normal", "uniform", "truncnorm"])
def test_certified_results_against_the_mpmath_route_at_50_digits(
    scheme, activation, function, fan_in, fan_out, distribution
):
    """Every result certified (exact rational, or a ball below half a unit of its last digit)
    and equal at 50 digits to quadrature at 80 digits (gamma and E[act(Z)²] integrated)."""
    from .certified_checks import assert_certified

    r = init(
        fan_in=fan_in,
        fan_out=fan_out,
        scheme=scheme,
        activation=activation,
        distribution=distribution,
        digits=50,
    )
    with mp.workdps(80):
        n_in = mpmath.mpf(fan_in)
        if scheme == "lecun":
            want = expected(1 / n_in, distribution)
        elif scheme == "xavier":
            want = expected(2 / (n_in + mpmath.mpf(fan_out)), distribution)
        else:
            if activation not in _SECOND_AT_80:
                _SECOND_AT_80[activation] = second_moment_by_quadrature(function)
            second = _SECOND_AT_80[activation]
            want = {"gain": 1 / mpmath.sqrt(second), **expected(1 / (second * n_in), distribution)}
    assert set(r.names) == set(want)
    for name, value in want.items():
        assert assert_certified(r[name], 50) == to_decimal(value, 50), name


def test_exact_results_round_their_ties_away_from_zero():
    """1/40 = 0.025 and 0.02/sqrt(1/25) = 0.1: exact rationals, proven with error_bound 0."""
    r = init(fan_in=40, digits=1)
    assert [to_decimal(r[name].rounded_from, 1) for name in ("variance", "bert_ratio")] == ["0.03", "0.1"]
    assert r["variance"].error_bound == 0 and r["variance"].exact == Fraction(1, 40)
    u = init(fan_in=3, distribution="uniform")
    assert u["bound"].exact == 1 and u["bound"].certified
    he = init(fan_in=8, scheme="he", activation="relu2")  # E[relu2(Z)²] = 3/2
    assert he["variance"].exact == Fraction(1, 12) and he["gain"].exact is None and he["gain"].certified


def test_table_title_says_certified():
    assert invoke("init", "--fan-in", "768").stdout.splitlines()[0].rstrip().endswith("certified")
    results = invoke("init", "--fan-in", "768", "--scheme", "he", "--activation", "swish", "--json").json()[
        "results"
    ]
    assert all(r["certified"] is True and r["error_bound"] is not None for r in results.values())
