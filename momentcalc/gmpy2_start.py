"""gmpy2 without ``importlib.metadata``: the CLI's start-up cost of mpmath's GMP backend.

When it loads, gmpy2 (2.2 and later) sets its ``__version__`` with
``importlib.metadata.version("gmpy2")``, which imports ``importlib.metadata`` (with ``email``,
``zipfile``, ``csv``…) and scans the path's distributions: about 30 ms of CPU, a tenth of a default
call (mpmath imports gmpy2 on every call, when it is installed). ``load()`` imports gmpy2 with a
stand-in for ``importlib.metadata`` in ``sys.modules`` whose ``version("gmpy2")`` is read from the
name of gmpy2's own ``gmpy2-VERSION.dist-info`` directory beside the package, and anything else
from the real module (imported then); the stand-in is removed once gmpy2 is loaded, so a later
``import importlib.metadata`` gets the real one. ``gmpy2.__version__`` and ``gmpy2.version()``
are what they would be (mpmath uses gmpy2 only if ``version()`` says 1.03 or later).

Called by the CLI only (``momentcalc.cli``), before anything imports mpmath. It does nothing where
gmpy2 or ``importlib.metadata`` is loaded already, where ``MPMATH_NOGMPY`` is set (mpmath will not
import gmpy2), or where gmpy2 is not installed or its ``dist-info`` is not found (gmpy2 then loads
as usual, when mpmath imports it).
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
from types import ModuleType
from typing import Any

METADATA = "importlib.metadata"


def installed_version() -> str | None:
    """The ``Version`` of gmpy2's ``gmpy2-*.dist-info/METADATA`` beside the package, as
    ``importlib.metadata.version`` reads it (None where there is not exactly one such directory)."""
    spec = importlib.util.find_spec("gmpy2")
    if spec is None or not spec.submodule_search_locations:
        return None
    site = os.path.dirname(next(iter(spec.submodule_search_locations)))
    try:
        found = [n for n in os.listdir(site) if n.startswith("gmpy2-") and n.endswith(".dist-info")]
        if len(found) != 1:
            return None
        with open(os.path.join(site, found[0], "METADATA"), encoding="utf-8") as metadata:
            for line in metadata:
                if line.startswith("Version:"):
                    return line.removeprefix("Version:").strip()
                if not line.strip():  # the headers end at the first blank line
                    break
    except OSError:
        return None
    return None


def stand_in(version: str) -> ModuleType:
    """The stand-in for ``importlib.metadata``: ``version("gmpy2")`` is ``version``; any other
    name, and any other attribute, comes from the real module (which replaces the stand-in in
    ``sys.modules`` then)."""
    module = ModuleType(METADATA)

    def real() -> ModuleType:
        if sys.modules.get(METADATA) is module:
            del sys.modules[METADATA]
        return importlib.import_module(METADATA)

    def version_of(name: str) -> str:
        return version if name == "gmpy2" else real().version(name)

    def __getattr__(name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(real(), name)

    module.version = version_of  # type: ignore[attr-defined]  # the one function gmpy2 calls
    module.__getattr__ = __getattr__  # type: ignore[method-assign]  # PEP 562: anything else, the real module's
    return module


def load() -> bool:
    """Import gmpy2 without ``importlib.metadata`` (see the module docstring). Returns whether it did."""
    if "gmpy2" in sys.modules or METADATA in sys.modules or "MPMATH_NOGMPY" in os.environ:
        return False
    version = installed_version()
    if version is None:
        return False
    module = stand_in(version)
    sys.modules[METADATA] = module
    try:
        import gmpy2  # noqa: F401  (with the stand-in in place: the point of this module)
    except ImportError:
        return False
    finally:
        if sys.modules.get(METADATA) is module:
            del sys.modules[METADATA]
    return True
