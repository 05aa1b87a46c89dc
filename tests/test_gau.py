"""gau-scale: closed forms vs quadrature, the seed's numbers (≈ 69, ≈ 0.01, α ≈ 100), and a
drawn GAU against the theory, including the λ⁷ law."""

from __future__ import annotations

import json
import math
from fractions import Fraction

import mpmath
import pytest
from mpmath import mp

from momentcalc import gau_scale
from momentcalc.engine.precision import to_decimal
from momentcalc.errors import InputError

from .conftest import invoke

SEED_SIZES = dict(s=128, n=512, d=768, e=1536)
SMALL_SIZES = dict(s=32, n=128, d=192, e=384)


def swish(x):
    return x / (1 + mpmath.exp(-x))


def gaussian_mean(f, dps=45):
    """E[f(Z)], Z ~ N(0, 1), by mpmath's own quadrature (independent of the engine)."""
    with mp.workdps(dps):
        total = mpmath.quad(lambda x: f(x) * mpmath.exp(-x * x / 2), [-mpmath.inf, 0, mpmath.inf])
        return total / mpmath.sqrt(2 * mp.pi)


# --- theory ----------------------------------------------------------------------------------


def test_seed_numbers():
    """Seed 003: mu = 0.2066…, nu² = 0.3557…, A_ii/A_ij ≈ 69, s·nu⁶/n ≈ 0.01, alpha ≈ 100."""
    r = gau_scale()
    assert to_decimal(r.value("mu"), 15).startswith("0.2066")
    assert to_decimal(r.value("nu2"), 15).startswith("0.3557")
    assert (
        round(float(r.value("diag_offdiag_ratio"))) == 69
        and to_decimal(r.value("diag_offdiag_ratio"), 3) == "69.4"
    )
    assert to_decimal(r.value("output_scale"), 1) == "0.01"
    assert to_decimal(r.value("output_scale"), 3) == "0.0113"  # SPEC: ≈ 0.0113
    assert 50 < r.value("deepnorm_alpha") < 200  # "λ = 1, α = 100": two orders of magnitude
    assert r.value("lambda") == 1 and r.value("scaled_output") == r.value("output_scale")


def test_swish_moments_agree_with_independent_quadrature():
    r = gau_scale(digits=30)
    mu, nu2 = gaussian_mean(swish), gaussian_mean(lambda x: swish(x) ** 2)
    with mp.workdps(45):
        expected = {
            "mu": mu,
            "nu2": nu2,
            "nu": mpmath.sqrt(nu2),
            "diag_attention": 128 * nu2**2 / 512,
            "offdiag_attention": 128 * mu**4 / 512,
            "diag_offdiag_ratio": nu2**2 / mu**4,
            "output_scale": 128 * nu2**3 / 512,
            "deepnorm_alpha": 512 / (128 * nu2**3),
        }
    for name, value in expected.items():
        assert to_decimal(r.value(name), 30) == to_decimal(value, 30), name


def test_relu_closed_forms():
    """relu: mu = 1/sqrt(2π), nu² = 1/2, so s·nu⁶/n = 1/32 and nu⁴/mu⁴ = π² exactly."""
    r = gau_scale(activation="relu", digits=40)
    with mp.workdps(60):
        assert to_decimal(r.value("output_scale"), 40) == to_decimal(mpmath.mpf(1) / 32, 40)
        assert to_decimal(r.value("diag_offdiag_ratio"), 40) == to_decimal(mp.pi**2, 40)
        assert to_decimal(r.value("deepnorm_alpha"), 40) == to_decimal(mpmath.mpf(32), 40)


def test_lambda_seventh_power_theory():
    r = gau_scale(init_std="0.02", digits=30)
    with mp.workdps(50):
        lam = mpmath.mpf(2) / 100 * mpmath.sqrt(768)  # 0.02·sqrt(d) ≈ 0.554
        assert to_decimal(r.value("lambda"), 30) == to_decimal(lam, 30)
        assert to_decimal(r.value("scaled_output"), 30) == to_decimal(lam**7 * r.value("output_scale"), 30)
        assert to_decimal(r.value("deepnorm_alpha"), 30) == to_decimal(
            1 / (lam**7 * r.value("output_scale")), 30
        )
    assert r.inputs["init_std"] == Fraction(1, 50)
    unit = gau_scale(init_std=1)  # lambda = init_std·sqrt(d) for any init_std
    with mp.workdps(30):
        assert to_decimal(unit.value("lambda"), 15) == to_decimal(mpmath.sqrt(768), 15)


