"""The shared CLI conventions, through the real command line (typer's CliRunner)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import invoke

EXACT = {"stderr": None, "certified": False, "error_bound": None, "error_bound_decimal": None}
RESULT_KEYS = {"value", "decimal", "description", "closed_form", "latex", *EXACT}


def test_default_json_document():
    """The document's shape, the package version, and every value derived from a 30-digit run:
    ``decimal`` is it rounded to 15 significant digits, ``value`` the double nearest to it."""
    from decimal import ROUND_HALF_UP, Decimal

    from momentcalc import __version__

    run = invoke("truncnorm", "--json")
    assert run.code == 0
    assert run.stderr == ""
    doc = run.json()
    precise = invoke("truncnorm", "--json", "--digits", "30").json()["results"]
    assert list(doc) == [
        "schema_version",
        "command",
        "version",
        "inputs",
        "digits",
        "results",
        "checks",
        "notes",
        "derivation",
    ]
    assert (doc["schema_version"], doc["command"], doc["version"], doc["digits"]) == (
        1,
        "truncnorm",
        __version__,
        15,
    )
    assert doc["checks"] == doc["notes"] == doc["derivation"] == []
    assert doc["inputs"] == {"low": -2, "high": 2, "mean": 0, "std": 1}
    assert list(doc["results"]) == list(precise)
    for name, result in doc["results"].items():
        assert set(result) == RESULT_KEYS and result["closed_form"] is None and result["latex"] is None
        # truncnorm is certified: a proven radius far below the last digit, 0 where exact.
        assert result["stderr"] is None and result["certified"] is True
        assert 0 <= result["error_bound"] <= abs(float(Decimal(precise[name]["decimal"]))) * 1e-20, name
        exact = Decimal(precise[name]["decimal"])
        assert result["value"] == float(exact), name
        if exact:
            quantum = Decimal(1).scaleb(exact.adjusted() - 14)
            assert Decimal(result["decimal"]) == exact.quantize(quantum, rounding=ROUND_HALF_UP), name
        else:
            assert result["decimal"] == "0"


def test_format_json_same_as_json_flag():
    assert invoke("truncnorm", "--format", "json").stdout == invoke("truncnorm", "--json").stdout


def test_csv_header_and_rows():
    run = invoke("truncnorm", "--format", "csv", "--digits", "6")
    lines = run.stdout.splitlines()
    assert lines[0] == (
        "input.low,input.high,input.mean,input.std,"
        "gamma,std_ratio,correction,acceptance,expected_draws,mean_shift,mean,std"
    )
    assert lines[1] == "-2,2,0,1,0.773741,0.879626,1.13685,0.954500,1.04767,0,0,0.879626"
    assert len(lines) == 2


def test_table_shows_rounded_values():
    run = invoke("truncnorm", "--digits", "8")
    assert run.code == 0
    assert "0.77374130" in run.stdout and "1.1368472" in run.stdout


def test_decimal_never_underflows():
    run = invoke("truncnorm", "--low", "-1000", "--high", "-999", "--json")
    acceptance = run.json()["results"]["acceptance"]
    assert acceptance["value"] == 0.0
    assert acceptance["decimal"].startswith("1.") is False or "e-" in acceptance["decimal"]
    assert acceptance["decimal"].endswith("e-216703") or "e-2167" in acceptance["decimal"]
    # the reciprocal overflows a double: value is null, decimal exact
    draws = run.json()["results"]["expected_draws"]
    assert draws["value"] is None and "e+2167" in draws["decimal"]


def test_infinite_bound_in_json_inputs():
    run = invoke("truncnorm", "--low", "0", "--high", "inf", "--json")
    assert run.json()["inputs"]["high"] == "inf"


@pytest.mark.parametrize(
    "args,needle",
    [
        (["--low", "3", "--high", "2"], "--low must be less than --high"),
        (["--std", "0"], "--std must be greater than 0"),
        (["--std", "-0.5"], "--std must be greater than 0"),
        (["--digits", "0"], "--digits must be a whole number from 1 to 1000"),
        (["--digits", "1001"], "--digits must be a whole number from 1 to 1000"),
        (["--digits", "ten"], "--digits must be a whole number"),
        (["--low", "nan"], "--low must be a decimal number or inf"),
        (["--mean", "inf"], "--mean must be a finite number"),
        (["--bogus"], "No such option: --bogus"),
        (["--std"], "--std"),
        (["--format", "xml"], "--format must be one of table, text, json, csv"),
        (["--expect", "gamma"], "--expect must look like NAME=VALUE"),
        (["--std", "1:0:0.1"], "--std range is empty"),
        (["--std", "0.1:1:0"], "--std range step must not be zero"),
        (["--std", "0.1,,2"], "--std list has an empty item"),
        (["--std", "1e-9:1:1e-9"], "at most 100000"),
    ],
)
def test_bad_input_one_line_exit_2(args, needle):
    run = invoke("truncnorm", *args)
    assert run.code == 2
    assert run.stdout == ""
    assert needle in run.stderr
    assert run.stderr.count("\n") == 1 and "Traceback" not in run.stderr


@pytest.mark.parametrize("command", ["truncnorm", "verify"])
@pytest.mark.parametrize(
    "args,needle",
    [
        (["--format", "junk", "--json"], "--format must be one of table, text, json, csv, got 'junk'"),
        (["--format", "csv", "--json"], "--format csv contradicts --json"),
    ],
)
def test_json_flag_does_not_excuse_a_bad_format(command, args, needle):
    """--json is short for --format json: a bad or contradicting --format is exit 2 (it was
    silently overruled), with the error object on stdout since JSON was asked for."""
    run = invoke(command, *args)
    assert run.code == 2 and needle in run.stderr
    assert run.json()["error"]["code"] == 2


def test_bad_input_with_json_prints_error_object():
    run = invoke("truncnorm", "--std", "0", "--json")
    assert run.code == 2
    assert run.json() == {
        "schema_version": 1,
        "error": {"code": 2, "message": "--std must be greater than 0, got 0"},
    }
    assert run.stderr.strip() == "momentcalc: error: --std must be greater than 0, got 0"


def test_sweep_rows_equal_single_calls():
    sweep = invoke("truncnorm", "--std", "0.01,0.02", "--low", "-2:-1:1", "--json").json()
    assert len(sweep["rows"]) == 4 and "results" not in sweep
    single = invoke("truncnorm", "--std", "0.02", "--low", "-1", "--json").json()
    row = next(r for r in sweep["rows"] if r["inputs"] == single["inputs"])
    assert row["results"] == single["results"]


def test_version_and_help():
    from momentcalc import __version__

    assert invoke("--version").stdout.strip() == f"momentcalc {__version__}"
    run = invoke("truncnorm", "--help")
    assert run.code == 0 and "Examples:" in run.stdout and "--digits" in run.stdout


def test_python_dash_m_entry_point():
    proc = subprocess.run(
        [sys.executable, "-m", "momentcalc", "truncnorm", "--json", "--digits", "5"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0
    assert json.loads(proc.stdout)["results"]["gamma"]["decimal"] == "0.77374"


def test_real_process_bad_input_has_no_traceback():
    proc = subprocess.run(
        [sys.executable, "-m", "momentcalc", "truncnorm", "--low", "x"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr == "momentcalc: error: --low must be a decimal number or inf, got 'x'\n"


hostile_text = st.one_of(
    st.text(max_size=12),
    st.sampled_from(
        [
            "nan",
            "-nan",
            "inf",
            "-inf",
            "1e999999",
            "0x10",
            "1_000",
            "--json",
            "",
            " ",
            "1:2",
            "2:1:1",
            "1,2,",
            "__import__('os')",
            "1e-400",
            "١",
            "½",
        ]
    ),
)


HOSTILE_ARGUMENTS = dict(
    option=st.sampled_from(
        ["--low", "--high", "--mean", "--std", "--target-std", "--digits", "--format", "--expect", "--rtol"]
    ),
    value=hostile_text,
    as_json=st.booleans(),
)


def _hostile_arguments_never_crash(option, value, as_json):
    args = ["truncnorm", option, value] + (["--json"] if as_json else [])
    run = invoke(*args)
    assert run.code in (0, 1, 2, 3)
    assert "Traceback" not in run.stderr
    if run.code == 2:
        assert run.stderr.count("\n") == 1
        if as_json:
            assert run.json()["error"]["code"] == 2
        else:
            assert run.stdout == ""
    if run.code == 0 and as_json:
        run.json()


def _hostile_draws(count: int):
    return pytest.mark.slow(
        settings(max_examples=count, deadline=None, suppress_health_check=[HealthCheck.too_slow])(
            given(**HOSTILE_ARGUMENTS)(_hostile_arguments_never_crash)
        )
    )


# 40 fixed draws in the default run; the former 120 (2.2 s of CPU) with -m reference
test_hostile_arguments_never_crash = _hostile_draws(40)
test_hostile_arguments_never_crash_at_more_draws = pytest.mark.reference(_hostile_draws(120))


@pytest.mark.slow
def test_precision_failure_is_exit_3():
    run = invoke("truncnorm", "--low", "1e-20000", "--high", "2e-20000", "--json")
    assert run.code == 3
    assert run.json()["error"]["code"] == 3
    assert "could not reach" in run.stderr


def test_inputs_that_a_double_cannot_hold_are_echoed_as_text():
    doc = invoke("truncnorm", "--std", "1e-400", "--json").json()
    assert doc["inputs"]["std"] == "1e-400"
    assert doc["results"]["std"]["decimal"] == "8.79625661034240e-401"


def test_subnormal_values_are_the_nearest_double():
    """float(mpf) rounds twice below the smallest normal double; to_double rounds once."""
    from fractions import Fraction

    import mpmath
    from mpmath import mp

    from momentcalc.engine.precision import to_double

    with mp.workdps(60):
        value = mpmath.mpf(3 * 2**59 - 1) / mpmath.mpf(2) ** 1134
    assert to_double(value) == float(Fraction(3 * 2**59 - 1, 2**1134)) == 5e-324


def test_to_double_is_the_nearest_double_across_the_subnormal_edges():
    """Every mantissa·2^e around the smallest normal double (2^-1022), the smallest subnormal
    (2^-1074) and the underflow cut, powers of two included: Python's float of the exact
    Fraction (correctly rounded), the sign kept."""
    from fractions import Fraction

    import mpmath

    from momentcalc.engine.precision import to_double

    for exponent in [*range(-1140, -1060), *range(-1080, -1010, 3), -60, -1, 0, 5]:
        for mantissa in (1, 3, 2**52 + 1, 2**53 - 1, 3 * 2**59 - 1, 2**70 + 2**17 + 1):
            exact = Fraction(mantissa) * Fraction(2) ** exponent
            with mpmath.workprec(128):  # exact: the mantissa has at most 71 bits
                value = mpmath.ldexp(mpmath.mpf(mantissa), exponent)
                negative = -value
            assert to_double(value) == float(exact), (mantissa, exponent)
            assert to_double(negative) == -float(exact), (mantissa, exponent)


def test_monte_carlo_results_print_only_justified_digits():
    doc = invoke("attention", "--seq-len", "16", "--digits", "40", "--json").json()
    for name in ("simulated_logit_std", "max_weight_scaled", "max_weight_scaled_stderr"):
        result = doc["results"][name]
        assert result["stderr"] > 0
        assert len(result["decimal"].replace("0.", "").lstrip("0").replace(".", "")) <= 4, result
    assert len(doc["results"]["logit_std"]["decimal"]) > 40  # the exact results keep every digit


def test_help_wraps_at_the_terminals_width_not_80_columns():
    """click caps help at 80 columns unless told otherwise: at COLUMNS=200 the command list and an
    option's help use the width (a regression once left the setting behind dead code)."""
    import os

    for argv in (["--help"], ["kernel", "--help"]):
        done = subprocess.run(
            [sys.executable, "-m", "momentcalc", *argv],
            capture_output=True,
            text=True,
            env={**os.environ, "COLUMNS": "200"},
            check=False,
        )
        assert done.returncode == 0 and max(len(line) for line in done.stdout.splitlines()) > 120, argv
