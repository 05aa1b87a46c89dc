"""Gated linear units as data: φ(a, b) = a·g(b), the two halves a and b of a layer's projection
independent N(mean, std²) at initialization (Dauphin et al., 2017, "Language modeling with gated
convolutional networks": glu, g = sigmoid; Shazeer, 2020, "GLU variants improve Transformer":
geglu, g = gelu, and swiglu, g = swish).

With a and b independent, every moment factors into a moment of a (exact: E[a] = mean,
E[a²] = mean² + std²) and one of the gate g(b) (a catalog activation's proven expectation):

* mean          = E[a]·E[g(b)]
* second_moment = E[a²]·E[g(b)²]    (glu at N(0, 1): E[sigmoid(Z)²], so its normalizer-free
  gamma 1/sqrt(variance) is E[sigmoid(Z)²]^(−1/2): Brock et al., 2021)
* derivative_second_moment = E[|∇φ|²] = E[g(b)²] + E[a²]·E[g'(b)²] (both partial derivatives:
  what back-propagation through the unit multiplies a gradient's second moment by)

A gated unit takes two inputs, so only ``activation_moment`` takes these names; the commands
that need φ of one input say so.
"""

from __future__ import annotations

from fractions import Fraction
from types import MappingProxyType
from typing import NamedTuple


class Gated(NamedTuple):
    name: str
    gate: str  # a catalog activation
    formula: str
    # (γ, L) for a gate with g(0) = γ ≠ 0, g − γ odd and |g'| ≤ L on the real line (the fading
    # tail of a deep network of such units, ``moments.gated_maps.constant_gate_tail``), or None.
    # sigmoid: sigmoid(x) − 1/2 = tanh(x/2)/2 is odd, sigmoid' = sigmoid·(1 − sigmoid) ≤ 1/4.
    centre: tuple[Fraction, Fraction] | None = None
    # (l, h) with l·q ≤ E[g(√q·Z)²] ≤ h·q for every q > 0 (a gate vanishing at 0: the length of a
    # deep network of such units at σ_b² = 0 collapses or explodes doubly exponentially,
    # σ_w²·l·q² ≤ q' ≤ σ_w²·h·q²), or None. gelu = x·Φ(x) and swish = x·sigmoid(x): 0 < Φ, sigmoid < 1
    # gives g(x)² ≤ x², and Φ, sigmoid ≥ 1/2 on x ≥ 0 gives g(x)² ≥ x²/4 there: l = 1/8, h = 1.
    quadratic: tuple[Fraction, Fraction] | None = None


GATED = MappingProxyType(
    {
        entry.name: entry
        for entry in (
            Gated("glu", "sigmoid", "a*sigmoid(b)", centre=(Fraction(1, 2), Fraction(1, 4))),
            Gated("geglu", "gelu", "a*gelu(b)", quadratic=(Fraction(1, 8), Fraction(1))),
            Gated("swiglu", "swish", "a*swish(b)", quadratic=(Fraction(1, 8), Fraction(1))),
        )
    }
)


def gated(name: object) -> Gated | None:
    """The gated unit a name denotes (case and surrounding space ignored), or None."""
    return GATED.get(name.strip().lower()) if isinstance(name, str) else None