def test_sizes_enter_as_s_over_n():
    base = gau_scale(digits=25)
    other = gau_scale(s=64, n=1024, digits=25)
    with mp.workdps(40):
        assert to_decimal(other.value("output_scale"), 25) == to_decimal(base.value("output_scale") / 4, 25)
    assert to_decimal(other.value("diag_offdiag_ratio"), 25) == to_decimal(
        base.value("diag_offdiag_ratio"), 25
    )


def test_expression_activation_equals_catalog():
    catalog = gau_scale(activation="swish")
    expression = gau_scale(activation="x/(1+exp(-x))")
    for name in ("mu", "nu2", "output_scale", "diag_offdiag_ratio"):
        assert to_decimal(catalog.value(name), 15) == to_decimal(expression.value(name), 15)
    assert expression.inputs["activation"] != "swish"


def test_zero_mean_activation_has_infinite_ratio():
    r = gau_scale(activation="tanh")
    assert mpmath.isinf(r.value("diag_offdiag_ratio")) and r.value("offdiag_attention") == 0


# --- simulation ------------------------------------------------------------------------------


def second_order_attention(s, n):
    """E[A_ii], E[A_ij] with <Z_i, Z_j> summed exactly over s independent entries:
    E[<Z_i,Z_i>²] = s·E[φ⁴] + s(s−1)·nu⁴ and E[<Z_i,Z_j>²] = s·nu⁴ + s(s−1)·mu⁴ (i ≠ j),
    relu² ≈ square because the sums are positive but for a tail."""
    mu, nu2 = gaussian_mean(swish, 25), gaussian_mean(lambda x: swish(x) ** 2, 25)
    m4 = gaussian_mean(lambda x: swish(x) ** 4, 25)
    diagonal = (m4 + (s - 1) * nu2**2) / n
    off_diagonal = (nu2**2 + (s - 1) * mu**4) / n
    return float(diagonal), float(off_diagonal)


@pytest.mark.slow
@pytest.mark.parametrize("sizes,trials,tolerance", [(SEED_SIZES, 2, 0.06), (SMALL_SIZES, 8, 0.15)])
def test_simulated_gau_against_theory(sizes, trials, tolerance):
    """Measured (seeds 0–2): A_ii, A_ij within 1–5% of the second-order values at the seed's sizes
    (two draws) and within 25% for one small draw (W_z's 192×32 entries do not average out), so
    8 small draws are held to 15%. The RMS of O is 4.7–5.2× s·nu⁶/n at the seed's sizes and
    3.0–5.1× at the small ones: the seed's diagonal approximation is an order of magnitude."""
    r = gau_scale(**sizes, simulate=True, seed=0, trials=trials)
    diagonal, off_diagonal = second_order_attention(sizes["s"], sizes["n"])
    assert abs(float(r.value("simulated_diag_attention")) / diagonal - 1) < tolerance
    assert abs(float(r.value("simulated_offdiag_attention")) / off_diagonal - 1) < tolerance
    assert abs(float(r.value("simulated_diag_attention") / r.value("diag_attention")) - 1) < 2 * tolerance
    assert 1 < float(r.value("simulated_rms") / r.value("output_scale")) < 10
    ratio = float(r.value("simulated_ratio"))
    assert ratio == pytest.approx(float(r.value("simulated_rms") / r.value("output_rms")), rel=1e-12)


def test_simulation_is_repeatable_and_seeded():
    # The same seed draws the same stream: checked at a few trials (the default stops after
    # hundreds, about 1 s each time); the seeded default run below checks the stopping rule.
    b = gau_scale(**SMALL_SIZES, simulate=True, seed=7, trials=6)
    again = gau_scale(**SMALL_SIZES, simulate=True, seed=7, trials=6)
    c = gau_scale(**SMALL_SIZES, simulate=True, seed=8, trials=6)
    assert b.value("simulated_rms") == again.value("simulated_rms")
    assert b.value("simulated_rms") != c.value("simulated_rms")
    # the default: draws until simulated_rms has a 1 % standard error (at least 5); at s = 128 a
    # draw averages more than at SMALL_SIZES' s = 32: 52 draws, 0.4 s of CPU (212, 1.7 s there)
    a = gau_scale(s=128, n=128, d=192, e=384, simulate=True, seed=7)
    assert a.inputs["seed"] == 7 and a.inputs["trials"] >= 5
    assert a.value("simulated_stderr") <= 0.01 * a.value("simulated_rms")
    # every simulated value carries its standard error, and prints only the digits it justifies
    assert a["simulated_rms"].stderr == a.value("simulated_stderr") > 0
    assert a["simulated_diag_attention"].stderr > 0 and a["simulated_ratio"].stderr > 0
    assert a["output_scale"].stderr is None


