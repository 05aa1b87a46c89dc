"""momentcalc: analytic moment calculator for neural-network initialization theory.

The computations are plain functions with keyword arguments (but for what the command is
about: the activation, the initializer's name) returning a ``Computation``, whose values are
mpmath numbers carrying guard digits; ``result[name].decimal(digits)`` rounds one as printed::

    >>> import mpmath
    >>> from momentcalc import truncnorm
    >>> r = truncnorm(std="0.02", digits=20)
    >>> mpmath.almosteq(r.value("std"), mpmath.mpf("0.02") * mpmath.sqrt(r.value("gamma")))  # std = 0.02·sqrt(gamma)
    True
    >>> len(r["gamma"].decimal(20).removeprefix("0."))  # 20 significant digits
    20

Gaussian expectations of any activation are the building block ``expectations`` (see
``momentcalc.moments``)::

    >>> from momentcalc import expectations
    >>> from momentcalc.tier import to_decimal
    >>> [to_decimal(v, 6) for v in expectations("relu", [(0, 1, 0), (0, 2, 0)], digits=6)]
    ['0.398942', '0.500000']

Everything is imported lazily so that ``import momentcalc`` (and the CLI) start fast.
"""

from __future__ import annotations

from importlib import import_module
from pathlib import Path
from typing import Any

from ._version import __version__ as __version__

# Public names besides the commands' functions (``momentcalc.command_table`` lists those).
_MORE = {
    "expectations": ".moments",
    "gaussian_moments": ".moments",
    "sweep": ".sweeps",
}


def _api() -> dict[str, str]:
    from .command_table import api  # (not at import: the CLI never needs the table of functions)

    return {**{name: module.removeprefix("momentcalc") for name, module in api().items()}, **_MORE}


def __getattr__(name: str) -> Any:
    if name == "__all__":
        return ["__version__", *_api()]
    module = _MORE.get(name)
    if (
        module is None and not name.startswith("__") and not _is_submodule(name)
    ):  # (``from . import errors`` asks)
        module = _api().get(name)
    if module is not None:
        return getattr(import_module(module, __name__), name)
    raise AttributeError(f"module 'momentcalc' has no attribute {name!r}")


def _is_submodule(name: str) -> bool:
    here = Path(__file__).parent
    return (here / f"{name}.py").exists() or (here / name / "__init__.py").exists()


def __dir__() -> list[str]:
    return sorted({*globals(), *_api()})
