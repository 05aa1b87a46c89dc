"""The parameter table: per group, the call, the std actually sampled (truncation applied), the
truncation in σ and whether it ever fires, the depth scaling.

A normal of std σ truncated at ±c·σ (``trunc_normal_`` with bounds ±a: c = a/σ) has variance
σ²·γ(c), γ(c) = 1 − 2c·φ(c)/(2Φ(c) − 1) (the truncated normal's variance ratio, as ``truncnorm``
and ``initializer`` compute it), and removes a mass 2Φ(−c) of the normal: below 1e-30 the
truncation is never reached in practice (±100σ: torch.nn.init.trunc_normal_'s absolute default
bounds ±2 at std 0.02).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from flint import arb

from ...engine.balls import exact_ball
from ...engine.precision import to_decimal
from ...engine.rounding import ball_text
from .rules import Group
from .spec import Model

# Excluded below this mass, a truncation is never observed (as ``initializer`` says).
NEGLIGIBLE_MASS = Fraction(1, 10**30)
# Digits of the table's figures (the report's results carry --digits).
TABLE_DIGITS = 6

DEPTH_TEXT = {
    "none": "none",
    "1/(2L)": "std/sqrt(2L)",
    "1/(2(l+1))": "std/sqrt(2(l+1))",
    "1/L": "std/sqrt(L)",
    "1/(l+1)": "std/sqrt(l+1)",
}


def truncation_ratio(group: Group, layer: int, layers: int) -> tuple[Any, Any, Any] | None:
    """(γ(c), c, 2Φ(−c)) as balls for the group's truncation at ``layer``; None without one."""
    if group.truncation is None:
        return None
    kind, bound = group.truncation
    if kind == "sigma":
        c = exact_ball(bound)
    else:
        c = exact_ball(bound) / exact_ball(group.variance_at(layer, layers)).sqrt()
    root2 = arb(2).sqrt()
    inside = (c / root2).erf()  # 2Φ(c) − 1
    density = (-c * c / 2).exp() / (2 * arb.pi()).sqrt()
    gamma = 1 - 2 * c * density / inside
    excluded = (c / root2).erfc()
    return gamma, c, excluded


def _text(ball: Any, digits: int) -> str:
    return ball_text(ball, digits) or ball_text(ball, 3) or to_decimal(ball.mid(), 3)


def parameter_rows(model: Model, drawn: list[Group], layers: int, digits: int) -> list[dict[str, str]]:
    """One row per parameter group (strings: the table's cells and the JSON's values)."""
    shown = min(digits, TABLE_DIGITS)
    rows = []
    for group in drawn:
        variance = exact_ball(group.variance_at(0, layers))
        ratio = truncation_ratio(group, 0, layers)
        std = variance.sqrt()
        if ratio is None:
            effective, truncation, fires = std, "none", "-"
        else:
            gamma, c, excluded = ratio
            effective = (variance * gamma).sqrt()
            truncation = f"±{_text(c, 4)} std"
            fires = (
                "yes" if excluded > arb(NEGLIGIBLE_MASS.numerator) / NEGLIGIBLE_MASS.denominator else "never"
            )
        rows.append(
            {
                "group": group.role,
                "call": group.call,
                "std": _text(effective, shown),
                "nominal_std": _text(std, shown),
                "truncation": truncation,
                "fires": fires,
                "depth_scaling": DEPTH_TEXT[group.depth] + (" (layer 1)" if group.depth != "none" else ""),
                "tied": "yes" if group.tied else "no",
                "source": group.source,
            }
        )
    return rows
