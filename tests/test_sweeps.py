"""Sweeps through the CLI (truncnorm, init, attention): every row equals the single call at that
point, the JSON/CSV/table shapes, exact decimal ranges, and the sweeps that must be refused."""

from __future__ import annotations

import csv
import io

import pytest

from tests.conftest import invoke

SWEEPS = [
    # (command and fixed options, swept option, sweep text, the single values it stands for)
    (["truncnorm"], "--std", "0.01,0.02,0.05", ["0.01", "0.02", "0.05"]),
    (["truncnorm", "--target-std", "0.02"], "--high", "1:3:0.5", ["1", "1.5", "2", "2.5", "3"]),
    (
        ["init", "--scheme", "he", "--distribution", "truncnorm"],
        "--fan-in",
        "1:10:1",
        [str(i) for i in range(1, 11)],
    ),
    (
        ["init", "--fan-in", "768", "--scheme", "xavier", "--distribution", "uniform"],
        "--fan-out",
        "256,768,3072",
        ["256", "768", "3072"],
    ),
    (
        ["init", "--fan-in", "64", "--scheme", "he", "--activation", "leaky_relu"],
        "--slope",
        "0:0.3:0.1",
        ["0", "0.1", "0.2", "0.3"],
    ),
    (["attention"], "--d", "16,64,256", ["16", "64", "256"]),
    (["attention", "--k-std", "0.5"], "--q-std", "0.5:2:0.5", ["0.5", "1", "1.5", "2"]),
    (["attention", "--simulate", "--trials", "20"], "--seq-len", "4,8,16", ["4", "8", "16"]),
]


@pytest.mark.parametrize("fixed,option,text,singles", SWEEPS, ids=lambda v: v if isinstance(v, str) else None)
def test_rows_equal_single_calls(fixed, option, text, singles):
    doc = invoke(*fixed, option, text, "--digits", "25", "--json").json()
    assert set(doc) == {"schema_version", "command", "version", "digits", "swept", "rows", "checks"}
    assert doc["command"] == fixed[0] and doc["digits"] == 25 and doc["checks"] == []
    assert len(doc["rows"]) == len(singles)
    for row, value in zip(doc["rows"], singles):
        assert set(row) == {"inputs", "status", "results", "notes", "derivation"} and row["status"] == "ok"
        single = invoke(*fixed, option, value, "--digits", "25", "--json").json()
        assert row["inputs"] == single["inputs"]
        assert row["results"] == single["results"]


def test_csv_has_one_row_per_point_with_input_columns():
    run = invoke(
        "init",
        "--fan-in",
        "100:500:100",
        "--fan-out",
        "300",
        "--scheme",
        "xavier",
        "--distribution",
        "truncnorm",
        "--format",
        "csv",
    )
    assert run.code == 0
    rows = list(csv.reader(io.StringIO(run.stdout)))
    assert rows[0] == [
        "input.fan_in",
        "input.fan_out",
        "input.scheme",
        "input.distribution",
        "status",
        "variance",
        "std",
        "bound",
        "std_to_pass",
        "bert_ratio",
    ]
    assert [r[0] for r in rows[1:]] == ["100", "200", "300", "400", "500"]
    doc = invoke(
        "init",
        "--fan-in",
        "100:500:100",
        "--fan-out",
        "300",
        "--scheme",
        "xavier",
        "--distribution",
        "truncnorm",
        "--json",
    ).json()
    for line, row in zip(rows[1:], doc["rows"]):
        assert line[4] == "ok" and line[5:] == [result["decimal"] for result in row["results"].values()]
    assert rows[1][5] == "0.00500000000000000"  # 2/(100 + 300)


def test_csv_attention_sweep_columns():
    run = invoke("attention", "--d", "1,4,9", "--format", "csv")
    rows = list(csv.reader(io.StringIO(run.stdout)))
    assert rows[0][:3] == ["input.d", "input.q_std", "input.k_std"]
    assert [r[rows[0].index("scale")] for r in rows[1:]] == [
        "1.00000000000000",
        "0.500000000000000",
        "0.333333333333333",
    ]


def test_table_has_one_row_per_point():
    run = invoke("attention", "--d", "16,64,256", "--digits", "3", "--format", "table")
    assert run.code == 0
    assert "sweep over d" in run.stdout and "q_std=1" in run.stdout  # fixed inputs go in the title
    cells = [
        [c.strip() for c in line.split("│")[1:-1]] for line in run.stdout.splitlines() if line.startswith("│")
    ]
    # (a table too wide for the terminal splits into several, each repeating the swept input)
    assert [c[0] for c in cells[:3]] == ["16", "64", "256"] and len(cells) % 3 == 0
    assert [c[2] for c in cells[:3]] == ["4.00", "8.00", "16.0"]  # logit_std


