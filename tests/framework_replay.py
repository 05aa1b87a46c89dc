"""Framework init calls replayed here in numpy, independently of momentcalc's catalog.

Each function follows the framework's source as written (PyTorch 2.8's torch/nn/init.py and
aten/src/ATen/native/cpu/DistributionTemplates.h; JAX's jax/_src/random and
jax/_src/nn/initializers.py): every parameter operation in the dtype the framework uses
(Python doubles, numpy.float32 for a float32 tensor's scalars). What comes back is the model the
`initializer` command describes (parameters rounded as the call rounds them, samples exact):

    ("normal", mean, std)                      N(mean, std²)
    ("uniform", low, high)                     U(low, high)
    ("erfinv", mean, scale, u0, u1, ca, cb, atoms)
        mean + scale·clamp(erfinv(U), ca, cb), U uniform on [u0, u1] with probability
        1 − sum(p), else the atoms (value, p)

and ``model_moments`` integrates it by mpmath quadrature over U (not the closed forms the
command evaluates). ``torch_trunc_normal_grid`` enumerates PyTorch's whole float32 generator
grid for trunc_normal_ (2^24 values), as far as numpy can emulate its float32 steps.
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy
import itertools

F32 = numpy.float32
GRID = 2**24  # PyTorch's CPU uniform_ for float32: 24 random bits


def exact(x) -> Fraction:
    return Fraction(float(x))


def torch_gain(nonlinearity: str, a: float) -> float:
    """torch.nn.init.calculate_gain as written (Python doubles)."""
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        return math.sqrt(2.0 / (1 + a**2))
    if nonlinearity == "selu":
        return 3.0 / 4
    return 1


def torch_normal(mean: float, std: float):
    """tensor.normal_(mean, std): normal_kernel casts both to float (normal_fill)."""
    return ("normal", exact(F32(mean)), exact(F32(std)))


def torch_uniform(bound: float):
    """tensor.uniform_(-bound, bound): uniform_kernel casts from and to to float."""
    return ("uniform", exact(F32(-bound)), exact(F32(bound)))


def torch_kaiming(family: str, fan: int, a=0, nonlinearity="leaky_relu"):
    std = torch_gain(nonlinearity, a) / math.sqrt(fan)
    return torch_normal(0.0, std) if family == "normal" else torch_uniform(math.sqrt(3.0) * std)


def torch_xavier(family: str, fan_in: int, fan_out: int, gain=1.0):
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return torch_normal(0.0, std) if family == "normal" else torch_uniform(math.sqrt(3.0) * std)


def torch_trunc_normal(mean=0.0, std=1.0, a=-2.0, b=2.0):
    """_no_grad_trunc_normal_ (PyTorch 2.8): norm_cdf in doubles, uniform_ on the float32 tensor
    (from + x·(to − from) in float32, x = k·2^-24), erfinv_, mul_(std·sqrt(2)), add_(mean),
    clamp_(a, b), each scalar as float32."""

    def norm_cdf(x):
        return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0

    low, up = norm_cdf((a - mean) / std), norm_cdf((b - mean) / std)
    start, stop = F32(2 * low - 1), F32(2 * up - 1)
    width = F32(stop - start)
    scale, shift = F32(std * math.sqrt(2.0)), F32(mean)
    ca, cb = F32(a), F32(b)
    top = numpy.arange(GRID - 64, GRID, dtype=numpy.float32) * F32(2.0**-24)
    top_values = (top * width).astype(F32) + start
    at_one = int(numpy.count_nonzero(top_values >= 1))
    p_low = Fraction(1, GRID) if start == -1 else Fraction(0)
    p_high = Fraction(at_one, GRID)
    atoms = [(exact(ca), p_low)] if p_low else []
    if p_high:
        atoms.append((exact(cb), p_high))
    u0 = exact(start) + p_low * exact(width)
    u1 = exact(start) + (1 - p_high) * exact(width)
    to_units = lambda c: (exact(c) - exact(shift)) / exact(scale)
    return ("erfinv", exact(shift), exact(scale), u0, u1, to_units(ca), to_units(cb), atoms)


def model_moments(model, dps=40):
    """(mean, std) of a model above, by mpmath: closed forms for normal and uniform, tanh-sinh
    quadrature over U (split where the clamps bite) for erfinv."""
    with mpmath.workdps(dps):
        mp = lambda x: mpmath.mpf(x.numerator) / x.denominator
        if model[0] == "normal":
            return mp(model[1]), mp(model[2])
        if model[0] == "uniform":
            low, high = mp(model[1]), mp(model[2])
            return (low + high) / 2, (high - low) / mpmath.sqrt(12)
        _, m, s, u0, u1, ca, cb, atoms = model
        m, s, u0, u1 = mp(m), mp(s), mp(u0), mp(u1)
        ca, cb = mp(ca), mp(cb)
        cuts = [u0] + [c for c in (mpmath.erf(ca), mpmath.erf(cb)) if u0 < c < u1] + [u1]

        def value(u):
            return m + s * min(max(mpmath.erfinv(u), ca), cb)

        rest = 1 - sum(p for _, p in atoms)

        def moment(k):
            integral = sum(mpmath.quad(lambda u: value(u) ** k, [x, y]) for x, y in itertools.pairwise(cuts))
            return mp(rest) * integral / (u1 - u0) + sum(mp(p) * mp(x) ** k for x, p in atoms)

        first = moment(1)
        return first, mpmath.sqrt(moment(2) - first**2)


def torch_trunc_normal_grid(mean=0.0, std=1.0, a=-2.0, b=2.0):
    """All 2^24 values of PyTorch 2.8's float32 trunc_normal_ path, numpy-emulated: the grid
    exactly as uniform_ computes it, erfinv in double rounded to float32 (PyTorch's float32
    erfinv differs from that by an ulp or so), then the float32 mul, add and clamp."""
    from scipy.special import erfinv

    def norm_cdf(x):
        return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0

    low, up = norm_cdf((a - mean) / std), norm_cdf((b - mean) / std)
    start, stop = F32(2 * low - 1), F32(2 * up - 1)
    width = F32(stop - start)
    x = numpy.arange(GRID, dtype=numpy.float32) * F32(2.0**-24)
    u = (x * width).astype(F32) + start
    with numpy.errstate(divide="ignore", invalid="ignore"):
        z = erfinv(u.astype(numpy.float64)).astype(F32)
    values = z * F32(std * math.sqrt(2.0)) + F32(mean)
    return numpy.clip(values, F32(a), F32(b))
