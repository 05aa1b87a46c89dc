"""Framework initializers as data: what each call samples, read from the framework's own source.

One ``Initializer`` per name a user writes (``torch.nn.init.trunc_normal_``), with its arguments
as the framework spells them and with the framework's defaults, the framework version and the
source file its semantics were read from, and a ``rule``: a function from the resolved
arguments (and the layer's fans) to a ``Draw``, the distribution the call actually produces.
Rules are shared by the entries that sample alike (``variance_scaling`` serves Keras's
``VarianceScaling``, ``HeNormal``, ``LecunNormal`` …, each with its fixed arguments); nothing
here branches on an initializer's name.

Model (the exact-arithmetic model): every parameter operation of the call replayed in the dtype
its source uses (Python doubles, then the sampler's float32 or the weights' dtype): Keras's,
TensorFlow's, JAX's and Flax's std (``scaling_factor``), PyTorch's gains, stds and bounds in
doubles cast to float32 by normal_/uniform_, PyTorch's trunc_normal_ (norm_cdf in doubles, the
float32 uniform ends and width, float32 std·sqrt(2), mean and clamp: ``torch_uniform_ends``) and
JAX's samplers (float32 sqrt(2), erf bounds, width and clip: ``jax_erfinv_draw``). The sampling
after the parameters is exact; the generator's grid and each value's float32 rounding are left
out (parts in 10^7 of the std in float32).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from fractions import Fraction
import math
import struct

from ..engine.numbers import Number, to_text
from ..errors import PrecisionError

# A positive real number as a product of rational powers of positive rationals:
# ((base, exponent), ...) means prod(base ** exponent). Exact, and cheap to evaluate as a ball.
Product = tuple[tuple[Fraction, Fraction], ...]

# A call's arguments as ``computations.initializer.resolve_arguments`` gives them to a rule:
# numbers as Numbers, choices (and a fixed formula such as sqrt(5)) as their text.
Arguments = Mapping[str, Number | str]

HALF = Fraction(1, 2)
INF = float("inf")

# The literal Keras and JAX divide by (Keras: keras/src/initializers/random_initializers.py,
# VarianceScaling.__call__; JAX: jax/_src/nn/initializers.py, variance_scaling), as written there.
# tests/test_initializer.py checks it is the text the verify registry holds for TensorFlow/Keras/JAX.
TRUNCATED_STD_LITERAL = ".87962566103423978"


def stored_as(text: str, dtype: str) -> Fraction:
    """The exact value of the decimal literal ``text`` once stored in ``dtype`` (float64 or
    float32; round to nearest even, as IEEE and numpy do)."""
    double = float(text)
    if dtype == "float64":
        return Fraction(double)
    import numpy

    return Fraction(float(numpy.float32(double)))


@dataclass(frozen=True)
class Argument:
    """One argument of the call: its name as the framework spells it, its default (exact
    decimal text, or a choice; None when the framework requires it), and for a choice the
    values the framework accepts."""

    name: str
    default: str | None
    choices: tuple[str, ...] = ()
    lower_case: bool = False  # the framework lower-cases the value before checking it
    aliases: Mapping[str, str] = field(default_factory=dict)  # accepted spellings -> canonical

    @property
    def is_choice(self) -> bool:
        return bool(self.choices)


@dataclass(frozen=True)
class Grid:
    """A sampler's grid: U takes the left ends of ``cells`` equal cells of [u_low, u_high], each
    real uniform within ``shift`` of its cell's left end; every later float operation rounds
    with unit roundoff ``unit`` and erfinv errs by at most ``ulps`` ulps (``assumption``)."""

    cells: int
    shift: Fraction
    unit: Fraction
    ulps: int
    assumption: str
    # inverse (one uniform through a monotone map), erfinv-normal (the same, the model's U on
    # [-1, 1] untruncated), or box-muller
    sampler: str = "inverse"


# By a grid's unit roundoff: its dtype's smallest normal and largest finite value (float32, float64).
FLOAT_RANGES = {
    Fraction(1, 2**24): (Fraction(1, 2**126), (2 - Fraction(1, 2**23)) * 2**127),
    Fraction(1, 2**53): (Fraction(1, 2**1022), (2 - Fraction(1, 2**52)) * 2**1023),
}


def flush_margin(grid: Grid) -> Fraction:
    """The absolute part of each output's float error, beyond the relative unit·|x| the bounds
    count: a product or sum that lands below the dtype's smallest normal is flushed to 0
    (TensorFlow runs its kernels with flush-to-zero) or rounded subnormally, at most that
    smallest normal each time, twice (the product with the std, the sum with the mean)."""
    return 2 * FLOAT_RANGES[grid.unit][0]


@dataclass(frozen=True)
class Draw:
    """The distribution a call produces.

    ``family`` normal: N(mean, sigma²); truncated_normal: N(mean, sigma²) kept on
    [mean + low·sigma, mean + high·sigma] (``low``/``high`` in units of sigma, ±inf allowed);
    uniform: U(mean − sqrt(3)·sigma, mean + sqrt(3)·sigma), so sigma is its std.
    ``nominal`` is the std the arguments name or the documentation promises."""

    family: str
    mean: Fraction
    sigma: Product
    nominal: Product
    low: Fraction | float = -INF
    high: Fraction | float = INF
    # Values the call produces with a positive probability outside the distribution above, as
    # (value, probability): PyTorch's trunc_normal_ clamps an erfinv of -1 (or 1) to a (or b).
    # The values are this mixture. ``family`` point: every value is ``mean``.
    atoms: tuple[tuple[Fraction, Fraction], ...] = ()
    notes: tuple[str, ...] = ()  # what this call's arguments make it do, in words
    # ``family`` erfinv (an inverse-CDF sampler, PyTorch's trunc_normal_ and JAX's normal and
    # truncated_normal): the values are mean + scale·clamp(erfinv(U), clamp_low, clamp_high), U
    # uniform on [u_low, u_high] (exact rationals: the uniform's ends as the call rounds them),
    # with probability 1 − sum(atoms) (the atoms take the rest); sigma = scale/sqrt(2).
    u_low: Fraction = Fraction(-1)
    u_high: Fraction = Fraction(1)
    scale: Fraction = Fraction(0)
    clamp_low: Fraction | float = -INF  # in units of erfinv(U): the value mean + scale·clamp_low
    clamp_high: Fraction | float = INF
    # The generator the model leaves out (family erfinv), for the bound on the distance to the
    # real output: the continuous part's grid cells (their left ends partition [u_low, u_high]),
    # the bound on each real uniform's distance from its cell's left end, the unit roundoff,
    # the erfinv accuracy assumed (ulps) and the assumption in words. None: not bounded.
    grid: Grid | None = None


class RuleError(ValueError):
    """An argument the framework would reject: ``argument`` as the framework spells it."""

    def __init__(self, argument: str, message: str) -> None:
        super().__init__(message)
        self.argument = argument
        self.message = message


@dataclass(frozen=True)
class Initializer:
    """One catalog entry (see the module docstring)."""

    name: str
    framework: str  # PyTorch, Keras, TensorFlow, JAX, Flax
    version: str  # the framework version whose source was read
    source: str  # the file (and function) whose behaviour the rule encodes
    arguments: tuple[Argument, ...]
    rule: Callable[[Arguments, Fraction | None, Fraction | None], Draw]
    fixed: Mapping[str, str] = field(default_factory=dict)  # arguments the call fixes (HeNormal: scale=2)
    fans: tuple[str, ...] = ()  # which of fan_in, fan_out the std depends on
    notes: tuple[str, ...] = ()  # what surprises users, in words
    # Notes that hold only for one family of Draw (VarianceScaling's truncation note is wrong for
    # its uniform); "{effective_ratio}" in a note is the computed ratio, to 4 digits.
    family_notes: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    @property
    def argument_names(self) -> tuple[str, ...]:
        return tuple(a.name for a in self.arguments)


# --- rules: arguments -> Draw ------------------------------------------------------------------


def _positive(args: Arguments, name: str) -> Fraction:
    value = args[name]
    assert isinstance(value, Fraction)
    if value <= 0:
        raise RuleError(name, f"{{{name}}} must be greater than 0, got {to_text(value)}")
    return value


def _fan(fan: Fraction | None, name: str) -> Fraction:
    if fan is None:
        raise RuleError(
            name,
            f"{{{name}}} is required: the std of this call depends on the layer's {name.replace('_', '-')}",
        )
    return fan


def _root(value: Fraction) -> Product:
    return ((value, HALF),)


def _held_float32(value: float, name: str, what: str) -> Fraction:
    """A double the call hands to a float32 sampler, as the float32 it becomes (positive, finite)."""
    held = float32(value)
    if held in (0.0, INF):
        raise RuleError(name, f"{{{name}}} gives a {what} of {value!r}, which float32 holds as {held!r}")
    return Fraction(held)


# PyTorch's normal_fill: Box-Muller on two float32 uniforms of 2^24 values each (AVX2: log256_ps,
# sincos256_ps; otherwise std::log, std::cos, std::sin in float).
TORCH_BOX_MULLER = Grid(
    2**24,
    Fraction(0),
    Fraction(1, 2**24),
    4,
    "PyTorch's float32 log, sin and cos within 4 ulp (Box-Muller in normal_fill)",
    "box-muller",
)
# TensorFlow's TruncatedNormalDistribution<float> (tensorflow/core/lib/random/random_distributions.h):
# BoxMullerFloat (random_distributions_utils.h) on two uint32 of Philox, Uint32ToFloat keeping 23
# bits (u = k/2^23, u1 raised to 1.0e-7f), v1 = 2.0f * M_PI * u2, sincosf, candidates kept while
# fabs(f) < kTruncateValue = 2.0f, then the op's rnd * stddev + mean (random_ops.py) in float32.
TF_TRUNCATED_BOX_MULLER = Grid(
    2**23,
    Fraction(0),
    Fraction(1, 2**24),
    4,
    "TensorFlow's float32 log, sin and cos within 4 ulp (BoxMullerFloat in TruncatedNormalDistribution) and "
    "Philox's words independent and uniform",
    "box-muller-truncated",
)
# TensorFlow's NormalDistribution<float> (random_distributions.h): BoxMullerFloat's grid on each pair
# of Philox words, both candidates kept, then the op's rnd * stddev + mean (stateless_random_ops.py).
TF_BOX_MULLER = replace(
    TF_TRUNCATED_BOX_MULLER,
    assumption="TensorFlow's float32 log, sin and cos within 4 ulp (BoxMullerFloat in NormalDistribution)",
    sampler="box-muller-tf",
)
TORCH_NORMAL_NOTE = (
    "normal_ on a contiguous float32 tensor of 16 or more elements (a weight) casts mean and std to float32 "
    "before Box-Muller; a smaller one samples in double: the std is then the double's"
)


def normal(args: Arguments, fan_in: Fraction | None, fan_out: Fraction | None) -> Draw:
    """N(mean, std²) (torch.nn.init.normal_ -> tensor.normal_(mean, std)): normal_kernel in
    aten/src/ATen/native/cpu/DistributionTemplates.h casts mean and std to float (normal_fill,
    float32 tensors of 16 or more elements) before Box-Muller: sigma is std as float32."""
    std = _positive(args, "std")
    held = _held_float32(double(std), "std", "std")
    mean = Fraction(float32(double(Fraction(args["mean"]))))
    return Draw(
        "normal",
        mean,
        ((held, Fraction(1)),),
        ((std, Fraction(1)),),
        notes=(TORCH_NORMAL_NOTE,),
        grid=TORCH_BOX_MULLER,
    )


def absolute_truncated_normal(args: Arguments, fan_in: Fraction | None, fan_out: Fraction | None) -> Draw:
    """N(mean, std²) kept on the *absolute* interval [a, b], as PyTorch 2.8's
    _no_grad_trunc_normal_ (torch/nn/init.py) computes it: l = norm_cdf((a−mean)/std) and u =
    norm_cdf((b−mean)/std) in double (math.erf), tensor.uniform_(2l−1, 2u−1) on the float32
    tensor (from, to cast to float32, values from + x·(to − from) with the width rounded to
    float32, x on a grid of 2^-24), erfinv_(), mul_(std·sqrt(2)) (the double product as the
    tensor's float32 scalar), add_(mean) (float32), clamp_(min=a, max=b) (a, b as float32).

    The model (family erfinv): U uniform on [from, from + width], the parameters exactly as
    rounded there, erfinv and the arithmetic after it exact, then the clamp: what the rounded
    width or the float32 std·sqrt(2) pushes past a or b becomes an atom at it. The grid's cells
    that float32 sends to −1 or 1 exactly (erfinv ±inf, clamped) are atoms too
    (``torch_uniform_ends``). When from and to are one float32 (±1) every value is a or b."""
    std = _positive(args, "std")
    mean, a, b = (Fraction(args[k]) for k in ("mean", "a", "b"))
    if not a < b:
        raise RuleError("a", f"{{a}} must be less than {{b}}, got a={to_text(a)} and b={to_text(b)}")
    sigma = ((std, Fraction(1)),)
    notes = []
    if mean < a - 2 * std or mean > b + 2 * std:
        notes.append("PyTorch warns here: mean is more than 2 std from [a, b]")
    mean_d, std_d, a_d, b_d = map(double, (mean, std, a, b))
    bottom, top, width, atom_low, atom_high = torch_uniform_ends(mean_d, std_d, a_d, b_d)
    if bottom == top:
        if abs(bottom) != 1:
            raise PrecisionError(
                f"PyTorch's float32 uniform_({bottom!r}, {top!r}) is one number: every value is the "
                "float32 erfinv of it, which momentcalc does not model"
            )
        value = Fraction(float32(b_d if top == 1 else a_d))
        end = "b" if top == 1 else "a"
        notes.append(
            f"degenerate: PyTorch computes norm_cdf((a-mean)/std) and norm_cdf((b-mean)/std) in double and "
            f"both are {(top + 1) / 2!r}, so uniform_ draws only {top!r}, erfinv gives "
            f"{'inf' if top == 1 else '-inf'} and the clamp sets every value to {end} = {to_text(value)}: "
            "std 0, not a truncated normal"
        )
        return Draw("point", value, sigma, sigma, (a - mean) / std, (b - mean) / std, notes=tuple(notes))
    scale = float32(std_d * math.sqrt(2.0))  # tensor.mul_(std * math.sqrt(2.0))
    shift = float32(mean_d)  # tensor.add_(mean)
    if scale in (0.0, INF) or shift in (INF, -INF):
        raise PrecisionError(
            f"PyTorch's float32 std*sqrt(2) is {scale!r} and its float32 mean {shift!r}: erfinv(U) times "
            "that is not a scaled normal (0 or inf, and NaN where erfinv is infinite); not modelled"
        )
    clamps = []
    for where in (a_d, b_d):
        held = float32(where)  # clamp_ compares with the bound as the float32 tensor holds it
        clamps.append(held if held in (INF, -INF) else (Fraction(held) - Fraction(shift)) / Fraction(scale))
    atoms = []
    for where, probability, name in ((a_d, atom_low, "a"), (b_d, atom_high, "b")):
        if probability:
            held = float32(where)
            if held in (INF, -INF):
                raise PrecisionError(
                    f"PyTorch's uniform_ draws exactly {'-1' if name == 'a' else '1'} with "
                    f"probability 2^-24, erfinv makes it infinite and the clamp to {name} = "
                    f"{to_text(Fraction(args[name]))} (beyond float32) leaves it infinite: the values' std is "
                    "infinite"
                )
            atoms.append((Fraction(held), probability))
            count = probability * 2**FLOAT32_RANDOM_BITS
            notes.append(
                f"PyTorch's CPU uniform_ (24 random bits, float32) draws exactly {'-1' if name == 'a' else '1'} "
                f"with probability {'' if count == 1 else f'{count}*'}2^-24 (1 in "
                f"{round(1 / probability):,} values); erfinv makes it {'-inf' if name == 'a' else 'inf'} and "
                f"the clamp sets it to {name} = {to_text(Fraction(held))}, "
                f"{to_text(abs(Fraction(held) - mean) / std)} std from the mean: effective_std and "
                "effective_mean include these values"
            )
    u_low = Fraction(bottom) + atom_low * Fraction(width)
    u_high = Fraction(bottom) + (1 - atom_high) * Fraction(width)
    cells = int((1 - atom_low - atom_high) * 2**FLOAT32_RANDOM_BITS)
    # uniform_: x*width rounded (|x*width| < 2: half an ulp <= 2^-24), + from rounded (|u| <= 1: <= 2^-25)
    grid: Grid | None = Grid(
        cells,
        Fraction(3, 2**25),
        Fraction(1, 2**24),
        1,
        "PyTorch's float32 erfinv within 1 ulp (0.54 ulp measured over its grid, PyTorch 2.13 CPU)",
    )
    if u_high > 1:
        grid = None  # the rounded width reaches past 1: erfinv is inf there, the clamp sets b
        if clamps[1] in (INF, -INF):
            raise PrecisionError(
                "PyTorch's float32 uniform_ reaches past 1 and b is beyond float32: the values' std is infinite"
            )
        excess = (u_high - 1) / Fraction(width)
        atoms = [(x, p) for x, p in atoms if x != Fraction(float32(b_d))]
        atoms.append((Fraction(float32(b_d)), atom_high + excess))
        u_high = Fraction(1)
    notes.append(
        f"replayed as PyTorch computes it: uniform_ on [{bottom!r}, {bottom!r} + {width!r}] (float32 ends "
        f"and width), erfinv, times the float32 std*sqrt(2) = {scale!r}, plus the float32 mean "
        f"{shift!r}, clamped to the float32 a and b (what lands beyond them is counted there)"
    )
    notes.append(
        "PyTorch 2.13.0 samples trunc_normal_ differently (rejection from normal_ or uniform_), "
        "not modelled here"
    )
    return Draw(
        "erfinv",
        Fraction(shift),
        ((Fraction(scale), Fraction(1)), (Fraction(2), -HALF)),
        sigma,
        atoms=tuple(atoms),
        notes=tuple(notes),
        u_low=u_low,
        u_high=u_high,
        scale=Fraction(scale),
        clamp_low=clamps[0],
        clamp_high=clamps[1],
        grid=grid,
    )


FLOAT32_RANDOM_BITS = 24  # PyTorch's uniform_real for float: (random & (2^24 - 1)) * 2^-24


def double(x: Fraction) -> float:
    """x as the Python float a caller passes (±inf beyond the double range, as float('1e400'))."""
    try:
        return float(x)
    except OverflowError:
        return INF if x > 0 else -INF


def float32(x: float) -> float:
    """x rounded to the nearest float32 (ties to even; ±inf beyond its range), as a Python float."""
    try:
        return struct.unpack("f", struct.pack("f", x))[0]
    except OverflowError:  # struct refuses a finite double beyond float32's range
        return INF if x > 0 else -INF


def torch_uniform_ends(
    mean: float, std: float, a: float, b: float
) -> tuple[float, float, float, Fraction, Fraction]:
    """(from, to, width, P(value = -1), P(value = 1)) of _no_grad_trunc_normal_'s uniform_ on a float32
    tensor: from/to = float32(2·norm_cdf(...) − 1) with norm_cdf in double as PyTorch writes it
    (math.erf), values from + k·2^-24·(to − from) in float32, k = 0 … 2^24 − 1."""

    def norm_cdf(x: float) -> float:
        return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0

    low, high = norm_cdf((a - mean) / std), norm_cdf((b - mean) / std)
    bottom, top = float32(2 * low - 1), float32(2 * high - 1)
    width = float32(top - bottom)
    unit = Fraction(1, 2**FLOAT32_RANDOM_BITS)
    at_low = unit if bottom == -1 else Fraction(0)  # k = 0 gives from exactly
    count = 0
    for k in range(
        2**FLOAT32_RANDOM_BITS - 1, 2**FLOAT32_RANDOM_BITS - 65, -1
    ):  # the top values that round to 1
        if float32(float32(k * 2.0**-FLOAT32_RANDOM_BITS * width) + bottom) >= 1:
            count += 1
        else:
            break
    return bottom, top, width, at_low, count * unit


def relative_truncated_normal(std_name: str, low: str | int, high: str | int) -> Callable[..., Draw]:
    """N(mean, stddev²) kept within [low, high] *stddevs* (tf.random.truncated_normal and
    Keras's TruncatedNormal: ±2, re-drawn outside; JAX's truncated_normal: [lower, upper]).
    stddev and mean are taken in the weights' dtype (``dtype``: TensorFlow converts them to
    it, JAX and Keras multiply a sample of that dtype by the Python float), so sigma is the
    stddev as that dtype holds it; nominal is the stddev as written."""

    def rule(args: Arguments, fan_in: Fraction | None, fan_out: Fraction | None) -> Draw:
        std = _positive(args, std_name)
        lo = Fraction(args[low]) if isinstance(low, str) else Fraction(low)
        hi = Fraction(args[high]) if isinstance(high, str) else Fraction(high)
        if not lo < hi:
            raise RuleError(
                str(low),
                f"{{{low}}} must be less than {{{high}}}, got {low}={to_text(lo)} and {high}={to_text(hi)}",
            )
        keep = float32 if args.get("dtype", "float32") == "float32" else float
        held = keep(double(std))
        if held in (0.0, INF):
            raise RuleError(
                std_name,
                f"{{{std_name}}} must be a positive finite {args.get('dtype', 'float32')}, "
                f"got {to_text(std)}",
            )
        mean = Fraction(keep(double(Fraction(args.get("mean", 0)))))
        grid = TF_TRUNCATED_BOX_MULLER if keep is float32 and (lo, hi) == (-2, 2) else None
        return Draw(
            "truncated_normal",
            mean,
            ((Fraction(held), Fraction(1)),),
            ((std, Fraction(1)),),
            lo,
            hi,
            grid=grid,
        )

    rule.__doc__ = relative_truncated_normal.__doc__
    return rule


def _nudge(x: float, up: bool, dtype: str) -> float:
    """numpy.nextafter(x, ±inf) in ``dtype`` (float32 by its bits; x finite)."""
    if dtype == "float64":
        return math.nextafter(x, INF if up else -INF)
    if x == 0:
        return (1 if up else -1) * 2.0**-149
    bits = struct.unpack("<I", struct.pack("<f", x))[0]
    bits += 1 if (x > 0) == up else -1  # away from 0 when moving outward, else toward it
    return struct.unpack("<f", struct.pack("<I", bits))[0]


def correctly_rounded_erf(x: float, dtype: str) -> float:
    """erf(x) rounded to the nearest ``dtype`` number (mpmath at 80 digits, then rounded once)."""
    import mpmath

    with mpmath.workdps(80):
        value = mpmath.erf(mpmath.mpf(x))
        with mpmath.workprec(24 if dtype == "float32" else 53):
            return float(+value)


JAX_GRID_BITS = {"float32": 23, "float64": 52}  # jax.random.uniform: nmant random mantissa bits


def jax_erfinv_draw(stddev: Fraction, lower: Fraction, upper: Fraction, dtype: str, nominal: Product) -> Draw:
    """jax.random.truncated_normal(key, lower, upper, shape, dtype) * stddev, as
    jax/_src/random (_truncated_normal, _uniform) computes it in ``dtype``: sqrt2 =
    np.array(np.sqrt(2), dtype); lower, upper converted to dtype; a = erf(lower / sqrt2), b =
    erf(upper / sqrt2) (division and erf in dtype: the erf modelled correctly rounded); u =
    uniform(minval=a, maxval=b): floats·(b − a) + a with the width in dtype, floats on a grid of
    2^-nmant; out = sqrt2·erf_inv(u) clipped to (nextafter(lower, +inf), nextafter(upper, −inf));
    then times ``stddev`` (the weights' dtype). Model (family erfinv): U uniform on [a, a + (b −
    a)], stddev·sqrt2·clamp(erfinv(U), clip/sqrt2); a grid point that dtype sends to ±1 exactly
    (erf_inv ±inf, clipped) is an atom."""
    keep = float32 if dtype == "float32" else float
    root2 = keep(math.sqrt(2.0))
    ends = [keep(double(lower)), keep(double(upper))]
    if any(e in (INF, -INF) for e in ends):
        raise RuleError(
            "lower", f"{{lower}} and {{upper}} must be finite {dtype} numbers (JAX clips to them)"
        )
    a, b = (correctly_rounded_erf(keep(e / root2), dtype) for e in ends)
    width = keep(b - a)
    if width <= 0:
        raise PrecisionError(
            f"JAX's {dtype} erf(lower/sqrt(2)) and erf(upper/sqrt(2)) are one number ({a!r}): every value is "
            "one erf_inv, which momentcalc does not model"
        )
    clips = (_nudge(ends[0], True, dtype), _nudge(ends[1], False, dtype))
    bits = JAX_GRID_BITS[dtype]
    unit = Fraction(1, 2**bits)
    at_low = unit if a == -1 else Fraction(0)
    count = 0
    for k in range(2**bits - 1, 2**bits - 65, -1):
        if keep(keep(k * 2.0**-bits * width) + a) >= 1:
            count += 1
        else:
            break
    at_high = count * unit
    scale = stddev * Fraction(root2)
    atoms = tuple((stddev * Fraction(c), p) for c, p in ((clips[0], at_low), (clips[1], at_high)) if p)
    u_low = Fraction(a) + at_low * Fraction(width)
    u_high = Fraction(a) + (1 - at_high) * Fraction(width)
    grid = None
    if u_high <= 1:
        roundoff = Fraction(1, 2 ** (bits + 1))  # float32: 2^-24, float64: 2^-53
        # u = floats*(b - a) + a: two roundings (<= 1.5 roundoff); JAX's own erf bounds within 4 ulp of
        # the correctly rounded ones (an ulp below 1 is at most 1 roundoff) move u by <= 4 roundoffs,
        # counted here as 16 to cover the width's rounding changing with them
        grid = Grid(
            int((1 - at_low - at_high) * 2**bits),
            roundoff * Fraction(3, 2) + 2 * 8 * roundoff,
            roundoff,
            128,
            f"JAX's {dtype} erf_inv within 128 ulp (64.7 measured in float32, JAX 0.10.2 CPU) and erf within 4 ulp",
        )
    u_high = min(u_high, Fraction(1))
    notes = (
        f"replayed as JAX computes it in {dtype}: uniform on [{a!r}, {a!r} + {width!r}] (erf of lower/sqrt(2) "
        f"and upper/sqrt(2), the width in {dtype}), erf_inv times {dtype} sqrt(2) = {root2!r}, clipped to "
        f"({clips[0]!r}, {clips[1]!r}), times the {dtype} std; JAX's own erf is modelled correctly rounded",
    )
    return Draw(
        "erfinv",
        Fraction(0),
        ((scale, Fraction(1)), (Fraction(2), -HALF)),
        nominal,
        atoms=atoms,
        notes=notes,
        u_low=u_low,
        u_high=u_high,
        scale=scale,
        clamp_low=Fraction(clips[0]) / Fraction(root2),
        clamp_high=Fraction(clips[1]) / Fraction(root2),
        grid=grid,
    )


def jax_normal_draw(stddev: Fraction, dtype: str, nominal: Product) -> Draw:
    """jax.random.normal(key, shape, dtype) * stddev (jax/_src/random, _normal_real:
    np.array(np.sqrt(2), dtype) * erf_inv(uniform(nextafter(-1, 0), 1))): N(0, (stddev·sqrt2_dtype
    / sqrt(2))²) in the model; the uniform's ends sit within one grid step of ±1 (left to the grid,
    like the grid's own extremes)."""
    root2 = Fraction(float32(math.sqrt(2.0)) if dtype == "float32" else math.sqrt(2.0))
    bits = JAX_GRID_BITS[dtype]
    roundoff = Fraction(1, 2 ** (bits + 1))
    # u = floats·(1 − lo) + lo with lo = −1 + roundoff and the width rounded to 2: the grid point
    # −1 + 2k·2^-bits moved up by exactly one roundoff (every step exact in dtype)
    grid = Grid(
        2**bits,
        roundoff,
        roundoff,
        128,
        f"JAX's {dtype} erf_inv within 128 ulp (64.7 measured in float32, JAX 0.10.2 CPU)",
        "erfinv-normal",
    )
    return Draw(
        "normal",
        Fraction(0),
        ((stddev * root2, Fraction(1)), (Fraction(2), -HALF)),
        nominal,
        scale=stddev * root2,
        grid=grid,
        notes=(
            f"JAX's normal is {dtype} sqrt(2) = {float(root2)!r} times erf_inv of a uniform: std times "
            f"{dtype} sqrt(2)/sqrt(2); the uniform's ends nextafter(-1, 0) and 1 lie within a grid step of "
            "-1 and 1 and are left to the grid",
        ),
    )


