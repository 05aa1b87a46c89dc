"""The versions pyproject.toml allows for mpmath and python-flint are the ones whose internals
momentcalc uses: raw mpf tuples and ``mpmath.libmp`` (rounding, the quadrature route), and
python-flint's submodule paths (``flint_lazy``, the CLI's start-up). An upgrade that moves them
fails here, not in a user's terminal."""

from __future__ import annotations

import importlib
import importlib.metadata
import re
from pathlib import Path

import mpmath

from momentcalc import flint_lazy

PYPROJECT = (Path(__file__).resolve().parent.parent / "pyproject.toml").read_text()


def _bounds(package: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    low, high = re.search(rf'"{package}>=([\d.]+),<([\d.]+)"', PYPROJECT).groups()
    return tuple(map(int, low.split("."))), tuple(map(int, high.split(".")))


def _version(package: str) -> tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"\d+", importlib.metadata.version(package))[:3])


def test_installed_versions_are_within_the_bounds():
    for package in ("mpmath", "python-flint"):
        low, high = _bounds(package)
        assert low <= _version(package) < high, package


def test_the_mpmath_internals_used_exist():
    x = mpmath.mpf(3) / 4
    sign, mantissa, exponent, bits = x._mpf_
    assert (sign, int(mantissa), int(exponent), bits) == (0, 3, -2, 2)
    assert mpmath.mp._prec_rounding[0] == mpmath.mp.prec
    from mpmath.libmp import finf, fninf, fzero, mpf_mul, round_nearest  # noqa: F401


def test_the_flint_submodules_flint_lazy_loads_exist():
    for name, module in flint_lazy.SUBMODULES.items():
        assert hasattr(importlib.import_module(module), name), (name, module)
