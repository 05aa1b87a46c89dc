"""mpmath's and python-flint's internals stay behind one adapter module each, whose assumptions
hold for the versions pyproject.toml allows (an upgrade that breaks them fails here, not in a
user's terminal):

* ``momentcalc/engine/mpmath_internals.py``: raw mpf tuples, the context's precision and rounding
  (``mp._prec_rounding``) and ``mpmath.libmp`` (rounding, the quadrature route, Post-Norm's weights);
* ``momentcalc/flint_lazy.py``: python-flint's submodule paths (the CLI's start-up).

No other module of the package imports a submodule or a private name of mpmath or python-flint,
reads a private attribute of theirs, or imports a private name from another package's module."""

from __future__ import annotations

import ast
import importlib
import importlib.metadata
import re
from fractions import Fraction
from pathlib import Path

import mpmath

from momentcalc import flint_lazy
from momentcalc.engine import mpmath_internals as raw

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
    assert raw.binary(-x) == (1, 3, -2, 2) and all(type(v) is int for v in raw.binary(x))
    assert raw.fraction(-x) == Fraction(-3, 4) and raw.fraction(mpmath.mpf(0)) == 0
    assert raw.make(raw.to_raw(x)) == x and raw.is_mpf(x) and not raw.is_mpf(0.75)
    # PREC_ROUNDING is mpmath's own list, updated in place whenever the precision changes.
    assert raw.PREC_ROUNDING is mpmath.mp._prec_rounding
    with mpmath.workdps(50):
        assert raw.PREC_ROUNDING[0] == mpmath.mp.prec == 169
    assert raw.PREC_ROUNDING[0] == mpmath.mp.prec
    prec, rounding = raw.PREC_ROUNDING
    third = raw.to_raw(-mpmath.mpf(1) / 3)
    assert raw.raw_abs(third) == raw.mpf_abs(third, prec, rounding)
    assert raw.make(raw.mpf_mul(third, third, prec, rounding)) == (mpmath.mpf(1) / 3) ** 2


def test_the_flint_submodules_flint_lazy_loads_exist():
    for name, module in flint_lazy.SUBMODULES.items():
        assert hasattr(importlib.import_module(module), name), (name, module)


PACKAGE = Path(__file__).resolve().parent.parent / "momentcalc"
ADAPTERS = {"engine/mpmath_internals.py": "mpmath", "flint_lazy.py": "flint"}
THEIRS = ("mpmath", "flint")
VALUE_INTERNALS = {"_mpf_", "_mpc_", "_mpi_", "_prec_rounding"}


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _sources():
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE).as_posix()
        parts = ["momentcalc", *path.relative_to(PACKAGE).with_suffix("").parts]
        package = ".".join(parts[:-1])  # a module's package; an __init__'s own
        yield relative, package, path.read_text()


def _target(node: ast.ImportFrom, package: str) -> str:
    if not node.level:
        return node.module or ""
    base = package.split(".")
    base = base[: len(base) - node.level + 1]
    return ".".join(base + ([node.module] if node.module else []))


def _foreign_internals(relative: str, package: str, source: str) -> list[str]:
    """What one module reaches of mpmath's or flint's internals (nothing, outside the adapters)."""
    tree = ast.parse(source)
    found = []
    theirs: set[str] = set()  # local names bound to mpmath or flint objects (mp, ctx, arb, ...)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] in THEIRS:
                    theirs.add((alias.asname or alias.name).split(".")[0])
                    if "." in alias.name:
                        found.append(f"line {node.lineno}: import {alias.name}")
        elif isinstance(node, ast.ImportFrom) and not node.level and (node.module or "").split(".")[0] in THEIRS:
            theirs.update(alias.asname or alias.name for alias in node.names)
            if "." in node.module:
                found.append(f"line {node.lineno}: from {node.module} import ...")
            found += [f"line {node.lineno}: {alias.name} from {node.module}" for alias in node.names if _private(alias.name)]
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _private(node.attr):
            root = node.value
            while isinstance(root, ast.Attribute):
                root = root.value
            if node.attr in VALUE_INTERNALS or (isinstance(root, ast.Name) and root.id in theirs):
                found.append(f"line {node.lineno}: .{node.attr}")
    text = re.findall(r"_prec_rounding|_mpf_|libmp|flint\.(?:types|pyflint|flint_base)\b", source)
    found += [f"the text {word!r}" for word in text]
    return found


def test_only_the_adapters_reach_mpmath_and_flint_internals():
    r"""``grep -rn "_prec_rounding\|_mpf_\|libmp" momentcalc`` names the mpmath adapter only; no
    module but the two adapters imports a submodule or private name of mpmath or flint, or
    reads a private attribute of theirs (``mp._prec_rounding``, ``x._mpf_``)."""
    offenders = {relative: found for relative, package, source in _sources() if relative not in ADAPTERS
                 for found in [_foreign_internals(relative, package, source)] if found}
    assert offenders == {}


def test_the_check_sees_internals():
    """The check above can fail: each way of reaching in is caught."""
    for line in ("from mpmath.libmp import mpf_mul", "import flint.types.arb", "from mpmath import _x",
                 "from mpmath import mp\nmp._prec_rounding", "y = x._mpf_", "from flint import ctx\nctx._cap",
                 "import mpmath as m\nm.mp._prec"):
        assert _foreign_internals("x.py", "momentcalc", line), line
    assert not _foreign_internals("x.py", "momentcalc", "from mpmath import mp\nmp.prec\nfrom flint import arb")


def _private_imports(package: str, source: str) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom):
            target = _target(node, package)
            if not target.startswith("momentcalc"):
                continue
            names = [alias.name for alias in node.names if _private(alias.name)]
            if names and target.rpartition(".")[0] != package and target != package:
                found.append(f"line {node.lineno}: {', '.join(names)} from {target}")
    return found


def test_no_module_imports_a_private_name_from_another_package():
    """A name with a leading underscore is its package's business: ``from ..engine.x import _y``
    in ``moments/`` fails (within one package, its modules may share helpers)."""
    offenders = {relative: found for relative, package, source in _sources()
                 for found in [_private_imports(package, source)] if found}
    assert offenders == {}
    assert _private_imports("momentcalc.moments", "from ..engine.gaussian_balls import _log2")
    assert not _private_imports("momentcalc.moments", "from .exact import _piece_expectation")
