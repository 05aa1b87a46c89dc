"""Every point of a sweep decided and reported in place (SPEC, Sweeps: every point decided): a
value, a decided outcome about the point (no fixed point, explodes at a layer, diverges,
unreachable) or a refusal with its reason; exit 0 when every point is decided, 3 when one is
refused (the others still printed), 2 for a bad argument; a single point keeps its exits."""

from __future__ import annotations

import csv
import io
import json
import pickle
from fractions import Fraction

import pytest

import momentcalc
from momentcalc.errors import InputError, Outcome, PrecisionError
from momentcalc.result import NoResult
from tests.conftest import invoke

GELU = ("meanfield", "gelu", "--sigma-w2", "1:3:0.5", "--sigma-b2", "0.1")


@pytest.fixture(scope="module")
def gelu_json():
    run = invoke(*GELU, "--json")
    assert run.code == 0 and run.stderr == "", run
    return run.json()


def test_a_point_whose_length_explodes_is_an_outcome_in_its_row(gelu_json):
    """gelu's length map has no fixed point at sigma_w2 2.5 and 3 (sigma_b2 0.1): the sweep was
    exit 2 with nothing printed; now those rows say so and the others are the single calls'."""
    rows = gelu_json["rows"]
    assert [row["status"] for row in rows] == ["ok", "ok", "ok", "no_fixed_point", "no_fixed_point"]
    assert [row["inputs"]["sigma_w2"] for row in rows] == [1, 1.5, 2, 2.5, 3]
    assert all(set(row["inputs"]) == {"activation", "sigma_w2", "sigma_b2", "q0"} for row in rows)
    for row in rows[3:]:
        assert set(row) == {"inputs", "status", "outcome", "notes", "derivation"}
        assert row["outcome"]["kind"] == "no_fixed_point" and row["outcome"]["layer"] is None
        single = invoke(
            "meanfield", "gelu", "--sigma-w2", str(row["inputs"]["sigma_w2"]), "--sigma-b2", "0.1"
        )
        assert single.code == 2 and single.stdout == ""  # one point alone: its exit, as before
        assert single.stderr == f"momentcalc: error: {row['outcome']['message']}\n"
    single = invoke("meanfield", "gelu", "--sigma-w2", "2", "--sigma-b2", "0.1", "--json").json()
    assert rows[2]["results"] == single["results"]
    assert rows[2]["results"]["chi1"]["decimal"] == "0.756347182022435"


def test_the_table_shows_the_outcome_in_the_row_and_what_it_means():
    run = invoke(*GELU)
    assert run.code == 0 and run.stderr == ""
    lines = run.stdout.splitlines()
    assert lines[4].split() == [
        "2",
        "0.340830009665769",
        "0.756347182022435",
        "1.00000000000000",
        "5.61146888446479",
        "3.58095938769406",
    ]
    assert lines[5] == "2.5       no fixed point" and lines[6] == "3         no fixed point"
    assert lines[7].startswith(
        "note: no fixed point (2 points; first at sigma_w2=2.5): the length map has no fixed"
    )
    boxed = invoke(*GELU, "--format", "table").stdout
    assert "│ 2.5      │ no fixed point    │" in boxed


def test_csv_has_a_status_column_and_get_prints_the_status():
    table = list(csv.reader(io.StringIO(invoke(*GELU, "--format", "csv").stdout)))
    assert table[0][:6] == [
        "input.activation",
        "input.sigma_w2",
        "input.sigma_b2",
        "input.q0",
        "status",
        "q_star",
    ]
    assert [line[4] for line in table[1:]] == ["ok", "ok", "ok", "no_fixed_point", "no_fixed_point"]
    assert table[4][5:] == [""] * 5
    got = invoke(*GELU, "--get", "input.sigma_w2", "--get", "chi1")
    assert got.code == 0
    assert got.stdout.splitlines()[2:] == ["2\t0.756347182022435", "2.5\tno_fixed_point", "3\tno_fixed_point"]


def test_an_explosion_says_at_which_layer():
    run = invoke("kernel", "relu2", "--sigma-w2", "0.1,1", "--rho", "0.5", "--depth", "30", "--json")
    assert run.code == 0
    outcomes = [row["outcome"] for row in run.json()["rows"]]
    assert [(o["kind"], o["layer"]) for o in outcomes] == [("collapses", 14), ("explodes", 16)]
    assert "passes 1e10000 at layer 16" in outcomes[1]["message"]
    text = invoke("kernel", "relu2", "--sigma-w2", "0.1,1", "--rho", "0.5", "--depth", "30").stdout
    assert "0.1       collapses at layer 14" in text and "1         explodes at layer 16" in text


def test_other_outcomes_diverges_and_unreachable():
    moments = invoke("activation-moment", "exp(x**2)", "--std", "0.1,1", "--digits", "6", "--json")
    assert moments.code == 0
    assert [row["status"] for row in moments.json()["rows"]] == ["ok", "diverges"]
    reach = invoke("tat", "leaky_relu", "--depth", "2", "--target-c0", "0.2,0.5", "--json")
    assert reach.code == 0
    assert [row["status"] for row in reach.json()["rows"]] == ["ok", "unreachable"]
    negative = invoke("tat", "leaky_relu", "--depth", "2", "--target-c0", "-0.1,0.2")  # bad input, not a fact
    assert negative.code == 2 and negative.stdout == "" and "--target-c0 must be from 0" in negative.stderr


