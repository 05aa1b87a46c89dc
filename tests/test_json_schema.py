"""JSON version 1: every --json document validates against `momentcalc schema` (a real
validator, jsonschema), and the rules of SPEC's JSON paragraph hold."""

from __future__ import annotations

import dataclasses
import json
import tomllib
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

import momentcalc.verification.run as verify_module
from momentcalc.verification.registry import REGISTRY
from tests import source_trees
from tests.conftest import invoke
from tests.snapshot_cases import CASES

ROOT = Path(__file__).resolve().parent.parent
SNAPSHOTS = ROOT / "tests" / "snapshots"
JSON_CASES = [(name, argv) for name, argv in CASES if "--json" in argv]


@pytest.fixture(scope="module")
def validator():
    run = invoke("schema")
    assert run.code == 0
    schema = json.loads(run.stdout)
    Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    return Draft202012Validator(schema)


def valid(validator, doc):
    errors = sorted(validator.iter_errors(doc), key=str)
    assert not errors, "\n".join(f"{list(e.absolute_path)}: {e.message}" for e in errors[:5])
    return doc


def test_snapshot_cases_cover_every_kind_of_document():
    names = " ".join(name for name, _ in JSON_CASES)
    for kind in ("sweep", "derive", "simulate", "expect", "error", "verify", "constants", "activations"):
        assert kind in names
    assert len(JSON_CASES) >= 50


@pytest.mark.parametrize(("name", "argv"), JSON_CASES, ids=[name for name, _ in JSON_CASES])
def test_every_snapshot_document_validates(validator, name, argv):
    """tests/test_snapshots.py proves these files are byte for byte what the command prints."""
    valid(validator, json.loads((SNAPSHOTS / f"{name}.out").read_text()))


@pytest.mark.parametrize(
    "args",
    [
        ("truncnorm", "--std", "0.02:0.02:0.01", "--expect", "std=0.0176"),
        ("truncnorm", "--std", "0.1000000000000000000001", "--low", "1e-400", "--high", "inf"),
        ("truncnorm", "--bogus"),  # a click usage error
        ("truncnorm", "--expect", "gamma=0.8"),  # too few digits
        ("truncnorm", "--std", "0.02,0.03", "--expect", "std=0.0176"),  # a failing check in a sweep
        ("postnorm-decay", "--layers", "1500", "--sigma", "0.5,1"),  # long list results in rows
        ("attention", "--seq-len", "8", "--trials", "20", "--expect", "logit_std=8.00"),
        ("verify", "--only", "pytorch.gain"),
    ],
)
def test_live_documents_validate(validator, args):
    run = invoke(*args, "--json")
    assert run.code in (0, 1, 2, 3)
    valid(validator, run.json())


def test_failing_verify_validates(validator, monkeypatch):
    good = next(e for e in REGISTRY if e.id == "truncnorm.gamma")
    monkeypatch.setattr(
        verify_module, "REGISTRY", (good, dataclasses.replace(good, id="wrong", published="0.7737414"))
    )
    run = invoke("verify", "--json")
    assert run.code == 1
    doc = valid(validator, run.json())
    assert doc["ok"] is False


def test_the_schema_rejects_what_would_break_scripts(validator):
    doc = invoke("truncnorm", "--json").json()
    assert validator.is_valid(doc)
    for breaking in (
        lambda d: d.pop("notes"),
        lambda d: d.__setitem__("schema_version", 2),
        lambda d: d["results"]["gamma"].__setitem__("decimal", 0.77),
        lambda d: d["results"]["gamma"].pop("certified"),
        lambda d: d.__setitem__("rows", []),
    ):
        changed = json.loads(json.dumps(doc))
        breaking(changed)
        assert not validator.is_valid(changed)
    verify = invoke("verify", "--only", "pytorch.gain.tanh", "--json").json()
    verify["rows"][0]["ok"] = "info"
    assert not validator.is_valid(verify)


