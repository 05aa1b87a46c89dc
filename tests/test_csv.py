"""CSV is tidy and the same form for every command: input.NAME columns, then the results by
name; one row per point; a list-valued result adds a `layer` column, one row per layer."""

from __future__ import annotations

import csv
import io

import pytest

from tests.conftest import invoke

COMMANDS = [
    ["truncnorm"],
    ["activation-moment", "gelu"],
    ["selu-solve"],
    ["gau-scale"],
    ["init", "--fan-in", "768"],
    ["attention"],
]


def rows(*args):
    run = invoke(*args, "--format", "csv")
    assert run.code == 0, run.stderr
    return list(csv.reader(io.StringIO(run.stdout)))


@pytest.mark.parametrize("args", COMMANDS, ids=lambda a: a[0])
def test_single_computation_is_one_row_inputs_then_results(args):
    table = rows(*args, "--digits", "6")
    doc = invoke(*args, "--digits", "6", "--json").json()

    # an estimate's ± follows it as NAME_stderr (unless the command reports a result of that name)
    def with_stderr(name, result):
        return result["stderr"] is not None and f"{name}_stderr" not in doc["results"]

    results = [
        column
        for name, r in doc["results"].items()
        for column in (name, f"{name}_stderr")[: 1 + with_stderr(name, r)]
    ]
    assert table[0] == [*(f"input.{name}" for name in doc["inputs"]), *results]
    assert len(table) == 2
    cells = dict(zip(table[0], table[1]))
    assert [cells[name] for name in doc["results"]] == [r["decimal"] for r in doc["results"].values()]
    for name, r in doc["results"].items():
        if with_stderr(name, r):  # 2 significant digits of JSON's stderr
            assert float(cells[f"{name}_stderr"]) == pytest.approx(r["stderr"], rel=0.06)


def test_csv_keeps_the_standard_error_of_estimates():
    table = rows("attention", "--seq-len", "64", "--simulate", "--trials", "200", "--seed", "1")
    cells = dict(zip(*table))
    assert cells["simulated_logit_std"] == "8.01" and cells["simulated_logit_std_stderr"] == "0.069"
    assert cells["max_weight_unscaled"] == "0.79" and cells["max_weight_unscaled_stderr"] == "0.0148"
    assert "logit_std_stderr" not in cells  # exact results have none


def test_list_result_has_a_layer_column_and_one_row_per_layer():
    table = rows("postnorm-decay", "--layers", "4", "--sigma", "1,0.5", "--digits", "6")
    header = table[0]
    assert header[:6] == ["input.layers", "input.sigma", "input.threshold", "input.scheme", "status", "layer"]
    assert header[6:] == [
        "decay",
        "identity_weight",
        "branch_weights",
        "depth_to_threshold",
        "final_variance",
    ]
    assert len(table) == 1 + 2 * 4
    first = [dict(zip(header, line)) for line in table[1:5]]
    assert [r["layer"] for r in first] == ["0", "1", "2", "3"]
    assert [r["branch_weights"] for r in first] == [
        "0.250000",
        "0.353553",
        "0.500000",
        "0.707107",
    ]  # 2^(-(L-k)/2)
    assert {r["identity_weight"] for r in first} == {"0.250000"}  # scalars repeat on every layer
    assert {line[1] for line in table[5:]} == {"0.5"}


def test_inputs_are_exact_text_and_quoted_when_needed():
    table = rows("activation-moment", "max(x,0)", "--std", "0.1000000000000000000001", "--digits", "3")
    assert table[1][:3] == ["max(x,0)", "0", "0.1000000000000000000001"]


def test_verify_csv_has_the_status_column():
    table = rows("verify", "--only", "pytorch.gain.tanh")
    assert table[0] == ["id", "source", "published", "computed", "agreeing_digits", "route", "status"]
    assert table[1][-1] == "info"
