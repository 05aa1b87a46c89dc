"""Print the import graph between momentcalc's subpackages, read from the source (AST).

    python scripts/import_graph.py            # one line per subpackage: what it imports
    python scripts/import_graph.py --check    # also exit 1 if the graph has a cycle
    python scripts/import_graph.py --modules  # also the cycles between files (modules)

Every ``import``/``from ... import`` counts, at module level or inside a function (a lazy
import is still a dependency). Top-level modules (``errors``, ``result``, ``defaults``,
``progress``) appear as nodes of their own.
"""

from __future__ import annotations

import ast
import functools
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "momentcalc"


ROOT = "momentcalc"  # the package itself: its lazy public API (``from momentcalc import truncnorm``)


# Each file's tree, parsed once per process and keyed by its text (a changed file is parsed
# anew): --modules and the tests that read the sources (tests/source_trees.py) walk every file
# several times, and a parse of the package's 200 files takes about a second.
TREES: dict[str, ast.Module] = {}


def parse(source: str, filename: str = "<unknown>") -> ast.Module:
    """``ast.parse(source, filename)``, once per text; the tree is shared, so never changed."""
    tree = TREES.get(source)
    if tree is None:
        tree = TREES[source] = ast.parse(source, filename)
    return tree


def node_of(module: str) -> str | None:
    """``momentcalc.cli.runner`` -> ``cli``; ``momentcalc.errors`` -> ``errors``."""
    parts = module.split(".")
    if parts[0] != "momentcalc":
        return None
    return parts[1] if len(parts) > 1 else ROOT


def module_name(path: Path) -> str:
    relative = path.relative_to(PACKAGE.parent).with_suffix("")
    parts = list(relative.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _absolute(node: ast.ImportFrom, package: str) -> str:
    """The module a ``from ... import`` names, with a relative one resolved against ``package``."""
    if not node.level:
        return node.module or ""
    base = package.split(".")
    base = base[: len(base) - node.level + 1]
    return ".".join(base + ([node.module] if node.module else []))


def imports(path: Path) -> set[str]:
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            target = _absolute(node, package)
            found.add(target)
            found.update(f"{target}.{alias.name}" for alias in node.names)  # from . import x
        elif (
            isinstance(node, ast.Call)
            and getattr(node.func, "id", getattr(node.func, "attr", None)) == "import_module"
        ):
            argument = node.args[0] if node.args else None
            if isinstance(argument, ast.Constant) and isinstance(argument.value, str):
                found.add(argument.value)  # import_module("momentcalc.x")
            elif isinstance(argument, ast.JoinedStr) and isinstance(argument.values[0], ast.Constant):
                found.add(str(argument.values[0].value).rstrip("."))  # import_module(f"momentcalc.x.{name}")
    if name == "momentcalc":  # the lazy API: _API = {"truncnorm": ".computations.truncnorm", ...}
        for node in ast.walk(parse(path.read_text(), str(path))):
            if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "_API":
                found.update("momentcalc" + value.value for value in node.value.values)  # type: ignore[attr-defined]
    return found


def graph() -> dict[str, set[str]]:
    edges: dict[str, set[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        source = node_of(module_name(path))
        if source is None or source in ("__main__", "_version"):
            continue
        edges.setdefault(source, set())
        for target in imports(path):
            other = node_of(target)
            if other is None or other in (source, "_version"):
                continue
            if other == ROOT or (PACKAGE / other).is_dir() or (PACKAGE / f"{other}.py").exists():
                edges[source].add(other)
    return edges


# Imported inside functions on purpose (start-up: only the paths that need them load them).
LAZY_ALLOWED = ("sympy", "numpy", "scipy", "matplotlib")


@functools.cache  # local_imports asks once per file
def all_modules() -> dict[str, Path]:
    """Every module of the package by dotted name (read, never changed, by the callers)."""
    return {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def module_imports(path: Path, modules: dict[str, Path]) -> set[str]:
    """The package's modules that ``path`` imports, at module level or inside a function:
    ``from X import y`` is an import of X.y where that is a module, else of X (a package's
    ``__init__``); ``import_module("momentcalc.x")`` with a constant name counts too."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            target = _absolute(node, package)
            submodules = {f"{target}.{alias.name}" for alias in node.names} & modules.keys()
            found.update(submodules or {target})
        elif (
            isinstance(node, ast.Call)
            and getattr(node.func, "id", getattr(node.func, "attr", None)) == "import_module"
        ):
            argument = node.args[0] if node.args else None
            if isinstance(argument, ast.Constant) and isinstance(argument.value, str):
                found.add(argument.value)
    return {target for target in found if target in modules and target != name}


def module_graph() -> dict[str, set[str]]:
    """module -> the package's modules it imports (``module_imports``)."""
    modules = all_modules()
    return {name: module_imports(path, modules) for name, path in modules.items()}


def module_cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan), each sorted: every
    file-level import cycle lies inside one of them."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def connect(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(edges.get(node, ())):
            if nxt not in index:
                connect(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for node in sorted(edges):
        if node not in index:
            connect(node)
    return sorted(groups)


def local_imports(path: Path, source: str | None = None) -> list[tuple[int, str]]:
    """(line, module) of every import inside a function, class body or other block, but for
    the allowed lazy ones (LAZY_ALLOWED) and ``if TYPE_CHECKING:`` blocks (never run). The
    module is the package's submodule where ``from X import y`` names one (``X.y``), else X;
    ``source`` stands in for the file's text (a test's made-up module)."""
    tree = parse(path.read_text() if source is None else source, str(path))
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    modules = all_modules()
    top = {id(node) for node in tree.body}
    imports: list[ast.Import | ast.ImportFrom] = []
    typing_only: set[int] = set()
    for node in ast.walk(tree):  # one walk of the tree (the tests run this on every file)
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            imports.append(node)
        elif isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            typing_only.update(id(inner) for inner in ast.walk(node))
    found = []
    for node in imports:
        if id(node) not in top and id(node) not in typing_only:
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            else:
                source_module = _absolute(node, package)
                targets = [
                    f"{source_module}.{alias.name}"
                    if f"{source_module}.{alias.name}" in modules
                    else source_module
                    for alias in node.names
                ]
            for target in targets:
                if target.split(".")[0] not in LAZY_ALLOWED:
                    found.append((node.lineno, target))
    return found


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    found = []

    def visit(node: str, path: list[str]) -> None:
        for nxt in sorted(edges.get(node, ())):
            if nxt in path:
                cycle = path[path.index(nxt) :] + [nxt]
                if min(cycle[:-1]) == cycle[0]:
                    found.append(cycle)
            else:
                visit(nxt, path + [nxt])

    for start in sorted(edges):
        visit(start, [start])
    return found


def main() -> int:
    edges = graph()
    for source in sorted(edges, key=lambda n: (-len(edges[n]), n)):
        print(f"{source:14} -> {', '.join(sorted(edges[source])) or '(nothing)'}")
    loops = cycles(edges)
    for loop in loops:
        print("cycle: " + " -> ".join(loop))
    if not loops:
        print("no cycles")
    if "--modules" in sys.argv:  # between files, not only between subpackages
        groups = module_cycles(module_graph())
        for group in groups:
            print("module cycle among: " + ", ".join(group))
        if not groups:
            print("no module cycles")
        loops = loops or groups
    return 1 if loops and "--check" in sys.argv else 0


if __name__ == "__main__":
    raise SystemExit(main())
