"""Where DKS's starting points find no transform (Martens et al., 2021, "Rapid training of deep
neural networks without skip connections or normalization layers"): a survey of the curve
Q'(1) = 1 in (input_scale, input_shift) gives new starting points (``moments.dks_survey``), and
when none reaches the per-layer C'(1), the error says what was searched, the C'(1) found along
the curve, and what to try (exit 3: a survey is not a proof that the target is unreachable).
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

from ..engine.numbers import to_text
from ..engine.rounding import directed_text
from ..errors import PrecisionError
from ..moments.dks import locate
from ..moments.dks_survey import survey, top


def survey_locate(
    act: Any, target: Any, digits: int, zeta: Fraction, depth: int
) -> tuple[Fraction, Fraction]:
    """(a, b) near a root of DKS's conditions from the survey's starting points; PrecisionError
    saying what was searched when none converges."""
    layer = min(float(target.mid()), 1e300)
    found, starts = survey(act, layer)
    if starts:
        try:
            return locate(act, target, digits, None, [(_fraction(b), _fraction(a)) for a, b in starts])
        except PrecisionError:
            pass
    raise PrecisionError(
        unreached_text(found, target, zeta, depth, act), param="target_slope", params=("depth",)
    )


def _fraction(x: float) -> Fraction:
    return Fraction(x).limit_denominator(1 << 50) if abs(x) < 1e6 else Fraction(round(x))


def power_text(base: float, depth: int) -> str:
    """base^depth to 6 digits, beyond double range too."""
    exponent = depth * math.log10(base)
    if exponent < 300:
        return f"{10**exponent:.6g}"
    whole = math.floor(exponent)
    return f"{10 ** (exponent - whole):.6g}e+{whole}"


def outward_text(value: Fraction, up: bool, digits: int = 10) -> str:
    """A proven limit written as a bound: an exact ``value`` rounded up (a supremum, ``up``) or
    down (an infimum) to ``digits`` digits and marked so ("1.466942207 (rounded up)"), so that
    "C'(1) < text" or "C'(1) > text" holds as printed (``engine.rounding.directed_text``); a
    value that is such a decimal exactly is written as it is ("1.8")."""
    text = directed_text(value, digits, up)
    if text == directed_text(value, digits, not up):
        return to_text(value)
    return f"{text} (rounded {'up' if up else 'down'})"


def power_bound(base: Fraction, depth: int, up: bool) -> str:
    """base^depth (exact) as ``outward_text`` writes it, to 6 digits: the network's limit of a
    per-layer limit ``base``, beyond double range too."""
    return outward_text(base**depth, up, 6)


def layer_text(target: Any) -> str:
    """The per-layer target (a ball) to 6 digits, as 1 + ε when it is that close to 1."""
    gap = float((target - 1).mid())
    if gap < 1e-4:
        return f"1 + {gap:.3g}"
    value = float(target.mid())
    return f"{value:.6g}" if value < 1e300 else target.mid().str(6, radius=False)


def log_of(zeta: Fraction) -> float:
    return math.log(zeta.numerator) - math.log(zeta.denominator)


def relu_limit(act: Any) -> float | None:
    """relu's C'(1) on the curve Q'(1) = 1, pi/(pi - 1), for an activation that becomes relu as
    input_scale → ∞ and whose C'(1) there is proven below a ceiling near it (a convex mixture of
    relus, ``moments.dks_convex``; an exponential linear unit whose slope drops at its kink,
    ``moments.dks_selu``): the survey, which stops at input_scale 1000, falls short of it."""
    from ..moments.dks_convex import convex_relu_mixture
    from ..moments.dks_selu import drop_alpha

    if convex_relu_mixture(act) or drop_alpha(act) is not None:
        return math.pi / (math.pi - 1)
    return None


def unreached_text(found: Any, target: Any, zeta: Fraction, depth: int, act: Any = None) -> str:
    """The message for a per-layer ``target`` (a ball) the search did not reach; with ``act``, the
    highest C'(1) found is the curve's local maximum near the best surveyed point
    (``dks_survey.top``), not the grid point itself."""
    a_lo, a_hi = found.a_range
    layer = min(float(target.mid()), 1e300)
    shown = layer_text(target)
    head = (
        f"no DKS transform with per-layer C'(1) = {shown} was found (not proven unreachable): "
        "DKS's starting points, then the curve Q'(1) = 1 surveyed in double precision over input_scale "
        f"{a_lo:.3g} to {a_hi:.3g} and |input_shift| up to 8 + 6*input_scale"
    )
    low, high = found.lowest(), found.highest()
    if low is None:
        return head + ", where no point of that curve was found; try another activation"
    if act is not None:
        polished = top(act, high)
        if a_lo <= polished[0] <= a_hi:  # within the region the message says was searched
            high = polished
    span = (
        f", where C'(1) ran from about {low[2]:.5g} (input_scale {low[0]:.3g}, input_shift {low[1]:.3g}) "
        f"to about {high[2]:.5g} (input_scale {high[0]:.3g}, input_shift {high[1]:.3g})"
    )
    log_zeta = log_of(zeta)
    ceiling, ceiling_text = high[2], f"{high[2]:.5g}"
    limit = relu_limit(act) if act is not None else None
    if limit is not None and ceiling < limit <= layer:
        # the survey stops at input_scale 1000, short of the curve's limit: name the limit too
        span += (
            f"; C'(1) on that curve approaches relu's pi/(pi - 1) = {limit:.8g} as input_scale -> infinity "
            "(its apparent supremum, not proven)"
        )
        ceiling = math.floor(limit * 10**5) / 10**5
        ceiling_text = f"{ceiling:.6g}"
    if layer > ceiling:
        deeper = int(log_zeta / math.log(ceiling)) + 1 if ceiling > 1 else None
        hint = f"; try {{target_slope}} below {ceiling_text}^{depth} = {power_text(ceiling, depth)}"
        if deeper is not None and deeper > depth:
            hint += f", or {{depth}} {deeper} or more (the per-layer target is target_slope^(1/depth))"
        return head + span + hint
    if layer < low[2]:
        shallower = int(log_zeta / math.log(low[2])) if low[2] > 1 else 0
        hint = f"; try {{target_slope}} above {low[2]:.5g}^{depth} = {power_text(low[2], depth)}"
        if 1 <= shallower < depth:
            fewer = f"{shallower} or less" if shallower > 1 else "1"
            hint += f", or {{depth}} {fewer} (the per-layer target is target_slope^(1/depth))"
        return head + span + hint
    return (
        head
        + span
        + ", but Newton's method did not converge from the nearest points; try a nearby {target_slope}"
    )


__all__ = [
    "layer_text",
    "log_of",
    "outward_text",
    "power_bound",
    "power_text",
    "relu_limit",
    "survey_locate",
    "unreached_text",
]