def jax_truncated_normal(args: Arguments, fan_in: Fraction | None, fan_out: Fraction | None) -> Draw:
    """jax.nn.initializers.truncated_normal(stddev, dtype, lower, upper): random.truncated_normal(key,
    lower, upper, shape, dtype) * jnp.array(stddev, dtype) (``jax_erfinv_draw``)."""
    std = _positive(args, "stddev")
    lower, upper = Fraction(args["lower"]), Fraction(args["upper"])
    if not lower < upper:
        raise RuleError(
            "lower",
            f"{{lower}} must be less than {{upper}}, got lower={to_text(lower)} and upper={to_text(upper)}",
        )
    dtype = str(args["dtype"])
    keep = float32 if dtype == "float32" else float
    held = keep(double(std))
    if held in (0.0, INF):
        raise RuleError("stddev", f"{{stddev}} must be a positive finite {dtype}, got {to_text(std)}")
    return jax_erfinv_draw(Fraction(held), lower, upper, dtype, ((std, Fraction(1)),))


def torch_gain_squared(nonlinearity: str, a_squared: Fraction) -> Fraction:
    """calculate_gain(nonlinearity, a)², exactly (torch/nn/init.py): 1 for the linear maps and
    sigmoid, (5/3)² for tanh, 2 for relu, 2/(1 + a²) for leaky_relu, (3/4)² for selu."""
    gains = {
        "tanh": Fraction(25, 9),
        "relu": Fraction(2),
        "leaky_relu": 2 / (1 + a_squared),
        "selu": Fraction(9, 16),
    }
    return gains.get(nonlinearity, Fraction(1))


