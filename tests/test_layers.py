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