def test_shape_follows_the_command_line():
    one_point_range = invoke("truncnorm", "--std", "0.02:0.02:0.01", "--json").json()
    assert "rows" in one_point_range and "results" not in one_point_range
    assert one_point_range["swept"] == ["std"] and len(one_point_range["rows"]) == 1
    one_item_list = invoke("truncnorm", "--std", "0.02,", "--json")
    assert one_item_list.code == 2  # an empty list item is refused, not read as one point
    single = invoke("truncnorm", "--std", "0.02", "--json").json()
    assert "rows" not in single and single["inputs"]["std"] == 0.02


def test_keys_never_appear_and_disappear():
    plain = invoke("truncnorm", "--json").json()
    derived = json.loads((SNAPSHOTS / "truncnorm_derive.out").read_text())  # truncnorm --derive --json
    assert plain["notes"] == [] and plain["derivation"] == []
    assert derived["derivation"] and set(plain) == set(derived)
    simulated = invoke("attention", "--seq-len", "8", "--trials", "20", "--json").json()["results"]
    exact = invoke("attention", "--json").json()["results"]
    assert set(simulated["logit_std"]) == set(exact["logit_std"])
    assert exact["logit_std"]["stderr"] is None and simulated["max_weight_scaled"]["stderr"] > 0
    assert exact["logit_std"]["certified"] in (True, False)
    sweep = invoke("truncnorm", "--std", "1,2", "--json").json()
    assert all(set(row) == {"inputs", "status", "results", "notes", "derivation"} for row in sweep["rows"])


def test_input_types():
    doc = invoke("init", "--fan-in", "768", "--json").json()
    assert doc["inputs"]["fan_in"] == 768 and isinstance(doc["inputs"]["fan_in"], int)
    text = invoke(
        "truncnorm",
        "--std",
        "0.1000000000000000000001",
        "--low",
        "-2.0",
        "--high",
        "inf",
        "--mean",
        "1e-400",
        "--json",
    ).stdout
    assert '"std": 0.1000000000000000000001\n' in text  # the exact decimal, as a JSON number
    assert '"low": -2,' in text  # a whole number is an integer
    assert '"high": "inf",' in text and '"mean": "1e-400",' in text  # strings only beyond doubles
    assert json.loads(text)["inputs"]["std"] == 0.1


def test_error_objects_have_the_schema_version():
    run = invoke("truncnorm", "--std", "-1", "--json")
    assert run.json() == {
        "schema_version": 1,
        "error": {"code": 2, "message": "--std must be greater than 0, got -1"},
    }


def test_schema_ships_inside_the_package():
    """`pip install .` must install the schema: pyproject lists it as package data."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "json_schema.json" in config["tool"]["setuptools"]["package-data"]["momentcalc.render"]
    assert (ROOT / "momentcalc" / "render" / "json_schema.json").exists()
    assert "jsonschema" in " ".join(config["project"]["optional-dependencies"]["test"])


@pytest.mark.xdist_group(source_trees.GROUP)  # the sources' trees, parsed once (source_trees)
def test_every_result_named_a_bound_rounds_outward():
    """The schema's rule: a result whose name ends in _bound is a bound, printed rounded outward.
    Every such name a computation describes (its DESCRIPTIONS tables) is declared outward where
    it is proven, and a bound's description says "rounded up"; the snapshots' bounds print at or
    above their double."""
    import ast

    described, declared = set(), set()
    for path in (ROOT / "momentcalc").rglob("*.py"):
        for node in source_trees.nodes(path.read_text()):  # (walked once for the group)
            if isinstance(node, ast.Dict):
                for key, value in zip(node.keys, node.values):
                    if not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
                        continue
                    if key.value.endswith("_bound") and key.value != "error_bound":
                        if isinstance(value, ast.Constant) and value.value in ("up", "down"):
                            declared.add(key.value)
                        elif isinstance(value, ast.Constant) and isinstance(value.value, str):
                            described.add(key.value)
                            assert "rounded up" in value.value or "rounded down" in value.value, key.value
    assert described and described <= declared
    for name, _ in JSON_CASES:
        doc = json.loads((SNAPSHOTS / f"{name}.out").read_text())
        for rows in [doc.get("results", {})] + [row.get("results", {}) for row in doc.get("rows", [])]:
            for result, quantity in rows.items():
                if result.endswith("_bound") and isinstance(quantity["decimal"], str):
                    assert float(quantity["decimal"]) >= quantity["value"], (name, result)