def test_trials_average_and_standard_error():
    r = gau_scale(**SMALL_SIZES, simulate=True, trials=6, seed=3)
    stderr = float(r.value("simulated_stderr"))
    assert 0 < stderr < 0.2 * float(r.value("simulated_rms"))
    assert any("standard error" in note for note in r.notes)


@pytest.mark.slow
def test_lambda_seventh_law_exact_for_relu():
    """relu is homogeneous: the same draws at lam and lam/2 give outputs 2^7 apart exactly."""
    full = gau_scale(
        **SMALL_SIZES, activation="relu", simulate=True, seed=5, trials=4, init_std=Fraction(1, 20)
    )
    half = gau_scale(
        **SMALL_SIZES, activation="relu", simulate=True, seed=5, trials=4, init_std=Fraction(1, 40)
    )
    assert float(full.value("simulated_rms") / half.value("simulated_rms")) == pytest.approx(128, rel=1e-9)


def test_lambda_seventh_law_for_swish_at_small_lambda():
    """swish(lam·x) ≈ lam·x/2 for small lam, so the law holds in the limit (measured 129.5 at
    lam = 0.05 against 0.025; 133 at 0.1, 378 at 1 — swish is not homogeneous)."""
    d = SMALL_SIZES["d"]
    lam = 0.05
    # The same 8 draws at both scales (with the default stopping rule each scale drew its own
    # number of trials, about 50): 129.2.
    full = gau_scale(**SMALL_SIZES, simulate=True, seed=2, trials=8, init_std=lam / math.sqrt(d))
    half = gau_scale(**SMALL_SIZES, simulate=True, seed=2, trials=8, init_std=lam / 2 / math.sqrt(d))
    assert float(full.value("simulated_rms") / half.value("simulated_rms")) == pytest.approx(128, rel=0.03)


# --- CLI ------------------------------------------------------------------------------------


def test_cli_json_shape():
    run = invoke("gau-scale", "--json")
    assert run.code == 0, run.stderr
    doc = run.json()
    assert doc["inputs"] == {"s": 128.0, "n": 512.0, "d": 768.0, "e": 1536.0, "activation": "swish"}
    assert list(doc["results"]) == [
        "mu",
        "nu2",
        "nu",
        "diag_attention",
        "offdiag_attention",
        "diag_offdiag_ratio",
        "output_scale",
        "lambda",
        "scaled_output",
        "deepnorm_alpha",
        "attention_diag_mean",
        "attention_offdiag_mean",
        "output_rms",
        "output_rms_ratio",
        "deepnorm_alpha_full",
    ]
    assert doc["results"]["diag_offdiag_ratio"]["decimal"].startswith("69.4")


def test_cli_simulate_json_only_on_stdout():
    run = invoke(
        "gau-scale",
        "--simulate",
        "--n",
        "64",
        "--d",
        "96",
        "--e",
        "192",
        "--s",
        "16",
        "--trials",
        "2",
        "--json",
    )
    assert run.code == 0 and run.stderr == ""  # no progress bar off a terminal
    doc = run.json()
    for name in ("simulated_rms", "simulated_ratio", "simulated_stderr", "simulated_diag_attention"):
        assert name in doc["results"]
    assert doc["inputs"]["seed"] == 0.0 and doc["inputs"]["trials"] == 2.0


def test_cli_derive():
    doc = invoke("gau-scale", "--activation", "relu", "--derive", "--json").json()["results"]
    assert doc["output_scale"]["closed_form"] == "1/32"
    assert doc["diag_offdiag_ratio"]["closed_form"] == "pi**2"
    assert doc["deepnorm_alpha"]["closed_form"] == "32"
    run = invoke("gau-scale", "--derive")
    assert run.code == 0 and "lambda**7" in run.stdout and "Integral" in run.stdout


def test_cli_sweep():
    rows = invoke("gau-scale", "--n", "256,512,1024", "--json").json()["rows"]
    scales = [row["results"]["output_scale"]["value"] for row in rows]
    assert scales[0] == pytest.approx(2 * scales[1]) and scales[2] == pytest.approx(scales[1] / 2)


