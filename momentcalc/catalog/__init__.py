"""Activations by name or by expression: the catalog (``activations``), its parameters as data
(``parameters``), the safe parser (``expressions``) and ``resolve``, the one entry point the
computations use.

The names below are loaded on first use, so that importing ``catalog.parameters`` (the command
line does, to build its options) does not build the catalog.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

_LAZY = {
    "Activation": ".activations",
    "ClosedForm": ".activations",
    "CATALOG": ".resolving",
    "BY_NAME": ".resolving",
    "Param": ".parameters",
    "PARAMETERS": ".parameters",
    "names": ".resolving",
    "lookup": ".resolving",
    "resolve": ".resolving",
}

__all__ = ["CATALOG", "PARAMETERS", "Activation", "ClosedForm", "Param", "lookup", "names", "resolve"]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(import_module(_LAZY[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