def torch_gain(nonlinearity: str, a: float) -> float:
    """calculate_gain(nonlinearity, a) in Python doubles, as torch/nn/init.py computes it
    (calculate_gain: 1, 5.0 / 3, math.sqrt(2.0), math.sqrt(2.0 / (1 + negative_slope**2)),
    3.0 / 4)."""
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        return math.sqrt(2.0 / (1 + a**2))
    if nonlinearity == "selu":
        return 3.0 / 4
    return 1.0


TORCH_NONLINEARITIES = (
    "linear",
    "conv1d",
    "conv2d",
    "conv3d",
    "conv_transpose1d",
    "conv_transpose2d",
    "conv_transpose3d",
    "sigmoid",
    "tanh",
    "relu",
    "leaky_relu",
    "selu",
)


def kaiming(family: str) -> Callable[..., Draw]:
    """std = gain / sqrt(fan_mode) (torch kaiming_normal_, kaiming_uniform_ with bound
    sqrt(3)·std); nominal: that std, as the documentation states it. sigma: the call's own
    doubles (gain = calculate_gain(...), std = gain / math.sqrt(fan), bound = math.sqrt(3.0) *
    std) as float32: normal_ casts std, uniform_ casts -bound and bound."""

    def rule(args: Arguments, fan_in: Fraction | None, fan_out: Fraction | None) -> Draw:
        mode = str(args["mode"])
        fan = _fan(fan_in if mode == "fan_in" else fan_out, mode)
        nonlinearity = str(args["nonlinearity"])
        variance = torch_gain_squared(nonlinearity, Fraction(args["a"]) ** 2) / fan
        std = torch_gain(nonlinearity, double(Fraction(args["a"]))) / math.sqrt(double(fan))
        return torch_draw(family, std, _root(variance), mode)

    rule.__doc__ = kaiming.__doc__
    return rule


