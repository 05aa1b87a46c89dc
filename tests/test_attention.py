"""attention: logit moments to 30 digits against d·q²·k², and the softmax simulation checked
against an independent quadrature route (seq_len = 2) and its own seeding rules."""

from __future__ import annotations

import subprocess
import sys

import mpmath
import pytest
from mpmath import mp

from momentcalc import attention
from momentcalc.engine.precision import to_decimal
from momentcalc.errors import InputError
from tests.conftest import invoke

DPS = 60


def cli_results(*args: str) -> dict[str, dict]:
    run = invoke("attention", *args, "--json")
    assert run.code == 0, run.stderr
    return run.json()["results"]


@pytest.mark.parametrize(
    "d,q,k",
    [
        ("64", "1", "1"),
        ("48", "0.3", "1.7"),
        ("1", "2", "0.5"),
        ("12288", "0.02", "0.02"),
        ("7", "1e-3", "3"),
    ],
)
def test_logit_moments_to_30_digits(d, q, k):
    results = cli_results("--d", d, "--q-std", q, "--k-std", k, "--digits", "30")
    with mp.workdps(DPS):
        dd, qq, kk = mpmath.mpf(d), mpmath.mpf(q), mpmath.mpf(k)
        second = dd * qq**2 * kk**2
        want = {
            "logit_second_moment": second,
            "logit_std": mpmath.sqrt(dd) * qq * kk,
            "logit_range": 3 * mpmath.sqrt(second),
            "scale": 1 / mpmath.sqrt(dd),
            "scaled_logit_std": qq * kk,
        }
    assert list(results) == list(want)
    for name, value in want.items():
        assert results[name]["decimal"] == to_decimal(value, 30), name


def test_seed_values():
    """Seed 000: the q·k second moment is d; seed 002: scaling by 1/sqrt(d_k) undoes it."""
    r = attention(d=64, digits=20)
    assert to_decimal(r.value("logit_second_moment"), 5) == "64.000"
    assert to_decimal(r.value("scale"), 5) == "0.12500"
    assert to_decimal(r.value("logit_range"), 5) == "24.000"


@pytest.mark.slow
def test_derive_closed_forms():
    results = cli_results("--d", "48", "--q-std", "0.5", "--derive")
    assert results["logit_second_moment"]["closed_form"] == "12"
    assert results["logit_std"]["closed_form"] == "2*sqrt(3)"
    assert results["scale"]["closed_form"] == "sqrt(3)/12"
    assert results["scaled_logit_std"]["closed_form"] == "1/2"


def mean_max_weight_for_two_keys(d: int, c: mpmath.mpf) -> mpmath.mpf:
    """Independent route for seq_len = 2: the larger of two softmax weights is sigmoid(|l1 − l2|),
    and l1 − l2 = q·(k1 − k2) = c·V with c = sqrt(2)·q_std·k_std (over sqrt(d) when scaled) and V a
    sum of d products of independent standard normals, whose density is the variance-gamma
    f(x) = |x|^ν K_ν(|x|) / (2^ν sqrt(π) Γ(d/2)), ν = (d − 1)/2. So E[max weight] = 2∫_0^∞ sigmoid(c x) f(x) dx."""
    with mp.workdps(20):
        nu = mpmath.mpf(d - 1) / 2
        norm = 2**nu * mpmath.sqrt(mp.pi) * mpmath.gamma(mpmath.mpf(d) / 2)
        density = lambda x: x**nu * mpmath.besselk(nu, x) / norm
        assert abs(2 * mpmath.quad(density, [0, 1, 10, mpmath.inf]) - 1) < 1e-15
        return 2 * mpmath.quad(lambda x: mpmath.sigmoid(c * x) * density(x), [0, 1, 10, mpmath.inf])


@pytest.mark.parametrize("d,q,k", [(4, 1.0, 1.0), (8, 0.5, 2.0)])
def test_simulated_max_weight_matches_quadrature_for_two_keys(d, q, k):
    results = cli_results(
        "--d", str(d), "--q-std", str(q), "--k-std", str(k), "--seq-len", "2", "--trials", "20000"
    )
    c = mpmath.sqrt(2) * q * k
    for name, factor in (("unscaled", 1), ("scaled", 1 / mpmath.sqrt(d))):
        exact = mean_max_weight_for_two_keys(d, c * factor)
        estimate = results[f"max_weight_{name}"]["value"]
        stderr = results[f"max_weight_{name}_stderr"]["value"]
        assert 0 < stderr < 0.01
        assert abs(estimate - float(exact)) < 4 * stderr, (name, estimate, float(exact), stderr)


