"""momentcalc: analytic moment calculator for neural-network initialization theory.

The computations are plain functions returning a ``Computation``, whose values are mpmath
numbers carrying guard digits (round them with ``momentcalc.engine.precision.to_decimal``)::

    >>> import mpmath
    >>> from momentcalc import truncnorm
    >>> r = truncnorm(std="0.02", digits=20)
    >>> mpmath.almosteq(r.value("std"), mpmath.mpf("0.02") * mpmath.sqrt(r.value("gamma")))  # std = 0.02·sqrt(gamma)
    True
    >>> from momentcalc.engine.precision import to_decimal
    >>> len(to_decimal(r.value("gamma"), 20).removeprefix("0."))  # 20 significant digits
    20

Gaussian expectations of any activation are the building block ``expectations`` (see
``momentcalc.moments``)::

    >>> from momentcalc import expectations
    >>> [to_decimal(v, 6) for v in expectations("relu", [(0, 1, 0), (0, 2, 0)], digits=6)]
    ['0.398942', '0.500000']

Everything is imported lazily so that ``import momentcalc`` (and the CLI) start fast.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

from ._version import __version__

# public name -> module that defines it
_API = {
    "truncnorm": ".computations.truncnorm",
    "activation_moment": ".computations.activation",
    "selu_solve": ".computations.selu",
    "postnorm_decay": ".computations.postnorm",
    "gau_scale": ".computations.gau",
    "init": ".computations.init",
    "attention": ".computations.attention",
    "meanfield": ".computations.meanfield",
    "verify": ".verification.run",
    "expectations": ".moments",
    "gaussian_moments": ".moments",
}

__all__ = ["__version__", *_API]


def __getattr__(name: str) -> Any:
    if name in _API:
        return getattr(import_module(_API[name], __name__), name)
    raise AttributeError(f"module 'momentcalc' has no attribute {name!r}")
