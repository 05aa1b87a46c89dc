"""``postnorm-decay``: how the residual paths of a Post-Norm stack fade with depth.

Su 2021, Transformer initialization, and Su 2021, BERT's 0.02: at initialization x_t and F_t(x_t) are independent with Var[F_t] =
sigma²·Var[x_t], so the Norm of x_{t+1} = Norm(x_t + F_t(x_t)) divides by sqrt(1 + sigma²):

    x_L = d^L·x_0 + Σ_{k<L} d^(L−k)·F_k(x_k),   d = 1/sqrt(1 + sigma²)

(sigma = 1: x_0 and F_0 weigh 2^(−L/2), F_{L−1} weighs 2^(−1/2); Su 2021, BERT's 0.02: BERT's small
init std makes sigma small and d close to 1.) DeepNorm (DeepNet, Wang et al. 2022) scales
the residual, x_{t+1} = Norm(alpha·x_t + F_t), which divides by sqrt(alpha² + sigma²):

    d = alpha/sqrt(alpha² + sigma²),   weight of F_k = d^(L−k)/alpha

with DeepNet's encoder-only alpha = (2L)^(1/4) by default. Pre-Norm, x_{t+1} = x_t +
F_t(Norm(x_t)) (Su 2021, Transformer initialization), adds without rescaling: every weight is 1 and Var[x_L] =
1 + L·sigma² until the final Norm.

``depth_to_threshold`` is the smallest L' with d^L' < threshold, i.e. floor(ln t / ln d) + 1,
decided exactly when d^L' = t (e.g. sigma = 1, t = 1/4) and otherwise by an Arb ball of the
ratio at growing precision; it prints as the whole number it is.

Every result is proven: exact rationals where they are rational (d² always is unless alpha is
DeepNet's irrational (2L)^(1/4)), Arb balls rounded only when the whole ball rounds alike
(``tier.prove``) otherwise; the branch weights are proven element by element
(``postnorm_series``).
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import mpmath

from ..defaults import POSTNORM_DECAY as DEFAULTS
from ..engine.balls import exact_ball, max_bits
from ..engine.numbers import Number, as_number, to_mpf, to_text
from ..tier import (
    Computation,
    InputError,
    Precision,
    PrecisionError,
    Quantity,
    arb_precision,
    check_digits,
    exactly,
    prove,
)
from .deepnet import ARCHES, Root, deepnet
from .postnorm_series import GeometricWeights

# CLI command -> the function of this module that computes it (the table ``momentcalc.command_table`` reads).
COMMANDS = {"postnorm-decay": "postnorm_decay"}

SCHEMES = ("post", "pre", "deepnorm")
MAX_LAYERS = 10**6

DECAY = {
    "post": "1/sqrt(1 + sigma^2): the factor each Norm applies to everything before it",
    "deepnorm": "alpha/sqrt(alpha^2 + sigma^2): the factor each DeepNorm layer applies to x_t",
    "pre": "1: a pre-norm residual adds F_t without rescaling x_t",
}
BRANCH = {
    "post": "weight of F_k(x_k) in x_L for k = 0 .. L-1: decay^(L-k)",
    "deepnorm": "weight of F_k(x_k) in x_L for k = 0 .. L-1: decay^(L-k)/alpha",
    "pre": "weight of F_k(x_k) in x_L for k = 0 .. L-1: 1 (before the final Norm)",
}
DESCRIPTIONS = {
    "identity_weight": "decay^L: weight of x_0 in x_L",
    "depth_to_threshold": "smallest depth whose identity weight decay^depth is below {threshold}",
    "final_variance": "variance of x_L for unit-variance x_0: 1 + L*sigma^2 for pre (before the final Norm), else 1",
    "alpha": "DeepNorm residual multiplier alpha",
}


def postnorm_decay(
    *,
    layers: object = DEFAULTS["layers"],
    sigma: object = DEFAULTS["sigma"],
    threshold: object = DEFAULTS["threshold"],
    scheme: str = DEFAULTS["scheme"],
    alpha: object = None,
    arch: str | None = None,
    decoder_layers: object = None,
    digits: int = 15,
    derive: bool = False,
) -> Computation:
    """Weights of x_0 and of every branch F_k in x_L, correct to ``digits`` digits.

    ``branch_weights`` is a sequence (indexable, iterable) of mpf computed on demand.

    >>> postnorm_decay(layers=12).value("identity_weight")
    mpf('0.015625')
    """
    digits = check_digits(digits)
    depth = _layers(layers)
    s = as_number(sigma, "sigma")
    if s < 0:
        raise InputError(param="sigma", allowed="at least 0", got=to_text(s))
    t = as_number(threshold, "threshold")
    if not 0 < t <= 1:
        raise InputError(param="threshold", allowed="greater than 0 and at most 1", got=to_text(t))
    form = str(scheme).strip().lower()
    if form not in SCHEMES:
        raise InputError(param="scheme", allowed=f"one of {', '.join(SCHEMES)}", got=repr(scheme))
    given_alpha = None
    if alpha is not None:
        if form != "deepnorm":
            raise InputError(
                f"{{alpha}} applies only with {{scheme}} deepnorm, got {{scheme}} {form}",
                param="alpha",
                params=("scheme",),
            )
        given_alpha = as_number(alpha, "alpha")
        if given_alpha <= 0:
            raise InputError(param="alpha", allowed="greater than 0", got=to_text(given_alpha))

    architecture, decoder_depth = _architecture(form, arch, decoder_layers)
    configs = deepnet(architecture, depth, decoder_depth) if form == "deepnorm" else {}
    config_exact = {name: root.exact() for name, root in configs.items()}
    scheme_parts = _Scheme(form, depth, s, given_alpha, configs.get("deepnorm_alpha"))
    exact = scheme_parts.exact_results(depth, s)

    exact.update({name: value for name, value in config_exact.items() if value is not None})

    def evaluate(bits: int) -> dict[str, Any]:
        _c, square, d = scheme_parts.ball_parts()
        values = {"decay": d, "identity_weight": square ** (depth // 2) * (d if depth % 2 else 1)}
        if form == "deepnorm":
            values["alpha"] = scheme_parts.alpha_ball()
            values.update({name: root.ball() for name, root in configs.items() if config_exact[name] is None})
        return values

    # The power's radius grows with the depth: log2(depth) more bits from the start.
    fields = prove(
        evaluate, digits, start_bits=Precision(digits).start_bits + depth.bit_length(), exact=exact
    )
    weights = GeometricWeights(
        depth, scheme_parts.parts, digits, scheme_parts.exact_parts, scheme_parts.ball_parts
    )
    reach = scheme_parts.depth_to_threshold(t)

    closed: dict[str, tuple[str, str]] = {}
    derivation: tuple[tuple[str, str, str], ...] = ()
    if derive:
        from ..symbolic.postnorm import derive as derive_forms

        closed, derivation = derive_forms(depth, s, t, form, given_alpha, configs)

    def quantity(name: str, description: str, **value: Any) -> Quantity:
        if not value:
            value = fields[name]
        return Quantity(
            name,
            description=description,
            **dict(zip(("closed_form", "latex"), closed.get(name, (None, None)))),
            **value,
        )

    if reach is None:  # decay 1: never below the threshold
        reach_value = {"value": mpmath.inf, "certified": True, "error_bound": mpmath.mpf(0), "whole": True}
    else:
        reach_value = {**exactly(Fraction(reach)), "whole": True}
    results = [
        quantity("decay", DECAY[form]),
        quantity("identity_weight", DESCRIPTIONS["identity_weight"]),
        quantity(
            "branch_weights", BRANCH[form], value=weights, certified=True, error_bound=weights.error_bound()
        ),
        quantity("depth_to_threshold", DESCRIPTIONS["depth_to_threshold"], **reach_value),
        quantity("final_variance", DESCRIPTIONS["final_variance"]),
    ]
    inputs: dict[str, Number | str] = {"layers": Fraction(depth), "sigma": s, "threshold": t, "scheme": form}
    notes = []
    if form == "deepnorm":
        results.append(quantity("alpha", DESCRIPTIONS["alpha"]))
        results.extend(
            quantity(name, DEEPNET_DESCRIPTIONS[name] + ": " + root.text) for name, root in configs.items()
        )
        inputs["arch"] = architecture
        if decoder_depth is not None:
            inputs["decoder_layers"] = Fraction(decoder_depth)
        if given_alpha is None:
            notes.append(
                f"alpha = deepnorm_alpha = {configs['deepnorm_alpha'].text}, DeepNet's choice for {{arch}} "
                f"{architecture}, with {ARCH_LAYERS[architecture]} (Wang et al., 2022, DeepNet: Scaling "
                "Transformers to 1,000 Layers)"
            )
        else:
            inputs["alpha"] = given_alpha
        if architecture == "encdec":
            notes.append(
                "the weights are the encoder's (N = {layers}, alpha = deepnorm_alpha); the decoder's "
                "residuals use decoder_alpha, and its value, output and feed-forward weights are "
                "initialized with gain decoder_beta"
            )
        notes.append(
            "deepnorm_beta multiplies the init std of the value and output projections and of the "
            "feed-forward weights (Xavier init with gain beta in DeepNet)"
        )
    if form == "pre":
        notes.append(
            "pre-norm weights are those before the final Norm, which divides every one of them "
            "by sqrt(final_variance)"
        )
    if reach is None:
        notes.append(
            "decay is 1, so the identity weight never falls below {threshold}: depth_to_threshold is inf"
        )
    return Computation(
        "postnorm_decay", inputs, digits, tuple(results), notes=tuple(notes), derivation=derivation
    )


DEEPNET_DESCRIPTIONS = {
    "deepnorm_alpha": "DeepNet's residual multiplier alpha for {arch}",
    "deepnorm_beta": "DeepNet's init gain beta for {arch}",
    "decoder_alpha": "DeepNet's decoder alpha in an encoder-decoder",
    "decoder_beta": "DeepNet's decoder init gain beta in an encoder-decoder",
}
ARCH_LAYERS = {
    "encoder": "N = {layers}",
    "decoder": "M = {layers}",
    "encdec": "N = {layers} encoder and M = {decoder_layers} decoder layers",
}


def _architecture(form: str, arch: str | None, decoder_layers: object) -> tuple[str, int | None]:
    """(arch, M): DeepNet's configuration, encoder-only unless said; M only for encdec."""
    if arch is None:
        if decoder_layers is not None:
            raise InputError(
                "{decoder_layers} applies only with {arch} encdec", param="decoder_layers", params=("arch",)
            )
        return "encoder", None
    if form != "deepnorm":
        raise InputError(
            f"{{arch}} applies only with {{scheme}} deepnorm, got {{scheme}} {form}",
            param="arch",
            params=("scheme",),
        )
    name = str(arch).strip().lower()
    if name not in ARCHES:
        raise InputError(param="arch", allowed=f"one of {', '.join(ARCHES)}", got=repr(arch))
    if name != "encdec":
        if decoder_layers is not None:
            raise InputError(
                "{decoder_layers} applies only with {arch} encdec", param="decoder_layers", params=("arch",)
            )
        return name, None
    if decoder_layers is None:
        raise InputError(
            "{decoder_layers} is required with {arch} encdec: the number M of decoder layers",
            param="decoder_layers",
            params=("arch",),
        )
    number = as_number(decoder_layers, "decoder_layers")
    if number.denominator != 1 or not 1 <= number <= MAX_LAYERS:
        raise InputError(
            param="decoder_layers", allowed=f"a whole number from 1 to {MAX_LAYERS}", got=to_text(number)
        )
    return name, int(number)


