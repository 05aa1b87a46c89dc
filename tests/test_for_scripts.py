"""What scripts and CI lean on (issue 25): zero and infinite --expect values, labelled sweep
lines, fractions, swept activations, Keras 3 names, and exit 2 for every bad value."""

from __future__ import annotations

import pytest

from tests.conftest import invoke


@pytest.mark.parametrize(
    ("expect", "code"),
    [("mean=0.000", 0), ("mean=0.0000000000", 0), ("mean=0e-12", 0), ("gain=0.000", 1)],
)
def test_a_zero_is_read_to_its_last_written_digit(expect, code):
    run = invoke("activation-moment", "tanh", "--expect", expect)
    assert run.code == code, run
    if code:
        assert "expected 0.000 ± 0.0005 (half a unit in the last digit), found 1.59253741972283" in run.stderr


@pytest.mark.parametrize("written", ["0", "0.0", "0.00", "-0"])
def test_a_zero_too_coarse_to_check_is_refused_with_the_way_out(written):
    run = invoke("activation-moment", "tanh", "--expect", f"mean={written}")
    assert run.code == 2 and run.stdout == ""
    assert "mean=0.000, within ±0.0005" in run.stderr and "--atol" in run.stderr
    assert invoke("activation-moment", "tanh", "--expect", f"mean={written}", "--atol", "1e-12").code == 0


def test_an_infinite_expectation_passes_only_an_infinite_result_of_its_sign():
    critical = ("meanfield", "tanh", "--sigma-b2", "0.05", "--critical")
    assert invoke(*critical, "--expect", "depth_scale_c=inf").code == 0
    wrong_sign = invoke(*critical, "--expect", "depth_scale_c=-inf")
    assert wrong_sign.code == 1 and "expected -inf" in wrong_sign.stderr and "found inf" in wrong_sign.stderr
    finite = invoke(*critical, "--expect", "chi1=inf")
    assert finite.code == 1 and "found 1.00000000000000" in finite.stderr
    assert invoke(*critical, "--expect", "depth_scale_c=1.00e300").code == 1


def test_get_input_labels_the_lines_of_a_sweep():
    run = invoke("truncnorm", "--std", "0.01:0.03:0.01", "--get", "input.std", "--get", "std")
    assert run.stdout.splitlines() == [
        "0.01\t0.00879625661034240",
        "0.02\t0.0175925132206848",
        "0.03\t0.0263887698310272",
    ]
    bad = invoke("truncnorm", "--get", "input.nosuch")
    assert bad.code == 2 and "input.std" in bad.stderr


def test_fractions_are_read_exactly():
    assert (
        invoke("truncnorm", "--std", "1/50", "--get", "std").stdout
        == invoke("truncnorm", "--std", "0.02", "--get", "std").stdout
    )
    assert invoke("truncnorm", "--std", "1/100:3/100:1/100", "--get", "input.std").stdout.split() == [
        "0.01",
        "0.02",
        "0.03",
    ]
    doc = invoke("truncnorm", "--std", "1/3", "--json").json()
    assert doc["inputs"]["std"] == pytest.approx(1 / 3)
    zero = invoke("truncnorm", "--std", "1/0")
    assert zero.code == 2 and "--std must be a fraction with a non-zero denominator" in zero.stderr


def test_activations_are_swept_like_numbers():
    run = invoke("activation-moment", "gelu,swish,mish", "--get", "input.activation", "--get", "gain")
    names = [line.split("\t")[0] for line in run.stdout.splitlines()]
    assert names == ["gelu", "swish", "mish"]
    for line in run.stdout.splitlines():
        name, gain = line.split("\t")
        assert gain == invoke("activation-moment", name, "--get", "gain").stdout.strip()
    doc = invoke("activation-moment", "gelu,swish", "--json").json()
    assert doc["swept"] == ["activation"] and [r["inputs"]["activation"] for r in doc["rows"]] == [
        "gelu",
        "swish",
    ]
    # commas inside an expression do not split it; an empty item is refused
    assert (
        invoke("activation-moment", "abs(x)+max(x,0.5)", "--json").json()["inputs"]["activation"]
        == "abs(x)+max(x,0.5)"
    )
    empty = invoke("activation-moment", "gelu,")
    assert empty.code == 2 and "ACTIVATION list has an empty item" in empty.stderr


def test_keras_3_names_and_what_henormal_needs():
    keras3 = invoke("initializer", "keras.initializers.HeNormal", "--fan-in", "10", "--get", "effective_std")
    assert (
        keras3.code == 0
        and keras3.stdout
        == invoke(
            "initializer", "tf.keras.initializers.HeNormal", "--fan-in", "10", "--get", "effective_std"
        ).stdout
    )
    wrong = invoke("initializer", "tf.keras.initializers.HeNormal", "--stddev", "0.02")
    assert wrong.code == 2 and "it needs --fan-in" in wrong.stderr and "takes no options" not in wrong.stderr


@pytest.mark.parametrize("command", ["verify", "constants", "activations", "initializers", "truncnorm"])
def test_a_bad_format_is_exit_2_whatever_else_is_given(command):
    run = invoke(command, "--format", "junk", "--json")
    assert run.code == 2 and "--format must be one of" in run.stderr