def test_simulated_logit_std_matches_formula():
    """RMS of the drawn logits vs sqrt(d)·q·k; per trial the mean square is q²k²·χ²_d·χ²_n/n,
    whose relative variance is (1 + 2/d)(1 + 2/n) − 1, so the RMS over T trials has relative
    standard error about half the square root of that over T."""
    d, n, trials = 32, 64, 2000
    results = cli_results(
        "--d", str(d), "--q-std", "0.7", "--k-std", "1.3", "--seq-len", str(n), "--trials", str(trials)
    )
    exact = results["logit_std"]["value"]
    relative_se = 0.5 * ((1 + 2 / d) * (1 + 2 / n) - 1) ** 0.5 / trials**0.5
    assert abs(results["simulated_logit_std"]["value"] / exact - 1) < 4 * relative_se


def test_simulation_recomputed_from_the_same_draws():
    """Replay the documented draw order (per trial: the query, then the keys, one stream) with a
    plain softmax and check every simulated number to 1e-12."""
    import numpy as np

    d, n, trials, seed, q, k = 8, 5, 300, 11, 0.7, 1.9
    draws = np.random.default_rng(seed).standard_normal((trials, n + 1, d))
    logits = np.array([[q * k * draws[t, 0] @ draws[t, j] for j in range(1, n + 1)] for t in range(trials)])

    def softmax_max(x):
        w = np.exp(x) / np.exp(x).sum(axis=1, keepdims=True)
        return w.max(axis=1)

    unscaled, scaled = softmax_max(logits), softmax_max(logits / np.sqrt(d))
    results = cli_results(
        "--d",
        str(d),
        "--q-std",
        str(q),
        "--k-std",
        str(k),
        "--seq-len",
        str(n),
        "--trials",
        str(trials),
        "--seed",
        str(seed),
    )
    want = {
        "simulated_logit_std": np.sqrt(np.mean(logits**2)),
        "max_weight_unscaled": unscaled.mean(),
        "max_weight_unscaled_stderr": unscaled.std(ddof=1) / np.sqrt(trials),
        "max_weight_scaled": scaled.mean(),
        "max_weight_scaled_stderr": scaled.std(ddof=1) / np.sqrt(trials),
    }
    for name, value in want.items():
        assert results[name]["value"] == pytest.approx(float(value), rel=1e-12), name


def test_scaling_keeps_softmax_from_peaking():
    """The point of 1/sqrt(d): at d = 256 without scaling one key takes most of the weight."""
    results = cli_results("--d", "256", "--seq-len", "128", "--trials", "200")
    assert results["max_weight_unscaled"]["value"] > 0.7
    assert results["max_weight_scaled"]["value"] < 0.2
    assert results["uniform_weight"]["decimal"] == "0.00781250000000000"


def test_simulation_is_seeded_and_prefix_stable():
    from momentcalc.computations.attention_simulation import simulate_softmax

    a = simulate_softmax(16, 1.0, 32, 50, 7)
    assert a == simulate_softmax(16, 1.0, 32, 50, 7)
    assert a != simulate_softmax(16, 1.0, 32, 50, 8)
    # the draws do not depend on how the trials are chunked
    import momentcalc.computations.attention_simulation as sim

    original = sim.CHUNK_DRAWS
    try:
        sim.CHUNK_DRAWS = 33 * 16 * 3  # three trials per chunk
        assert simulate_softmax(16, 1.0, 32, 50, 7) == pytest.approx(a, rel=1e-12)
    finally:
        sim.CHUNK_DRAWS = original
    assert (
        invoke("attention", "--seq-len", "32", "--seed", "3", "--json").stdout
        == invoke("attention", "--simulate", "--seq-len", "32", "--seed", "3", "--json").stdout
    )


def test_seq_len_reports_inputs_and_note():
    run = invoke("attention", "--seq-len", "16", "--trials", "10")
    assert run.code == 0
    assert "Monte Carlo" in run.stdout
    doc = invoke("attention", "--seq-len", "16", "--trials", "10", "--json").json()
    assert doc["inputs"] == {
        "d": 64.0,
        "q_std": 1.0,
        "k_std": 1.0,
        "seq_len": 16.0,
        "seed": 0.0,
        "trials": 10.0,
    }