def test_two_swept_options_give_the_cartesian_product():
    doc = invoke("init", "--fan-in", "10,20", "--fan-out", "30,40,50", "--scheme", "xavier", "--json").json()
    pairs = [(r["inputs"]["fan_in"], r["inputs"]["fan_out"]) for r in doc["rows"]]
    assert pairs == [(10, 30), (10, 40), (10, 50), (20, 30), (20, 40), (20, 50)]
    assert doc["rows"][5]["results"]["variance"]["decimal"] == "0.0285714285714286"  # 2/70


def test_exact_decimal_steps():
    """0:1:0.1 has 11 points and the fourth is exactly 3/10, not 3·0.1 in binary."""
    doc = invoke("truncnorm", "--mean", "0:1:0.1", "--digits", "30", "--json").json()
    assert len(doc["rows"]) == 11
    assert [r["inputs"]["mean"] for r in doc["rows"]] == [i / 10 for i in range(11)]
    assert doc["rows"][3]["results"]["mean"]["decimal"] == "0.300000000000000000000000000000"
    assert doc["rows"][10]["results"]["mean"]["decimal"] == "1.00000000000000000000000000000"
    csv_rows = list(
        csv.reader(io.StringIO(invoke("truncnorm", "--mean", "0:1:0.1", "--format", "csv").stdout))
    )
    assert [r[2] for r in csv_rows[1:]] == [
        "0",
        "0.1",
        "0.2",
        "0.3",
        "0.4",
        "0.5",
        "0.6",
        "0.7",
        "0.8",
        "0.9",
        "1",
    ]
    q = invoke("attention", "--q-std", "0.1:0.3:0.1", "--digits", "30", "--json").json()
    assert len(q["rows"]) == 3
    assert q["rows"][2]["results"]["scaled_logit_std"]["decimal"] == "0.300000000000000000000000000000"


def test_range_stops_before_an_off_grid_stop():
    doc = invoke("init", "--fan-in", "1:10:4", "--json").json()
    assert [r["inputs"]["fan_in"] for r in doc["rows"]] == [1, 5, 9]


@pytest.mark.parametrize(
    "args,fragment",
    [
        (["init", "--fan-in", "10:1:1"], "--fan-in range is empty"),
        (["init", "--fan-in", "1:10:0"], "--fan-in range step must not be zero"),
        (["init", "--fan-in", "1:100001:1"], "at most 100000"),
        (["init", "--fan-in", "1:400:1", "--fan-out", "1:400:1"], "at most 100000"),
        (["init", "--fan-in", "1,,2"], "--fan-in list has an empty item"),
        (["init", "--fan-in", "1:2"], "--fan-in range must be START:STOP:STEP"),
        (["init", "--fan-in", ""], "--fan-in must be a decimal number"),
        (["init", "--fan-in", "1:2:0.5"], "--fan-in must be a whole number >= 1, got 1.5"),
        (["truncnorm", "--std", "1:0:0.1"], "--std range is empty"),
        (["truncnorm", "--std", "0:1:0.1"], "--std must be greater than 0"),
        (["attention", "--d", "0:64:0"], "--d range step must not be zero"),
        (["attention", "--d", "1:200000:1"], "at most 100000"),
        (["attention", "--d", "8,16,", "--json"], "--d list has an empty item"),
    ],
)
def test_bad_sweeps_exit_2(args, fragment):
    run = invoke(*args)
    assert run.code == 2
    assert fragment in run.stderr, run.stderr
    assert run.stderr.count("\n") == 1
    if "--json" in args:
        assert invoke(*args).json()["error"]["code"] == 2
    else:
        assert run.stdout == ""


def test_expect_is_checked_on_every_row():
    run = invoke("init", "--fan-in", "384,768", "--expect", "variance=0.00130208", "--json")
    assert run.code == 1
    checks = run.json()["checks"]
    assert [(c["row"], c["ok"]) for c in checks] == [(0, False), (1, True)]


def test_a_long_computation_shows_a_spinner_only_on_a_terminal(stderr_as):
    """What the command line shows while its child computes (cli.child's ``waiting``): a
    spinner with the elapsed time on a terminal's stderr, erased at the end; nothing on a pipe."""
    from momentcalc.progress import Spinner

    terminal = stderr_as(terminal=True)
    spinner = Spinner()
    spinner(1.25)
    spinner.clear()
    assert "computing 1.2 s" in terminal.getvalue() and terminal.getvalue().endswith("\r\x1b[K")
    assert "sweep" not in terminal.getvalue() and "%" not in terminal.getvalue()
    pipe = stderr_as(terminal=False)
    spinner = Spinner()
    spinner(5.0)
    spinner.clear()
    assert pipe.getvalue() == ""
