"""Which modules every default call loads, and which function-local imports could move to the top.

Not part of the test suite (it runs about 80 processes); run it by hand:

    python tests/bench/loaded_modules.py record before.json     # every default call's module sets
    python tests/bench/loaded_modules.py compare before.json after.json   # exit 1 if any differs
    python tests/bench/loaded_modules.py hoistable before.json computations tier   # candidates

``record`` runs each default call of ``tests/bench/bench_startup.py`` (``DEFAULT_CALLS``, as a
table and with ``--json``) as ``python -m momentcalc`` would, and writes, per call, the sorted
``sys.modules`` of the parent process and of each forked child (the computation's), taken as the
process ends (``os._exit``, wrapped; ``atexit`` where a run ends otherwise). ``compare`` says
which call's parent or child loads another set of modules in the second record: a hoisted import
must load nothing new on any default call, so the two records are identical. The record also
holds what importing each library function (``momentcalc.NAME``, not calling it) loads; those
are shown, not judged: a module-level import moves a load from the first call to the import.

``hoistable`` lists the function-local imports (``scripts/import_graph.local_imports``, so not
sympy, numpy, scipy, matplotlib) of the given subpackages whose modules are already loaded
wherever the importing file is: either the module is in the importing file's own top-level
import closure (then it is loaded whenever the file is, in the library too), or every recorded
process (parent or child) that loaded the importing file had loaded it too (the record's default
calls; such an import is hoisted, then ``compare`` confirms). "no" lines say which process did
not; "unseen" lines name files no default call loads (left lazy unless the closure shows it).
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "scripts"), str(ROOT / "tests" / "bench")]

import bench_startup  # noqa: E402
import import_graph  # noqa: E402

from momentcalc.command_table import api  # noqa: E402

# Runs ``python -m momentcalc ARGS`` in-process (runpy, as ``-m`` does) with ``os._exit`` wrapped
# to write the process's module names to OUT.<parent|child>.<pid> first.
WRAPPER = r"""
import atexit, os, runpy, sys
_out, _main, _real = os.environ["LOADED_MODULES_OUT"], os.getpid(), os._exit
def _write():
    role = "parent" if os.getpid() == _main else "child"
    with open(f"{_out}.{role}.{os.getpid()}", "w") as file:
        file.write("\n".join(sorted(sys.modules)))
def _exit(code):
    _write()
    _real(code)
