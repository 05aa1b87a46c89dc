"""--get NAME: bare decimals for shell scripts, on every computing command."""

from __future__ import annotations

import pytest

from tests.conftest import invoke

COMPUTING = {
    "truncnorm": (["truncnorm"], "gamma"),
    "activation-moment": (["activation-moment", "relu"], "gain"),
    "selu-solve": (["selu-solve"], "lambda"),
    "postnorm-decay": (["postnorm-decay"], "identity_weight"),
    "gau-scale": (["gau-scale"], "diag_offdiag_ratio"),
    "init": (["init", "--fan-in", "768"], "std"),
    "attention": (["attention"], "logit_std"),
}


@pytest.mark.parametrize("command", sorted(COMPUTING))
def test_every_computing_command_has_get(command):
    args, name = COMPUTING[command]
    run = invoke(*args, "--get", name)
    assert run.code == 0 and run.stderr == ""
    assert run.stdout == invoke(*args, "--json").json()["results"][name]["decimal"] + "\n"


def test_get_prints_one_line_exactly():
    assert (
        invoke("truncnorm", "--target-std", "0.02", "--get", "std_to_pass").stdout == "0.0227369446867711\n"
    )
    assert (
        invoke("activation-moment", "relu", "--get", "gain", "--digits", "20").stdout
        == "1.4142135623730950488\n"
    )


def test_several_names_tab_separated_in_the_order_given_one_line_per_point():
    run = invoke("truncnorm", "--std", "0.02,1", "--get", "std", "--get", "gamma", "--digits", "6")
    assert run.code == 0
    assert run.stdout == "0.0175925\t0.773741\n0.879626\t0.773741\n"


def test_one_point_range_is_one_line():
    assert invoke("truncnorm", "--std", "1:1:1", "--get", "gamma", "--digits", "4").stdout == "0.7737\n"


def test_list_result_is_one_line_of_space_separated_decimals():
    run = invoke(
        "postnorm-decay", "--layers", "2", "--get", "branch_weights", "--get", "decay", "--digits", "3"
    )
    assert run.stdout == "0.500 0.707\t0.707\n"


def test_unknown_name_is_exit_2_listing_the_names():
    run = invoke("truncnorm", "--get", "gamm")
    assert run.code == 2 and run.stdout == ""
    [line] = run.stderr.splitlines()
    assert "--get" in line and "'gamm'" in line and "gamma, std_ratio, correction" in line


def test_get_with_json_or_csv_is_usage_error():
    assert invoke("truncnorm", "--get", "gamma", "--format", "csv").code == 2
    run = invoke("truncnorm", "--get", "gamma", "--json")
    assert run.code == 2 and run.json()["error"]["code"] == 2


def test_get_with_failing_expect_still_exits_1_with_the_line():
    run = invoke("truncnorm", "--get", "gamma", "--expect", "gamma=0.774000")
    assert run.code == 1
    assert run.stdout == "0.773741303549923\n"
    assert run.stderr.startswith("momentcalc: --expect gamma failed")


def test_monte_carlo_result_prints_its_justified_digits():
    run = invoke(
        "attention", "--seq-len", "16", "--trials", "100", "--get", "max_weight_scaled", "--digits", "30"
    )
    assert run.code == 0 and len(run.stdout.strip()) < 10