def test_numpy_and_sympy_only_on_their_paths():
    run = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "momentcalc", "attention", "--json"],
        capture_output=True,
        text=True,
        check=True,
    )
    imported = {line.split("|")[-1].strip() for line in run.stderr.splitlines() if "|" in line}
    assert not imported & {"numpy", "sympy", "scipy"}
    assert '"logit_std"' in run.stdout


@pytest.mark.parametrize(
    "args,fragment",
    [
        (["--d", "0"], "--d must be a whole number >= 1, got 0"),
        (["--d", "2.5"], "--d must be a whole number >= 1, got 2.5"),
        (["--q-std", "0"], "--q-std must be greater than 0"),
        (["--k-std", "-1"], "--k-std must be greater than 0"),
        (["--simulate"], "--simulate needs --seq-len"),
        (["--seed", "1"], "--seed applies only to the simulation"),
        (["--trials", "10"], "--trials applies only to the simulation"),
        (["--seq-len", "0"], "--seq-len must be a whole number >= 1"),
        (["--seq-len", "8", "--trials", "1"], "--trials must be a whole number >= 2"),
        (["--seq-len", "8", "--seed", "-1"], "--seed must be a whole number >= 0"),
        (["--seq-len", "100000", "--d", "1000"], "too large to simulate"),
        (["--seq-len", "1000", "--d", "1000", "--trials", "10000"], "--trials is too large"),
        (["--seq-len", "8", "--q-std", "1e400"], "needs sqrt(d)*q_std*k_std from 1e-100 to 1e100"),
        (
            ["--seq-len", "8", "--q-std", "1e-90", "--k-std", "1e-20"],
            "needs sqrt(d)*q_std*k_std from 1e-100 to 1e100",
        ),
    ],
)
def test_bad_input_exits_2_with_one_line(args, fragment):
    run = invoke("attention", *args)
    assert run.code == 2, run.stdout
    assert run.stdout == ""
    assert fragment in run.stderr
    assert run.stderr.count("\n") == 1 and "Traceback" not in run.stderr


def test_api_raises_input_error():
    with pytest.raises(InputError, match="^d must"):
        attention(d=0)
    with pytest.raises(InputError, match="^simulate needs seq_len"):
        attention(simulate=True)


@pytest.mark.parametrize(
    "d,q_std,k_std", [(64, "1", "1"), (60, "0.02", "1.5"), (768, "0.3", "0.7"), (2, "1e-30", "3")]
)
def test_certified_closed_forms_against_the_mpmath_route_at_50_digits(d, q_std, k_std):
    """Every closed form certified (exact, or a ball below half a unit of its last digit) and
    equal at 50 digits to mpmath at 80 digits."""
    from .certified_checks import assert_certified

    r = attention(d=d, q_std=q_std, k_std=k_std, seq_len=7, simulate=True, trials=10, digits=50)
    with mp.workdps(80):
        q, k, n = mpmath.mpf(q_std), mpmath.mpf(k_std), mpmath.mpf(d)
        want = {
            "logit_second_moment": n * q**2 * k**2,
            "logit_std": mpmath.sqrt(n) * q * k,
            "logit_range": 3 * mpmath.sqrt(n) * q * k,
            "scale": 1 / mpmath.sqrt(n),
            "scaled_logit_std": q * k,
            "uniform_weight": mpmath.mpf(1) / 7,
        }
    for name, value in want.items():
        assert assert_certified(r[name], 50) == to_decimal(value, 50), name
    simulated = [q for q in r.results if q.name not in want]
    assert simulated and not any(q.certified or q.error_bound is not None for q in simulated)


def test_certified_marker_only_without_the_simulation():
    assert invoke("attention").stdout.splitlines()[0].rstrip().endswith("certified")
    assert "certified" not in invoke("attention", "--seq-len", "8", "--trials", "10").stdout.splitlines()[0]
    results = invoke("attention", "--json", "--seq-len", "8", "--trials", "10").json()["results"]
    assert results["scale"]["certified"] is True and results["max_weight_scaled"]["certified"] is False