def _layers(value: object) -> int:
    number = as_number(value, "layers")
    if number.denominator != 1 or not 1 <= number <= MAX_LAYERS:
        raise InputError(
            param="layers", allowed=f"a whole number from 1 to {MAX_LAYERS}", got=to_text(number)
        )
    return int(number)


class _Scheme:
    """c, d² and d of one residual scheme at the current precision, and the depth search.

    d² = alpha²/(alpha² + sigma²) with alpha = 1 for post; it is an exact fraction unless
    alpha is DeepNet's irrational (2L)^(1/4).
    """

    def __init__(
        self,
        form: str,
        layers: int,
        sigma: Fraction,
        alpha: Fraction | None,
        default_alpha: Root | None = None,
    ) -> None:
        self.form = form
        self.sigma_squared = sigma * sigma
        self.alpha_squared: Fraction | None  # None: DeepNet's default alpha², irrational
        # DeepNet's alpha for the architecture (encoder-only (2L)^(1/4) unless said otherwise).
        self.default_alpha = default_alpha or deepnet("encoder", layers, None)["deepnorm_alpha"]
        if form == "pre":
            self.alpha_squared = None
        elif form == "post":
            self.alpha_squared = Fraction(1)
        elif alpha is not None:
            self.alpha_squared = alpha * alpha
        else:
            self.alpha_squared = self.default_alpha.squared().exact()
        self.layers = layers

    def _alpha_squared(self) -> mpmath.mpf:
        if self.alpha_squared is not None:
            return to_mpf(self.alpha_squared)
        return self.default_alpha.squared().mpf()

    def alpha(self) -> mpmath.mpf:
        return mpmath.sqrt(self._alpha_squared())

    def exact_square(self) -> Fraction | None:
        """d² as a fraction when it is rational."""
        if self.form == "pre":
            return Fraction(1)
        if self.alpha_squared is None:
            return None
        return self.alpha_squared / (self.alpha_squared + self.sigma_squared)

    def parts(self) -> tuple[mpmath.mpf, mpmath.mpf, mpmath.mpf]:
        """(c, d², d) at the current precision: F_k weighs c·d^(L−k)."""
        if self.form == "pre":
            one = mpmath.mpf(1)
            return one, one, one
        exact = self.exact_square()
        if exact is not None:
            square = to_mpf(exact)
        else:
            a2 = self._alpha_squared()
            square = a2 / (a2 + to_mpf(self.sigma_squared))
        c = mpmath.mpf(1) if self.form == "post" else 1 / self.alpha()
        return c, square, mpmath.sqrt(square)

    def exact_parts(self) -> tuple[Fraction | None, Fraction | None, Fraction | None]:
        """(c, d², d) as fractions where they are rational, None where not."""
        square = self.exact_square()
        if square is None:
            return None, None, None
        if self.form == "deepnorm":
            alpha = _rational_sqrt(self.alpha_squared) if self.alpha_squared is not None else None
            c = 1 / alpha if alpha is not None else None
        else:
            c = Fraction(1)
        return c, square, _rational_sqrt(square)

    def ball_parts(self) -> tuple[Any, Any, Any]:
        """(c, d², d) as Arb balls at the current Arb precision."""
        if self.form == "pre":
            one = exact_ball(1)
            return one, one, one
        if self.alpha_squared is not None:
            a2 = exact_ball(self.alpha_squared)
        else:
            a2 = self.default_alpha.squared().ball()
        square = a2 / (a2 + exact_ball(self.sigma_squared))
        c = exact_ball(1) if self.form == "post" else 1 / a2.sqrt()
        return c, square, square.sqrt()

    def alpha_ball(self) -> Any:
        """alpha as a ball at the current Arb precision."""
        if self.alpha_squared is not None:
            return exact_ball(self.alpha_squared).sqrt()
        return self.default_alpha.ball()

    def exact_results(self, layers: int, sigma: Fraction) -> dict[str, Fraction]:
        """The scalar results that are rational, exactly (the rest are proven by balls).

        A rational power too long to write out cheaply is left to the balls: it is then either
        a binary fraction (which Arb holds exactly) or has more significant decimals than any
        ``digits`` (its numerator or its denominator's odd part is a long power), so no
        rounding tie can hide in it and the ball decides."""
        exact: dict[str, Fraction] = {
            "final_variance": 1 + layers * sigma * sigma if self.form == "pre" else Fraction(1)
        }
        if self.form == "pre":
            return {**exact, "decay": Fraction(1), "identity_weight": Fraction(1)}
        _c, square, d = self.exact_parts()
        if d is not None:
            exact["decay"] = d
        if square is not None and (layers % 2 == 0 or d is not None):
            size = max(square.numerator.bit_length(), square.denominator.bit_length()) * (layers // 2 + 1)
            if size <= _EXACT_POWER_BITS:
                exact["identity_weight"] = square ** (layers // 2) * (
                    d if layers % 2 and d is not None else 1
                )
        if self.form == "deepnorm" and self.alpha_squared is not None:
            alpha = _rational_sqrt(self.alpha_squared)
            if alpha is not None:
                exact["alpha"] = alpha
        return exact

    def depth_to_threshold(self, threshold: Fraction) -> int | None:
        """Smallest L' ≥ 1 with d^L' < threshold, None when d = 1 (never).

        L' = floor(ln t / ln d) + 1 with ln d = −ln(1 + sigma²/alpha²)/2 (no cancellation for
        small sigma), from an Arb ball of the ratio: proven once the ball's floor is one
        integer. When the ball keeps holding an integer n, d^n = t may hold exactly (sigma = 1,
        t = 1/4): decided in rationals when d² is rational, else more precision decides."""
        if self.form == "pre" or self.sigma_squared == 0:
            return None
        square = self.exact_square()
        bits = 64
        while True:
            with arb_precision(bits):
                if self.alpha_squared is not None:
                    a2 = exact_ball(self.alpha_squared)
                else:
                    a2 = self.default_alpha.squared().ball()
                log_decay = -(exact_ball(self.sigma_squared) / a2).log1p() / 2
                ratio = exact_ball(threshold).log() / log_decay  # ≥ 0
                floor = ratio.floor().unique_fmpz()
                if floor is not None:
                    return int(floor) + 1
                nearest = ratio.unique_fmpz()
            if (
                nearest is not None
                and square is not None
                and _power_equals(square, int(nearest), threshold * threshold)
            ):
                return int(nearest) + 1
            if bits >= max_bits():
                raise PrecisionError(
                    f"could not decide depth_to_threshold within {max_bits()} bits of working precision"
                )
            bits = min(2 * bits, max_bits())


# Rational powers up to this many bits are written out exactly.
_EXACT_POWER_BITS = 20000


def _rational_sqrt(value: Fraction) -> Fraction | None:
    """sqrt(value) when it is rational, else None."""
    p, q = math.isqrt(value.numerator), math.isqrt(value.denominator)
    return Fraction(p, q) if p * p == value.numerator and q * q == value.denominator else None


def _power_equals(base: Fraction, exponent: int, target: Fraction) -> bool:
    """base**exponent == target, without building huge powers that cannot match."""
    if exponent < 0:
        return False
    if exponent == 0 or base == 1:
        return target == 1
    # In lowest terms base**n has numerator p**n and denominator q**n: bounded by target's.
    for part, goal in ((base.numerator, target.numerator), (base.denominator, target.denominator)):
        if part > 1 and exponent * (part.bit_length() - 1) > goal.bit_length():
            return False
    return base**exponent == target
