"""An activation's parameters as Arb balls, for the routes that evaluate it in ball arithmetic
(``kernel_maps``, ``relu_like``, ``propagation``)."""

from __future__ import annotations

from fractions import Fraction

from flint import arb

from ..catalog import Activation
from ..engine.gaussian_balls import as_arb


def params_of(act: Activation) -> dict[str, arb]:
    """The activation's parameters as balls at the current precision (its defaults filled in)."""
    given = dict(act.values)
    return {p.name: as_arb(Fraction(given.get(p.name, p.default))) for p in act.params}


__all__ = ["params_of"]