def torch_draw(family: str, std: float, nominal: Product, name: str) -> Draw:
    """normal_(0, std) or uniform_(-bound, bound) with bound = math.sqrt(3.0) * std, both in
    the call's doubles, then float32 (the sampler's cast)."""
    if family == "normal":
        held = _held_float32(std, name, "std")
        return Draw(
            "normal",
            Fraction(0),
            ((held, Fraction(1)),),
            nominal,
            notes=(TORCH_NORMAL_NOTE,),
            grid=TORCH_BOX_MULLER,
        )
    bound = _held_float32(math.sqrt(3.0) * std, name, "uniform bound")
    grid = Grid(
        2**FLOAT32_RANDOM_BITS,
        Fraction(0),
        Fraction(1, 2**24),
        3,
        "IEEE float32 arithmetic only (uniform_: x*(to - from) + from, x on a grid of 2^-24, each rounded)",
    )
    return Draw("uniform", Fraction(0), ((bound, Fraction(1)), (Fraction(3), -HALF)), nominal, grid=grid)


def xavier(family: str) -> Callable[..., Draw]:
    """std = gain·sqrt(2 / (fan_in + fan_out)) (torch xavier_normal_, xavier_uniform_ with bound
    sqrt(3)·std): gain * math.sqrt(2.0 / float(fan_in + fan_out)) in doubles, then float32."""

    def rule(args: Arguments, fan_in: Fraction | None, fan_out: Fraction | None) -> Draw:
        gain = Fraction(args["gain"])
        if gain <= 0:
            raise RuleError("gain", f"{{gain}} must be greater than 0, got {to_text(gain)}")
        fans = _fan(fan_in, "fan_in") + _fan(fan_out, "fan_out")
        variance = gain * gain * 2 / fans
        std = double(gain) * math.sqrt(2.0 / double(fans))
        return torch_draw(family, std, _root(variance), "gain")

    rule.__doc__ = xavier.__doc__
    return rule


