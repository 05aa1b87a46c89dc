"""initial-loss: E[log Σ e^{z_i}] for V iid N(0, S²) logits against independent routes — a 1-D
quadrature to 30 digits for V = 2 (log(e^{z₁} + e^{z₂}) = max + log1p(e^{−|z₁ − z₂|})), a 2-D one
for V = 3 (reference), a seeded Monte Carlo within its standard error — and the exact ends."""

from __future__ import annotations

import math

import mpmath
import pytest
from mpmath import mp

from momentcalc import initial_loss
from momentcalc.engine.precision import to_decimal
from tests.conftest import invoke


def two_classes(std: str) -> mpmath.mpf:
    """E[log(e^{z₁} + e^{z₂})], z iid N(0, S²): with d = z₁ − z₂ ~ N(0, 2S²), the mean of
    max(z₁, z₂) = (z₁ + z₂)/2 + |d|/2 is S/√π, plus E[log1p(e^{−|d|})]."""
    s = mpmath.mpf(std)
    sd = s * mpmath.sqrt(2)
    tail = mpmath.quad(
        lambda x: mpmath.log1p(mpmath.exp(-x)) * 2 * mpmath.npdf(x, 0, sd), [0, sd, 5 * sd, mpmath.inf]
    )
    return s / mpmath.sqrt(mpmath.pi) + tail


# One route (Gumbel's max trick, trapezoidal rules): an ordinary, a wide and a tiny std by default;
# 0.3 and 50 (0.7 s of CPU) with -m reference
@pytest.mark.parametrize(
    "std",
    ["1", pytest.param("0.3", marks=pytest.mark.reference), "7"]
    + [pytest.param("50", marks=pytest.mark.reference), "0.000001"],
)
def test_two_classes_against_quadrature_to_30_digits(std):
    result = initial_loss(vocab=2, logit_std=std, digits=30)
    with mp.workdps(60):
        want = two_classes(std)
        excess = want - mpmath.log(2)
    assert result["initial_loss"].decimal(30) == to_decimal(want, 30)
    assert result["excess"].decimal(30) == to_decimal(excess, 30)
    assert result["initial_loss"].certified


@pytest.mark.reference
def test_three_classes_against_a_double_quadrature():
    """V = 3: the mean z̄ splits off (log Σ e^{z_i} = z̄ + log Σ e^{z_i − z̄}); the rest is a 2-D
    integral over two independent contrasts."""
    std = "1.5"
    result = initial_loss(vocab=3, logit_std=std, digits=20)
    with mp.workdps(30):
        s = mpmath.mpf(std)
        # z - z̄ = s*(u*e1 + v*e2) with e1, e2 an orthonormal basis of the sum-zero plane
        e1 = [1 / mpmath.sqrt(2), -1 / mpmath.sqrt(2), 0]
        e2 = [1 / mpmath.sqrt(6), 1 / mpmath.sqrt(6), -2 / mpmath.sqrt(6)]

        def f(u, v):
            w = [s * (u * a + v * b) for a, b in zip(e1, e2)]
            m = max(w)
            return (m + mpmath.log(sum(mpmath.exp(x - m) for x in w))) * mpmath.npdf(u) * mpmath.npdf(v)

        want = mpmath.quad(f, [-mpmath.inf, 0, mpmath.inf], [-mpmath.inf, 0, mpmath.inf])
    assert abs(result.value("initial_loss") - want) < mpmath.mpf(10) ** -12


# (32000 logits, 0.55 s of CPU for 400 draws of them, with -m reference: 1000 is the large vocabulary
# of the default run)
@pytest.mark.parametrize(
    "vocab,std",
    [(1000, "3"), (100, "10"), pytest.param(32000, "1", marks=pytest.mark.reference), (50, "0.2")],
)
def test_monte_carlo_within_its_standard_error(vocab, std):
    import numpy as np

    rng = np.random.default_rng(20261202)
    trials = 4000 if vocab < 10000 else 400
    z = rng.standard_normal((trials, vocab)) * float(std)
    top = z.max(axis=1)
    losses = top + np.log(np.exp(z - top[:, None]).sum(axis=1))
    stderr = losses.std(ddof=1) / math.sqrt(trials)
    value = float(initial_loss(vocab=vocab, logit_std=std, digits=15).value("initial_loss"))
    assert abs(losses.mean() - value) < 4 * stderr, (losses.mean(), value, stderr)


def test_the_exact_ends():
    one = initial_loss(vocab=1, logit_std=5)
    assert one["initial_loss"].exact == 0 and one["small_std_approximation"].exact == 12.5
    flat = initial_loss(vocab=32000, logit_std=0, digits=30)
    with mp.workdps(50):
        assert flat["initial_loss"].decimal(30) == to_decimal(mpmath.log(32000), 30)
    assert flat["excess"].exact == 0


@pytest.mark.parametrize("std", ["0.5", "2", "5", "20"])
def test_jensen_brackets_the_excess(std):
    """0 ≤ E[log mean e^{z}] ≤ log E[e^{z}] = S²/2; and past √(2 ln V) the excess is far below S²/2."""
    result = initial_loss(vocab=50257, logit_std=std, digits=10)
    excess = result.value("excess")
    assert 0 < excess < mpmath.mpf(std) ** 2 / 2
    if float(std) > 2 * math.sqrt(2 * math.log(50257)):
        assert excess < mpmath.mpf(std) ** 2 / 4


def test_small_std_series_and_integral_agree():
    """Near S = 1e-3 the excess may come from either route; they agree to the digits printed."""
    from momentcalc.engine.logsumexp import expected_logsumexp, small_std_excess
    from momentcalc.engine.balls import arb_precision
    from fractions import Fraction
    from flint import arb

    s = Fraction(1, 2000)
    with arb_precision(120):
        series = small_std_excess(100, s)
        integral = expected_logsumexp(100, s, 110) - arb(100).log()
        assert series.overlaps(integral)
        assert series.rad() < 1e-5 * series.mid() and integral.rad() < 1e-25


def test_the_command_line():
    run = invoke("initial-loss", "--vocab", "32128", "--logit-std", "22.6", "--json")
    assert run.code == 0, run.stderr
    doc = run.json()
    assert doc["results"]["initial_loss"]["decimal"].startswith("93.49")
    assert any("sqrt(2 ln" in note for note in doc["notes"])
    for bad, option in (
        (["--vocab", "0"], "--vocab"),
        (["--vocab", "1.5"], "--vocab"),
        (["--logit-std", "-1"], "--logit-std"),
    ):
        run = invoke("initial-loss", *bad)
        assert run.code == 2 and option in run.stderr and run.stdout == ""
