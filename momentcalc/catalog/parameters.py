"""The catalog's parameters, as data: each with its default, what it means and the entries
that take it. The activation entries get their ``params`` from here, and the command line
builds one option per parameter from here without loading the catalog (start-up time)."""

from __future__ import annotations

from fractions import Fraction
from typing import NamedTuple


class Param(NamedTuple):
    """A parameter of some catalog activations, set by the CLI option of the same name."""

    name: str
    default: Fraction
    description: str
    owners: tuple[str, ...]  # the catalog entries that take it
    positive: bool = False  # must be > 0 (celu's alpha divides x)


PARAMETERS: tuple[Param, ...] = (
    Param("slope", Fraction("0.01"), "negative-side slope", ("leaky_relu",)),
    Param("alpha", Fraction(1), "scale alpha of the negative side, > 0", ("celu",), positive=True),
)


def params_of(entry: str) -> tuple[Param, ...]:
    """The parameters the catalog entry ``entry`` takes."""
    return tuple(param for param in PARAMETERS if entry in param.owners)