os._exit = _exit
atexit.register(_write)
sys.argv = ["momentcalc", *sys.argv[1:]]
runpy.run_module("momentcalc", run_name="__main__", alter_sys=True)
"""


# Calls beside bench_startup's DEFAULT_CALLS, for files those do not load: tat's that compute
# (its default case exits 2), DKS, identify past the index's digits (constant_recipes), the
# chaotic mean field (correlation_proof), GAU's simulation and verify.
EXTRA_CALLS = {
    "tat leaky_relu --target-c0 0.2": ["tat", "leaky_relu", "--target-c0", "0.2"],
    "tat gelu --target-slope 2": ["tat", "gelu", "--target-slope", "2"],
    "identify 0.7978845608 --digits 70": ["identify", "0.7978845608", "--digits", "70"],
    "meanfield tanh --sigma-w2 2.5 --sigma-b2 0.05": [
        "meanfield",
        "tanh",
        "--sigma-w2",
        "2.5",
        "--sigma-b2",
        "0.05",
    ],
    "gau-scale --simulate --trials 5": ["gau-scale", "--simulate", "--trials", "5"],
    "verify": ["verify"],
}
# Each command's --help and a bad --digits (exit 2: the parent's error path), where it has one.
for _command in sorted({argv[0] for argv in bench_startup.DEFAULT_CALLS.values()}):
    _name, _argv = next(
        (name, argv) for name, argv in bench_startup.DEFAULT_CALLS.items() if argv[0] == _command
    )
    EXTRA_CALLS[f"{_command} --help"] = [_command, "--help"]
    EXTRA_CALLS[f"{_name} --digits 0"] = [*_argv, "--digits", "0"]


# The library: ``momentcalc.NAME`` (the function's module imported, not called), in a fresh process.
LIBRARY = r"""
import sys, momentcalc
getattr(momentcalc, sys.argv[1])
print("\n".join(sorted(sys.modules)), end="")
"""


def calls() -> dict[str, list[str]]:
    """Every default call, as a table and with --json (as bench_startup times them)."""
    found = {}
    for name, argv in {**bench_startup.DEFAULT_CALLS, **EXTRA_CALLS}.items():
        found[f"{name} (table)"] = argv
        if argv[0] != "schema":
            found[f"{name} --json"] = [*argv, "--json"]
    return found


def record(target: Path) -> int:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(ROOT)
    env["MPMATH_NOGMPY"] = "1"  # as bench_startup --plain-mpmath
    result: dict[str, dict[str, list[str]]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, argv in calls().items():
            out = Path(tmp) / str(len(result))
            done = subprocess.run(
                [sys.executable, "-c", WRAPPER, *argv],
                cwd=tmp,
                capture_output=True,
                text=True,
                env={**env, "LOADED_MODULES_OUT": str(out)},
                check=False,
            )
            files = sorted(Path(tmp).glob(f"{out.name}.*"))
            roles = {}
            for number, path in enumerate(f for f in files if ".parent." in f.name):
                roles[f"parent{number or ''}"] = path.read_text().split("\n")
            for number, path in enumerate(f for f in files if ".child." in f.name):
                roles[f"child{number or ''}"] = path.read_text().split("\n")
            roles["exit"] = [str(done.returncode)]
            result[name] = roles
            print(
                f"{name}: exit {done.returncode}, "
                + ", ".join(f"{role} {len(mods)} modules" for role, mods in roles.items() if role != "exit")
            )
        for function in sorted(
            {*api(), "expectations", "gaussian_moments"}
        ):  # the library: importing a function
            done = subprocess.run(
                [sys.executable, "-c", LIBRARY, function],
                cwd=tmp,
                capture_output=True,
                text=True,
                env=env,
                check=False,
            )
            result[f"python: momentcalc.{function}"] = {
                "import": done.stdout.split("\n"),
                "exit": [str(done.returncode)],
            }
    print(f"{len(api()) + 2} library imports (python: momentcalc.NAME)")
    target.write_text(json.dumps(result, indent=1, sort_keys=True) + "\n")
    return 0


def compare(first: Path, second: Path) -> int:
    a, b = json.loads(first.read_text()), json.loads(second.read_text())
    differ = library = 0
    for name in sorted(a.keys() | b.keys()):
        for role in sorted(a.get(name, {}).keys() | b.get(name, {}).keys()):
            before, after = set(a.get(name, {}).get(role, [])), set(b.get(name, {}).get(role, []))
            if before != after:
                if name.startswith("python: "):
                    library += 1
                    print(
                        f"(library, informational) {name}: only before {len(before - after)} modules, "
                        f"only after {len(after - before)}: {', '.join(sorted(after - before)[:6])}, ..."
                    )
                    continue
                differ += 1
                print(
                    f"{name} [{role}]: only before {sorted(before - after)}, only after {sorted(after - before)}"
                )
    calls = sum(not name.startswith("python: ") for name in a)
    print(
        f"{calls} CLI calls: "
        + (f"{differ} process(es) differ" if differ else "identical module sets")
        + f"; {library} library imports differ"
    )
    return 1 if differ else 0


def _targets(node: ast.Import | ast.ImportFrom, package: str, modules: dict[str, Path]) -> list[str]:
    """The modules an import loads: ``from X import y`` loads X.y where that is a module (of
    the package, or flint's lazily loaded types, ``flint_lazy.SUBMODULES``), else X."""
    from momentcalc.flint_lazy import SUBMODULES

    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if node.level:
        base = package.split(".")
        base = base[: len(base) - node.level + 1]
        source = ".".join(base + ([node.module] if node.module else []))
    else:
        source = node.module or ""
    found = []
    for alias in node.names:
        if source == "flint" and alias.name in SUBMODULES:
            found.append(SUBMODULES[alias.name])
        elif (source, alias.name) in _lazy_attributes(modules):
            found.append(_lazy_attributes(modules)[source, alias.name])
        elif f"{source}.{alias.name}" in modules:
            found.append(f"{source}.{alias.name}")
        else:
            found.append(source)
    return found


_LAZY_CACHE: dict[tuple[str, str], str] = {}


def _lazy_attributes(modules: dict[str, Path]) -> dict[tuple[str, str], str]:
    """(package, name) -> the module a package's ``__getattr__`` imports for that name (PEP 562):
    ``catalog``'s ``_LAZY = {"resolve": ".resolving", ...}``, ``tier``'s ``_GAUSSIAN`` names
    (``momentcalc.tier.gaussian``)."""
    if not _LAZY_CACHE:
        for name, path in modules.items():
            if path.name != "__init__.py":
                continue
            for node in ast.parse(path.read_text()).body:
                if not (isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name)):
                    continue
                if node.targets[0].id == "_LAZY" and isinstance(node.value, ast.Dict):
                    for key, value in zip(node.value.keys, node.value.values):
                        _LAZY_CACHE[name, key.value] = name + value.value  # type: ignore[union-attr]
                elif node.targets[0].id == "_GAUSSIAN":
                    for element in node.value.args[0].elts:  # type: ignore[attr-defined]
                        _LAZY_CACHE[name, element.value] = f"{name}.gaussian"
        _LAZY_CACHE.setdefault(("", ""), "")  # (computed)
    return _LAZY_CACHE


