"""``init``: the weight variance a layer needs, and how to draw it.

Seeds 002 and 004: a unit of a linear layer sums fan_in products w·x, so keeping the second
moment of the signal asks for Var[w] = 1/fan_in (LeCun); Xavier/Glorot averages the forward
and backward conditions, Var[w] = 2/(fan_in + fan_out) (seed 004: N(0, 2/(d_in + d_out)));
He multiplies by the square of the activation's moment-preserving gain,

    Var[w] = gain² / fan_in,   gain = 1 / sqrt(E[act(Z)²]),  Z ~ N(0, 1)

(ReLU: E[relu(Z)²] = 1/2, so gain² = 2 and Var[w] = 2/fan_in; seed 002's text says "scaled by
2/sqrt(n_l)", but its own Var[w] = 2/n_l means a std of sqrt(2/n_l)). The gain is computed exactly
for any activation by ``moments.gaussian_moments``, never taken from a table.

How to draw a weight with that std:
    normal     N(0, std²)
    uniform    U(−bound, bound) with bound = sqrt(3)·std
    truncnorm  N(0, std_to_pass²) cut at ±2·std_to_pass (tf.random.truncated_normal, BERT),
               std_to_pass = std / sqrt(gamma(−2, 2)) (seed 000), bound = 2·std_to_pass

Seed 001: BERT passes 0.02; ``bert_ratio`` = 0.02 / std says how that compares
(Xavier at 768×768: std 1/sqrt(768) ≈ 0.0361, ratio ≈ 0.55).
"""

from __future__ import annotations

from collections.abc import Mapping

import mpmath

from ..defaults import BERT_STD, TRUNCATION
from ..defaults import INIT as DEFAULTS
from ..engine import normal
from ..engine.numbers import Number, as_number, to_mpf
from ..engine.precision import stable
from ..errors import InputError
from ..result import Computation, Quantity
from .common import check_digits, choice, whole

SCHEMES = ("lecun", "xavier", "he")
DISTRIBUTIONS = ("normal", "uniform", "truncnorm")
# Extra digits asked of the activation gain, so that its rounding stays below ours.
GAIN_GUARD = 5

DESCRIPTIONS = {
    "gain": "exact gain of --activation, 1/sqrt(E(act(Z)^2)), Z ~ N(0,1); variance = gain^2/fan_in",
    "variance": "variance of each weight that keeps the signal's second moment",
    "std": "sqrt(variance), the actual std the weights should have",
    "bound": "largest |w| a draw can take",
    "std_to_pass": "std to pass to a +-2 sigma truncated normal so that the actual std is std",
    "bert_ratio": "0.02 / std: BERT's initializer std relative to this one",
}
BOUND_DESCRIPTIONS = {
    "uniform": "draw U(-bound, bound): bound = sqrt(3)*std",
    "truncnorm": "cut-off of the truncated normal: bound = 2*std_to_pass",
}


def he_gain(activation: str, params: Mapping[str, object] | None, digits: int) -> mpmath.mpf:
    """1 / sqrt(E[act(Z)²]) for Z ~ N(0, 1), correct to more than ``digits`` digits.

    ``gaussian_moments`` caches, so a sweep over --fan-in computes the gain once."""
    from ..moments import gaussian_moments

    gain = gaussian_moments(activation, mean=0, std=1, params=params, digits=digits + GAIN_GUARD,
                            derivative=False)["gain"]
    if not (mpmath.isfinite(gain) and gain > 0):
        raise InputError(f"{{activation}} {activation!r} has no finite gain (E[act(Z)^2] is 0 or infinite)",
                         param="activation")
    return gain


def init(
    fan_in: object = None,
    fan_out: object = None,
    scheme: str = DEFAULTS["scheme"],
    distribution: str = DEFAULTS["distribution"],
    activation: str | None = None,
    *,
    params: Mapping[str, object] | None = None,
    digits: int = 15,
    derive: bool = False,
) -> Computation:
    """Weight-init parameters of a layer, every result correct to ``digits`` digits.

    ``activation`` (default relu) and ``params`` (its catalog parameters by name, e.g.
    ``{"slope": "0.2"}`` for leaky_relu) apply to
    ``scheme="he"`` only; ``fan_out`` is required by xavier and reported otherwise.

    >>> init(fan_in=768, fan_out=768, scheme="xavier").value("std")  # doctest: +ELLIPSIS
    mpf('0.03608439182435161...')
    """
    digits = check_digits(digits)
    kind = choice(scheme, "scheme", SCHEMES)
    draw = choice(distribution, "distribution", DISTRIBUTIONS)
    if fan_in is None:
        raise InputError("{fan_in} is required: the number of inputs of each unit, a whole number >= 1", param="fan_in")
    n_in = whole(fan_in, "fan_in")
    n_out = None if fan_out is None else whole(fan_out, "fan_out")
    if kind == "xavier" and n_out is None:
        raise InputError("{fan_out} is required with {scheme} xavier (variance 2/(fan_in + fan_out))", param="fan_out",
                         params=("scheme",))
    given = {name: value for name, value in (params or {}).items() if value is not None}
    if kind != "he" and (activation is not None or given):
        option = "activation" if activation is not None else next(iter(given))
        raise InputError(f"{{{option}}} applies only to {{scheme}} he (lecun and xavier assume a linear unit)",
                         param=option, params=("scheme",))
    act = None
    gain = None
    exact = {name: as_number(value, name) for name, value in given.items()}
    if kind == "he":
        act = DEFAULTS["activation"] if activation is None else str(activation)
        gain = he_gain(act, exact, digits)

    def evaluate() -> dict[str, mpmath.mpf]:
        if kind == "lecun":
            variance = 1 / to_mpf(n_in)
        elif kind == "xavier":
            variance = 2 / (to_mpf(n_in) + to_mpf(n_out))
        else:
            variance = (+gain) ** 2 / to_mpf(n_in)
        std = mpmath.sqrt(variance)
        values = {"gain": +gain} if gain is not None else {}
        values.update(variance=variance, std=std)
        if draw == "uniform":
            values["bound"] = mpmath.sqrt(3) * std
        elif draw == "truncnorm":
            t = mpmath.mpf(TRUNCATION)
            _, _, gamma = normal.truncated_moments(-t, t)
            to_pass = std / mpmath.sqrt(gamma)
            values["bound"] = t * to_pass
            values["std_to_pass"] = to_pass
        values["bert_ratio"] = to_mpf(BERT_STD) / std
        return values

    values = stable(evaluate, digits)
    inputs: dict[str, Number | str] = {"fan_in": n_in}
    if n_out is not None:
        inputs["fan_out"] = n_out
    inputs.update(scheme=kind, distribution=draw)
    if act is not None:
        inputs["activation"] = act
        inputs.update(exact)
    closed: dict[str, tuple[str, str]] = {}
    derivation: tuple[tuple[str, str, str], ...] = ()
    if derive:
        from ..symbolic.init import derive as derive_forms

        from ..catalog import resolve

        bound = resolve(act, exact) if act is not None else None
        closed, derivation = derive_forms(kind, draw, n_in, n_out, bound, act)
    results = tuple(
        Quantity(name, value, BOUND_DESCRIPTIONS[draw] if name == "bound" else DESCRIPTIONS[name],
                 *closed.get(name, (None, None)))
        for name, value in values.items()
    )
    return Computation("init", inputs, digits, results, derivation=derivation)
