"""scripts/import_graph.py loaded once per test process, so that the tests reading momentcalc's
source (test_layers.py, test_dependencies.py, test_json_schema.py) share its parse of each file
(``import_graph.parse``): a parse of the package's 200 files takes about a second of CPU, and
those tests made six. They run on one worker (``pytest.mark.xdist_group(GROUP)``), and the
conftest drops the trees (tens of MB) when the group's last test on that worker is done."""

from __future__ import annotations

import ast
import importlib.util
from functools import cache
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "momentcalc"
GROUP = "source-trees"


@cache
def import_graph() -> ModuleType:
    spec = importlib.util.spec_from_file_location("import_graph", ROOT / "scripts" / "import_graph.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def tree(path: Path) -> ast.Module:
    """The shared (never to be changed) tree of one file of the package."""
    return import_graph().parse(path.read_text(encoding="utf-8"), str(path))


# Every node of a file's tree, walked once for the tests of the group that walk whole trees
# (test_dependencies.py, test_json_schema.py: a walk of the package takes about half a second).
NODES: dict[str, tuple[ast.AST, ...]] = {}


def nodes(source: str) -> tuple[ast.AST, ...]:
    """``tuple(ast.walk(tree))`` of the shared tree of ``source`` (a file's text), once."""
    found = NODES.get(source)
    if found is None:
        found = NODES[source] = tuple(ast.walk(import_graph().parse(source)))
    return found


def forget() -> None:
    NODES.clear()
    if import_graph.cache_info().currsize:
        import_graph().TREES.clear()