def torch_linear(args: Arguments, fan_in: Fraction | None, fan_out: Fraction | None) -> Draw:
    """torch.nn.Linear.reset_parameters: kaiming_uniform_(weight, a=math.sqrt(5)), i.e. gain² =
    2/(1 + 5) = 1/3 and U(−1/sqrt(fan_in), 1/sqrt(fan_in)) (std 1/sqrt(3·fan_in)) in exact
    arithmetic; sigma: the call's doubles (math.sqrt(5)**2 is 5.000000000000001) as float32.
    Nominal: the documentation's sqrt(k) = 1/sqrt(in_features), the scale a reader takes from
    U(−√k, √k)."""
    fan = _fan(fan_in, "fan_in")
    std = torch_gain("leaky_relu", math.sqrt(5)) / math.sqrt(double(fan))
    return torch_draw("uniform", std, _root(1 / fan), "fan_in")


def scaling_factor(
    framework: str,
    dtype: str,
    scale: Fraction,
    mode: str,
    fan_in: Fraction | None,
    fan_out: Fraction | None,
    distribution: str,
) -> Fraction:
    """The std (normal, truncated_normal) or the bound (uniform) that VarianceScaling multiplies
    by, replayed in the framework's own floating-point arithmetic, as the exact binary number
    it is. Every step below is one IEEE operation correctly rounded (a float32 sqrt or division
    done in double then rounded to float32 is the float32 operation: 53 >= 2·24 + 2 bits).

    Keras (keras/src/initializers/random_initializers.py): in Python doubles, scale /=
    max(1.0, n); stddev = math.sqrt(scale) / 0.87962566103423978 (untruncated: math.sqrt(scale);
    uniform: limit = math.sqrt(3.0 * scale)); the backend's sampler then takes it in the
    weights' dtype (float32 by default: keras.config.floatx()).
    JAX (jax/_src/nn/initializers.py): variance = jnp.array(scale / n, dtype) (the division in
    double); stddev = jnp.sqrt(variance) / jnp.array(.87962566103423978, dtype), normal:
    jnp.sqrt(variance), uniform: jnp.sqrt(3 * variance), all in dtype. n: fan_in, fan_out,
    (fan_in + fan_out) / 2 or (fan_in * fan_out) ** 0.5, in double."""
    keep = float32 if dtype == "float32" else float
    if mode == "fan_in":
        n = float(_fan(fan_in, "fan_in"))
    elif mode == "fan_out":
        n = float(_fan(fan_out, "fan_out"))
    elif mode == "fan_avg":
        n = (float(_fan(fan_in, "fan_in")) + float(_fan(fan_out, "fan_out"))) / 2.0
    else:
        n = (float(_fan(fan_in, "fan_in")) * float(_fan(fan_out, "fan_out"))) ** 0.5
    literal = float(TRUNCATED_STD_LITERAL)
    if framework == "Keras":
        variance = float(scale) / max(1.0, n)
        value = {
            "truncated_normal": lambda: math.sqrt(variance) / literal,
            "uniform": lambda: math.sqrt(3.0 * variance),
        }.get(distribution, lambda: math.sqrt(variance))()
        return Fraction(keep(value))
    variance = keep(float(scale) / n)
    if distribution == "truncated_normal":
        return Fraction(keep(keep(math.sqrt(variance)) / keep(literal)))
    if distribution == "uniform":
        return Fraction(keep(math.sqrt(keep(3 * variance))))
    return Fraction(keep(math.sqrt(variance)))


