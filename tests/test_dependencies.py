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
import importlib.util
import re
from fractions import Fraction
from pathlib import Path

import mpmath
import pytest

from momentcalc import flint_lazy
from momentcalc.engine import mpmath_internals as raw
from tests import source_trees

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


def _nodes(source: str) -> tuple[ast.AST, ...]:
    """Every node of a module's tree, walked once for the checks below and test_json_schema's
    (a walk of momentcalc's 200 files takes about half a second; they made five), of the tree
    parsed once for all the tests that read the sources (source_trees)."""
    return source_trees.nodes(source)


def _foreign_internals(relative: str, package: str, source: str) -> list[str]:
    """What one module reaches of mpmath's or flint's internals (nothing, outside the adapters)."""
    nodes = _nodes(source)
    found = []
    theirs: set[str] = set()  # local names bound to mpmath or flint objects (mp, ctx, arb, ...)
    for node in nodes:
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] in THEIRS:
                    theirs.add((alias.asname or alias.name).split(".")[0])
                    if "." in alias.name:
                        found.append(f"line {node.lineno}: import {alias.name}")
        elif (
            isinstance(node, ast.ImportFrom)
            and not node.level
            and (node.module or "").split(".")[0] in THEIRS
        ):
            theirs.update(alias.asname or alias.name for alias in node.names)
            if "." in node.module:
                found.append(f"line {node.lineno}: from {node.module} import ...")
            found += [
                f"line {node.lineno}: {alias.name} from {node.module}"
                for alias in node.names
                if _private(alias.name)
            ]
    for node in nodes:
        if isinstance(node, ast.Attribute) and _private(node.attr):
            root = node.value
            while isinstance(root, ast.Attribute):
                root = root.value
            if node.attr in VALUE_INTERNALS or (isinstance(root, ast.Name) and root.id in theirs):
                found.append(f"line {node.lineno}: .{node.attr}")
    text = re.findall(r"_prec_rounding|_mpf_|libmp|flint\.(?:types|pyflint|flint_base)\b", source)
    found += [f"the text {word!r}" for word in text]
    return found


@pytest.mark.xdist_group(source_trees.GROUP)  # one worker parses the sources once for them all
def test_only_the_adapters_reach_mpmath_and_flint_internals():
    r"""``grep -rn "_prec_rounding\|_mpf_\|libmp" momentcalc`` names the mpmath adapter only; no
    module but the two adapters imports a submodule or private name of mpmath or flint, or
    reads a private attribute of theirs (``mp._prec_rounding``, ``x._mpf_``)."""
    offenders = {
        relative: found
        for relative, package, source in _sources()
        if relative not in ADAPTERS
        for found in [_foreign_internals(relative, package, source)]
        if found
    }
    assert offenders == {}


def test_the_check_sees_internals():
    """The check above can fail: each way of reaching in is caught."""
    for line in (
        "from mpmath.libmp import mpf_mul",
        "import flint.types.arb",
        "from mpmath import _x",
        "from mpmath import mp\nmp._prec_rounding",
        "y = x._mpf_",
        "from flint import ctx\nctx._cap",
        "import mpmath as m\nm.mp._prec",
    ):
        assert _foreign_internals("x.py", "momentcalc", line), line
    assert not _foreign_internals(
        "x.py", "momentcalc", "from mpmath import mp\nmp.prec\nfrom flint import arb"
    )


def _private_imports(package: str, source: str) -> list[str]:
    found = []
    for node in _nodes(source):
        if isinstance(node, ast.ImportFrom):
            target = _import_graph()._absolute(node, package)
            if not target.startswith("momentcalc"):
                continue
            names = [alias.name for alias in node.names if _private(alias.name)]
            if names and target.rpartition(".")[0] != package and target != package:
                found.append(f"line {node.lineno}: {', '.join(names)} from {target}")
    return found


@pytest.mark.xdist_group(source_trees.GROUP)
def test_no_module_imports_a_private_name_from_another_package():
    """A name with a leading underscore is its package's business: ``from ..engine.x import _y``
    in ``moments/`` fails (within one package, its modules may share helpers)."""
    offenders = {
        relative: found
        for relative, package, source in _sources()
        for found in [_private_imports(package, source)]
        if found
    }
    assert offenders == {}
    assert _private_imports("momentcalc.moments", "from ..engine.gaussian_balls import _log2")
    assert not _private_imports("momentcalc.moments", "from .exact import _piece_expectation")


