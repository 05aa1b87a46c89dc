"""A sweep whose CPU budget runs out part way (issue 34, "every point decided, and reported in
place"): the points computed are printed in place as usual, each point not computed is refused in
its row, and one stderr line names the budget to raise (exit 3). In-process, the sweep's CPU
clock is made to advance one second a call, so which points are computed does not depend on the
machine's load."""

from __future__ import annotations

import csv
import io
import itertools
import json

import pytest

from momentcalc.cli import runner
from tests.conftest import invoke

# Four cheap points under --budget 2.5: the clock reads 0 at the start and then 1, 2, 3 before
# the points, so points 0 and 1 are computed and 2 and 3 are not.
SWEEP = ("truncnorm", "--std", "0.1,0.2,0.3,0.4", "--budget", "2.5")


@pytest.fixture
def second_a_call(monkeypatch):
    ticks = itertools.count()
    monkeypatch.setattr(runner, "_cpu_clock", lambda: float(next(ticks)))


def _the_line(stderr: str) -> str:
    lines = stderr.splitlines()
    assert len(lines) == 1, stderr
    line = lines[0]
    assert line.startswith(
        "momentcalc: the computation used its CPU time limit of 2.5 s (with --std sweep)"
    ), line
    assert "after 2 of 4 points: the other 2 are not computed (refused in their rows)" in line, line
    # The pace (2 points in 2.5 s) with half again to spare: 1.5 * 2.5 * 4 / 2 = 7.5, rounded up.
    assert line.endswith("raise --budget (e.g. --budget 8)"), line
    return line


def test_a_spent_budget_prints_the_points_computed_and_refuses_the_rest_in_csv(second_a_call):
    run = invoke(*SWEEP, "--format", "csv")
    assert run.code == 3, run
    _the_line(run.stderr)
    rows = list(csv.DictReader(io.StringIO(run.stdout)))
    assert [row["status"] for row in rows] == ["ok", "ok", "refused", "refused"]
    assert [row["input.std"] for row in rows] == ["0.1", "0.2", "0.3", "0.4"]
    assert rows[0]["std"] and rows[1]["std"] and not rows[2]["std"] and not rows[3]["std"]


def test_a_spent_budget_in_a_table(second_a_call):
    run = invoke(*SWEEP)
    assert run.code == 3, run
    _the_line(run.stderr)
    lines = run.stdout.splitlines()
    assert [line.split()[:2] for line in lines if line.startswith(("0.3", "0.4"))] == [
        ["0.3", "refused"],
        ["0.4", "refused"],
    ], run.stdout
    assert sum(1 for line in lines if line.startswith(("0.1 ", "0.2 ")) and "refused" not in line) == 2


def test_a_spent_budget_in_json_validates_against_the_schema(second_a_call):
    from jsonschema import Draft202012Validator

    schema = json.loads(invoke("schema").stdout)
    run = invoke(*SWEEP, "--json")
    assert run.code == 3, run
    _the_line(run.stderr)
    doc = run.json()
    errors = sorted(Draft202012Validator(schema).iter_errors(doc), key=str)
    assert not errors, errors[:3]
    assert [row["status"] for row in doc["rows"]] == ["ok", "ok", "refused", "refused"]
    assert [row["inputs"]["std"] for row in doc["rows"]] == [0.1, 0.2, 0.3, 0.4]
    for row in doc["rows"][2:]:
        assert row["error"] == {
            "code": 3,
            "message": "not computed: the sweep used its CPU budget of 2.5 s after 2 of 4 points; "
            "raise --budget (e.g. --budget 8)",
        }


def test_a_budget_that_suffices_changes_nothing(second_a_call):
    """Four points, the clock at 4 before the last: --budget 5 computes them all."""
    run = invoke("truncnorm", "--std", "0.1,0.2,0.3,0.4", "--budget", "5", "--format", "csv")
    assert run.code == 0 and run.stderr == "", run
    assert run.stdout.count(",ok,") == 4


def test_one_point_keeps_its_own_limit(second_a_call):
    """The in-process clock is a sweep's: one computation is not stopped by it."""
    run = invoke("truncnorm", "--std", "0.1", "--budget", "0.5", "--format", "csv")
    assert run.code == 0 and run.stderr == "", run
