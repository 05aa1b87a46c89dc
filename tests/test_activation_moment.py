"""``activation-moment`` and ``activations``: the seeds' numbers, the CLI contract, precision,
divergence and the Python API."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest
from mpmath import mp

from momentcalc.computations.activation import RESULTS, activation_moment
from momentcalc.moments import gaussian_moments
from momentcalc.errors import InputError, PrecisionError


def decimal(run, name):
    return run.json()["results"][name]["decimal"]


# --- the seeds ---------------------------------------------------------------------------------


def test_seed_000_sigmoid_second_moment(cli):
    run = cli("activation-moment", "sigmoid", "--json")
    assert run.code == 0
    assert decimal(run, "second_moment").startswith("0.2933790")
    assert cli("activation-moment", "sigmoid", "--expect", "second_moment=0.2933790").code == 0
    assert cli("activation-moment", "sigmoid", "--expect", "second_moment=0.2933792").code == 1


def test_seed_003_swish_mean_and_second_moment(cli):
    run = cli("activation-moment", "swish", "--json")
    assert decimal(run, "mean").startswith("0.2066")
    assert decimal(run, "second_moment").startswith("0.3557")
    # silu is the same function
    assert cli("activation-moment", "silu", "--json").json()["results"] == run.json()["results"]


def test_seed_002_relu_half_gives_he_init(cli):
    run = cli("activation-moment", "relu", "--json", "--digits", "30")
    results = run.json()["results"]
    assert results["second_moment"]["decimal"] == "0.500000000000000000000000000000"
    with mp.workdps(40):
        assert results["gain"]["decimal"] == mpmath.nstr(mpmath.sqrt(2), 30, strip_zeros=False)
        assert results["mean"]["decimal"] == mpmath.nstr(1 / mpmath.sqrt(2 * mp.pi), 30, strip_zeros=False)


def test_expression_equal_to_mish_gives_the_same_digits(cli):
    by_name = cli("activation-moment", "mish", "--json", "--digits", "30").json()["results"]
    by_text = cli("activation-moment", "x*tanh(log(1+exp(x)))", "--json", "--digits", "30").json()["results"]
    for name in RESULTS:
        assert by_name[name]["decimal"] == by_text[name]["decimal"], name


@pytest.mark.slow
def test_expression_equal_to_swish_at_another_mean_and_std(cli):
    by_name = cli("activation-moment", "swish", "--mean", "0.3", "--std", "2.5", "--json").json()["results"]
    by_text = cli("activation-moment", "x*sigmoid(x)", "--mean", "0.3", "--std", "2.5", "--json").json()[
        "results"
    ]
    assert {k: v["decimal"] for k, v in by_name.items()} == {k: v["decimal"] for k, v in by_text.items()}


# --- results, precision, scaling ---------------------------------------------------------------


def test_json_shape_and_inputs(cli):
    doc = cli("activation-moment", "leaky_relu", "--slope", "0.2", "--json").json()
    assert doc["command"] == "activation-moment"
    assert doc["inputs"] == {"activation": "leaky_relu", "mean": 0.0, "std": 1.0, "slope": 0.2}
    assert list(doc["results"]) == list(RESULTS)
    # (1 + s^2)/2 and (1 - s)/sqrt(2 pi) with s = 1/5
    assert doc["results"]["second_moment"]["decimal"] == "0.520000000000000"
    with mp.workdps(30):
        expected = mpmath.nstr(mpmath.mpf(4) / 5 / mpmath.sqrt(2 * mp.pi), 15, strip_zeros=False)
    assert doc["results"]["mean"]["decimal"] == expected


def test_derived_results_are_consistent():
    values = gaussian_moments("gelu_tanh", mean="0.25", std="1.5", digits=40)
    with mp.workdps(60):
        tol = mpmath.mpf(10) ** -39
        assert abs(values["variance"] - (values["second_moment"] - values["mean"] ** 2)) <= tol
        assert abs(values["rms"] ** 2 - values["second_moment"]) <= tol
        assert abs(values["gain"] * values["rms"] - 1) <= tol
        assert abs(values["centered_gain"] ** 2 * values["variance"] - 1) <= tol


def test_more_digits_extend_the_fewer_ones():
    low = gaussian_moments("swish", digits=20)
    high = gaussian_moments("swish", digits=100)
    for name in RESULTS:
        with mp.workdps(30):
            assert mpmath.nstr(low[name], 20) == mpmath.nstr(high[name], 20), name


def test_identity_and_relu_scale_exactly_with_mean_and_std():
    ident = gaussian_moments("identity", mean="0.7", std="3", digits=30)
    with mp.workdps(40):
        assert abs(ident["mean"] - mpmath.mpf("0.7")) < mpmath.mpf(10) ** -30
        assert abs(ident["second_moment"] - (mpmath.mpf("0.49") + 9)) < mpmath.mpf(10) ** -29
    relu = gaussian_moments("relu", std="2.5", digits=30)
    with mp.workdps(40):
        assert abs(relu["mean"] - mpmath.mpf("2.5") / mpmath.sqrt(2 * mp.pi)) < mpmath.mpf(10) ** -30
        assert abs(relu["second_moment"] - mpmath.mpf("6.25") / 2) < mpmath.mpf(10) ** -29


def test_relu_at_nonzero_mean_matches_its_closed_form():
    """E[relu(X)] = mu·Φ(mu/s) + s·φ(mu/s) for X ~ N(mu, s²)."""
    values = gaussian_moments("relu", mean="-0.8", std="1.7", digits=40)
    with mp.workdps(60):
        mu, s = mpmath.mpf("-0.8"), mpmath.mpf("1.7")
        expected = mu * mpmath.ncdf(mu / s) + s * mpmath.npdf(mu / s)
        assert abs(values["mean"] - expected) <= expected * mpmath.mpf(10) ** -40


def test_large_std_sigmoid_tends_to_a_step():
    values = gaussian_moments("sigmoid", std="1000", digits=20)
    with mp.workdps(30):
        # E[σ(sZ)^2] → 1/2 as s → ∞; and E[σ(sZ)] is exactly 1/2.
        assert abs(values["mean"] - mpmath.mpf(1) / 2) < mpmath.mpf(10) ** -20
        assert 0.499 < values["second_moment"] < 0.5


def test_odd_activation_mean_is_exactly_zero(cli):
    for name in ("tanh", "erf", "softsign", "x**3 - sin(x)"):
        assert cli("activation-moment", name, "--json").json()["results"]["mean"]["decimal"] == "0", name


def test_sweep_over_slope(cli):
    doc = cli("activation-moment", "leaky_relu", "--slope", "0,0.5,1", "--json").json()
    assert [row["inputs"]["slope"] for row in doc["rows"]] == [0.0, 0.5, 1.0]
    assert doc["rows"][2]["results"]["variance"]["decimal"] == "1.00000000000000"


def test_api_normalises_and_caches():
    a = gaussian_moments("swish", mean=0, std=1.0)
    b = gaussian_moments(" swish", mean="0", std=Fraction(1))
    assert a == b
    assert set(a) == set(RESULTS)
    a["mean"] = 0  # callers get a copy
    assert gaussian_moments("swish")["mean"] != 0


@pytest.mark.slow
def test_derive_gives_closed_forms_and_integrals(cli):
    relu = cli("activation-moment", "relu", "--derive", "--json").json()["results"]
    assert relu["gain"]["closed_form"] == "sqrt(2)"
    assert relu["second_moment"]["closed_form"] == "1/2"
    gelu = cli("activation-moment", "gelu", "--derive", "--json").json()["results"]
    assert gelu["mean"]["closed_form"] is not None and gelu["mean"]["latex"]
    shifted = cli("activation-moment", "relu", "--mean", "0.5", "--derive", "--json").json()["results"]
    assert "erf" in shifted["mean"]["closed_form"]
    swish = cli("activation-moment", "swish", "--derive")
    assert swish.code == 0 and "Integral(" in swish.stdout
    assert (
        cli("activation-moment", "swish", "--derive", "--json").json()["results"]["mean"]["closed_form"]
        is None
    )


def test_python_api_computation():
    result = activation_moment("relu", digits=20)
    assert result.command == "activation_moment"
    assert result.value("second_moment") == mpmath.mpf(1) / 2


# --- errors ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("expression", "divergent"),
    [
        ("exp(x**2)", "mean"),
        ("exp(x**2/4)", "second_moment"),
        ("1/x", "mean"),
        ("1/(x - 0.3)**2", "mean"),
        ("log(abs(x))", "derivative_second_moment"),  # E[log|Z|] and E[log²|Z|] are finite, E[1/Z²] is not
    ],
)
def test_divergent_moments_are_exit_2(cli, expression, divergent):
    run = cli("activation-moment", expression, "--json")
    assert run.code == 2, expression
    assert run.json()["error"]["code"] == 2
    assert f"{divergent} diverges" in run.json()["error"]["message"]
    assert f"{divergent} diverges" in run.stderr and "Traceback" not in run.stderr


def test_exp_of_x_squared_over_five_converges():
    # f^2 φ ∝ exp(-t^2/10): finite; E[exp(X^2/5)] = 1/sqrt(1 - 2/5)
    values = gaussian_moments("exp(x**2/5)", digits=20)
    with mp.workdps(30):
        assert abs(values["mean"] - 1 / mpmath.sqrt(mpmath.mpf(3) / 5)) < mpmath.mpf(10) ** -20


@pytest.mark.parametrize("expression", ["log(x)", "sqrt(x)", "sqrt(1 - x**2)", "log1p(x)"])
def test_undefined_on_positive_probability_is_exit_2(cli, expression):
    run = cli("activation-moment", expression)
    assert run.code == 2
    assert "not defined" in run.stderr and run.stdout == ""


def test_unknown_name_is_exit_2_with_suggestions(cli):
    run = cli("activation-moment", "gleu", "--json")
    assert run.code == 2
    assert "gelu" in run.json()["error"]["message"]


def test_slope_only_for_leaky_relu(cli):
    run = cli("activation-moment", "tanh", "--slope", "0.1")
    assert run.code == 2 and "--slope" in run.stderr


@pytest.mark.parametrize("args", [("--std", "0"), ("--std", "-1"), ("--mean", "abc"), ("--digits", "0")])
def test_bad_numbers_are_exit_2(cli, args):
    assert cli("activation-moment", "relu", *args).code == 2


def test_an_expectation_that_cancels_to_zero_is_exit_3(monkeypatch):
    from momentcalc.engine import gaussian_balls

    monkeypatch.setattr(gaussian_balls, "MAX_CANCELLATION_DIGITS", 60)  # the same verdict, sooner
    with pytest.raises(PrecisionError):  # tanh(x/2): odd, but not provably so by the tree's rules
        gaussian_moments("sigmoid(x) - 1/(1 + exp(x))")


def test_input_error_from_the_api():
    with pytest.raises(InputError):
        gaussian_moments("no_such_activation")
    with pytest.raises(InputError):
        gaussian_moments(3)  # type: ignore[arg-type]


# --- the catalog listing -----------------------------------------------------------------------


def test_activations_table_and_json(cli):
    from momentcalc.catalog import names

    table = cli("activations")
    assert table.code == 0
    for name in names():
        assert name in table.stdout
    doc = cli("activations", "--json").json()
    assert doc["command"] == "activations"
    listed = {entry["name"]: entry for entry in doc["rows"]}
    assert set(listed) == set(names()) | {"glu", "geglu", "swiglu"}  # the gated units: activation-moment only
    assert listed["relu"]["closed_form"]["second_moment"] == "1/2"
    assert listed["swish"]["aliases"] == ["silu"]
    assert listed["leaky_relu"]["parameters"] == {"slope": 0.01}
    assert listed["sigmoid"]["closed_form"] == {}
    csv = cli("activations", "--format", "csv").stdout.splitlines()
    assert csv[0] == "name,aliases,formula,closed_form" and len(csv) == 1 + len(listed)
    assert cli("activations", "--format", "xml").code == 2


@pytest.mark.parametrize("activation", ["swish", "tanh", "relu", "x*sigmoid(2*x)"])
def test_moments_without_the_derivative_agree(activation):
    """gau-scale and init skip E[φ'²]; the moments they use are the same digits."""
    from momentcalc.moments import gaussian_moments
    from momentcalc.engine.precision import to_decimal

    full = gaussian_moments(activation, digits=30)
    lean = gaussian_moments(activation, digits=30, derivative=False)
    assert "derivative_second_moment" not in lean
    for name in ("mean", "second_moment", "gain", "variance"):
        assert to_decimal(lean[name], 30) == to_decimal(full[name], 30), name


# --- a variance about a constant piece (hardtanh saturated) --------------------------------------


def _variance_about(below, kink, c, mean, std, other_kinks=()):
    """Var φ(X) = E[(φ − c)²] − E[φ − c]² by mpmath quadrature, for φ = c on x > kink and
    φ = below(x) on x < kink: x = kink − s, the Gaussian's factor at the kink taken out, so the
    integrals keep their digits however far the kink lies in the tail (an independent route:
    no exp-polynomial, no Arb)."""
    mu, sigma = mpmath.mpf(mean), mpmath.mpf(std)
    d = mu - kink
    front = mpmath.exp(-(d**2) / (2 * sigma**2)) / (sigma * mpmath.sqrt(2 * mp.pi))
    points = [0, *(mpmath.mpf(10) ** -j for j in range(8, 0, -1)), *(kink - k for k in other_kinks), mp.inf]

    def moment(power):
        return front * mpmath.quad(
            lambda s: (below(kink - s) - c) ** power * mpmath.exp(-(2 * d * s + s * s) / (2 * sigma**2)),
            points,
        )

    first, second = moment(1), moment(2)
    return second - first**2


@pytest.mark.parametrize(
    ("activation", "mean", "below", "kink", "c", "others"),
    [
        ("hardtanh", "5.5", lambda x: x if x > -1 else -1, 1, 1, (-1,)),
        ("hardtanh", "-5.5", lambda x: -x if x > -1 else 1, 1, -1, (-1,)),  # mirrored: −φ(Y), Y = −X
        ("hard_sigmoid", "5.5", lambda x: x / 6 + mpmath.mpf(1) / 2 if x > -3 else 0, 3, 1, (-3,)),
        ("relu6", "7.5", lambda x: x if x > 0 else 0, 6, 6, (0,)),
    ],
)
def test_a_saturated_variance_is_proven(cli, activation, mean, below, kink, c, others):
    """Var φ(X) about e^(−10⁵) at mean 5.5, std 0.01 (it cancels in E[φ²] − mean² by 44,000
    digits): every result printed, the variance to 30 digits against quadrature about the
    constant piece."""
    run = cli("activation-moment", activation, "--mean", mean, "--std", "0.01", "--digits", "30", "--json")
    assert run.code == 0, run
    results = run.json()["results"]
    assert set(results) == set(RESULTS)
    sign = -1 if mean.startswith("-") else 1
    with mp.workdps(50):
        variance = _variance_about(below, kink, c, sign * mpmath.mpf(mean), "0.01", others)
        assert results["variance"]["decimal"] == mpmath.nstr(
            variance, 30, strip_zeros=False, min_fixed=1, max_fixed=0
        )
        centered = 1 / mpmath.sqrt(variance)
        assert results["centered_gain"]["decimal"] == mpmath.nstr(
            centered, 30, strip_zeros=False, min_fixed=1, max_fixed=0
        )
