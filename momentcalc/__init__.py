"""momentcalc: analytic moment calculator for neural-network initialization theory.

The computations are plain functions returning a ``Computation``::

    >>> from momentcalc import truncnorm
    >>> r = truncnorm(std="0.02", digits=20)
    >>> r.value("std")          # an mpmath number at working precision

They are imported lazily so that ``import momentcalc`` (and the CLI) start fast.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

from ._version import __version__

# public name -> module under momentcalc.computations that defines it
_API = {
    "truncnorm": "truncnorm",
    "activation_moment": "activation",
    "selu_solve": "selu",
    "postnorm_decay": "postnorm",
    "gau_scale": "gau",
    "init": "init",
    "attention": "attention",
    "verify": "verify",
}

__all__ = ["__version__", *_API]


def __getattr__(name: str) -> Any:
    if name in _API:
        return getattr(import_module(f".computations.{_API[name]}", __name__), name)
    raise AttributeError(f"module 'momentcalc' has no attribute {name!r}")
