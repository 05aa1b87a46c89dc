"""Imports flow one way between momentcalc's subpackages (scripts/import_graph.py draws it)."""

from __future__ import annotations

from functools import cache

import pytest

from tests import source_trees


@cache  # the tests share one parse of the sources with test_dependencies (source_trees)
def _graph_module():
    module = source_trees.import_graph()
    module.edges = module.graph()
    return module


@pytest.mark.xdist_group(source_trees.GROUP)
def test_no_import_cycles_between_subpackages():
    graph = _graph_module()
    assert graph.cycles(graph.edges) == []


@pytest.mark.xdist_group(source_trees.GROUP)
def test_no_import_cycles_between_files():
    """Between modules, counting imports inside functions too (a lazy import is still a
    dependency): a cycle between two files of one subpackage is invisible to the test above."""
    graph = _graph_module()
    assert graph.module_cycles(graph.module_graph()) == []


def test_the_file_cycle_check_can_fail():
    graph = source_trees.import_graph()  # (without the package's graph: no parse)
    assert graph.module_cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


@pytest.mark.xdist_group(source_trees.GROUP)
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


@pytest.mark.xdist_group(source_trees.GROUP)
def test_library_text_speaks_python():
    """No ``--option`` in the library's messages, descriptions or notes: they write ``{name}``
    placeholders (or the Python name), and only the CLI turns a name into ``--name``."""
    import ast
    import re

    option = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*")
    found = []
    for folder in ("computations", "tier", "catalog", "engine", "moments", "symbolic"):
        for path in sorted((source_trees.PACKAGE / folder).rglob("*.py")):
            tree = source_trees.tree(path)
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
