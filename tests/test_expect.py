"""--expect NAME=VALUE: VALUE is a correctly rounded published value; --rtol/--atol; the stderr line."""

from __future__ import annotations

import pytest

from tests.conftest import invoke

# gamma(-2, 2) = 0.77374130354992324718...; BERT's std 0.02 gives an actual std of 0.017592513...


def test_pass_and_fail_with_tolerance_in_json():
    ok = invoke("truncnorm", "--expect", "gamma=0.7737413", "--json")
    assert ok.code == 0 and ok.stderr == ""
    assert ok.json()["checks"] == [
        {
            "name": "gamma",
            "expected": "0.7737413",
            "found": "0.773741303549923",
            "tolerance": "5e-8",
            "ok": True,
        }
    ]
    bad = invoke("truncnorm", "--expect", "gamma=0.7737415", "--json")
    assert bad.code == 1
    assert bad.json()["checks"][0]["ok"] is False


@pytest.mark.parametrize(
    "value,code",
    [
        ("0.7737413", 0),  # |diff| 3.5e-9 <= 5e-8
        ("0.77374130", 0),  # |diff| 3.5e-9 <= 5e-9
        ("0.773741304", 0),  # |diff| 4.5e-10 <= 5e-10
        ("0.77374131", 1),  # |diff| 6.5e-9 > 5e-9: one unit in the last digit would have passed
        ("0.7737412", 1),  # |diff| 1.04e-7 > 5e-8
        ("7.737413e-1", 0),  # exponent notation: half a unit of 1e-7
        ("7.73741e-1", 0),
        ("7.73742e-1", 1),
    ],
)
def test_half_a_unit_in_the_last_written_digit(value, code):
    assert invoke("truncnorm", "--expect", f"gamma={value}").code == code


def test_the_bert_mistake_is_caught():
    """std=0.02 means 0.015 ... 0.025 and would let BERT's 0.0176 pass: it is refused (exit 2)."""
    run = invoke("truncnorm", "--std", "0.02", "--expect", "std=0.02")
    assert run.code == 2 and run.stdout == ""
    [line] = run.stderr.splitlines()
    assert "--expect std=0.02" in line and "1 significant digit" in line
    assert "0.0200" in line and "--rtol" in line and "--atol" in line
    written_out = invoke("truncnorm", "--std", "0.02", "--expect", "std=0.0200")
    assert written_out.code == 1
    assert invoke("truncnorm", "--expect", "gamma=0.8").code == 2
    assert invoke("truncnorm", "--expect", "gamma=0.77").code == 2
    assert invoke("truncnorm", "--expect", "gamma=0.774").code == 0
    assert (
        invoke(
            "init", "--fan-in", "768", "--fan-out", "768", "--scheme", "xavier", "--expect", "std=0.0361"
        ).code
        == 0
    )  # three significant digits are enough


def test_few_digits_allowed_with_an_explicit_tolerance():
    assert invoke("truncnorm", "--expect", "gamma=0.8", "--rtol", "0.05").code == 0
    assert invoke("truncnorm", "--expect", "gamma=0.8", "--rtol", "0.01").code == 1
    assert invoke("truncnorm", "--expect", "gamma=0.8", "--atol", "0.03").code == 0
    assert invoke("truncnorm", "--expect", "gamma=0.8", "--atol", "0.02").code == 1
    # A + R*|VALUE|: 0.02 + 0.01*0.8 = 0.028 >= 0.0263
    assert invoke("truncnorm", "--expect", "gamma=0.8", "--atol", "0.02", "--rtol", "0.01").code == 0
    assert invoke("truncnorm", "--expect", "mean=0", "--atol", "1e-30").code == 0
    assert invoke("truncnorm", "--expect", "mean=0").code == 2
    doc = invoke("truncnorm", "--expect", "gamma=0.8", "--atol", "0.02", "--rtol", "0.01", "--json").json()
    assert doc["checks"][0]["tolerance"] == "0.028"


@pytest.mark.parametrize("option,text", [("--rtol", "-1"), ("--atol", "-0.1"), ("--atol", "x")])
def test_bad_tolerance_is_usage_error(option, text):
    run = invoke("truncnorm", "--expect", "gamma=0.7737413", option, text)
    assert run.code == 2 and option in run.stderr and run.stderr.count("\n") == 1


def test_mismatch_line_shows_two_more_digits_than_value():
    """The found value never looks equal to the expected one (the issue's 0.879625661034240)."""
    run = invoke("truncnorm", "--expect", "std_ratio=0.87962566103423978")
    assert run.code == 1
    [line] = run.stderr.splitlines()
    assert line == (
        "momentcalc: --expect std_ratio failed: expected 0.87962566103423978 ± 5e-18 "
        "(half a unit in the last digit), found 0.8796256610342397504"
    )
    doc = invoke("truncnorm", "--expect", "std_ratio=0.87962566103423978", "--json").json()
    [check] = doc["checks"]
    assert check["found"] == "0.8796256610342397504" and check["tolerance"] == "5e-18"
    # the result itself is still printed at --digits
    assert doc["results"]["std_ratio"]["decimal"] == "0.879625661034240"


def test_mismatch_line_with_few_digits_keeps_digits_and_names_the_sweep_point():
    run = invoke("truncnorm", "--std", "0.02,0.03", "--expect", "std=0.0176", "--digits", "3")
    assert run.code == 1
    [line] = run.stderr.splitlines()
    assert line == (
        "momentcalc: --expect std failed at std=0.03: expected 0.0176 ± 0.00005 "
        "(half a unit in the last digit), found 0.026389"
    )


def test_expect_on_a_list_result_or_unknown_name_is_usage_error():
    run = invoke("postnorm-decay", "--expect", "branch_weights=0.500")
    assert run.code == 2 and "list" in run.stderr
    run = invoke("truncnorm", "--expect", "gama=0.774")
    assert run.code == 2 and "gama" in run.stderr and "gamma" in run.stderr and run.stdout == ""