def variance_scaling(framework: str, dtype_argument: str) -> Callable[..., Draw]:
    """Keras/JAX VarianceScaling: variance = scale / n (n: fan_in, fan_out, their mean, or for
    JAX's fan_geo_avg their geometric mean). truncated_normal: N(0, (sqrt(variance)/c)²) cut at
    ±2 of its std, c the literal .87962566103423978 as stored (double in Keras, the weights'
    dtype in JAX); normal (Keras: untruncated_normal): std sqrt(variance); uniform: bound
    sqrt(3·variance). Nominal: sqrt(variance), the std the documentation promises "after
    truncation". Keras divides by max(1, n); fans here are whole numbers >= 1. sigma is the
    factor the call computes in its own float arithmetic (``scaling_factor``), nominal the exact
    sqrt(scale/n)."""

    def rule(args: Arguments, fan_in: Fraction | None, fan_out: Fraction | None) -> Draw:
        scale = _positive(args, "scale")
        mode = str(args["mode"])
        if mode == "fan_in":
            n: Product = ((_fan(fan_in, "fan_in"), Fraction(-1)),)
        elif mode == "fan_out":
            n = ((_fan(fan_out, "fan_out"), Fraction(-1)),)
        elif mode == "fan_avg":
            n = (((_fan(fan_in, "fan_in") + _fan(fan_out, "fan_out")) / 2, Fraction(-1)),)
        else:  # fan_geo_avg
            n = ((_fan(fan_in, "fan_in") * _fan(fan_out, "fan_out"), Fraction(-1, 2)),)
        root = tuple((base, exponent / 2) for base, exponent in ((scale, Fraction(1)), *n))
        distribution = str(args["distribution"])
        dtype = str(args[dtype_argument])
        factor = scaling_factor(framework, dtype, scale, mode, fan_in, fan_out, distribution)
        if framework == "JAX" and distribution == "truncated_normal":
            return jax_erfinv_draw(factor, Fraction(-2), Fraction(2), dtype, root)
        if framework == "JAX" and distribution == "normal":
            return jax_normal_draw(factor, dtype, root)
        if distribution == "truncated_normal":
            grid = TF_TRUNCATED_BOX_MULLER if dtype == "float32" else None
            return Draw(
                "truncated_normal",
                Fraction(0),
                ((factor, Fraction(1)),),
                root,
                Fraction(-2),
                Fraction(2),
                grid=grid,
            )
        if distribution == "uniform":  # the bound; the std is bound/sqrt(3)
            bits = JAX_GRID_BITS[dtype]
            if framework == "JAX":  # uniform(-1, 1): k*2^-bits*2 - 1 exact in dtype, then one product
                how = f"IEEE {dtype} arithmetic only (uniform(-1, 1) on a grid of 2^-{bits - 1}, times the bound)"
                grid = Grid(2**bits, Fraction(0), Fraction(1, 2 ** (bits + 1)), 1, how)
            else:  # TensorFlow's stateless_uniform: x*(maxval - minval) + minval, x on a grid of 2^-bits
                how = (
                    f"IEEE {dtype} arithmetic only (TensorFlow's uniform, the Keras TensorFlow backend: "
                    f"x*(maxval - minval) + minval, x on a grid of 2^-{bits}, each rounded)"
                )
                grid = Grid(2**bits, Fraction(0), Fraction(1, 2 ** (bits + 1)), 3, how)
            return Draw(
                "uniform", Fraction(0), ((factor, Fraction(1)), (Fraction(3), -HALF)), root, grid=grid
            )
        grid = TF_BOX_MULLER if dtype == "float32" else None
        return Draw("normal", Fraction(0), ((factor, Fraction(1)),), root, grid=grid)

    rule.__doc__ = variance_scaling.__doc__
    return rule