# Function-local imports inside momentcalc/ are for start-up: a module is imported where it is
# used when a default call (tests/bench/bench_startup.py) or importing a library function would
# otherwise load it for nothing. sympy, numpy, scipy and matplotlib may always be imported so
# (scripts/import_graph.LAZY_ALLOWED); any other one is listed here as "file -> module" (file
# under momentcalc/, ".x" for momentcalc.x) with why it stays lazy. Before adding an entry,
# check that module level would load something new: ``python tests/bench/loaded_modules.py
# record before.json``, move the import up, ``record after.json``, ``compare before.json
# after.json`` (identical: keep it at module level).
LOCAL_IMPORTS = {
    "catalog/initializers.py -> mpmath": "JAX's erf bounds, only for a JAX truncated normal (the catalog loads at start-up)",
    "errors.py -> difflib": "a misspelt name's did-you-mean: on the error path only",
    "__init__.py -> .command_table": "the command table: only the Python API's names need it, not 'import momentcalc'",
    "catalog/resolving.py -> .catalog.expressions": "the expression parser: only for an activation given as a formula",
    "cli/child.py -> faulthandler": "the child's crash report: imported in the forked child only",
    "cli/child.py -> pickle": "about 2 ms: only for what marshal cannot send (a sweep share's rows, an exception)",
    "cli/child.py -> resource": "the child's limits: imported in the forked child only",
    "cli/child.py -> threadpoolctl": "only where numpy is loaded (BLAS threads)",
    "cli/child.py -> traceback": "only when the computation raised",
    "cli/child.py -> fcntl": "the child's watch on its parent: imported in the forked child only (loaded anyway)",
    "cli/pool.py -> resource": "a sweep's worker's limits: in the forked worker only",
    "cli/pool.py -> traceback": "only when a point raised",
    "cli/runner.py -> .cli.pool": "a sweep's worker processes: sweeps only",
    "cli/runner.py -> distributed": "the optional extra momentcalc[dask]: only with --dask",
    "cli/runner.py -> importlib.util": "whether dask.distributed is installed: only with --dask",
    "cli/runner.py -> .cli.group": "a sweep point's message names listings as the error path does: sweeps only",
    "cli/runner.py -> .render.cells": "a refused sweep point's stderr line only",
    "cli/runner.py -> .sweeps": "sweeps only: a default call computes one point",
    "sweeps.py -> concurrent.futures": "momentcalc.sweep(jobs=N) only",
    "sweeps.py -> multiprocessing": "momentcalc.sweep(jobs=N) only",
    "sweeps.py -> distributed": "the optional extra momentcalc[dask]: only with a Dask client",
    "sweeps.py -> inspect": "a function's default digits: only when a Python sweep's grid does not give them",
    "cli/commands/activation.py -> .computations.activation": "the command's computation: loaded when it runs",
    "cli/commands/attention.py -> .computations.attention": "the command's computation: loaded when it runs",
    "cli/commands/initial_loss.py -> .computations.initial_loss": "the command's computation: loaded when it runs",
    "computations/audit.py -> .computations.notebook": "notebooks only: loaded at the first .ipynb",
    "cli/commands/audit.py -> .computations.audit_project": "the command's computation: loaded when it runs",
    "cli/commands/audit.py -> .render.audit_formats": "--format sarif|github only",
    "computations/audit.py -> .computations.audit_project": "--baseline and --write-baseline only",
    "computations/audit_project.py -> tomllib": "a pyproject.toml to read only",
    "cli/commands/audit.py -> .cli.budget": "--budget: parsed when audit runs",
    "cli/commands/audit.py -> .cli.child": "audit's child process under the limits: when it runs",
    "cli/commands/audit.py -> .cli.memory": "the memory limit of audit's child: when it runs",
    "cli/commands/audit.py -> .computations.audit": "the command's computation: loaded when it runs",
    "cli/commands/audit.py -> .computations.audit_reading": "the command's path display: loaded when it runs",
    "cli/commands/init_report.py -> .computations.init_report": "the command's computation: loaded when it runs",
    "cli/commands/init_report.py -> .cli.expect": "--expect only (dataclasses and mpmath, kept off --help's listing)",
    "computations/init_report/__init__.py -> .computations.init_report.simulate": "numpy's simulation: with simulate only",
    "computations/init_report/__init__.py -> .computations.init_report.width": "width tables: with parametrization only",
    "computations/init_report/spec.py -> tomllib": "a TOML description only",
    "computations/init_report/spec.py -> yaml": "PyYAML, optional: a YAML description only",
    "cli/commands/audit.py -> .computations.identify": "the command's computation: loaded when it runs",
    "cli/commands/gau.py -> .computations.gau": "the command's computation: loaded when it runs",
    "cli/commands/init.py -> .computations.init": "the command's computation: loaded when it runs",
    "cli/commands/initializer.py -> .computations.initializer": "the command's computation: loaded when it runs",
    "cli/commands/kernel.py -> .computations.hermite": "the command's computation: loaded when it runs",
    "cli/commands/kernel.py -> .computations.kernel": "the command's computation: loaded when it runs",
    "cli/commands/kernel.py -> .computations.tat": "the command's computation: loaded when it runs",
    "cli/commands/meanfield.py -> .computations.meanfield": "the command's computation: loaded when it runs",
    "cli/commands/postnorm.py -> .computations.postnorm": "the command's computation: loaded when it runs",
    "cli/commands/schema.py -> .render.schema": "measured: not loaded by the other commands' default calls (tests/bench/loaded_modules.py hoistable: no)",
    "cli/commands/selu.py -> .computations.selu": "the command's computation: loaded when it runs",
    "cli/commands/truncnorm.py -> .computations.truncnorm": "the command's computation: loaded when it runs",
    "cli/commands/verify.py -> .verification.run": "the command's computation: loaded when it runs",
    "cli/completion.py -> .catalog.initializers": "shell completion of an initializer name only",
    "cli/completion.py -> .catalog.resolving": "shell completion of an activation name only",
    "cli/completion.py -> .verification.run": "shell completion of a constant id only",
    "cli/completion.py -> shlex": "shell completion only",
    "cli/expect.py -> .render.document": "measured: no default call loads it (only --expect with --json; loaded_modules.py hoistable: unseen)",
    "cli/figures.py -> .render.figure": "--plot/--chart only",
    "cli/group.py -> .cli.commands": "a command's CLI module: loaded when that command is called",
    "cli/group.py -> .cli.completion": "shell completion only",
    "cli/group.py -> .render.document": "an error as JSON only",
    "cli/group.py -> .render.text": "measured: --help and usage errors do not load it (80 modules more; loaded_modules.py hoistable: no)",
    "cli/group.py -> json": "an error as JSON only (a table or text call never imports it)",
    "cli/group.py -> textwrap": "--help only",
    "cli/options.py -> .catalog.parameters": "measured: the child of a command without activation (attention) does not load it (75 modules more)",
    "cli/runner.py -> .cli.budget": "--cpu-seconds/--memory only",
    "cli/runner.py -> .cli.expect": "--expect/--rtol/--atol only (about 2.5 ms)",
    "cli/runner.py -> .cli.figures": "--plot/--chart only",
    "cli/runner.py -> .cli.memory": "--memory only",
    "cli/streams.py -> .render.text": "measured: --help does not load it (80 modules more; only an unencodable stream needs it)",
    "computations/activation.py -> .symbolic.activation": "--derive only (sympy)",
    "computations/attention.py -> .computations.attention_simulation": "--simulate only (numpy)",
    "computations/attention.py -> .symbolic.attention": "--derive only (sympy)",
    "computations/gau/numeric.py -> .catalog.ball_functions": "importing momentcalc.gau_scale stays light (first call)",
    "computations/gau/numeric.py -> .computations.gau.full": "importing momentcalc.gau_scale stays light (first call)",
    "computations/gau/numeric.py -> .moments.expectations": "importing momentcalc.gau_scale stays light (first call)",
    "computations/gau/scale.py -> .computations.gau.full": "importing momentcalc.gau_scale stays light (first call)",
    "computations/gau/scale.py -> .computations.gau.proof": "importing momentcalc.gau_scale stays light (first call)",
    "computations/gau/scale.py -> .computations.gau.report": "importing momentcalc.gau_scale stays light (first call)",
    "computations/gau/scale.py -> .computations.gau.simulation_run": "--simulate only (numpy)",
    "computations/gau/scale.py -> .moments.expectations": "importing momentcalc.gau_scale stays light (first call)",
    "computations/gau/scale.py -> .symbolic.gau": "--derive only (sympy)",
    "computations/gau/scale.py -> .symbolic.gau_full": "--derive only (sympy)",
    "computations/hermite.py -> .engine.gaussian_balls": "importing momentcalc.hermite stays light (first call)",
    "computations/hermite.py -> .moments.exact": "importing momentcalc.hermite stays light (first call)",
    "computations/hermite.py -> .moments.hermite_coefficients": "importing momentcalc.hermite stays light",
    "computations/hermite.py -> .moments.kernel_maps": "importing momentcalc.hermite stays light (first call)",
    "computations/hermite.py -> flint": "importing momentcalc.hermite loads no python-flint (first call)",
    "computations/identify.py -> .computations.common": "not loaded by audit's default call",
    "computations/identify.py -> .computations.constant_recipes": "identify past the index's 40 digits only",
    "computations/identify.py -> .computations.generated_constant_index": "the index: not read on a bad --digits",
    "computations/constant_index.py -> .computations.generated_constant_index": "the index: read on first lookup",
    "computations/init.py -> .catalog": "--activation only (catalog.resolving)",
    "computations/init.py -> .moments": "--activation only",
    "computations/init.py -> .moments.exact": "--activation only",
    "computations/init.py -> .moments.monomials": "--activation only",
    "computations/init.py -> .symbolic.init": "--derive only (sympy)",
    "computations/kernel.py -> .catalog.expression_twins": "an activation given as a formula only (its catalog twin)",
    "computations/kernel.py -> .catalog.expressions": "an activation given as a formula only (its domain)",
    "computations/kernel.py -> .moments.exact": "a local quantity on a rounding tie only",
    "computations/kernel.py -> .moments.abs_powers": "a curvature whose integral was not proven only",
    "computations/kernel.py -> .engine.gaussian_balls": "importing momentcalc.kernel stays light (first call)",
    "computations/kernel.py -> .moments.kernel_maps": "not loaded by tat, which imports kernel.EXTRA",
    "computations/kernel.py -> .tier.propagation": "--depth only (the propagation core)",
    "catalog/resolving.py -> .catalog.expression_parse": "a catalog entry without hand-written functions only",
    "catalog/resolving.py -> .catalog.formulas": "a catalog entry without hand-written functions only",
    "moments/activation_balls.py -> .catalog.formulas": "a catalog entry without ball functions only",
    "computations/kernel.py -> .symbolic.kernel": "--derive only (sympy)",
    "computations/kernel.py -> flint": "importing momentcalc.kernel loads no python-flint (first call)",
    "computations/meanfield/floats.py -> .catalog.expression_calculus": "the q* search's float forms: at the first call, not at import",
    "computations/meanfield/floats.py -> .catalog.formulas": "the q* search's float forms (the expression parser): at the first call, not at import",
    "computations/meanfield/locate.py -> .computations.meanfield.prove": "importing momentcalc.meanfield stays light",
    "computations/meanfield/locate.py -> .moments.bivariate_certified": "the correlation map c* only",
    "computations/meanfield/locate.py -> .moments.exact": "importing momentcalc.meanfield stays light (first call)",
    "computations/meanfield/locate.py -> .computations.meanfield.correlation_proof": "the chaotic phase's c* only (whether the proof's step is third-order)",
    "computations/meanfield/model.py -> .moments.bivariate_certified": "the correlation map c* only",
    "computations/meanfield/model.py -> .moments.bivariate_quadrature": "the correlation map c* only",
    "computations/meanfield/prove.py -> .computations.meanfield.correlation_proof": "the chaotic phase's c* < 1 only",
    "computations/meanfield/prove.py -> .catalog.ball_functions": "the q* = 0 limits of a tangent-bound activation only",
    "computations/meanfield/solve.py -> .computations.meanfield.prove": "importing momentcalc.meanfield stays light",
    "computations/meanfield/solve.py -> .computations.meanfield.correlation_proof": "the chaotic phase's c* at many digits only",
    "computations/meanfield/solve.py -> .tier.propagation": "--depth only (the layers' balls)",
    "computations/meanfield/solve.py -> .tier": "tier.prove is loaded; kept by the function: .prove's prove is imported too",
    "computations/meanfield/solve.py -> .moments.exact": "importing momentcalc.meanfield stays light (first call)",
    "computations/meanfield/solve.py -> .symbolic.meanfield": "--derive only (sympy)",
    "computations/postnorm.py -> .symbolic.postnorm": "--derive only (sympy)",
    "computations/postnorm_series.py -> flint": "importing momentcalc.postnorm_decay loads no python-flint",
    "computations/selu.py -> .symbolic.selu": "--derive only (sympy)",
    "computations/tat.py -> .engine.gaussian_balls": "importing momentcalc.tat stays light (first call)",
    "computations/tat.py -> .moments.dks": "DKS (not leaky_relu's TAT) only",
    "computations/tat.py -> .moments.expectations": "an activation given as a formula only (its moments finite)",
    "computations/tat.py -> .moments.transforms": "not loaded by DKS calls that fail to find a transform",
    "computations/tat.py -> .computations.tat_reach": "only when DKS's starting points find no transform",
    "computations/tat.py -> .moments.dks_survey": "only when DKS's first starting point finds no transform",
    "computations/tat.py -> .moments.dks_clip": "a clipped linear activation's proven floor only",
    "computations/tat.py -> .moments.dks_convex": "a convex sum of relus' proven ceiling only",
    "computations/tat.py -> .moments.dks_selu": "selu's proven bound only",
    "computations/tat.py -> .moments.dks_ceilings": "an activation declaring a proven ceiling, DKS only",
    "moments/dks_ceilings.py -> .moments.dks_swish": "swish's proof module, when its ceiling is read",
    "moments/dks_ceilings.py -> .moments.dks_gelu": "gelu's proof module, when its ceiling is read",
    "computations/tat_reach.py -> .moments.dks_convex": "the relu limit's hint, for a target nothing reached",
    "computations/tat_reach.py -> .moments.dks_selu": "the relu limit's hint, for a target nothing reached",
    "computations/tat.py -> flint": "importing momentcalc.tat loads no python-flint (first call)",
    "computations/truncnorm.py -> .symbolic.truncnorm": "--derive only (sympy)",
    "console.py -> .cli": "imported with the cyclic GC off and under the Ctrl-C handler (start-up)",
    "engine/balls.py -> flint": "python-flint (about 20 ms) only where a ball is made",
    "engine/convolution.py -> resource": "only to read the memory limit when a convolution is large",
    "moments/activation_balls.py -> .engine.trapezoid": "the trapezoidal route only",
    "moments/bivariate_certified.py -> .moments.bivariate_expression": "an activation given as a formula only",
    "moments/bivariate_certified.py -> .moments.bivariate_kinked": "kinked activations' route only",
    "moments/expectations.py -> .catalog.expression_twins": "an expression's Arb route only (the parser its catalog twin needs)",
    "moments/expectations.py -> .catalog.expressions": "an activation given as a formula only",
    "moments/expectations.py -> .engine.gaussian_balls": "the Arb route only (python-flint)",
    "moments/expectations.py -> .moments.activation_balls": "the Arb route only (python-flint)",
    "moments/expectations.py -> .moments.exact": "closed forms of the summary only",
    "moments/kernel_maps.py -> .catalog.expressions": "an activation given as a formula only",
    "moments/kernel_maps.py -> .catalog.kernels": "the kernels' closed forms only",
    "moments/kernel_maps.py -> .moments.bivariate_certified": "the bivariate Arb route only",
    "moments/kernel_maps.py -> .moments.relu_like": "the relu + g route at large variances only (it imports this module)",
    "moments/normal_cdf.py -> .engine.normal_cdf_moments": "Phi's moments only",
    "moments/quadrature.py -> .catalog.expressions": "an activation given as a formula only",
    "progress.py -> rich.console": "a progress bar only (long runs on a terminal)",
    "progress.py -> rich.progress": "a progress bar only (long runs on a terminal)",
    "render/__init__.py -> .render.audit_formats": "audit's output only",
    "render/__init__.py -> .render.init_report_formats": "init-report's CI output only",
    "render/__init__.py -> .render.cells": "loaded only for the formats that need it",
    "render/__init__.py -> .render.chart": "--chart only",
    "render/__init__.py -> .render.csv_out": "--format csv only",
    "render/__init__.py -> .render.document": "--json/--format json only",
    "render/__init__.py -> .render.json_out": "--json/--format json only",
    "render/__init__.py -> .render.plain": "--format text only",
    "render/__init__.py -> .render.table": "--format table only",
    "render/__init__.py -> .render.text": "loaded only for the formats that need it",
    "render/chart.py -> rich.table": "--chart's table only",
    "result.py -> dataclasses": "dataclasses (about 1 ms of start-up) only for result.replace",
    "tier/gaussian.py -> .moments.bivariate_certified": "bivariate_balls only (python-flint's fmpz_poly, about 2 ms)",
    "verification/registry.py -> .catalog.activations": "the entries that check SELU's constants only",
    "verification/registry.py -> .moments": "the entries that check a Gaussian moment only",
    "computations/hermite.py -> .moments.gated_maps": "gated units' coefficients only (glu, geglu, swiglu)",
    "computations/kernel.py -> .moments.gated_maps": "gated units' kernels only (glu, geglu, swiglu)",
    "moments/gated_maps.py -> .moments.fading_tail": "--depth's proven tail of glu only",
    "moments/gated_maps.py -> .moments.hermite_coefficients": "hermite of a gated unit only",
    "computations/meanfield/homogeneous_zero.py -> .catalog.expression_ball": "an expression's terms at q* = 0 only (c*x**n)",
}


