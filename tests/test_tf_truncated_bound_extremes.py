"""Review (review-tftrunc): the printed TensorFlow float32 bounds assume each output rounding errs by
at most u times the value (step 4 of box_muller_truncated), which fails when z * stddev underflows
(subnormal stddev: gradual underflow errs by up to 2^-150 absolutely) or overflows (|z| * stddev
above float32's largest finite value gives inf). Either the bound must widen or it must not print."""

from __future__ import annotations

import math

import numpy
import pytest

from momentcalc.computations.initializer import initializer

F32 = numpy.float32


def _group_values(groups: int, seed: int) -> numpy.ndarray:
    """TruncatedNormalDistribution<float>'s first 4 kept candidates of each group (full 2^23 grid,
    BoxMullerFloat in numpy float32), seeded uniform Philox words."""
    rng = numpy.random.default_rng(seed)
    words = rng.integers(0, 2**32, size=(groups, 12, 2), dtype=numpy.uint64).astype(numpy.uint32)
    ones = numpy.uint32(127 << 23)

    def uniform(x):
        return ((x & numpy.uint32(0x7FFFFF)) | ones).view(F32) - F32(1)

    u1 = numpy.maximum(uniform(words[..., 0]), F32(1.0e-7))
    v1 = (2.0 * math.pi * uniform(words[..., 1]).astype(numpy.float64)).astype(F32)
    r = numpy.sqrt(F32(-2) * numpy.log(u1))
    stream = numpy.stack([(numpy.sin(v1) * r).astype(F32), (numpy.cos(v1) * r).astype(F32)], axis=2)
    stream = stream.reshape(groups, 24)
    kept = numpy.abs(stream) < F32(2)
    order = numpy.cumsum(kept, axis=1)
    assert (order[:, -1] >= 4).all()
    return stream[kept & (order <= 4)]


def test_subnormal_stddev_bound_covers_the_rounding():
    """stddev = 1e-44 (float32 7 * 2^-149): the outputs are whole multiples of 2^-149, whose std
    exceeds stddev * std(z) by 0.135 %; a true bound B gives |std(real) - stddev std(z)| <= 2 B."""
    result = initializer("tf.random.truncated_normal", arguments={"stddev": "1e-44"}, digits=15)
    if "output_std_bound" not in {q.name for q in result.results}:
        return
    bound = float(result.value("output_std_bound"))
    z = _group_values(250_000, 20261203)
    s = F32(1e-44)
    real = (z * s).astype(F32).astype(numpy.float64)
    exact = z.astype(numpy.float64) * float(s)
    assert abs(real.std() - exact.std()) <= 2 * bound


def test_overflowing_stddev_prints_no_finite_bound():
    """stddev = 3e38: |z| * stddev > 3.4028e38 for |z| > 1.134, those outputs are inf, the real
    std is not finite; no finite bound may be printed."""
    result = initializer("tf.random.truncated_normal", arguments={"stddev": "3e38"}, digits=15)
    z = _group_values(1_000, 1)
    with numpy.errstate(over="ignore"):
        assert numpy.isinf((z * F32(3e38)).astype(F32)).any()
    if "output_std_bound" in {q.name for q in result.results}:
        pytest.fail(f"finite output_std_bound {result.value('output_std_bound')} for an overflowing output")