# --- the catalog -------------------------------------------------------------------------------

TORCH = ("PyTorch", "2.8.0")
KERAS = ("Keras", "3.16.0")
TF = ("TensorFlow", "2.20.0")
JAX = ("JAX", "0.11.1")
FLAX = ("Flax", "0.12.8")

TORCH_INIT = "torch/nn/init.py"
KERAS_INIT = "keras/src/initializers/random_initializers.py"
JAX_INIT = "jax/_src/nn/initializers.py"

_MODE_TORCH = Argument("mode", "fan_in", ("fan_in", "fan_out"), lower_case=True)
_NONLINEARITY = Argument("nonlinearity", "leaky_relu", TORCH_NONLINEARITIES)
_KERAS_MODE = Argument("mode", "fan_in", ("fan_in", "fan_out", "fan_avg"))
_KERAS_DISTRIBUTION = Argument(
    "distribution",
    "truncated_normal",
    ("truncated_normal", "untruncated_normal", "uniform"),
    lower_case=True,
    aliases={"normal": "truncated_normal"},
)
_JAX_DTYPE = Argument("dtype", "float32", ("float32", "float64"))
_KERAS_DTYPE = Argument(
    "dtype", "float32", ("float32", "float64")
)  # the call's dtype (keras.config.floatx())

_ABSOLUTE = (
    "trunc_normal_ takes absolute bounds a, b (default -2, 2), not bounds in stds: with std=0.02 they "
    "sit at +-100 std and truncate nothing, while Keras's TruncatedNormal(stddev=0.02) cuts at +-2 std"
)
_NO_CORRECTION = (
    "the stddev argument is the std before truncation: the values have std {effective_ratio} of it "
    "(to 4 digits; no correction)"
)
_CORRECTED = (
    "the std passed to the truncated normal is divided by .87962566103423978 (the std of N(0,1) cut at +-2), "
    "so the values have the documented std, up to the rounding of that literal and of the call's own float "
    "arithmetic (effective_ratio shows it)"
)
_UNIFORM = "uniform: the values lie in +-sqrt(3) std, not +-std"
_UNTRUNCATED = "untruncated normal: no truncation and no correction constant"
_JAX_DTYPE_NOTE = "JAX stores that constant in the weights' dtype (float32 unless jax_enable_x64)"
# VarianceScaling's notes by the distribution drawn.
_SCALING_NOTES = {"truncated_normal": (_CORRECTED,), "uniform": (_UNIFORM,), "normal": (_UNTRUNCATED,)}
_JAX_SCALING_NOTES = {**_SCALING_NOTES, "truncated_normal": (_CORRECTED + "; " + _JAX_DTYPE_NOTE,)}