_import_graph = source_trees.import_graph


def _local_imports(graph, path: Path, source: str | None = None) -> set[str]:
    """``file -> module`` of each function-local import of ``path`` (LOCAL_IMPORTS' keys)."""
    relative = path.relative_to(PACKAGE).as_posix()
    return {
        f"{relative} -> "
        + ("." + target.removeprefix("momentcalc.") if target.startswith("momentcalc.") else target)
        for _, target in graph.local_imports(path, source)
    }


@pytest.mark.xdist_group(source_trees.GROUP)
def test_function_local_imports_are_listed_with_a_reason():
    """A new function-local import (not of sympy, numpy, scipy or matplotlib) fails here until it
    is listed in LOCAL_IMPORTS with why; outside cli/ (helper startup's), an entry whose import
    went to module level fails too, so the list says what is lazy."""
    graph = _import_graph()
    found = set().union(*(_local_imports(graph, path) for path in sorted(PACKAGE.rglob("*.py"))))
    assert sorted(found - LOCAL_IMPORTS.keys()) == []
    assert sorted(key for key in LOCAL_IMPORTS.keys() - found if not key.startswith("cli/")) == []
    assert all(reason.strip() and "\n" not in reason for reason in LOCAL_IMPORTS.values())


def test_the_local_import_check_can_fail():
    graph = _import_graph()
    path = PACKAGE / "computations" / "truncnorm.py"
    source = path.read_text() + (
        "\n\ndef _late():\n    from ..moments import expectations\n    import sympy\n    from numpy import array\n"
        "    import json\n\n\nif TYPE_CHECKING:\n    from ..catalog import Activation\n"
    )
    found = _local_imports(graph, path, source)
    new = found - LOCAL_IMPORTS.keys()
    assert new == {"computations/truncnorm.py -> .moments.expectations", "computations/truncnorm.py -> json"}


@pytest.mark.xdist_group(source_trees.GROUP)
def test_no_module_imports_another_packages_private_module():
    """typer >= 0.25 carries click as ``typer._click``: reading it (as cli.options once did for
    whether --format was given) ties momentcalc to typer's internals. Outside the two adapters,
    no import path of another package may have a component that starts with an underscore."""
    adapters = {"flint_lazy.py", "engine/mpmath_internals.py"}
    found = []
    for relative, _, source in _sources():
        if relative in adapters:
            continue
        for node in _nodes(source):
            names = (
                [alias.name for alias in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom) and not node.level
                else []
            )
            found += [
                f"{relative}: {name}"
                for name in names
                if name != "__future__" and any(part.startswith("_") for part in name.split("."))
            ]
    assert found == []
