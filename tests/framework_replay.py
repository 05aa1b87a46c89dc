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

and ``model_moments`` integrates it by mpmath quadrature (over Z = erfinv(U); not the closed
forms the command evaluates). ``torch_trunc_normal_grid`` enumerates PyTorch's whole float32 generator
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
    """(mean, std) of a model above, by mpmath: closed forms for normal and uniform; for erfinv,
    tanh-sinh quadrature over Z = erfinv(U) (U uniform on [u0, u1] is Z with density
    e^(-z^2)/sqrt(pi) / ((u1 - u0)/2) on [erfinv(u0), erfinv(u1)]), split where the clamps bite.
    (Over U itself, each node costs an erfinv by root finding: 6 s a model at 40 digits.)"""
    with mpmath.workdps(dps):

        def mp(x):
            return mpmath.mpf(x.numerator) / x.denominator if isinstance(x, Fraction) else +x

        if model[0] == "normal":
            return mp(model[1]), mp(model[2])
        if model[0] == "uniform":
            low, high = mp(model[1]), mp(model[2])
            return (low + high) / 2, (high - low) / mpmath.sqrt(12)
        _, m, s, u0, u1, ca, cb, atoms = model
        m, s, u0, u1 = mp(m), mp(s), mp(u0), mp(u1)
        ca, cb = mp(ca), mp(cb)
        z0, z1 = mpmath.erfinv(u0), mpmath.erfinv(u1)
        cuts = [z0] + [c for c in (ca, cb) if z0 < c < z1] + [z1]

        def value(z):
            return m + s * min(max(z, ca), cb)

        rest = 1 - sum(p for _, p in atoms)
        density = 2 / mpmath.sqrt(mpmath.pi)  # du = density * e^(-z^2) dz

        def moment(k):
            integral = sum(
                mpmath.quad(lambda z: value(z) ** k * density * mpmath.exp(-z * z), [x, y])
                for x, y in itertools.pairwise(cuts)
            )
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


JAX_BITS = {numpy.float32: 23, numpy.float64: 52}  # jax.random.uniform: nmant random bits


def jax_variance(scale, n, dtype=F32):
    """jax/_src/nn/initializers.py variance_scaling: jnp.array(scale / denominator, dtype)."""
    return dtype(float(scale) / float(n))


def jax_trunc_normal(stddev, lower=-2.0, upper=2.0, dtype=F32):
    """random.truncated_normal(key, lower, upper, shape, dtype) * stddev (stddev already in
    dtype), as jax/_src/random/core.py writes _truncated_normal and _uniform: sqrt2 in dtype,
    erf(lower / sqrt2) (here mpmath's erf rounded to dtype), floats·(b − a) + a on a grid of
    2^-nmant, sqrt2·erf_inv(u), clip to (nextafter(lower, inf), nextafter(upper, -inf))."""
    r = numpy.array(numpy.sqrt(2), dtype)
    lo, up = dtype(lower), dtype(upper)

    def erf(x):
        with mpmath.workdps(60):
            return dtype(float(mpmath.erf(mpmath.mpf(float(x)))))

    a, b = erf(lo / r), erf(up / r)
    width = dtype(b - a)
    clip_lo, clip_hi = numpy.nextafter(lo, dtype(numpy.inf)), numpy.nextafter(up, dtype(-numpy.inf))
    bits = JAX_BITS[dtype]
    top = numpy.arange(2**bits - 64, 2**bits, dtype=numpy.float64).astype(dtype) * dtype(2.0**-bits)
    p_high = Fraction(int(numpy.count_nonzero((top * width).astype(dtype) + a >= 1)), 2**bits)
    p_low = Fraction(1, 2**bits) if a == -1 else Fraction(0)
    std = exact(stddev)
    atoms = [(std * exact(c), p) for c, p in ((clip_lo, p_low), (clip_hi, p_high)) if p]
    u0 = exact(a) + p_low * exact(width)
    u1 = min(exact(a) + (1 - p_high) * exact(width), Fraction(1))
    return (
        "erfinv",
        Fraction(0),
        std * exact(r),
        u0,
        u1,
        exact(clip_lo) / exact(r),
        exact(clip_hi) / exact(r),
        atoms,
    )


def jax_normal(stddev, dtype=F32):
    """random.normal(key, shape, dtype) * stddev: np.array(np.sqrt(2), dtype) * erf_inv(u), u
    uniform: N(0, (stddev·sqrt2_dtype/sqrt(2))²), the std as an mpf at 80 digits."""
    with mpmath.workdps(80):
        r = exact(numpy.array(numpy.sqrt(2), dtype))
        scale = exact(stddev) * r
        std = mpmath.mpf(scale.numerator) / scale.denominator / mpmath.sqrt(2)
    return ("normal", Fraction(0), std)


def jax_trunc_normal_grid(stddev, lower=-2.0, upper=2.0):
    """All 2^23 float32 values of random.truncated_normal(lower, upper) * stddev, numpy-emulated
    (erf and erf_inv in double rounded to float32; JAX's own differ by an ulp or so)."""
    from scipy.special import erf, erfinv

    dtype = F32
    r = numpy.array(numpy.sqrt(2), dtype)
    lo, up = dtype(lower), dtype(upper)
    a, b = dtype(erf(float(lo / r))), dtype(erf(float(up / r)))
    floats = numpy.arange(2**23, dtype=numpy.float64).astype(dtype) * dtype(2.0**-23)
    u = numpy.maximum(a, (floats * (b - a)).astype(dtype) + a)
    with numpy.errstate(divide="ignore", invalid="ignore"):
        out = r * erfinv(u.astype(numpy.float64)).astype(dtype)
    out = numpy.clip(out, numpy.nextafter(lo, dtype(numpy.inf)), numpy.nextafter(up, dtype(-numpy.inf)))
    return out * dtype(stddev)
