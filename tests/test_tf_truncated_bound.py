"""TensorFlow's float32 truncated normal against the bound on its distance from the model.

The replay here follows TensorFlow's source as written (tensorflow/core/lib/random/
random_distributions_utils.h, BoxMullerFloat; random_distributions.h,
TruncatedNormalDistribution<float>; random_ops.py, rnd * stddev + mean), in numpy float32, over
every pair (u1, u2) of a smaller grid of 2^bits values each, and takes the group law of the
rejection loop (the first n kept candidates of the pairs f0, f1, f0', f1', ...) from the
distribution of the number kept per pair. A seeded simulation of the loop itself checks that law.
"""

from __future__ import annotations

import dataclasses
import math

import mpmath
import numpy
import pytest
from flint import arb

from momentcalc.catalog.initializers import BY_NAME
from momentcalc.computations.box_muller_truncated import truncated_box_muller_bounds
from momentcalc.computations.initializer import initializer
from momentcalc.engine import normal_balls
from momentcalc.engine.balls import arb_precision

F32 = numpy.float32


def candidates(bits: int, k=None, j=None):
    """BoxMullerFloat's two candidates for u1 = k/N and u2 = j/N (all pairs when k, j are None),
    as TensorFlow computes them in float32: u1 raised to 1.0e-7f, v1 = 2.0f * M_PI * u2 (a double
    product rounded to float), r = sqrt(-2 log u1), f0 = sin(v1) r, f1 = cos(v1) r."""
    n = 2**bits
    if k is None:
        k, j = (a.ravel() for a in numpy.meshgrid(numpy.arange(n), numpy.arange(n), indexing="ij"))
    u1 = numpy.maximum((k / n).astype(F32), F32(1.0e-7))
    v1 = (2.0 * math.pi * (j / n).astype(F32).astype(numpy.float64)).astype(F32)
    r = numpy.sqrt(F32(-2.0) * numpy.log(u1))
    return (numpy.sin(v1) * r).astype(F32), (numpy.cos(v1) * r).astype(F32)


def group_weights(kept_per_pair: numpy.ndarray, outputs: int) -> tuple[float, float]:
    """T = sum_t P(fewer than n kept before pair t), D = sum_t P(exactly n - 1 kept before)."""
    law = numpy.array([numpy.mean(kept_per_pair == i) for i in range(3)])
    before = numpy.zeros(outputs)
    before[0] = 1.0  # P(N_<1 = i), i < n
    total = last = 0.0
    for _ in range(10_000):
        if before.sum() < 1e-18:
            break
        total += before.sum()
        last += before[outputs - 1]
        after = before * law[0]
        after[1:] += before[:-1] * law[1]
        after[2:] += before[:-2] * law[2]
        before = after
    return total, last


def replay(bits: int, stddev: float, mean: float, outputs: int = 4) -> tuple[float, float]:
    """Mean and std of a value drawn from a group of ``outputs`` outputs, every pair enumerated."""
    f0, f1 = candidates(bits)
    keep0, keep1 = numpy.abs(f0) < F32(2), numpy.abs(f1) < F32(2)
    s, m = F32(stddev), F32(mean)
    x0 = ((f0 * s).astype(F32) + m).astype(F32).astype(numpy.float64)
    x1 = ((f1 * s).astype(F32) + m).astype(F32).astype(numpy.float64)
    total, last = group_weights(keep0.astype(int) + keep1, outputs)
    both = keep0 & keep1

    def moment(power: int) -> float:
        size = f0.size
        kept = (numpy.sum(x0[keep0] ** power) + numpy.sum(x1[keep1] ** power)) / size
        return (total * kept - last * numpy.sum(x1[both] ** power) / size) / outputs

    assert abs(moment(0) - 1) < 1e-12  # the group law's mass is 1
    first = moment(1)
    return first, math.sqrt(moment(2) - first * first)


def bounds_at(bits: int, stddev: str, mean: str) -> tuple[float, float, float, float]:
    """The model's std and mean, and the bounds, for the call's Draw on a grid of 2^bits."""
    entry = BY_NAME["tf.random.truncated_normal"]
    draw = entry.rule({"stddev": _q(stddev), "mean": _q(mean), "dtype": "float32"}, None, None)
    assert draw.grid is not None
    draw = dataclasses.replace(draw, grid=dataclasses.replace(draw.grid, cells=2**bits))
    with arb_precision(120):
        mass, _shift, gamma = normal_balls.truncated_moments(draw.low, draw.high, 120)
        sigma = arb(draw.sigma[0][0].numerator) / draw.sigma[0][0].denominator
        found = truncated_box_muller_bounds(draw, sigma, mass, gamma)
        std = sigma * gamma.sqrt()
        return (
            float(std.mid()),
            float(draw.mean),
            float(found["output_std_bound"].upper()),
            float(found["output_mean_bound"].upper()),
        )


