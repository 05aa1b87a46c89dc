"""python-flint without its package ``__init__``: the CLI's start-up cost of Arb balls.

``import flint`` loads all of python-flint's 38 extension modules (polynomials, matrices,
finite fields…), about 40 ms per process; momentcalc needs a few of them (``arb``, ``acb``
and the context ``ctx``, with ``fmpq`` for exact rationals and ``fmpz_poly`` for the exact
integer products of ``engine.convolution``). ``install()`` puts a stand-in for the ``flint``
package in ``sys.modules`` — the real package's spec and ``__path__``, so that
``flint.types.arb`` imports as usual — whose attributes load on first use (PEP 562 module
``__getattr__``): ``arb``, ``acb``, ``ctx``, ``fmpq``, ``fmpz``, ``arf``, ``fmpz_poly``, ``arb_mat``, ``arb_series`` from
their own submodules, anything else by running the real ``flint/__init__.py`` into the stand-in, which
then is the real package. ``from flint import arb`` anywhere works unchanged. ``acb`` (``DEFERRED``)
is bound to a ``_Deferred`` that loads its submodule when first called or asked for an
attribute (``acb(0)``, ``acb.integral``): most modules import it, but a call that makes no
complex ball (gau-scale's, activation-moment swish's) does not load it (about 2 ms of CPU).

Installed by the CLI only (``momentcalc.cli``), before anything imports flint; a process that
has already imported flint keeps it.

This is momentcalc's one adapter to python-flint's internals (its submodule paths, pinned in
``pyproject.toml`` and checked by ``tests/test_dependencies.py``); every other module uses the
public ``from flint import arb, acb, ctx``, imported where balls are needed. Why not only that,
with the real package: ``import flint`` costs about 30 ms of import time against 18 ms for these
submodules, and the default ``activation-moment swish --json`` about 0.30 s of CPU with the whole
package against 0.275 s with the stand-in (medians of 15 runs), a tenth of its start-up.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from types import ModuleType
from typing import Any

# name -> the submodule of flint that defines it
SUBMODULES = {
    "ctx": "flint.pyflint",
    "arb": "flint.types.arb",
    "acb": "flint.types.acb",
    "arf": "flint.types.arf",
    "fmpq": "flint.types.fmpq",
    "fmpz": "flint.types.fmpz",
    "fmpz_poly": "flint.types.fmpz_poly",  # engine.convolution's exact integer products
    "arb_mat": "flint.types.arb_mat",  # moments.small_variance's orthant-moment sums
    "arb_series": "flint.types.arb_series",  # moments.dks_selu's mean-value forms
}


# Types that ``from flint import NAME`` binds to a stand-in, loading their submodule on first use.
DEFERRED = {"acb", "arb_mat", "arb_series"}


class _Deferred:
    """A python-flint type until it is first used (called, or an attribute read), then the type
    itself: ``from flint import acb`` costs nothing for a computation that makes no complex ball."""

    __slots__ = ("_module", "_name", "_type")

    def __init__(self, module: str, name: str) -> None:
        self._module, self._name, self._type = module, name, None

    def _real(self) -> Any:
        if self._type is None:
            self._type = getattr(importlib.import_module(self._module), self._name)
        return self._type

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._real()(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real(), name)


def install() -> bool:
    """Put the lazy ``flint`` in ``sys.modules`` (unless flint is imported already or missing).
    Returns whether it did."""
    if "flint" in sys.modules:
        return False
    spec = importlib.util.find_spec("flint")
    if spec is None or spec.loader is None or spec.submodule_search_locations is None:
        return False
    module = importlib.util.module_from_spec(spec)

    def __getattr__(name: str) -> Any:
        if name in DEFERRED:
            value = _Deferred(SUBMODULES[name], name)
            setattr(module, name, value)
            return value
        if name in SUBMODULES:
            value = getattr(importlib.import_module(SUBMODULES[name]), name)
            setattr(module, name, value)
            return value
        if name.startswith("__") and name not in ("__all__", "__version__"):
            raise AttributeError(name)
        # Anything else: become the real package.
        del module.__dict__["__getattr__"]
        spec.loader.exec_module(module)  # type: ignore[union-attr]  # found by find_spec: it has a loader
        return getattr(module, name)

    module.__getattr__ = __getattr__  # type: ignore[method-assign]  # PEP 562: the hook is set on the module object
    sys.modules["flint"] = module
    return True


def is_lazy(module: ModuleType) -> bool:
    """Is ``module`` the stand-in (not yet the whole package)?"""
    return "__getattr__" in module.__dict__