def top_level_closure(modules: dict[str, Path]) -> dict[str, set[str]]:
    """module -> every module its top-level imports load, transitively (its packages' too)."""
    direct: dict[str, set[str]] = {}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        tree = ast.parse(path.read_text())
        found: set[str] = set()
        for node in tree.body:
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                found.update(_targets(node, package, modules))
        parents = name.split(".")
        found.update(".".join(parents[:i]) for i in range(1, len(parents)))  # a module loads its packages
        direct[name] = found
    closure: dict[str, set[str]] = {}
    for name in modules:
        seen: set[str] = set()
        todo = [name]
        while todo:
            for nxt in direct.get(todo.pop(), ()):
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        closure[name] = seen
    return closure


def hoistable(recorded: Path, subpackages: list[str]) -> int:
    runs = json.loads(recorded.read_text())
    processes = [
        (f"{name} [{role}]", set(mods))
        for name, roles in runs.items()
        for role, mods in roles.items()
        if role != "exit"
    ]
    modules = import_graph.all_modules()
    closure = top_level_closure(modules)
    for name, path in modules.items():
        if name.split(".")[1:2] not in ([s] for s in subpackages):
            continue
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        tree = ast.parse(path.read_text())
        top = {id(node) for node in tree.body}
        top |= {
            id(inner)
            for node in ast.walk(tree)
            if isinstance(node, ast.If)  # never run
            and "TYPE_CHECKING" in ast.unparse(node.test)
            for inner in ast.walk(node)
        }
        loaded_in = [(label, mods) for label, mods in processes if name in mods]
        for node in ast.walk(tree):
            if not isinstance(node, (ast.Import, ast.ImportFrom)) or id(node) in top:
                continue
            for target in _targets(node, package, modules):
                if target.split(".")[0] in import_graph.LAZY_ALLOWED:
                    continue
                where = f"{path.relative_to(ROOT)}:{node.lineno} {target}"
                if target in closure[name] or target == name:
                    print(f"yes (closure) {where}")
                elif not loaded_in:
                    print(f"unseen {where}")
                else:
                    missing = [label for label, mods in loaded_in if target not in mods]
                    print(
                        f"no {where}: not loaded in {missing[0]} (+{len(missing) - 1})"
                        if missing
                        else f"yes (every default call) {where}"
                    )
    return 0


def main() -> int:
    command, *rest = sys.argv[1:] or ["help"]
    if command == "record" and len(rest) == 1:
        return record(Path(rest[0]))
    if command == "compare" and len(rest) == 2:
        return compare(Path(rest[0]), Path(rest[1]))
    if command == "hoistable" and len(rest) >= 2:
        return hoistable(Path(rest[0]), rest[1:])
    print(__doc__)
    return 2


if __name__ == "__main__":
    raise SystemExit(main())