@pytest.fixture
def refused_at_std_2(monkeypatch):
    """truncnorm refuses std = 2 (exit 3), as a proof that cannot reach the digits would."""
    from momentcalc.computations import truncnorm as module

    real = module.truncnorm

    def truncnorm(**kwargs):
        if kwargs["std"] == 2:
            raise PrecisionError("{std} could not be proven here", param="std")
        return real(**kwargs)

    monkeypatch.setattr(module, "truncnorm", truncnorm)


def test_a_refused_point_is_exit_3_with_every_other_point_printed(refused_at_std_2):
    run = invoke("truncnorm", "--std", "1,2,3", "--digits", "6")
    assert run.code == 3
    assert run.stderr == "momentcalc: refused at std=2: --std could not be proven here\n"
    lines = run.stdout.splitlines()
    assert lines[1].split()[0] == "input.std" and [line.split()[0] for line in lines[2:5]] == ["1", "2", "3"]
    assert lines[3].split()[1:] == ["refused"] and lines[4].split()[1] == "0.773741"
    assert lines[5] == "note: refused (1 point): not proven or past a limit; each reason is on stderr"
    doc = invoke("truncnorm", "--std", "1,2,3", "--json")
    assert doc.code == 3
    row = doc.json()["rows"][1]
    assert row["status"] == "refused" and row["error"] == {
        "code": 3,
        "message": "--std could not be proven here",
    }
    assert row["inputs"] == {"low": -2, "high": 2, "mean": 0, "std": 2}
    table = list(csv.reader(io.StringIO(invoke("truncnorm", "--std", "1,2,3", "--format", "csv").stdout)))
    assert [line[table[0].index("status")] for line in table[1:]] == ["ok", "refused", "ok"]
    alone = invoke("truncnorm", "--std", "2")
    assert alone.code == 3 and alone.stdout == "" and "could not be proven" in alone.stderr


def test_outcomes_pickle_and_keep_their_kind():
    error = Outcome("{sigma_w2} too large", kind="explodes", layer=7, param="sigma_w2")
    again = pickle.loads(pickle.dumps(error))
    assert (type(again), again.kind, again.layer, again.message) == (
        Outcome,
        "explodes",
        7,
        "sigma_w2 too large",
    )
    assert isinstance(again, InputError) and again.code == 2  # one call: exit 2, as always
    renamed = error.with_template("{sigma_w2} far too large")
    assert (renamed.kind, renamed.layer, renamed.message) == ("explodes", 7, "sigma_w2 far too large")


def _flaky(*, x, digits=15):
    """A computation for the library's sweep: decided, refused, bad input or a value by x."""
    if x == 1:
        raise Outcome("{x} explodes", kind="explodes", layer=3, param="x")
    if x == 2:
        raise PrecisionError("{x} not proven", param="x")
    if x == 3:
        raise InputError(param="x", allowed="not 3", got="3")
    return momentcalc.truncnorm(std=x, digits=digits)


def test_the_python_sweep_returns_a_record_per_point():
    rows = momentcalc.sweep(_flaky, {"x": [Fraction(1, 2), 1, 2, 3], "digits": 6})
    assert [row.status for row in rows] == ["ok", "explodes", "refused", "refused"]
    assert [getattr(row, "code", None) for row in rows] == [None, None, 3, 2]
    assert rows.rows[1].layer == 3 and rows.rows[1].message == "x explodes"
    assert isinstance(rows.rows[3], NoResult) and rows.rows[3].message == "x must be not 3, got 3"
    assert rows.swept == ("x",) and rows.command == "_flaky" and rows.digits == 6
    from momentcalc.render.json_out import render_json

    doc = json.loads(render_json(rows))
    assert [row["status"] for row in doc["rows"]] == ["ok", "explodes", "refused", "refused"]
    assert doc["rows"][3]["error"] == {"code": 2, "message": "x must be not 3, got 3"}


def test_the_python_sweep_on_worker_processes_gives_the_same_records():
    grid = {"activation": "gelu", "sigma_w2": [1, "2.5"], "sigma_b2": "0.1", "digits": 20}
    here = momentcalc.sweep(momentcalc.meanfield, grid)
    there = momentcalc.sweep(momentcalc.meanfield, grid, jobs=2)
    assert [row.status for row in here] == ["ok", "no_fixed_point"]
    assert here.rows[1].inputs == {
        "activation": "gelu",
        "sigma_w2": Fraction(5, 2),
        "sigma_b2": Fraction(1, 10),
        "q0": 1,
    }
    assert there.rows[1] == here.rows[1]
    assert {q.name: q.decimal(20) for q in there.rows[0].results} == {
        q.name: q.decimal(20) for q in here.rows[0].results
    }


def test_the_python_sweep_refuses_a_bad_grid():
    with pytest.raises(InputError, match="grid"):
        momentcalc.sweep(momentcalc.truncnorm, [1, 2])
    with pytest.raises(InputError, match="jobs"):
        momentcalc.sweep(momentcalc.truncnorm, {"std": [1]}, jobs=0)