def _q(text: str):
    from fractions import Fraction

    return Fraction(text)


@pytest.mark.parametrize(
    "bits, stddev, mean",
    [
        (8, "0.02", "0"),
        pytest.param(11, "1", "0.5", marks=pytest.mark.reference),
        pytest.param(10, "0.05", "-3", marks=pytest.mark.reference),
    ],
)
def test_whole_subgrid_within_the_bound(bits, stddev, mean):
    """Every pair of a 2^bits grid replayed in float32: the group law's std and mean lie within
    the bounds computed for that grid (the same formulas the call uses at 2^23)."""
    want_std, want_mean, std_bound, mean_bound = bounds_at(bits, stddev, mean)
    for outputs in (1, 4):
        got_mean, got_std = replay(bits, float(stddev), float(mean), outputs)
        assert abs(got_std - want_std) <= std_bound
        assert abs(got_mean - want_mean) <= mean_bound


@pytest.mark.parametrize("outputs", [1, 4])
def test_group_law_against_a_simulated_loop(outputs):
    """TruncatedNormalDistribution's loop simulated (seeded) on a coarse grid of 2^3 values, where
    f0 and f1 of a pair are far from independent: the first ``outputs`` kept candidates of each
    group have the second moment the enumeration's group law gives, within 5 standard errors; for
    the first kept candidate alone, the law of a kept candidate is rejected by more than that."""
    bits, groups, pairs = 3, 40_000, 10
    rng = numpy.random.default_rng(20261203)
    k = rng.integers(0, 2**bits, size=(groups, pairs))
    j = rng.integers(0, 2**bits, size=(groups, pairs))
    f0, f1 = candidates(bits, k, j)
    stream = numpy.stack([f0, f1], axis=2).reshape(groups, 2 * pairs).astype(numpy.float64)
    kept = numpy.abs(stream) < 2
    order = numpy.cumsum(kept, axis=1)
    assert (order[:, -1] >= outputs).all()
    values = stream[kept & (order <= outputs)] ** 2
    simulated = values.mean()
    error = values.reshape(groups, outputs).mean(axis=1).std() / math.sqrt(groups)
    _mean, std = replay(bits, 1.0, 0.0, outputs)
    assert abs(simulated - std**2) < 5 * error
    if outputs == 1:
        g0, g1 = candidates(bits)
        naive = numpy.concatenate([g0[numpy.abs(g0) < 2], g1[numpy.abs(g1) < 2]]).astype(numpy.float64)
        assert abs(simulated - numpy.mean(naive**2)) > 5 * error


def test_the_calls_print_the_bound():
    """The five TensorFlow / Keras truncated calls print both bounds, rounded up, and name the
    sampler's assumption; the bound is below 1e-4 of the std at 2^23."""
    cases = [
        ("tf.random.truncated_normal", {"stddev": "0.02"}, {}),
        ("tf.keras.initializers.TruncatedNormal", {}, {}),
        ("tf.keras.initializers.HeNormal", {}, {"fan_in": 256}),
        ("tf.keras.initializers.LecunNormal", {}, {"fan_in": 256}),
        ("tf.keras.initializers.VarianceScaling", {}, {"fan_in": 256, "fan_out": 64}),
    ]
    for name, arguments, fans in cases:
        result = initializer(name, arguments=arguments, digits=15, **fans)
        for key in ("output_std_bound", "output_mean_bound"):
            assert result[key].certified and result[key].rounding == "up"
        ratio = float(result.value("output_std_bound")) / float(result.value("effective_std"))
        assert 1e-6 < ratio < 1e-4
        assert any("BoxMullerFloat in TruncatedNormalDistribution" in note for note in result.notes)
        assert not any("not bounded for this sampler" in note for note in result.notes)