CATALOG: tuple[Initializer, ...] = (
    Initializer(
        "torch.nn.init.trunc_normal_",
        *TORCH,
        f"{TORCH_INIT} (trunc_normal_, _no_grad_trunc_normal_)",
        (Argument("mean", "0.0"), Argument("std", "1.0"), Argument("a", "-2.0"), Argument("b", "2.0")),
        absolute_truncated_normal,
        notes=(_ABSOLUTE,),
    ),
    Initializer(
        "torch.nn.init.normal_",
        *TORCH,
        f"{TORCH_INIT} (normal_)",
        (Argument("mean", "0.0"), Argument("std", "1.0")),
        normal,
    ),
    Initializer(
        "torch.nn.init.kaiming_normal_",
        *TORCH,
        f"{TORCH_INIT} (kaiming_normal_, calculate_gain)",
        (Argument("a", "0"), _MODE_TORCH, _NONLINEARITY),
        kaiming("normal"),
        fans=("fan_in", "fan_out"),
        notes=(
            "the default nonlinearity is leaky_relu with a=0, i.e. relu's gain sqrt(2); the normal is not truncated",
        ),
    ),
    Initializer(
        "torch.nn.init.kaiming_uniform_",
        *TORCH,
        f"{TORCH_INIT} (kaiming_uniform_, calculate_gain)",
        (Argument("a", "0"), _MODE_TORCH, _NONLINEARITY),
        kaiming("uniform"),
        fans=("fan_in", "fan_out"),
        notes=(_UNIFORM,),
    ),
    Initializer(
        "torch.nn.init.xavier_normal_",
        *TORCH,
        f"{TORCH_INIT} (xavier_normal_)",
        (Argument("gain", "1.0"),),
        xavier("normal"),
        fans=("fan_in", "fan_out"),
    ),
    Initializer(
        "torch.nn.init.xavier_uniform_",
        *TORCH,
        f"{TORCH_INIT} (xavier_uniform_)",
        (Argument("gain", "1.0"),),
        xavier("uniform"),
        fans=("fan_in", "fan_out"),
        notes=(_UNIFORM,),
    ),
    Initializer(
        "torch.nn.Linear",
        *TORCH,
        "torch/nn/modules/linear.py (Linear.reset_parameters) and torch/nn/init.py",
        (),
        torch_linear,
        fixed={"a": "sqrt(5)"},
        fans=("fan_in",),
        notes=(
            "the default weight init is kaiming_uniform_(a=sqrt(5)): U(-1/sqrt(fan_in), 1/sqrt(fan_in)), std "
            "1/sqrt(3*fan_in), a third of LeCun's variance; nominal_std is the documentation's "
            "sqrt(k) = 1/sqrt(in_features); the bias is U(-1/sqrt(fan_in), 1/sqrt(fan_in)) too",
        ),
    ),
    Initializer(
        "tf.keras.initializers.TruncatedNormal",
        *KERAS,
        f"{KERAS_INIT} (TruncatedNormal) and keras/src/backend/*/random.py (truncated_normal: +-2 stddev)",
        (Argument("mean", "0.0"), Argument("stddev", "0.05"), _KERAS_DTYPE),
        relative_truncated_normal("stddev", -2, 2),
        notes=(
            _NO_CORRECTION,
            "the default stddev is 0.05",
            "modelled as the TensorFlow backend draws (exactly truncated); the JAX backend draws "
            "jax.random.truncated_normal (as jax.nn.initializers.truncated_normal here); Keras's PyTorch backend "
            "keeps the first of 4 normals inside +-2 std and, when none is (probability 4.3e-6), the first one",
        ),
    ),
    Initializer(
        "tf.keras.initializers.VarianceScaling",
        *KERAS,
        f"{KERAS_INIT} (VarianceScaling)",
        (Argument("scale", "1.0"), _KERAS_MODE, _KERAS_DISTRIBUTION, _KERAS_DTYPE),
        variance_scaling("Keras", "dtype"),
        fans=("fan_in", "fan_out"),
        family_notes=_SCALING_NOTES,
    ),
    Initializer(
        "tf.keras.initializers.GlorotUniform",
        *KERAS,
        f"{KERAS_INIT} (GlorotUniform)",
        (_KERAS_DTYPE,),
        variance_scaling("Keras", "dtype"),
        fixed={"scale": "1.0", "mode": "fan_avg", "distribution": "uniform"},
        fans=("fan_in", "fan_out"),
        notes=(_UNIFORM,),
    ),
    Initializer(
        "tf.keras.initializers.HeNormal",
        *KERAS,
        f"{KERAS_INIT} (HeNormal)",
        (_KERAS_DTYPE,),
        variance_scaling("Keras", "dtype"),
        fixed={"scale": "2.0", "mode": "fan_in", "distribution": "truncated_normal"},
        fans=("fan_in",),
        notes=("HeNormal is truncated at +-2 std (PyTorch's kaiming_normal_ is not); " + _CORRECTED,),
    ),
    Initializer(
        "tf.keras.initializers.LecunNormal",
        *KERAS,
        f"{KERAS_INIT} (LecunNormal)",
        (_KERAS_DTYPE,),
        variance_scaling("Keras", "dtype"),
        fixed={"scale": "1.0", "mode": "fan_in", "distribution": "truncated_normal"},
        fans=("fan_in",),
        notes=(_CORRECTED,),
    ),
    Initializer(
        "tf.random.truncated_normal",
        *TF,
        "tensorflow/python/ops/random_ops.py (truncated_normal)",
        (Argument("mean", "0.0"), Argument("stddev", "1.0"), _KERAS_DTYPE),
        relative_truncated_normal("stddev", -2, 2),
        notes=(_NO_CORRECTION + "; BERT's initializer_range 0.02 is really 0.0176",),
    ),
    Initializer(
        "jax.nn.initializers.variance_scaling",
        *JAX,
        f"{JAX_INIT} (variance_scaling) and jax/_src/random/core.py (_truncated_normal, _normal_real)",
        (
            Argument("scale", None),
            Argument("mode", None, ("fan_in", "fan_out", "fan_avg", "fan_geo_avg")),
            Argument("distribution", None, ("truncated_normal", "normal", "uniform")),
            _JAX_DTYPE,
        ),
        variance_scaling("JAX", "dtype"),
        fans=("fan_in", "fan_out"),
        family_notes=_JAX_SCALING_NOTES,
    ),
    Initializer(
        "jax.nn.initializers.lecun_normal",
        *JAX,
        f"{JAX_INIT} (lecun_normal, variance_scaling) and jax/_src/random/core.py (_truncated_normal)",
        (_JAX_DTYPE,),
        variance_scaling("JAX", "dtype"),
        fixed={"scale": "1.0", "mode": "fan_in", "distribution": "truncated_normal"},
        fans=("fan_in",),
        notes=(_CORRECTED + "; " + _JAX_DTYPE_NOTE,),
    ),
    Initializer(
        "jax.nn.initializers.truncated_normal",
        *JAX,
        f"{JAX_INIT} (truncated_normal) and jax/_src/random/core.py (_truncated_normal, _uniform)",
        (Argument("stddev", "1e-2"), Argument("lower", "-2.0"), Argument("upper", "2.0"), _JAX_DTYPE),
        jax_truncated_normal,
        notes=(_NO_CORRECTION + "; default stddev 0.01, bounds lower/upper in stds",),
    ),
    Initializer(
        "flax.linen.Dense",
        *FLAX,
        "flax/linen/linear.py (Dense: kernel_init = default_kernel_init = lecun_normal())",
        (Argument("param_dtype", "float32", ("float32", "float64")),),
        variance_scaling("JAX", "param_dtype"),
        fixed={"scale": "1.0", "mode": "fan_in", "distribution": "truncated_normal"},
        fans=("fan_in",),
        notes=(
            "Flax's Dense defaults to lecun_normal, a truncated normal with std 1/sqrt(fan_in), where PyTorch's "
            "Linear draws a uniform with std 1/sqrt(3*fan_in); the bias starts at zeros",
        ),
    ),
)

BY_NAME: dict[str, Initializer] = {entry.name: entry for entry in CATALOG}
FRAMEWORK_OF: dict[str, str] = {entry.name: entry.framework for entry in CATALOG}