@pytest.mark.parametrize(
    "args,message",
    [
        (["--s", "0"], "--s must be a whole number >= 1, got 0"),
        (["--n", "1.5"], "--n must be a whole number >= 1, got 1.5"),
        (["--init-std", "0"], "--init-std must be greater than 0, got 0"),
        (["--seed", "3"], "--seed applies only with --simulate"),
        (["--trials", "3"], "--trials applies only with --simulate"),
        (["--simulate", "--trials", "1"], "--trials must be a whole number >= 2, got 1"),
        (["--simulate", "--trials", "5000"], "--trials must be a whole number from 2 to 1000, got 5000"),
        (["--simulate", "--seed", "-1"], "--seed must be a whole number >= 0, got -1"),
        (["--simulate", "--n", "100000"], "too large to simulate"),
        (["--activation", "nosuch"], "not in the catalog"),
    ],
)
def test_cli_bad_input(args, message):
    run = invoke("gau-scale", *args)
    assert run.code == 2
    assert run.stdout == ""
    assert message in run.stderr and "Traceback" not in run.stderr
    run = invoke("gau-scale", *args, "--json")
    assert run.code == 2 and message in json.loads(run.stdout)["error"]["message"]


def test_api_rejects_huge_simulation_before_drawing():
    with pytest.raises(InputError, match="A would have 100000x100000 entries"):
        gau_scale(n=100000, d=1, e=1, s=1, simulate=True)


def test_simulation_overflow_is_exit_3():
    run = invoke(
        "gau-scale", "--simulate", "--init-std", "1e80", "--n", "16", "--d", "16", "--e", "16", "--s", "4"
    )
    assert run.code == 3 and run.stdout == ""
    assert "overflowed double precision" in run.stderr and "Warning" not in run.stderr


def test_progress_bar_only_on_a_terminal(stderr_as):
    terminal = stderr_as(terminal=True)
    gau_scale(n=16, d=16, e=16, s=4, simulate=True, trials=2)
    assert "simulating GAU" in terminal.getvalue()

    pipe = stderr_as(terminal=False)
    gau_scale(n=16, d=16, e=16, s=4, simulate=True, trials=2)
    assert pipe.getvalue() == ""


def test_certified_seed_results_against_quadrature_at_50_digits():
    """Every seed result certified (a ball below half a unit of its last digit, or exact) and
    equal at 50 digits to mpmath's quadrature of swish's moments at 70 digits."""
    from momentcalc.computations.gau import gau_scale
    from momentcalc.engine.precision import to_decimal

    from .certified_checks import assert_certified

    r = gau_scale(init_std="0.03", digits=50)
    with mpmath.mp.workdps(70):
        norm = 1 / mpmath.sqrt(2 * mpmath.pi)  # once, not at every node
        density = lambda z: norm * mpmath.exp(-z * z / 2)
        swish = lambda z: z / (1 + mpmath.exp(-z))
        mu = mpmath.quad(lambda z: swish(z) * density(z), [-mpmath.inf, 0, mpmath.inf])
        nu2 = mpmath.quad(lambda z: swish(z) ** 2 * density(z), [-mpmath.inf, 0, mpmath.inf])
        s, n, lam = 128, 512, mpmath.mpf("0.03") * mpmath.sqrt(768)
        output = s * nu2**3 / n
        want = {
            "mu": mu,
            "nu2": nu2,
            "nu": mpmath.sqrt(nu2),
            "diag_attention": s * nu2**2 / n,
            "offdiag_attention": s * mu**4 / n,
            "diag_offdiag_ratio": nu2**2 / mu**4,
            "output_scale": output,
            "lambda": lam,
            "scaled_output": lam**7 * output,
            "deepnorm_alpha": 1 / (lam**7 * output),
        }
    for name, value in want.items():
        assert assert_certified(r[name], 50) == to_decimal(value, 50), name


def test_certified_exact_moments_and_estimates():
    """leaky_relu at slope 0.3: nu2 = 0.545 exactly, a tie at two digits, rounds away from zero;
    tanh's mu is exactly 0 (A_ij = 0, ratio inf); simulated values are not certified."""
    from momentcalc.computations.gau import gau_scale

    leaky = gau_scale(activation="leaky_relu", params={"slope": "0.3"}, digits=2)
    assert leaky["nu2"].exact == Fraction(109, 200) and leaky["nu2"].error_bound == 0
    assert (
        invoke("gau-scale", "--activation", "leaky_relu", "--slope", "0.3", "--digits", "2", "--json").json()[
            "results"
        ]["nu2"]["decimal"]
        == "0.55"
    )
    tanh = gau_scale(activation="tanh")
    assert tanh["mu"].exact == 0 and tanh["offdiag_attention"].exact == 0
    assert tanh["diag_offdiag_ratio"].certified and tanh["diag_offdiag_ratio"].value == mpmath.inf
    results = invoke(
        "gau-scale",
        "--simulate",
        "--trials",
        "2",
        "--n",
        "16",
        "--d",
        "16",
        "--e",
        "32",
        "--s",
        "8",
        "--json",
    ).json()["results"]
    assert results["simulated_rms"]["certified"] is False and results["mu"]["certified"] is True
