"""``initializer NAME``: what a framework's init call actually samples, and the same call elsewhere.

A catalog entry (``catalog.initializers``) turns the call's arguments into a ``Draw``: a normal,
a normal truncated at [low, high] of its std sigma, or a uniform with std sigma. Then, with
gamma(low, high) the variance of N(0, 1) kept on [low, high] and shift its mean (seed: "Sampling
distributions", Su 2021),

    effective_std  = sigma·sqrt(gamma)        (normal: sigma; uniform: sigma = bound/sqrt(3))
    effective_mean = mean + sigma·shift
    effective_ratio = effective_std / nominal_std

all as Arb balls (``engine.normal_balls``), so every printed digit is proven. sigma and the
nominal std are products of rational powers of rationals (sigma is the exact binary number the
call's own float arithmetic gives, see ``catalog.initializers.scaling_factor``), so their ratio is
simplified exactly before it is evaluated. PyTorch's trunc_normal_ may add atoms at its bounds
(``Draw.atoms``): then the results are those of the mixture.
"""

from __future__ import annotations

import difflib
from dataclasses import replace
import math
import re
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

import mpmath
from flint import arb, fmpq

from ..catalog.initializers import (
    BY_NAME,
    CATALOG,
    FLOAT_RANGES,
    HALF,
    INF,
    Draw,
    Initializer,
    Product,
    RuleError,
    flush_margin,
    float32,
)
from ..engine import normal_balls
from .box_muller_truncated import tf_box_muller_bounds, truncated_box_muller_bounds
from ..engine.mpmath_internals import binary, is_mpf
from ..engine.numbers import Number, as_number, quoted
from ..engine.precision import to_decimal
from ..engine.rounding import ball_text
from ..errors import PrecisionError
from ..tier import (
    Computation,
    InputError,
    Listing,
    Quantity,
    check_digits,
    exact_ball,
    exactly,
    prove,
    quantities,
    whole,
)
from ..tier.proof import Fields

# CLI command -> the function of this module that computes it (the table ``momentcalc.command_table`` reads).
COMMANDS = {"initializer": "initializer", "initializers": "catalog_listing"}

# The options of every catalog entry, in the order the command line lists them.
ARGUMENTS = (
    "mean",
    "std",
    "stddev",
    "a",
    "b",
    "lower",
    "upper",
    "scale",
    "mode",
    "distribution",
    "gain",
    "nonlinearity",
    "dtype",
    "param_dtype",
)

DESCRIPTIONS = {
    "effective_std": "std of the call's values in the exact-arithmetic model: parameters rounded as the "
    "call rounds them, samples exact",
    "effective_mean": "mean of the call's values in the exact-arithmetic model: parameters rounded as the "
    "call rounds them, samples exact",
    "nominal_std": "the std the arguments name or the documentation promises",
    "effective_ratio": "effective_std / nominal_std (the exact-arithmetic model's)",
    "low_sigma": "lowest value, in stds of the normal before truncation from its mean (uniform: in its std)",
    "high_sigma": "highest value, in stds of the normal before truncation from its mean (uniform: in its std)",
    "normal_std": "std of the normal the call samples before truncation",
    "low": "lowest value of the exact-arithmetic model",
    "high": "highest value of the exact-arithmetic model",
    "excluded_mass": "probability that the normal falls outside the range the call samples from (what "
    "truncation removes)",
    "output_std_bound": "bound on |std of the call's real output - effective_std|: the generator's grid and "
    "each value's float rounding (with the accuracy the notes assume), rounded up",
    "output_mean_bound": "bound on |mean of the call's real output - effective_mean|: the generator's grid "
    "and each value's float rounding (with the accuracy the notes assume), rounded up",
}
# Excluded below this, a truncation is never observed in practice (the equivalents say so).
NEGLIGIBLE_MASS = 1e-30
# The listing shows effective_ratio to 20 digits: enough for 1 − 3.46e-17 to show.
LISTING_DIGITS = 20
# A ratio quoted inside a note: 4 digits, proven by its ball (else the printed digits).
NOTE_DIGITS = 4


def closest_names(name: str) -> list[str]:
    """Catalog names close to ``name``: the same last component (``trunc_normal_``,
    ``TruncatedNormal``), then difflib's closest."""
    tail = name.rsplit(".", 1)[-1].lower()
    same_tail = [entry.name for entry in CATALOG if entry.name.rsplit(".", 1)[-1].lower() == tail]
    close = difflib.get_close_matches(name, [entry.name for entry in CATALOG], n=3, cutoff=0.5)
    return list(dict.fromkeys(same_tail + close))[:4]


# Other spellings of the same call: Keras 3 is imported as ``keras`` (under TensorFlow 2 the
# same classes are ``tf.keras``); PyTorch code writes ``import torch.nn as nn``.
SPELLINGS = (("keras.", "tf.keras."), ("nn.", "torch.nn."))
# Keras's snake_case aliases of its initializer classes (keras.initializers.he_normal is HeNormal:
# keras/src/initializers/__init__.py registers both names for one class)
KERAS_ALIASES = {
    "he_normal": "HeNormal",
    "lecun_normal": "LecunNormal",
    "glorot_uniform": "GlorotUniform",
    "truncated_normal": "TruncatedNormal",
    "variance_scaling": "VarianceScaling",
}
KERAS_INITIALIZERS = "tf.keras.initializers."


def _spelled(text: str) -> str:
    """``text`` in the catalog's spelling (tf.keras.initializers.HeNormal, torch.nn.init.*)."""
    for short, long in SPELLINGS:
        if text.startswith(short):
            text = long + text[len(short) :]
    if text.startswith(KERAS_INITIALIZERS):
        tail = text[len(KERAS_INITIALIZERS) :]
        text = KERAS_INITIALIZERS + KERAS_ALIASES.get(tail, tail)
    return text


def lookup(name: object) -> Initializer:
    text = str(name).strip()
    if text in BY_NAME:
        return BY_NAME[text]
    spelled = _spelled(text)
    if spelled in BY_NAME:
        return BY_NAME[spelled]
    close = closest_names(text)
    hint = f"; closest: {', '.join(close)}" if close else ""
    raise InputError(
        f"{{name}} {quoted(text)} is not in the initializer catalog{hint} (see {{initializers_listing}})",
        param="name",
        params=("initializers_listing",),
    )


