"""``selu-solve``: the λ and α that give selu(Z), Z ~ N(m, s²), a target mean and variance.

Su 2021, Transformer initialization, "SELU": selu(x) = λ·x for x > 0 and λ·α·(eˣ − 1) for x ≤ 0; the article's Mathematica
session solves E[selu(Z)] = 0, E[selu(Z)²] = 1 for Z ~ N(0, 1): λ = 1.0507…, α = 1.6732….

Moments in closed form. Write selu = λ·g and Z = m + s·T with T ~ N(0, 1), c = −m/s:

    P0 = P(Z > 0) = erfc(c/√2)/2,   E[T; T > c] = φ(c),   E[T²; T > c] = c·φ(c) + P0
    M1 = E[Z; Z > 0] = m·P0 + s·φ(c),   M2 = E[Z²; Z > 0] = (m² + s²)·P0 + m·s·φ(c)
    Q = P(Z ≤ 0),   A_k = E[e^(kZ); Z ≤ 0] = e^(k·m + k²s²/2) · erfc((k·s − c)/√2)/2
    a = A_1 − Q = E[eᶻ − 1; Z ≤ 0] < 0,   b = A_2 − 2·A_1 + Q = E[(eᶻ − 1)²; Z ≤ 0] > 0
    E[g] = M1 + α·a,   E[g²] = M2 + α²·b

and the two moment equations are λ·E[g] = μ and λ²·E[g²] = μ² + v (target mean μ,
target variance v; for μ = 0, v = 1 these are Su's x1 = 0, x2 = 1).

Reduction to one unknown. λ cancels from the mean/std ratio, so α alone must satisfy
R(α) = E[g]/sqrt(E[g²] − E[g]²) = r = μ/√v. dR/dα has the sign of a·M2 − α·b·M1, which is
negative for every α ≥ 0: R falls strictly from R(0) = M1/sqrt(M2 − M1²) (relu's ratio) to
R(∞) = a/sqrt(b − a²). Hence every r strictly between R(∞) and R(0) is reached by exactly one
α > 0, and no other r by any. With u = E[g] = M1 + α·a, k = |μ|/sqrt(μ² + v) and σ = sign(μ),
the condition u² = k²·E[g²] is a quadratic in u; its root of sign σ, u = σ·k·W/(|a|·√I + σ·k·b·M1)
with W = a²·M2 + b·M1² and I = W − k²·b·M2, gives (written so that M1 − u does not cancel)

    α = (M1·√I − σ·k·|a|·M2) / (|a|·√I + σ·k·b·M1),   λ = sqrt((μ² + v)/(M2 + α²·b)).

For μ = 0 this is the SELU paper's α = M1/|a| = sqrt(2/π)/(1 − erfc(1/√2)·√e) at N(0, 1).
The closed form is evaluated in Arb balls (``pieces_ball``, ``closed_form_ball``) until λ, α
and −λ·α round with proven digits; ``residual`` is then the larger error of the two equations at
the *reported* decimals of λ and α, also proven. The mpmath route (``solve_mpmath``: the closed
form polished and verified by Newton on both equations, ``engine.roots``) is the tests' second route.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, NamedTuple

import mpmath
from flint import arb
from mpmath import mp

from ..defaults import SELU_SOLVE as DEFAULTS
from ..engine import normal, normal_balls
from ..engine.numbers import Number, as_number, to_mpf, to_text
from ..engine.precision import stable
from ..engine.roots import find_root
from ..engine.rounding import MAX_EXPONENT_BITS, decimal_text
from ..tier import (
    Computation,
    Outcome,
    PrecisionError,
    check_digits,
    exact_ball,
    positive,
    prove,
    quantities,
)

# CLI command -> the function of this module that computes it (the table ``momentcalc.command_table`` reads).
COMMANDS = {"selu-solve": "selu_solve"}

DESCRIPTIONS = {
    "lambda": "scale: selu(x) = lambda*x for x > 0",
    "alpha": "negative branch: selu(x) = lambda*alpha*(exp(x) - 1) for x <= 0",
    "saturation": "-lambda*alpha: the limit of selu(x) as x -> -inf (alpha-dropout's value)",
    "residual": "max abs error of the mean and second-moment equations at the reported (rounded) lambda and alpha",
}

# Digits of the reachable-ratio bounds shown in notes and messages (more when a target is
# closer to a bound than this resolves).
BOUND_DIGITS = 6


class Pieces(NamedTuple):
    """The α-free parts of E[g] = m1 + α·a and E[g²] = m2 + α²·b (module docstring)."""

    m1: mpmath.mpf
    m2: mpmath.mpf
    a: mpmath.mpf
    b: mpmath.mpf
    var_exp: mpmath.mpf  # b − a², the variance of (eᶻ − 1)·[Z ≤ 0], written without b − a²


def pieces(mean: Fraction, std: Fraction) -> Pieces:
    """M1, M2, a, b for Z ~ N(mean, std²) at the current precision (they may cancel: callers
    run this inside ``stable``)."""
    c = -mean / std
    m, s = to_mpf(mean), to_mpf(std)
    density = normal.pdf(to_mpf(c))
    above = normal.upper_tail(to_mpf(c))
    below = normal.upper_tail(to_mpf(-c))

    def exp_below(k: int) -> mpmath.mpf:
        # E[e^(kZ); Z <= 0]: complete the square, then the mass of N(k*s, 1) below c.
        exponent = k * mean + Fraction(k * k) * std * std / 2
        return mpmath.exp(to_mpf(exponent)) * normal.upper_tail(to_mpf(k * std - c))

    a1, a2 = exp_below(1), exp_below(2)
    m1 = m * above + s * density
    m2 = (m * m + s * s) * above + m * s * density
    # b − a² = (A_2 − A_1²) + P0·(Q − 2·A_1): computing b and a² first would cancel
    # catastrophically when Q is within P0 ≈ e^(−c²/2) of 1 (--input-mean -1e5).
    var_exp = (a2 - a1 * a1) + above * (below - 2 * a1)
    return Pieces(m1, m2, a1 - below, a2 - 2 * a1 + below, var_exp)


def pieces_ball(mean: Fraction, std: Fraction, bits: int) -> Pieces:
    """``pieces`` in Arb balls at the current Arb precision (``bits``): the same formulas,
    each piece with a proven radius (cancellation widens it; the caller raises precision)."""
    c = -mean / std
    m, s = exact_ball(mean), exact_ball(std)
    density = normal_balls.pdf(exact_ball(c))
    above = _tail(c, bits)
    below = _tail(-c, bits)

    def exp_below(k: int) -> Any:
        exponent = k * mean + Fraction(k * k) * std * std / 2
        return exact_ball(exponent).exp() * _tail(k * std - c, bits)

    a1, a2 = exp_below(1), exp_below(2)
    m1 = m * above + s * density
    m2 = (m * m + s * s) * above + m * s * density
    var_exp = (a2 - a1 * a1) + above * (below - 2 * a1)
    return Pieces(m1, m2, a1 - below, a2 - 2 * a1 + below, var_exp)


def _tail(x: Fraction, bits: int) -> Any:
    """Q(x) for any real x, from the small tail."""
    return normal_balls.upper_tail(x, bits) if x >= 0 else 1 - normal_balls.upper_tail(-x, bits)


def closed_form_ball(p: Pieces, mean: Fraction, second: Fraction) -> tuple[Any, Any]:
    """``closed_form`` on balls: (λ, α) with proven radii, nan balls while a sign the formula
    needs is not yet proven (the caller raises the precision)."""
    nan = arb("nan")
    if not (p.a < 0 and p.b > 0 and p.m1 > 0):
        return nan, nan
    sign = (mean > 0) - (mean < 0)
    k = exact_ball(mean * mean / second).sqrt()
    inner = p.a * p.a * p.m2 + p.b * (p.m1 * p.m1 - k * k * p.m2)
    if not inner > 0:
        return nan, nan
    root, size = inner.sqrt(), abs(p.a)
    numerator = p.m1 * root - sign * k * size * p.m2
    denominator = size * root + sign * k * p.b * p.m1
    if not (numerator > 0 and denominator > 0):
        return nan, nan
    alpha = numerator / denominator
    lam = (exact_ball(second) / (p.m2 + alpha * alpha * p.b)).sqrt()
    return lam, alpha


def ratio_bounds(p: Pieces) -> tuple[mpmath.mpf, mpmath.mpf]:
    """(R(∞), R(0)): the open interval of mean/std ratios that selu reaches for α > 0; nan
    while the precision is too low for the cancellation in the variances."""
    var_relu = p.m2 - p.m1 * p.m1
    if not (p.a < 0 and p.var_exp > 0 and var_relu > 0):
        return mpmath.nan, mpmath.nan
    return p.a / mpmath.sqrt(p.var_exp), p.m1 / mpmath.sqrt(var_relu)


def closed_form(p: Pieces, mean: Fraction, second: Fraction) -> tuple[mpmath.mpf, mpmath.mpf]:
    """(λ, α) from the reduction in the module docstring; nan where the precision is too low
    to tell (the caller has already checked that the target is reachable)."""
    if not (p.a < 0 and p.b > 0 and p.m1 > 0):
        return mpmath.nan, mpmath.nan
    sign = (mean > 0) - (mean < 0)
    k = mpmath.sqrt(to_mpf(mean * mean / second))
    inner = p.a * p.a * p.m2 + p.b * (p.m1 * p.m1 - k * k * p.m2)
    if inner < 0:
        return mpmath.nan, mpmath.nan
    root, size = mpmath.sqrt(inner), abs(p.a)
    numerator = p.m1 * root - sign * k * size * p.m2
    denominator = size * root + sign * k * p.b * p.m1
    if not (numerator > 0 and denominator > 0):
        return mpmath.nan, mpmath.nan
    alpha = numerator / denominator
    lam = mpmath.sqrt(to_mpf(second) / (p.m2 + alpha * alpha * p.b))
    return lam, alpha


def _equations(p: Pieces, mean: mpmath.mpf, second: mpmath.mpf):
    """The two moment equations λ·E[g] − μ and λ²·E[g²] − (μ² + v), as functions of (λ, α)."""

    def f(lam, alpha):
        return [lam * (p.m1 + alpha * p.a) - mean, lam * lam * (p.m2 + alpha * alpha * p.b) - second]

    return f


def _scaled_equations(p: Pieces, mean: mpmath.mpf, second: mpmath.mpf, lam0: mpmath.mpf, alpha0: mpmath.mpf):
    """The same equations in x = λ/λ0, y = α/α0, each divided by the size of its terms, with
    their Jacobian: well scaled for Newton whatever the input (λ ~ 1e99 and α ~ 1e-200 occur
    for --input-mean -30)."""
    size1 = lam0 * (p.m1 + alpha0 * abs(p.a)) + abs(mean)

    def f(x, y):
        lam, alpha = lam0 * x, alpha0 * y
        return [
            (lam * (p.m1 + alpha * p.a) - mean) / size1,
            (lam * lam * (p.m2 + alpha * alpha * p.b) - second) / second,
        ]

    def jacobian(x, y):
        lam, alpha = lam0 * x, alpha0 * y
        return [
            [lam0 * (p.m1 + alpha * p.a) / size1, lam * alpha0 * p.a / size1],
            [
                2 * lam * lam0 * (p.m2 + alpha * alpha * p.b) / second,
                2 * lam * lam * alpha * alpha0 * p.b / second,
            ],
        ]

    return f, jacobian


# A message shows at most this many digits of a bound (deciding may take thousands).
SHOWN_DIGITS = 60


def _show(value: mpmath.mpf, digits: int) -> str:
    """A bound for a message, correctly rounded without trailing zeros (as mpmath's nstr, which
    fails on values whose exponent needs a 4300-digit integer)."""
    mantissa, e, exponent = decimal_text(value, min(digits, SHOWN_DIGITS)).partition("e")
    if "." in mantissa:
        mantissa = mantissa.rstrip("0").rstrip(".")
    return mantissa + e + exponent


def _check_reachable(
    mean: Fraction, var: Fraction, input_mean: Fraction, input_std: Fraction
) -> tuple[str, str]:
    """Raise Outcome ("unreachable") unless R(∞) < μ/√v < R(0); return the bounds as text for the notes."""
    shown = BOUND_DIGITS
    while True:

        def evaluate() -> dict[str, mpmath.mpf]:
            low, high = ratio_bounds(pieces(input_mean, input_std))
            return {"low": low, "high": high, "ratio": to_mpf(mean) / mpmath.sqrt(to_mpf(var))}

        values = stable(evaluate, shown + 3)
        low, high, ratio = values["low"], values["high"], values["ratio"]
        # stable() gives shown + 6 correct digits; decide only with a margin well above that.
        margin = mpmath.mpf(10) ** (-(shown + 4))
        if abs(ratio - low) > margin * abs(low) and abs(ratio - high) > margin * abs(high):
            break
        if shown > 4 * 1000:
            raise PrecisionError(
                "{target_mean}/{target_var}: the target's mean/std ratio is too close to the edge "
                "of what selu can reach to decide",
                param="target_mean",
                params=("target_var",),
            )
        shown *= 2
    interval = f"({_show(low, shown)}, {_show(high, shown)})"
    if low < ratio < high:
        return _show(low, BOUND_DIGITS), _show(high, BOUND_DIGITS)
    raise Outcome(
        f"{{target_mean}}/{{target_var}}: no lambda > 0, alpha > 0 reaches mean/std ratio "
        f"{_show(ratio, shown)} ({{target_mean}}/sqrt({{target_var}})) for input mean "
        f"{to_text(input_mean)}, std {to_text(input_std)}; selu reaches only ratios in the open "
        f"interval {interval}, from the alpha -> inf limit to relu's ratio (alpha -> 0)",
        kind="unreachable",
        param="target_mean",
        params=("target_var",),
    )


def _check_exponents(input_mean: Fraction, input_std: Fraction) -> None:
    """Refuse at once (PrecisionError) an input whose α cannot be rounded at any precision.

    With c = −input_mean/input_std far from 0, one of the pieces is e^(−c²/2)-small against
    the others (a and b for c → −∞, M1 and M2 for c → +∞), and the closed form makes α at
    least e^(c²/4) or at most e^(−c²/4) (times powers of c). Its decimal exponent then exceeds
    c²/(4·ln 10) > c²/19 in size; when that has more bits than rounding takes
    (``rounding.MAX_EXPONENT_BITS``), the answer is the refusal the rounding would give after
    the whole budget (mpmath's e^(−c²/2) at such c takes seconds a call)."""
    ratio = input_mean / input_std
    lower = (ratio.numerator * ratio.numerator) // (19 * ratio.denominator * ratio.denominator)
    if lower.bit_length() > MAX_EXPONENT_BITS:
        raise PrecisionError(
            f"{{input_mean}}/{{input_std}}: at a ratio of about {_show(to_mpf(abs(ratio)), 3)} alpha is "
            f"exp(±(input_mean/input_std)^2/4) or beyond, a decimal exponent of more than "
            f"{int((MAX_EXPONENT_BITS - 1) * math.log10(2)) + 1} digits, which cannot be rounded: try a smaller ratio",
            param="input_mean",
            params=("input_std",),
        )


def selu_solve(
    *,
    target_mean: object = DEFAULTS["target_mean"],
    target_var: object = DEFAULTS["target_var"],
    input_mean: object = DEFAULTS["input_mean"],
    input_std: object = DEFAULTS["input_std"],
    digits: int = 15,
    derive: bool = False,
) -> Computation:
    """λ and α of selu for Z ~ N(input_mean, input_std²) → target mean and variance.

    >>> solved = selu_solve(digits=20)
    >>> bool(solved.value("residual") < 1e-19)  # at the 20-digit decimals of λ and α
    True
    """
    digits = check_digits(digits)
    mean = as_number(target_mean, "target_mean")
    var = positive(target_var, "target_var")
    in_mean = as_number(input_mean, "input_mean")
    in_std = positive(input_std, "input_std")
    second = mean * mean + var
    _check_exponents(in_mean, in_std)
    low, high = _check_reachable(mean, var, in_mean, in_std)

    def evaluate(bits: int) -> dict[str, Any]:
        lam, alpha = closed_form_ball(pieces_ball(in_mean, in_std, bits), mean, second)
        return {"lambda": lam, "alpha": alpha, "saturation": -lam * alpha}

    fields = prove(evaluate, digits)
    # SPEC: the residual of the two equations at the *reported* λ and α, i.e. at the rounded
    # decimals, evaluated exactly on those decimals (in balls, and proven like the rest).
    # (Arb reads a decimal as a ball around it: 1e+2171472409 needs no 10^2171472409.)
    shown = {name: decimal_text(fields[name]["value"], digits) for name in ("lambda", "alpha")}

    def evaluate_residual(bits: int) -> dict[str, Any]:
        p = pieces_ball(in_mean, in_std, bits)
        lam, alpha = arb(shown["lambda"]), arb(shown["alpha"])
        first = lam * (p.m1 + alpha * p.a) - exact_ball(mean)
        second_eq = lam * lam * (p.m2 + alpha * alpha * p.b) - exact_ball(second)
        return {"residual": abs(first).max(abs(second_eq))}

    fields.update(prove(evaluate_residual, digits))
    forms: dict[str, tuple[str, str]] = {}
    derivation: tuple[tuple[str, str, str], ...] = ()
    if derive:
        from ..symbolic.selu import derive as derive_forms

        derivation, forms = derive_forms(mean, var, in_mean, in_std, fields["alpha"]["value"], digits)
    notes = (
        f"reachable mean/std ratios for this input: ({low}, {high}); each is reached by exactly "
        "one (lambda, alpha), since the ratio of selu(Z) falls strictly as alpha grows",
    )
    inputs = {"target_mean": mean, "target_var": var, "input_mean": in_mean, "input_std": in_std}
    return Computation(
        "selu_solve",
        inputs,
        digits,
        quantities(DESCRIPTIONS, fields, forms),
        notes=notes,
        derivation=derivation,
    )


def solve_mpmath(
    target_mean: Fraction, target_var: Fraction, input_mean: Fraction, input_std: Fraction, digits: int
) -> tuple[mpmath.mpf, mpmath.mpf]:
    """(λ, α) by the mpmath route: the closed form at rising precision (``stable``), polished
    and verified by Newton on both equations. The tests' second route to the Arb balls."""
    second = target_mean * target_mean + target_var
    final_dps = 0

    def evaluate() -> dict[str, mpmath.mpf]:
        nonlocal final_dps
        final_dps = mp.dps
        lam, alpha = closed_form(pieces(input_mean, input_std), target_mean, second)
        return {"lambda": lam, "alpha": alpha}

    closed = stable(evaluate, digits)
    return _polish(closed, input_mean, input_std, target_mean, second, digits, final_dps)


def _scale_digits(second: Fraction) -> int:
    """Extra digits so that an absolute residual below 10^-digits is reachable for large targets."""
    if second <= 1:
        return 5
    # log10 from bit lengths: exact enough, and no float overflow for --target-var 1e400.
    bits = second.numerator.bit_length() - second.denominator.bit_length() + 1
    return 5 + math.ceil(bits * math.log10(2))


def _polish(
    closed: dict[str, mpmath.mpf],
    in_mean: Fraction,
    in_std: Fraction,
    mean: Number,
    second: Fraction,
    digits: int,
    dps: int,
) -> tuple[mpmath.mpf, mpmath.mpf]:
    """Newton on both moment equations from the closed form; both routes must agree."""
    with mp.workdps(dps + _scale_digits(second)):
        lam0, alpha0 = closed["lambda"], closed["alpha"]
        f, jacobian = _scaled_equations(pieces(in_mean, in_std), to_mpf(mean), to_mpf(second), lam0, alpha0)
        x, y = find_root(
            f,
            (1, 1),
            jacobian=jacobian,
            tol=mpmath.mpf(10) ** (-(digits + 5)),
            what="the selu moment equations",
        )
        lam, alpha = lam0 * x, alpha0 * y
        tolerance = mpmath.mpf(10) ** (-(digits + 2))
        for name, polished in (("lambda", lam), ("alpha", alpha)):
            if abs(polished - closed[name]) > tolerance * abs(polished):
                raise PrecisionError(
                    f"selu_solve: Newton and the closed form disagree on {name} at {digits} digits"
                )
    return lam, alpha