def untruncated_bounds_at(bits: int) -> tuple[float, float, float]:
    """Keras's untruncated normal (VarianceScaling, fan_in 768): the model's std and the bounds
    for its Draw on a grid of 2^bits."""
    from momentcalc.computations.box_muller_truncated import tf_box_muller_bounds

    entry = BY_NAME["tf.keras.initializers.VarianceScaling"]
    arguments = {"scale": _q("1"), "mode": "fan_in", "distribution": "untruncated_normal", "dtype": "float32"}
    draw = entry.rule(arguments, _q("768"), _q("768"))
    assert draw.grid is not None and draw.family == "normal"
    draw = dataclasses.replace(draw, grid=dataclasses.replace(draw.grid, cells=2**bits))
    with arb_precision(120):
        sigma = arb(draw.sigma[0][0].numerator) / draw.sigma[0][0].denominator
        found = tf_box_muller_bounds(draw, sigma)
        return (
            float(sigma.mid()),
            float(found["output_std_bound"].upper()),
            float(found["output_mean_bound"].upper()),
        )


@pytest.mark.parametrize("bits", [10, pytest.param(12, marks=pytest.mark.reference)])
def test_untruncated_subgrid_within_the_bound(bits):
    """TensorFlow's NormalDistribution<float> (both candidates of every pair kept) on every pair
    of a 2^bits grid, replayed in float32 with rnd * stddev + 0: within the bounds for that grid."""
    sigma, std_bound, mean_bound = untruncated_bounds_at(bits)
    f0, f1 = candidates(bits)
    s = F32(sigma)
    values = numpy.concatenate([(f0 * s).astype(F32), (f1 * s).astype(F32)]).astype(numpy.float64)
    assert abs(values.std() - sigma) <= std_bound
    assert abs(values.mean()) <= mean_bound
    # the grid's own deficit is what the bound's first term holds: sqrt(rho) from the direct sum
    n = 2**bits
    u1 = numpy.maximum(numpy.arange(n) / n, float(F32(1.0e-7)))
    rho = numpy.mean(-numpy.log(u1))
    assert abs(values.std() / sigma - math.sqrt(rho)) < 1e-5


@pytest.mark.reference
def test_untruncated_grid_moment_at_full_size():
    """At N = 2^23 the grid's E[-log u1], summed directly in float64, is the rho the bound uses
    (its std term sigma |1 - sqrt(rho)| is the printed bound less the rounding)."""
    n = 2**23
    u1 = numpy.maximum(numpy.arange(n, dtype=numpy.float64) / n, float(F32(1.0e-7)))
    rho = float(numpy.mean(-numpy.log(u1)))
    with arb_precision(120):
        cells = arb(n)
        eps = arb(float(F32(1.0e-7)))
        want = (cells - 1) * cells.log() - cells.lgamma() - eps.log()
        assert abs(rho - float((want / cells).mid())) < 1e-12
    sigma, std_bound, _mean_bound = untruncated_bounds_at(23)
    assert sigma * abs(1 - math.sqrt(rho)) < std_bound < 1e-5 * sigma


@pytest.mark.parametrize("bits", [6, pytest.param(11, marks=pytest.mark.reference)])
def test_grid_sums_within_their_riemann_bounds(bits):
    """Step 1 of the bound alone: on the exact-arithmetic grid (float64, every pair), P(|f1| < 2),
    E[f1^2; |f1| < 2], P(both kept) and E[f1^2; both kept] lie within 5/N, 40/N, 9/N and 56/N of
    p, p gamma, p^2 and p^2 gamma (mpmath), and every odd moment is 0."""
    n = 2**bits
    k, j = (a.ravel() for a in numpy.meshgrid(numpy.arange(n), numpy.arange(n), indexing="ij"))
    u1 = numpy.maximum(k / n, float(F32(1.0e-7)))
    r = numpy.sqrt(-2 * numpy.log(u1))
    f0, f1 = r * numpy.sin(2 * numpy.pi * j / n), r * numpy.cos(2 * numpy.pi * j / n)
    keep0, keep1 = numpy.abs(f0) < 2, numpy.abs(f1) < 2
    both = keep0 & keep1
    p = float(mpmath.erf(mpmath.sqrt(2)))
    second = p - float(4 * mpmath.npdf(2))  # E[Z^2; |Z| < 2] = p - 2·2·phi(2)
    assert abs(keep1.mean() - p) <= 5 / n
    assert abs(numpy.mean(f1**2 * keep1) - second) <= 40 / n
    assert abs(both.mean() - p * p) <= 9 / n
    assert abs(numpy.mean(f1**2 * both) - p * second) <= 56 / n
    assert abs(numpy.mean(f1 * both)) < 1e-12 and abs(numpy.mean(f0 * keep0)) < 1e-12