def _placeholders(message: str) -> tuple[str, ...]:
    return tuple(dict.fromkeys(re.findall(r"\{(\w+)\}", message)))


def _flags(names: tuple[str, ...], fans: tuple[str, ...] = ()) -> str:
    """What the call takes: its arguments, and the layer's fans its std depends on."""
    takes = ", ".join("{" + n + "}" for n in names) if names else "no arguments of its own"
    if fans:
        takes += f"; it needs {' and '.join('{' + fan + '}' for fan in fans)}"
    return takes


def resolve_arguments(entry: Initializer, given: Mapping[str, object]) -> dict[str, Number | str]:
    """The call's arguments: the given ones checked as the framework checks them, the others at
    the framework's defaults, then the ones the call fixes."""
    own = entry.argument_names
    for name, value in given.items():
        if value is not None and name not in own:
            raise InputError(
                f"{{{name}}} is not an argument of {entry.name} (it takes {_flags(own, entry.fans)})",
                param=name,
                params=(*own, *entry.fans),
            )
    values: dict[str, Number | str] = {}
    for argument in entry.arguments:
        raw = given.get(argument.name)
        if raw is None:
            if argument.default is None:
                raise InputError(
                    f"{{{argument.name}}} is required: {entry.name} has no default for it",
                    param=argument.name,
                )
            raw = argument.default
        if argument.is_choice:
            text = str(raw).strip()
            if argument.lower_case:
                text = text.lower()
            text = argument.aliases.get(text, text)
            if text not in argument.choices and text not in argument.aliases.values():
                raise InputError(
                    param=argument.name, allowed=f"one of {', '.join(argument.choices)}", got=repr(str(raw))
                )
            values[argument.name] = text
        else:
            values[argument.name] = as_number(raw, argument.name)
    for name, text in entry.fixed.items():
        try:
            values[name] = as_number(text, name)
        except InputError:
            values[name] = text  # a formula shown as written (torch.nn.Linear's a = sqrt(5))
    return values


def _ratio(sigma: Product, nominal: Product) -> Product:
    """sigma / nominal with equal bases merged (exponents added) and unit factors dropped."""
    exponents: dict[Fraction, Fraction] = {}
    for base, exponent in (*sigma, *((b, -e) for b, e in nominal)):
        exponents[base] = exponents.get(base, Fraction(0)) + exponent
    return tuple((b, e) for b, e in exponents.items() if e != 0 and b != 1)


def _exact(product: Product) -> Fraction | None:
    """The product as a rational when it is one, else None: with D the common denominator of
    the exponents, prod(base^e) = (prod(base^(e·D)))^(1/D), rational exactly when that rational
    is a perfect D-th power (sqrt(2/128) = 1/8: a value on a rounding tie is then rounded from
    the fraction, never left to a ball that straddles the tie at every precision)."""
    power = 1
    for _, exponent in product:
        power = power * exponent.denominator // math.gcd(power, exponent.denominator)
    value = Fraction(1)
    for base, exponent in product:
        value *= base ** int(exponent * power)
    if power == 1:
        return value
    numerator, denominator = _integer_root(value.numerator, power), _integer_root(value.denominator, power)
    if numerator is None or denominator is None:
        return None
    return Fraction(numerator, denominator)


