"""Imports flow one way between momentcalc's subpackages (scripts/import_graph.py draws it)."""

from __future__ import annotations

import importlib.util
from functools import cache
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "import_graph.py"


@cache  # the two tests share one parse of the sources (xdist_group puts them on one worker)
def _graph_module():
    spec = importlib.util.spec_from_file_location("import_graph", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.edges = module.graph()
    return module


@pytest.mark.xdist_group("import-graph")
def test_no_import_cycles_between_subpackages():
    graph = _graph_module()
    assert graph.cycles(graph.edges) == []


@pytest.mark.xdist_group("import-graph")
def test_no_import_cycles_between_files():
    """Between modules, counting imports inside functions too (a lazy import is still a
    dependency): a cycle between two files of one subpackage is invisible to the test above."""
    graph = _graph_module()
    assert graph.module_cycles(graph.module_graph()) == []


def test_the_file_cycle_check_can_fail():
    graph = _graph_module()
    assert graph.module_cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


@pytest.mark.xdist_group("import-graph")
def test_lower_layers_know_nothing_of_the_upper_ones():
    edges = _graph_module().edges
    assert edges["engine"] <= {"errors"}
    assert edges["catalog"] <= {"engine", "errors"}
    assert edges["moments"] <= {"catalog", "engine", "errors"}
    # the public tier a computation is written on sits between the computations and the moments
    assert edges["tier"] <= {"moments", "catalog", "result", "engine", "errors", "defaults"}
    for lower in ("engine", "catalog", "moments", "symbolic", "computations", "render"):
        assert "cli" not in edges[lower], lower
    assert "verification" not in edges["computations"]


def test_library_text_speaks_python():
    """No ``--option`` in the library's messages, descriptions or notes: they write ``{name}``
    placeholders (or the Python name), and only the CLI turns a name into ``--name``."""
    import ast
    import re

    option = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*")
    package = SCRIPT.parent.parent / "momentcalc"
    found = []
    for folder in ("computations", "tier", "catalog", "engine", "moments", "symbolic"):
        for path in sorted((package / folder).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            docstrings = {
                id(node.body[0].value)
                for node in ast.walk(tree)
                if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                and node.body
                and isinstance(node.body[0], ast.Expr)
            }
            found += [
                f"{path.name}:{node.lineno}"
                for node in ast.walk(tree)
                if isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and id(node) not in docstrings
                and option.search(node.value)
            ]
    assert found == []


def test_descriptions_and_notes_name_arguments_as_the_reader_does():
    from momentcalc import postnorm_decay, truncnorm
    from momentcalc.cli.runner import flag

    python = truncnorm(target_std="0.02", digits=5)
    assert python["std_to_pass"].description == "std to pass so that the actual std equals target_std"
    assert (
        python.named(flag)["std_to_pass"].description
        == "std to pass so that the actual std equals --target-std"
    )
    decay = postnorm_decay(sigma=0, digits=5)
    assert any("below threshold:" in note for note in decay.notes)
    assert any("below --threshold:" in note for note in decay.named(flag).notes)
