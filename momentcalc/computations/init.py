"""``init``: the weight variance a layer needs, and how to draw it.

Garg, where 1/sqrt(d) comes from, and Wu 2022, NLP reading notes: a unit of a linear layer sums fan_in products w·x, so keeping the second
moment of the signal asks for Var[w] = 1/fan_in (LeCun); Xavier/Glorot averages the forward
and backward conditions, Var[w] = 2/(fan_in + fan_out) (Wu 2022, NLP reading notes: N(0, 2/(d_in + d_out)));
He multiplies by the square of the activation's moment-preserving gain,

    Var[w] = gain² / fan_in,   gain = 1 / sqrt(E[act(Z)²]),  Z ~ N(0, 1)

(ReLU: E[relu(Z)²] = 1/2, so gain² = 2 and Var[w] = 2/fan_in; Garg's text says "scaled by
2/sqrt(n_l)", but its own Var[w] = 2/n_l means a std of sqrt(2/n_l)). The gain is computed exactly
for any activation by ``moments.gaussian_moments``, never taken from a table.

How to draw a weight with that std:
    normal     N(0, std²)
    uniform    U(−bound, bound) with bound = sqrt(3)·std
    truncnorm  N(0, std_to_pass²) cut at ±2·std_to_pass (tf.random.truncated_normal, BERT),
               std_to_pass = std / sqrt(gamma(−2, 2)) (Su 2021, Transformer initialization), bound = 2·std_to_pass

Su 2021, BERT's 0.02: BERT passes 0.02; ``bert_ratio`` = 0.02 / std says how that compares
(Xavier at 768×768: std 1/sqrt(768) ≈ 0.0361, ratio ≈ 0.55).

Every result is proven: exact rationals where they are rational (the lecun and xavier
variances, he's when E[act(Z)²] is rational, and any square root that comes out rational),
Arb balls otherwise — E[act(Z)²] from the certified moments, gamma from the certified
truncated normal — rounded only when the whole ball rounds alike (``tier.prove``).
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any, cast

import mpmath

from ..defaults import BERT_STD, TRUNCATION
from ..defaults import INIT as DEFAULTS
from ..engine import normal_balls
from ..engine.numbers import Number, as_number, rational_sqrt, to_text
from ..engine.precision import MAX_INTERNAL_DIGITS
from ..tier import (
    Computation,
    InputError,
    Precision,
    check_digits,
    choice,
    digits_for,
    exact_ball,
    prove,
    quantities,
    whole,
)
from .residual_scaling import RESIDUALS, residual_scaling

# CLI command -> the function of this module that computes it (the table ``momentcalc.command_table`` reads).
COMMANDS = {"init": "init"}

SCHEMES = ("lecun", "xavier", "he")
DISTRIBUTIONS = ("normal", "uniform", "truncnorm")
# Extra digits asked of the activation gain, so that its rounding stays below ours.
GAIN_GUARD = 5

DESCRIPTIONS = {
    "gain": "exact gain of {activation}, 1/sqrt(E(act(Z)^2)), Z ~ N(0,1); variance = gain^2/fan_in",
    "variance": "variance of each weight that keeps the signal's second moment",
    "std": "sqrt(variance), the actual std the weights should have",
    "bound": "largest |w| a draw can take",
    "std_to_pass": "std to pass to a +-2 sigma truncated normal so that the actual std is std",
    "bert_ratio": "0.02 / std: BERT's initializer std relative to this one",
    "residual_scale": "factor on the init std of the residual branches' output weights ({residual})",
    "residual_std": "std * residual_scale: the std of those weights",
    "embedding_scale": "T-Fixup's factor on the input embeddings (drawn N(0, d^(-1/2)))",
}
MAX_LAYERS = 10**6
BOUND_DESCRIPTIONS = {
    "uniform": "draw U(-bound, bound): bound = sqrt(3)*std",
    "truncnorm": "cut-off of the truncated normal: bound = 2*std_to_pass",
}


def he_gain(activation: str, params: Mapping[str, object] | None, digits: int) -> mpmath.mpf:
    """1 / sqrt(E[act(Z)²]) for Z ~ N(0, 1), correct to more than ``digits`` digits.

    ``gaussian_moments`` caches, so a sweep over --fan-in computes the gain once."""
    from ..moments import gaussian_moments

    gain = gaussian_moments(
        activation, mean=0, std=1, params=params, digits=digits + GAIN_GUARD, derivative=False
    )["gain"]
    if not (mpmath.isfinite(gain) and gain > 0):
        raise InputError(
            f"{{activation}} {activation!r} has no finite gain (E[act(Z)^2] is 0 or infinite)",
            param="activation",
        )
    return gain


def exact_second_moment(activation: str, params: Mapping[str, Fraction]) -> Fraction | None:
    """E[act(Z)²], Z ~ N(0, 1), as a fraction when the catalog's closed form is rational
    (relu 1/2, relu2 3/2, leaky_relu (1 + slope²)/2, identity and selu 1), else None
    (``moments.exact``)."""
    from ..catalog import resolve
    from ..moments.exact import exact_expectations
    from ..moments.monomials import SECOND_MOMENT

    return exact_expectations(resolve(activation, params), (SECOND_MOMENT,), 0, 1).get(SECOND_MOMENT)


def _second_moment_ball(activation: str, params: Mapping[str, Fraction], digits: int, extra_bits: int) -> Any:
    """E[act(Z)²] as a proven ball, to ``digits`` + GAIN_GUARD digits and as many more as
    ``extra_bits`` (the certified moments: cached, shared with ``he_gain``)."""
    from ..moments import moment_balls

    wanted = min(MAX_INTERNAL_DIGITS, digits + GAIN_GUARD + digits_for(extra_bits))
    return moment_balls(activation, mean=0, std=1, params=params, digits=wanted, derivative=False)[
        "second_moment"
    ]


def _exact_results(
    kind: str, draw: str, variance: Fraction | None, square: Fraction | None
) -> dict[str, Fraction]:
    """The results that are rational, exactly: the variance when it is (always for lecun and
    xavier; for he when E[act(Z)²] is), and the gain, std, uniform bound and bert_ratio when
    their square roots are rational (fan_in 3: std 1/sqrt(3), bound 1)."""
    if variance is None:
        return {}
    known = {"variance": variance}
    if kind == "he" and square is not None:
        gain = rational_sqrt(1 / square)
        if gain is not None:
            known["gain"] = gain
    std = rational_sqrt(variance)
    if std is not None:
        known["std"] = std
        known["bert_ratio"] = BERT_STD / std
    if draw == "uniform":
        bound = rational_sqrt(3 * variance)
        if bound is not None:
            known["bound"] = bound
    return known


def init(
    *,
    fan_in: object = None,
    fan_out: object = None,
    scheme: str = DEFAULTS["scheme"],
    distribution: str = DEFAULTS["distribution"],
    activation: str | None = None,
    residual: str | None = None,
    layers: object = None,
    params: Mapping[str, object] | None = None,
    digits: int = 15,
    derive: bool = False,
) -> Computation:
    """Weight-init parameters of a layer, every result correct to ``digits`` digits.

    ``activation`` (default relu) and ``params`` (its catalog parameters by name, e.g.
    ``{"slope": "0.2"}`` for leaky_relu) apply to
    ``scheme="he"`` only; ``fan_out`` is required by xavier and reported otherwise.
    ``residual`` (gpt2, tfixup-encoder, tfixup-decoder) with ``layers`` adds the residual-branch
    scaling those methods apply on top of this init (``residual_scaling``).

    >>> init(fan_in=768, fan_out=768, scheme="xavier").value("std")  # doctest: +ELLIPSIS
    mpf('0.03608439182435161...')
    """
    digits = check_digits(digits)
    kind = choice(scheme, "scheme", SCHEMES)
    draw = choice(distribution, "distribution", DISTRIBUTIONS)
    if fan_in is None:
        raise InputError(
            "{fan_in} is required: the number of inputs of each unit, a whole number >= 1", param="fan_in"
        )
    n_in = whole(fan_in, "fan_in")
    n_out = None if fan_out is None else whole(fan_out, "fan_out")
    if kind == "xavier" and n_out is None:
        raise InputError(
            "{fan_out} is required with {scheme} xavier (variance 2/(fan_in + fan_out))",
            param="fan_out",
            params=("scheme",),
        )
    given = {name: value for name, value in (params or {}).items() if value is not None}
    if kind != "he" and (activation is not None or given):
        option = "activation" if activation is not None else next(iter(given))
        raise InputError(
            f"{{{option}}} applies only to {{scheme}} he (lecun and xavier assume a linear unit)",
            param=option,
            params=("scheme",),
        )
    act = None
    square = None
    exact = {name: as_number(value, name) for name, value in given.items()}
    if kind == "lecun":
        variance: Fraction | None = 1 / n_in
    elif kind == "xavier":
        assert n_out is not None  # required with xavier (checked above)
        variance = 2 / (n_in + n_out)
    else:
        act = DEFAULTS["activation"] if activation is None else str(activation)
        he_gain(act, exact, digits)  # the activation's errors (no finite gain) first
        square = exact_second_moment(act, exact)  # E[act(Z)²], when it is rational
        variance = None if square is None else 1 / (square * n_in)
    known = _exact_results(kind, draw, variance, square)
    scaling = _residual(residual, layers)
    if scaling is not None:
        for name, root in (("residual_scale", scaling.scale), ("embedding_scale", scaling.embedding)):
            value = None if root is None else root.exact()
            if value is not None:
                known[name] = value
        scale_squared = scaling.scale.squared().exact()
        if "variance" in known and scale_squared is not None:
            residual_std = rational_sqrt(known["variance"] * scale_squared)
            if residual_std is not None:
                known["residual_std"] = residual_std

    def evaluate(bits: int) -> dict[str, Any]:
        if kind == "he":
            assert act is not None  # he sets the activation
            square_ball = _second_moment_ball(act, exact, digits, bits - first_bits)
            variance_ball = 1 / (square_ball * exact_ball(n_in))
            values = {"gain": 1 / square_ball.sqrt()}
        else:
            assert variance is not None  # lecun and xavier: 1/fan_in, 2/(fan_in + fan_out)
            variance_ball = exact_ball(variance)
            values = {}
        std = variance_ball.sqrt()
        values.update(variance=variance_ball, std=std)
        if draw == "uniform":
            values["bound"] = (3 * variance_ball).sqrt()
        elif draw == "truncnorm":
            t = exact_ball(TRUNCATION)
            _, _, gamma = normal_balls.truncated_moments(-TRUNCATION, TRUNCATION, bits)
            to_pass = std / gamma.sqrt()
            values["bound"] = t * to_pass
            values["std_to_pass"] = to_pass
        values["bert_ratio"] = exact_ball(BERT_STD) / std
        if scaling is not None:
            scale = scaling.scale.ball()
            values.update(residual_scale=scale, residual_std=std * scale)
            if scaling.embedding is not None:
                values["embedding_scale"] = scaling.embedding.ball()
        return values

    first_bits = Precision(digits).start_bits
    fields = prove(evaluate, digits, start_bits=first_bits, exact=known)
    order = ["gain"] if kind == "he" else []
    order += [
        "variance",
        "std",
        *(["bound"] if draw != "normal" else []),
        *(["std_to_pass"] if draw == "truncnorm" else []),
        "bert_ratio",
    ]
    notes: list[str] = []
    if scaling is not None:
        order += [
            "residual_scale",
            "residual_std",
            *(["embedding_scale"] if scaling.embedding is not None else []),
        ]
        notes.append(
            f"{residual}: residual_scale = {scaling.scale.text} with {layers_name(residual)} = {int(Fraction(cast(_Layers, layers)))}, "
            f"applied to {scaling.applies_to} ({scaling.source})"
        )
    inputs: dict[str, Number | str] = {"fan_in": n_in}
    if n_out is not None:
        inputs["fan_out"] = n_out
    inputs.update(scheme=kind, distribution=draw)
    if act is not None:
        inputs["activation"] = act
        inputs.update(exact)
    if scaling is not None:
        inputs.update(residual=str(residual).strip().lower(), layers=Fraction(cast(_Layers, layers)))
    closed: dict[str, tuple[str, str]] = {}
    derivation: tuple[tuple[str, str, str], ...] = ()
    if derive:
        from ..symbolic.init import derive as derive_forms

        from ..catalog import resolve

        bound = resolve(act, exact) if act is not None else None
        closed, derivation = derive_forms(kind, draw, n_in, n_out, bound, act)
    describe = {name: BOUND_DESCRIPTIONS[draw] if name == "bound" else DESCRIPTIONS[name] for name in order}
    return Computation(
        "init",
        inputs,
        digits,
        quantities(describe, fields, closed),
        notes=tuple(notes),
        derivation=derivation,
    )


def layers_name(residual: str | None) -> str:
    return {"gpt2": "L", "tfixup-encoder": "N", "tfixup-decoder": "M"}.get(str(residual).strip().lower(), "L")


# ``layers`` with a residual scaling: a number _residual has checked (a whole number of layers).
_Layers = Fraction | int | float | str


def _residual(residual: object, layers: object):
    """The residual scaling asked for, or None; ``layers`` goes with it."""
    if residual is None:
        if layers is not None:
            raise InputError(
                "{layers} applies only with {residual} (gpt2, tfixup-encoder, tfixup-decoder)",
                param="layers",
                params=("residual",),
            )
        return None
    kind = choice(residual, "residual", RESIDUALS)
    if layers is None:
        raise InputError(
            f"{{layers}} is required with {{residual}} {kind}: the number of "
            f"{'blocks L' if kind == 'gpt2' else 'layers ' + layers_name(kind)}",
            param="layers",
            params=("residual",),
        )
    number = as_number(layers, "layers")
    if number.denominator != 1 or not 1 <= number <= MAX_LAYERS:
        raise InputError(
            param="layers", allowed=f"a whole number from 1 to {MAX_LAYERS}", got=to_text(number)
        )
    return residual_scaling(kind, int(number))