def _integer_root(n: int, k: int) -> int | None:
    """The k-th root of the whole number n >= 0 when it is whole, else None."""
    if n < 2:
        return n
    root = 1 << -(-n.bit_length() // k)  # >= the root
    while True:  # Newton's iteration from above decreases to floor(n^(1/k))
        better = ((k - 1) * root + n // root ** (k - 1)) // k
        if better >= root:
            break
        root = better
    return root if root**k == n else None


def _ball(product: Product) -> Any:
    value = arb(1)
    for base, exponent in product:
        b = exact_ball(base)
        value *= (
            b ** int(exponent)
            if exponent.denominator == 1
            else b ** arb(fmpq(exponent.numerator, exponent.denominator))
        )
    return value


def _below(x: Fraction | float, bits: int) -> Any:
    """P(Z < x), Z ~ N(0, 1), from the small tail."""
    if x <= 0:
        return normal_balls.upper_tail(-x, bits)
    return 1 - normal_balls.upper_tail(x, bits)


def _above(x: Fraction | float, bits: int) -> Any:
    if x >= 0:
        return normal_balls.upper_tail(x, bits)
    return 1 - normal_balls.upper_tail(-x, bits)


# The results that are bounds: rounded up (never below the true bound).
OUTWARD = {"output_mean_bound": "up", "output_std_bound": "up"}


class _Undecided(Exception):
    """Two balls overlap at this precision (which end a clamp cuts): evaluate again finer."""


def _tail(x: Any, bits: int) -> Any:
    """Q(x) = P(Z > x) of a finite ball (the asymptotic series far out, as normal_balls does)."""
    if x > 0 and x * x > 4 * bits:
        return normal_balls.pdf(x) / x * normal_balls._asymptotic_series(x, bits)
    return (x / arb(2).sqrt()).erfc() / 2


def _probit(p: Fraction) -> Any:
    """Φ^-1(p) = sqrt(2)·erfinv(2p − 1) as a ball (±inf at 0 and 1), from the near tail."""
    if p <= 0:
        return -INF
    if p >= 1:
        return INF
    if p <= HALF:
        return -arb(2).sqrt() * exact_ball(2 * p).erfcinv()
    return arb(2).sqrt() * exact_ball(2 * (1 - p)).erfcinv()


def _erfinv_moments(draw: Draw, bits: int) -> dict[str, Any]:
    """The family erfinv (``Draw``): X = mean + scale·clamp(erfinv(U), clamp_low, clamp_high), U
    uniform on [u_low, u_high] with probability 1 − sum(atoms). With Z = sqrt(2)·erfinv(U) (a
    standard normal kept on [L, H] = [Φ^-1(p_low), Φ^-1(p_high)], p = (u + 1)/2) and the clamps
    c = sqrt(2)·clamp in its units, the mass below c_low is an atom at c_low (and above c_high at
    c_high); the rest is the normal on [max(L, c_low), min(H, c_high)]:
    E[clamp(Z)] = (c_low·A_low + c_high·A_high + φ(l) − φ(h)) / M, E[clamp(Z)²] = (c_low²·A_low +
    c_high²·A_high + (M − A_low − A_high) + l·φ(l) − h·φ(h)) / M, M = p_high − p_low."""
    root2 = arb(2).sqrt()
    p_low, p_high = (draw.u_low + 1) / 2, (draw.u_high + 1) / 2
    ends = []
    for p, clamp, below in ((p_low, draw.clamp_low, True), (p_high, draw.clamp_high, False)):
        end = _probit(p)
        if clamp in (INF, -INF):
            ends.append((end, None, arb(0)))
            continue
        c = root2 * exact_ball(Fraction(clamp))  # finite: a Fraction
        if end in (INF, -INF) or ((c > end) if below else (c < end)):
            clamps = True
        elif (c < end) if below else (c > end):
            clamps = False
        else:
            raise _Undecided
        if not clamps:
            ends.append((end, None, arb(0)))
        elif below:
            ends.append((c, c, _tail(-c, bits) - exact_ball(p_low)))
        else:
            ends.append((c, c, _tail(c, bits) - exact_ball(1 - p_high)))
    (low, c_low, a_low), (high, c_high, a_high) = ends
    if not (low < high):
        raise PrecisionError("every value of the call is clamped to one bound: not modelled")
    mass = exact_ball(p_high - p_low)
    density = []
    for end in (low, high):
        if end in (INF, -INF):
            density.append((arb(0), arb(0)))
        else:
            d = normal_balls.pdf(end)
            density.append((d, end * d))
    first = density[0][0] - density[1][0]
    second = (mass - a_low - a_high) + density[0][1] - density[1][1]
    for c, a in ((c_low, a_low), (c_high, a_high)):
        if c is not None:
            first += c * a
            second += c * c * a
    first, second = first / mass, second / mass
    sigma = _ball(draw.sigma)
    mean = exact_ball(draw.mean)
    rest = 1 - sum(p for _, p in draw.atoms)
    part_mean = mean + sigma * first
    part_variance = sigma * sigma * (second - first * first)
    total_mean = exact_ball(sum(p * x for x, p in draw.atoms)) + exact_ball(rest) * part_mean
    gap = part_mean - total_mean  # (a ball about 0: multiplied, as arb's ** is exp(2·log) there)
    variance = exact_ball(rest) * (part_variance + gap * gap)
    for x, p in draw.atoms:
        gap = exact_ball(x) - total_mean
        variance += exact_ball(p) * gap * gap
    std = variance.sqrt()
    nominal = _ball(draw.nominal)
    values = {
        "effective_std": std,
        "effective_mean": total_mean,
        "nominal_std": nominal,
        "effective_ratio": std / nominal,
        "normal_std": sigma,
    }
    for name, end in (("low", low), ("high", high)):
        if end not in (INF, -INF):
            values[f"{name}_sigma"] = end
            values[name] = mean + sigma * end
    for x, _ in draw.atoms:  # an atom beyond the continuous part's range is the extreme value
        atom = exact_ball(x)
        for name, beyond in (("low", lambda v, a=atom: a < v), ("high", lambda v, a=atom: a > v)):
            if name in values and beyond(values[name]):
                values[name] = atom
                values[f"{name}_sigma"] = (atom - mean) / sigma
    # the normal's mass outside what the call's whole uniform maps to, 1 − width/2 (exact: the
    # uniform's ends are the call's floats). [u_low, u_high] is that uniform less its end cells
    # sent to the atoms, a fraction 1 − sum(atoms) of it; what a clamp catches is moved to an atom
    # at a or b, not removed.
    values["excluded_mass"] = exact_ball(1 - (p_high - p_low) / (1 - sum(p for _, p in draw.atoms)))
    return values


def _erfinv_ball(v: Fraction) -> Any:
    """erfinv(v) for a rational -1 < v < 1, from the near end (erfcinv) as a ball."""
    if v < 0:
        return -exact_ball(1 + v).erfcinv()
    return exact_ball(1 - v).erfcinv()


def _erfinv_integrals(a: Fraction, b: Fraction) -> tuple[Any, Any]:
    """(∫_a^b |erfinv(u)| du, ∫_a^b erfinv(u)² du) for -1 <= a < b <= 1: with w = erfinv(u),
    erfinv has the antiderivative -e^(-w²)/sqrt(pi) and erfinv² has u/2 - w·e^(-w²)/sqrt(pi)."""
    root_pi = arb.pi().sqrt()

    def parts(u: Fraction) -> tuple[Any, Any]:
        if u in (-1, 1):
            return arb(0), exact_ball(u) / 2
        w = _erfinv_ball(u)
        e = (-(w * w)).exp() / root_pi
        return -e, exact_ball(u) / 2 - w * e

    first = arb(0)
    pieces = [(a, min(b, Fraction(0))), (max(a, Fraction(0)), b)]
    for lo, hi in pieces:
        if lo < hi:
            first += abs(parts(hi)[0] - parts(lo)[0])
    return first, parts(b)[1] - parts(a)[1]


def _output_bounds(draw: Draw, values: Mapping[str, Any]) -> dict[str, Any]:
    """Bounds on how far the real output's mean and std lie from the model's (family erfinv with a
    ``Grid``). The continuous part's real values are m + y(ũ_j) + δ_j, j = 0 … M−1 equally likely,
    y(u) = scale·clamp(erfinv(u)) nondecreasing, ũ_j within ``shift`` (η) of the cell's left end v_j;
    the model draws v uniformly on [u_low, u_high] = [v_0, v_M]. Coupling cell j with V in it, with
    c = max(1, ceil(η/h)): for the cells 2c <= j < M − 2c both ũ_j and V lie in [v_(j−c), v_(j+1+c)],
    so sum_j |f(y(ũ_j)) − f(y(V))| <= (2c + 1)·TV(f∘y on [v_c, v_(M−c)]) (each point in at most
    2c + 1 windows): TV = y_hi − y_lo for f(t) = t, <= y_lo² + y_hi² for t². The 4c edge cells are
    bounded apart: their real values by the largest |y| the real grid reaches (ũ within
    [u_low − η, u_high + η] and a float strictly inside (−1, 1)), the model's by the integrals of
    |erfinv| and erfinv² over them (plus the clamps' magnitudes). Each value's rounding is at most
    κ·(|m| + |y|), κ = (ulps + 3)·unit, which adds κ(|m| + √S) to e1 and 2κ(|m|√S + S) +
    κ²(|m| + √S)² to e2 (S: the grid's E[y²], at most the model's plus e2). Then |Δmean| <= w·e1
    and |Δvar| <= w·e2 + w·e1·(2|μ − m| + w·e1) about m (w: the continuous part's probability, the
    atoms being exact), |Δstd| = |Δvar| / (std + std_real) <= |Δvar| / (std + sqrt(std² − |Δvar|))."""
    grid = draw.grid
    assert grid is not None
    cells, low, high = grid.cells, draw.u_low, draw.u_high
    h = (high - low) / cells
    c = max(1, math.ceil(grid.shift / h))
    if cells <= 4 * c + 2:
        return {}
    s = exact_ball(draw.scale)

    def y(v: Fraction) -> Any:
        w = _erfinv_ball(v)
        if draw.clamp_low not in (INF, -INF):
            q = exact_ball(Fraction(draw.clamp_low))
            w = w if w > q else (q if w < q else arb.union(w, q))
        if draw.clamp_high not in (INF, -INF):
            q = exact_ball(Fraction(draw.clamp_high))
            w = w if w < q else (q if w > q else arb.union(w, q))
        return s * w

    # the real uniform is a float strictly inside (−1, 1): at least a unit roundoff from ±1
    real_low = max(low - grid.shift, -1 + grid.unit)
    real_high = min(high + grid.shift, 1 - grid.unit)
    largest = max(abs(y(real_low)).upper(), abs(y(real_high)).upper())
    largest = arb(largest)
    y_lo, y_hi = y(low + c * h), y(high - c * h)
    edge = 4 * c / exact_ball(cells)
    e1 = (2 * c + 1) * (y_hi - y_lo) / cells + edge * largest
    e2 = (2 * c + 1) * (y_lo * y_lo + y_hi * y_hi) / cells + edge * largest * largest
    # a clamp makes |y| exceed |scale·erfinv| only from the far side of 0 (a > mean, or b < mean)
    far = [q for q in (draw.clamp_low,) if q not in (INF, -INF) and q > 0]
    far += [-q for q in (draw.clamp_high,) if q not in (INF, -INF) and q < 0]
    clamp_top = max((exact_ball(Fraction(q)) for q in far), default=arb(0))
    width = exact_ball(high - low)
    for a, b in ((low, low + 2 * c * h), (high - 2 * c * h, high)):
        first, second = _erfinv_integrals(a, b)
        span = exact_ball(b - a)
        e1 += s * (first + span * clamp_top) / width
        e2 += s * s * (second + span * clamp_top * clamp_top) / width
    kappa = (grid.ulps + 3) * exact_ball(grid.unit)
    m = abs(exact_ball(draw.mean))
    w = exact_ball(1 - sum(p for _, p in draw.atoms))
    std = values["effective_std"]
    shift_mean = abs(values["effective_mean"] - exact_ball(draw.mean))
    # E[y²] over the real grid: at most the model's (its continuous part's, about m) plus e2
    second = (std * std + shift_mean * shift_mean) / w + e2
    root = second.sqrt()
    e1 += kappa * (m + root)
    e2 += 2 * kappa * (m * root + second) + (kappa * (m + root)) ** 2
    mean_bound = w * e1
    variance_bound = w * e2 + mean_bound * (2 * shift_mean + mean_bound)
    rest = std * std - variance_bound
    lower = rest.sqrt() if rest > 0 else arb(0)  # the real std is at least this
    flush = exact_ball(flush_margin(grid))
    return {
        "output_mean_bound": abs(mean_bound).upper() * arb(1) + flush,
        "output_std_bound": abs(variance_bound / (std + lower)).upper() * arb(1) + flush,
    }


def _box_muller_bounds(draw: Draw, sigma: Any) -> dict[str, Any]:
    """Bounds on how far PyTorch's Box-Muller output (normal_fill: u1 = 1 − x, u2 = y, x and y
    on the grid k/N, N = 2^24; r = sqrt(−2·log(u1)), θ = 2π·u2, mean + std·r·cos θ and
    mean + std·r·sin θ) lies from N(mean, std²).

    On the grid in exact arithmetic the values have mean exactly ``mean`` (Σ cos(2πk/N) = Σ
    sin(2πk/N) = 0) and variance std²·ρ, ρ = E[−2·log(u1)]·E[cos²] = −(1/N)·Σ_{j=1..N} log(j/N)
    = log N − lgamma(N + 1)/N (Σ cos² = Σ sin² = N/2 for N > 2): their std is std·sqrt(ρ)
    (2.75e-7 low at N = 2^24). Each value's float rounding: log within ulps ulp of its value y,
    an ulp at most 2u·|y| (u the unit roundoff), so −2·log(u1) within 2·ulps roundoffs relative and
    r within (ulps + 1.5) (the square root halves it, then rounds), θ within 2·2π roundoffs
    absolute (the float 2π and the product), cos and sin within ulps roundoffs absolute (the ulp of
    a value below 1), the product one more, so |δ| <= K·u·std·r + u·|mean| with
    K = ulps + ulps + 4π + 4.5 (the fma's rounding included), and in L² on the same grid
    ||δ||₂ <= K·u·std·sqrt(2ρ) + u·|mean|: the std moves by at most that plus std·(1 − sqrt(ρ)),
    the mean by at most ||δ||₂."""
    grid = draw.grid
    assert grid is not None
    cells = grid.cells
    rho = arb(cells).log() - arb(cells + 1).lgamma() / cells
    k = exact_ball(2 * grid.ulps) + 4 * arb.pi() + exact_ball(Fraction(9, 2))
    unit = exact_ball(grid.unit)
    rounding = k * unit * sigma * (2 * rho).sqrt() + unit * abs(exact_ball(draw.mean))
    rounding += exact_ball(flush_margin(grid))
    return {
        "output_std_bound": sigma * (1 - rho.sqrt()) + rounding,
        "output_mean_bound": rounding,
    }


# No sampler's standardized value reaches this (Box-Muller's r: sqrt(-2 log 2^-53) < 8.6).
REACH = 9


def _in_float_range(draw: Draw) -> bool:
    """Whether the grid's bounds hold at these arguments: the std and mean (as floats of the dtype)
    each 0 or normal, and |mean| + 2·REACH·std (a uniform's sqrt(3)·std too) within half the dtype's
    range, room for the roundings. The bounds count each float operation's error as relative (unit·|x|)
    plus ``flush_margin``; a subnormal argument (read as 0 under flush-to-zero) or an overflow
    breaks that (review of the TensorFlow bound: stddev 1e-44 or 3e38)."""
    assert draw.grid is not None
    ranges = FLOAT_RANGES.get(draw.grid.unit)
    if ranges is None:
        return False
    tiny, largest = (exact_ball(v) for v in ranges)
    sigma, mean = _ball(draw.sigma), abs(exact_ball(draw.mean))
    normal = (sigma == 0 or sigma >= tiny) and (mean == 0 or mean >= tiny)
    return bool(normal and mean + REACH * 2 * sigma < largest / 2)


def _proven(draw: Draw, digits: int) -> dict[str, Fields]:
    """The proven results' Quantity fields: from balls, or from the rationals known exactly."""
    ratio = _ratio(draw.sigma, draw.nominal)
    exact: dict[str, Fraction] = {}
    if draw.family == "erfinv":
        nominal = _exact(draw.nominal)
        if nominal is not None:
            exact["nominal_std"] = nominal
        mirrored = {(draw.mean - x, p) for x, p in draw.atoms} == {(x - draw.mean, p) for x, p in draw.atoms}
        if draw.u_low == -draw.u_high and draw.clamp_low == -draw.clamp_high and mirrored:
            exact["effective_mean"] = draw.mean  # symmetric about the mean: proven without a ball

        def evaluate_erfinv(bits: int) -> dict[str, Any]:
            try:
                values = _erfinv_moments(draw, bits)
                if draw.grid is not None:
                    values.update(_output_bounds(draw, values))
            except _Undecided:
                return {"effective_std": arb("nan")}
            for name in exact:
                values.pop(name, None)
            return {name: _tame(ball, bits) for name, ball in values.items()}

        return prove(
            evaluate_erfinv,
            digits,
            exact=exact,
            outward={"output_mean_bound": "up", "output_std_bound": "up"},
        )
    if draw.family == "point":  # every value is draw.mean
        exact.update(
            effective_std=Fraction(0),
            effective_mean=draw.mean,
            effective_ratio=Fraction(0),
            low=draw.mean,
            high=draw.mean,
        )
        nominal = _exact(draw.nominal)
        if nominal is not None:
            exact["nominal_std"] = nominal
            return prove(None, digits, exact=exact)

        def nominal_only(bits: int) -> dict[str, Any]:
            return {"nominal_std": _tame(_ball(draw.nominal), bits)}

        return prove(nominal_only, digits, exact=exact)
    truncated = draw.family == "truncated_normal"
    symmetric = (not truncated or draw.low == -draw.high) and not draw.atoms
    if symmetric:
        exact["effective_mean"] = draw.mean
    elif draw.low == -draw.high:  # atoms on a symmetric truncation: their mean and the rest's, exactly
        rest = 1 - sum(p for _, p in draw.atoms)
        exact["effective_mean"] = sum(p * x for x, p in draw.atoms) + rest * draw.mean
    for name, product in (("nominal_std", draw.nominal), ("normal_std", draw.sigma)):
        value = _exact(product)
        if value is not None and (name == "nominal_std" or draw.family != "uniform"):
            exact[name] = value
    sigma_value = _exact(draw.sigma)
    if not truncated:
        if sigma_value is not None:
            exact["effective_std"] = sigma_value
        ratio_value = _exact(ratio)
        if ratio_value is not None:
            exact["effective_ratio"] = ratio_value
    if draw.family == "uniform":
        half_width = _exact((*draw.sigma, (Fraction(3), HALF)))  # sqrt(3)·sigma
        if half_width is not None:
            exact.update(low=draw.mean - half_width, high=draw.mean + half_width)
            if draw.grid is not None:
                # The grid's values v_k = mean - half + 2·half·k/N have mean (mean - half/N) and std
                # sqrt(1 - 1/N²) of the model's (< half/N² from it); each real value is within
                # ulps·unit·half of v_k (IEEE roundings), which moves the mean and (an L² distance on
                # the same N points) the std by at most that.
                cells, rounding = draw.grid.cells, draw.grid.ulps * draw.grid.unit * half_width
                rounding += flush_margin(draw.grid)
                exact["output_mean_bound"] = half_width / cells + rounding
                exact["output_std_bound"] = half_width / cells**2 + rounding
    elif truncated and sigma_value is not None:
        for end, where in (("low", draw.low), ("high", draw.high)):
            if where not in (INF, -INF):
                exact[end] = draw.mean + sigma_value * Fraction(where)

    def evaluate(bits: int) -> dict[str, Any]:
        sigma = _ball(draw.sigma)
        values: dict[str, Any] = {"nominal_std": _ball(draw.nominal)}
        if truncated:
            z_mass, shift, gamma = normal_balls.truncated_moments(draw.low, draw.high, bits)
            root = gamma.sqrt()
            values.update(
                effective_std=sigma * root,
                effective_mean=exact_ball(draw.mean) + sigma * shift,
                effective_ratio=_ball(ratio) * root,
                normal_std=sigma,
                excluded_mass=_below(draw.low, bits) + _above(draw.high, bits),
            )
            if draw.atoms:  # the mixture: atoms with their probabilities, the rest truncated normal
                rest = 1 - sum(p for _, p in draw.atoms)
                mean = values["effective_mean"]
                first = exact_ball(sum(p * x for x, p in draw.atoms)) + exact_ball(rest) * mean
                second = exact_ball(sum(p * x * x for x, p in draw.atoms)) + exact_ball(rest) * (
                    sigma * sigma * gamma + mean * mean
                )
                std = (second - first * first).sqrt()
                values.update(
                    effective_std=std, effective_mean=first, effective_ratio=std / values["nominal_std"]
                )
            for end, where in (("low", draw.low), ("high", draw.high)):
                if where not in (INF, -INF):
                    values[end] = exact_ball(draw.mean) + sigma * exact_ball(Fraction(where))
            if draw.grid is not None and draw.grid.sampler == "box-muller-truncated" and not draw.atoms:
                values.update(truncated_box_muller_bounds(draw, sigma, z_mass, gamma))
        else:
            values.update(effective_std=sigma, effective_ratio=_ball(ratio))
            if draw.family == "normal":
                values["normal_std"] = sigma
                if draw.grid is not None and draw.grid.sampler == "box-muller":
                    values.update(_box_muller_bounds(draw, sigma))
                elif draw.grid is not None and draw.grid.sampler == "box-muller-tf":
                    values.update(tf_box_muller_bounds(draw, sigma))
                elif draw.grid is not None:  # an inverse-CDF normal: erfinv of U on [-1, 1]
                    known = {"effective_std": sigma, "effective_mean": exact_ball(draw.mean)}
                    values.update(_output_bounds(replace(draw, family="erfinv"), known))
            else:
                root3 = arb(3).sqrt()
                values.update(
                    low_sigma=-root3,
                    high_sigma=root3,
                    low=exact_ball(draw.mean) - root3 * sigma,
                    high=exact_ball(draw.mean) + root3 * sigma,
                )
        return {name: _tame(ball, bits) for name, ball in values.items()}

    return prove(evaluate, digits, exact=exact, outward=OUTWARD)


def _tame(ball: Any, bits: int) -> Any:
    """The ball widened to a radius of at least 2^-(bits + 16) of its magnitude: still a proven
    enclosure, and rounding it never shifts a midpoint by the astronomically many bits that a
    far tail's radius (e^(-10^600) next to 1) would ask for."""
    if not ball.is_finite() or ball.is_exact():
        return ball
    return ball + arb(0, abs(ball).upper() * arb(2) ** -(bits + 16))


def _code(value: Any, digits: int) -> str:
    """A decided result as a Python literal: the shortest literal a float32 (or else a double)
    reads as exactly this value when it is one (a std held in float32, 0.0199999995529652, is
    written 0.02: the other framework holds the literal as that same float32), else its
    ``digits``-digit decimal without trailing zeros."""
    exact = Fraction(value) if isinstance(value, Fraction) else None
    if exact is None and value is not None and is_mpf(value) and mpmath.isfinite(value):
        sign, man, exp, _ = binary(mpmath.mpf(value))  # signed: mpf.man_exp drops the sign
        exact = (-1) ** sign * Fraction(man) * Fraction(2) ** exp if abs(exp) < 1100 else None
    if exact is not None and exact != 0:
        double = float(exact)
        if Fraction(double) == exact:
            for keep in (float32, float):
                if keep(double) in (INF, -INF) or Fraction(keep(double)) != exact:
                    continue
                for length in range(1, 18):
                    literal = f"{double:.{length}g}"
                    if keep(float(literal)) == double:
                        return repr(float(literal))  # 100.0, not 1e+02
    text = to_decimal(value, digits)
    mantissa, _, exponent = text.partition("e")
    if "." in mantissa:
        mantissa = mantissa.rstrip("0").rstrip(".")
    if "." not in mantissa and not exponent:
        mantissa += ".0"
    return mantissa + (f"e{exponent}" if exponent else "")


def equivalents(entry: Initializer, draw: Draw, text: Mapping[str, str], negligible: bool) -> tuple[str, ...]:
    """The call in each other framework that samples the same distribution (``text``: decided
    values as literals). A truncation that excludes less than NEGLIGIBLE_MASS also maps to the
    plain normal, said so."""
    mean, sigma = text["mean"], text.get("normal_std", "")
    zero_mean = draw.mean == 0
    calls: list[tuple[str, str]] = []
    if draw.family == "point":
        calls += [
            ("PyTorch", f"torch.nn.init.constant_(w, {mean})"),
            ("Keras", f"tf.keras.initializers.Constant({mean})"),
            ("TensorFlow", f"tf.fill(shape, {mean})"),
            ("JAX", f"jax.nn.initializers.constant({mean})"),
        ]
    elif draw.family == "uniform":
        low, high = text["low"], text["high"]
        calls += [
            ("PyTorch", f"torch.nn.init.uniform_(w, a={low}, b={high})"),
            ("Keras", f"tf.keras.initializers.RandomUniform(minval={low}, maxval={high})"),
            ("TensorFlow", f"tf.random.uniform(shape, minval={low}, maxval={high})"),
            ("JAX", f"jax.random.uniform(key, shape, minval={low}, maxval={high})"),
        ]
    else:
        plain = [
            ("PyTorch", f"torch.nn.init.normal_(w, mean={mean}, std={sigma})"),
            ("Keras", f"tf.keras.initializers.RandomNormal(mean={mean}, stddev={sigma})"),
            ("TensorFlow", f"tf.random.normal(shape, mean={mean}, stddev={sigma})"),
        ]
        if zero_mean:
            plain.append(("JAX", f"jax.nn.initializers.normal(stddev={sigma})"))
        if draw.family == "normal":
            calls += plain
        else:
            two = draw.low == -2 and draw.high == 2
            calls.append(
                (
                    "PyTorch",
                    f"torch.nn.init.trunc_normal_(w, mean={mean}, std={sigma}, a={text['low']}, b={text['high']})",
                )
            )
            if two:
                calls += [
                    ("Keras", f"tf.keras.initializers.TruncatedNormal(mean={mean}, stddev={sigma})"),
                    ("TensorFlow", f"tf.random.truncated_normal(shape, mean={mean}, stddev={sigma})"),
                ]
            if zero_mean:
                calls.append(
                    (
                        "JAX",
                        f"jax.nn.initializers.truncated_normal(stddev={sigma}, lower={text['low_sigma']}, "
                        f"upper={text['high_sigma']})",
                    )
                )
            if negligible:
                seen = {framework for framework, _ in calls}
                calls += [
                    (
                        framework,
                        call + f" (the truncation at {text['low_sigma']}, {text['high_sigma']} stds is "
                        "never reached)",
                    )
                    for framework, call in plain
                    if framework not in seen or framework == "PyTorch"
                ]
    if draw.atoms:
        return tuple(
            call + " (without PyTorch's clamped values at the bounds)"
            for framework, call in calls
            if framework != entry.framework
        )
    return tuple(call for framework, call in calls if framework != entry.framework)


def initializer(
    name: object,
    *,
    arguments: Mapping[str, object] | None = None,
    fan_in: object = None,
    fan_out: object = None,
    digits: int = 15,
    derive: bool = False,
) -> Computation:
    """What the initializer call ``name`` with ``arguments`` (by the framework's names; the
    others at its defaults) samples, every result correct to ``digits`` digits.

    >>> initializer("tf.random.truncated_normal", arguments={"stddev": "0.02"}).value("effective_std")  # doctest: +ELLIPSIS
    mpf('0.01759251282746148...')
    """
    digits = check_digits(digits)
    entry = lookup(name)
    given = {key: value for key, value in (arguments or {}).items() if value is not None}
    values = resolve_arguments(entry, given)
    fans = {}
    for fan_name, fan in (("fan_in", fan_in), ("fan_out", fan_out)):
        if fan is None:
            continue
        if not entry.fans:
            raise InputError(
                f"{{{fan_name}}} does not change what {entry.name} samples (its std does not depend on "
                "the layer's fans)",
                param=fan_name,
            )
        fans[fan_name] = whole(fan, fan_name)
    try:
        draw = entry.rule(values, fans.get("fan_in"), fans.get("fan_out"))
    except RuleError as error:
        raise InputError(
            error.message + f" ({entry.name})", param=error.argument, params=_placeholders(error.message)
        ) from None

    out_of_range = draw.grid is not None and not _in_float_range(draw)
    if out_of_range:
        draw = replace(draw, grid=None)
    fields = _proven(draw, digits)
    results = {quantity.name: quantity for quantity in quantities(DESCRIPTIONS, fields)}
    if draw.family == "erfinv":  # an end the uniform and the clamp leave open: ±inf
        for key, infinite in (("low_sigma", -INF), ("high_sigma", INF)):
            if key not in results:
                open_end = {"value": mpmath.mpf(infinite), "certified": True, "error_bound": mpmath.mpf(0)}
                results[key] = Quantity(key, description=DESCRIPTIONS[key], **open_end)
                end = key.removesuffix("_sigma")
                results[end] = Quantity(end, description=DESCRIPTIONS[end], **open_end)
    elif draw.family != "uniform":
        for key, bound in (("low_sigma", draw.low), ("high_sigma", draw.high)):
            end_fields = (
                exactly(Fraction(bound))
                if bound not in (INF, -INF)
                else {"value": mpmath.mpf(bound), "certified": True, "error_bound": mpmath.mpf(0)}
            )
            results[key] = Quantity(key, description=DESCRIPTIONS[key], **end_fields)
            if bound in (INF, -INF):
                end = key.removesuffix("_sigma")
                results[end] = Quantity(end, description=DESCRIPTIONS[end], **end_fields)
    order = (
        "effective_std",
        "effective_mean",
        "nominal_std",
        "effective_ratio",
        "low_sigma",
        "high_sigma",
        "normal_std",
        "low",
        "high",
        "excluded_mass",
        "output_std_bound",
        "output_mean_bound",
    )
    ordered = tuple(results[key] for key in order if key in results)

    text = {key: _code(q.rounded_from, digits) for key, q in results.items()}
    text["mean"] = _code(draw.mean, digits)
    negligible = False
    if draw.family in ("truncated_normal", "erfinv"):
        excluded: Any = results["excluded_mass"].value  # a scalar result: an mpf
        negligible = excluded < NEGLIGIBLE_MASS
    ratio = results["effective_ratio"]
    ratio_text = (
        ball_text(ratio.value, NOTE_DIGITS, ratio.error_bound) if ratio.exact is None else None
    ) or to_decimal(ratio.rounded_from, digits)
    notes = [
        note.replace("{effective_ratio}", ratio_text)
        for note in (*draw.notes, *entry.notes, *entry.family_notes.get(draw.family, ()))
    ]
    if negligible:
        notes.append(
            f"the bounds exclude a mass of {to_decimal(results['excluded_mass'].value, 2)} of the normal: "
            "the truncation is never reached, the values are normal"
            + (" but for the clamped values above" if draw.atoms else "")
        )
    if draw.grid is not None and "output_std_bound" in results:
        notes.append(
            f"output_std_bound, output_mean_bound: proven for the sampler's grid ({draw.grid.cells:,} equally likely "
            f"values of {'each of its two uniforms' if draw.grid.sampler.startswith('box-muller') else 'its uniform'}) "
            f"and float rounding, assuming {draw.grid.assumption}"
        )
    elif out_of_range:
        notes.append(
            "the distance between the model and the real output is not bounded at these arguments: the std or "
            "the mean is outside the dtype's normal range (a subnormal may be read as 0: TensorFlow's kernels flush "
            "to zero), or the values may overflow"
        )
    elif draw.family != "point":
        notes.append(
            "the distance between the model and the real output (the generator's grid, each value's float "
            "rounding) is not bounded for this sampler: parts in 10^7 of the std in float32"
        )
    notes.append(f"semantics read from {entry.framework} {entry.version}, {entry.source}")
    inputs: dict[str, Number | str] = {"name": entry.name}
    inputs.update(values)
    inputs.update(fans)
    return Computation(
        "initializer",
        inputs,
        digits,
        ordered,
        notes=tuple(notes),
        derivation=derivation(draw) if derive else (),
        extra={"equivalents": list(equivalents(entry, draw, text, negligible))},
    )


def _product_text(product: Product) -> str:
    """A Product as a formula: 0.02, (1/768)^(1/2)*(9007199254740992/7922816251426433)."""
    if not product:
        return "1"
    parts = []
    for base, exponent in product:
        b = str(base) if base.denominator == 1 else f"({base})"
        parts.append(b if exponent == 1 else f"{b}^({exponent})")
    return "*".join(parts)


def derivation(draw: Draw) -> tuple[tuple[str, str, str], ...]:
    """``--derive``: the distribution the call draws, and how effective_std follows (text and LaTeX)."""
    sigma = _product_text(draw.sigma)
    nominal = _product_text(draw.nominal)
    lines = [
        ("sigma", f"sigma = {sigma}", r"\sigma = " + sigma),
        ("nominal_std", f"nominal_std = {nominal}", r"\mathrm{nominal} = " + nominal),
    ]
    if draw.family == "point":
        lines.append(
            ("draw", f"every value is {draw.mean}; effective_std = 0", r"\delta_{" + str(draw.mean) + "}")
        )
    elif draw.family == "normal":
        lines.append(
            ("draw", f"N({draw.mean}, sigma^2); effective_std = sigma", r"\mathcal{N}(\mu, \sigma^2)")
        )
    elif draw.family == "erfinv":
        clamp = ", ".join(
            str(c) if c not in (INF, -INF) else repr(c) for c in (draw.clamp_low, draw.clamp_high)
        )
        lines.append(
            (
                "draw",
                f"{draw.mean} + {draw.scale}*clamp(erfinv(U), {clamp}), U uniform on [{draw.u_low}, "
                f"{draw.u_high}]"
                + (
                    f" with probability 1 - {sum(p for _, p in draw.atoms)}, else the atoms {', '.join(f'{x} (p = {p})' for x, p in draw.atoms)}"
                    if draw.atoms
                    else ""
                ),
                r"\mu + s\,\mathrm{clamp}(\operatorname{erf}^{-1}(U), q_a, q_b),\ U \sim \mathcal{U}(u_0, u_1)",
            )
        )
        lines.append(
            (
                "effective_std",
                "sqrt(2)*erfinv(U) is N(0, 1) kept on [Phi^-1((u0 + 1)/2), Phi^-1((u1 + 1)/2)]; its mass beyond "
                "sqrt(2)*clamp is an atom there; sigma = scale/sqrt(2)",
                r"\sigma = s/\sqrt{2}",
            )
        )
    elif draw.family == "uniform":
        lines.append(
            (
                "draw",
                f"U({draw.mean} - sqrt(3)*sigma, {draw.mean} + sqrt(3)*sigma); effective_std = sigma",
                r"\mathcal{U}(\mu - \sqrt{3}\sigma, \mu + \sqrt{3}\sigma)",
            )
        )
    else:
        lo, hi = draw.low, draw.high
        lines += [
            (
                "draw",
                f"N({draw.mean}, sigma^2) kept on [{draw.mean} + ({lo})*sigma, {draw.mean} + ({hi})*sigma]",
                r"\mathcal{N}(\mu, \sigma^2)\ \text{on}\ [\mu + a\sigma, \mu + b\sigma]",
            ),
            (
                "effective_std",
                "effective_std = sigma*sqrt(gamma), gamma = 1 + (a*phi(a) - b*phi(b))/Z - "
                f"((phi(a) - phi(b))/Z)^2, Z = Phi(b) - Phi(a), a = {lo}, b = {hi}",
                r"\sigma\sqrt{1 + \frac{a\varphi(a) - b\varphi(b)}{Z} - \left(\frac{\varphi(a) - \varphi(b)}{Z}\right)^2}",
            ),
            (
                "effective_mean",
                "effective_mean = mean + sigma*(phi(a) - phi(b))/Z",
                r"\mu + \sigma\frac{\varphi(a) - \varphi(b)}{Z}",
            ),
        ]
    return tuple(lines)


def defaults_ratio(entry: Initializer, digits: int = 15) -> Quantity | None:
    """effective_ratio at the entry's defaults (fans 1: the ratio does not depend on them), or
    None when the framework has no default for an argument."""
    if any(argument.default is None for argument in entry.arguments):
        return None
    fans = dict.fromkeys(entry.fans, 1)
    return initializer(
        entry.name,
        arguments={},
        fan_in=fans.get("fan_in", 1 if entry.fans else None),
        fan_out=fans.get("fan_out", 1 if entry.fans else None),
        digits=digits,
    )["effective_ratio"]


def catalog_listing() -> Listing:
    """``momentcalc initializers``: every entry with its arguments and defaults, the source it was
    read from, and its effective_ratio at the defaults."""
    rows = []
    for entry in CATALOG:
        ratio = defaults_ratio(entry, LISTING_DIGITS)
        rows.append(
            {
                "name": entry.name,
                "framework": entry.framework,
                "version": entry.version,
                "source": entry.source,
                "arguments": {a.name: a.default for a in entry.arguments},
                "fixed": dict(entry.fixed),
                "fans": list(entry.fans),
                "effective_ratio": None if ratio is None else to_decimal(ratio.rounded_from, LISTING_DIGITS),
            }
        )
    return Listing(
        "initializers",
        ("name", "framework", "version", "arguments", "effective_ratio"),
        tuple(rows),
        title="initializer catalog: initializer(NAME) (effective_ratio at the defaults)",
        notes=(
            "effective_ratio = the exact-arithmetic model's std / the std the arguments name, at fans of 1 (the call's float "
            "arithmetic moves it with the fans by parts in 10^8)",
            "jax.nn.initializers.variance_scaling has no defaults: give {scale}, {mode} and {distribution}",
        ),
    )


def ratio_table_markdown() -> str:
    """The README's table of effective_ratio at the defaults (``scripts/update_readme_examples.py``
    writes it, ``tests/test_initializer.py`` checks it)."""
    lines = ["| call | defaults | effective_ratio at the defaults | read from |", "|---|---|---|---|"]
    for row in catalog_listing().rows:
        given = [f"{k}={v}" if v is not None else f"{k} (required)" for k, v in row["arguments"].items()]
        fixed = [f"{k}={v}" for k, v in row["fixed"].items()]
        defaults = (
            ", ".join(given)
            + ("; " if given and fixed else "")
            + ("fixes " + ", ".join(fixed) if fixed else "")
        )
        ratio = row["effective_ratio"] or "(no defaults)"
        lines.append(
            f"| `{row['name']}` | {defaults or '(none)'} | {ratio} | {row['framework']} {row['version']}, "
            f"`{row['source'].split(' ')[0]}` |"
        )
    return "\n".join(lines)
