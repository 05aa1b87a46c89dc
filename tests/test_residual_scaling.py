"""init --residual: GPT-2's and T-Fixup's residual-branch scalings, against their published
formulas evaluated directly (Radford et al., 2019, Language Models are Unsupervised Multitask
Learners; Huang et al., 2020, Improving Transformer Optimization Through Better Initialization)."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest

from momentcalc.computations.init import init
from tests.certified_checks import close_to
from tests.conftest import invoke

DIGITS = 30


@pytest.mark.parametrize(
    ("residual", "layers", "scale", "embedding"),
    [
        ("gpt2", 12, lambda n: 1 / mpmath.sqrt(2 * n), None),
        ("gpt2", 48, lambda n: 1 / mpmath.sqrt(2 * n), None),
        (
            "tfixup-encoder",
            6,
            lambda n: mpmath.mpf(67) / 100 * mpmath.root(n, 4) ** -1,
            lambda n: mpmath.root(9 * n, 4) ** -1,
        ),
        ("tfixup-decoder", 6, lambda n: mpmath.root(9 * n, 4) ** -1, lambda n: mpmath.root(9 * n, 4) ** -1),
    ],
)
def test_scales_against_the_published_formulas(residual, layers, scale, embedding):
    result = init(fan_in=768, fan_out=768, scheme="xavier", residual=residual, layers=layers, digits=DIGITS)
    with mpmath.workdps(DIGITS + 10):
        assert close_to(result.value("residual_scale"), scale(layers), DIGITS)
        assert close_to(result.value("residual_std"), result.value("std") * scale(layers), DIGITS)
        if embedding is None:
            assert "embedding_scale" not in result.names
        else:
            assert close_to(result.value("embedding_scale"), embedding(layers), DIGITS)
    assert all(result[name].certified for name in result.names)
    assert result.notes and ("Radford" in result.notes[0] or "Huang" in result.notes[0])


def test_gpt2_small_exact():
    """GPT-2 small: 12 blocks, 24 residual layers; at fan_in 6 the std 1/sqrt(6)·1/sqrt(24) = 1/12."""
    result = init(fan_in=6, residual="gpt2", layers=12)
    assert result["residual_std"].exact == Fraction(1, 12)
    assert result["residual_scale"].exact is None and result["residual_scale"].certified


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (("--layers", "12"), "--layers applies only with --residual"),
        (("--residual", "gpt2"), "--layers is required with --residual gpt2"),
        (
            ("--residual", "fixup", "--layers", "3"),
            "--residual must be one of gpt2, tfixup-encoder, tfixup-decoder",
        ),
        (("--residual", "gpt2", "--layers", "0"), "--layers must be a whole number from 1"),
    ],
)
def test_bad_residual_is_exit_2(argv, message):
    run = invoke("init", "--fan-in", "768", *argv)
    assert run.code == 2 and message in run.stderr and run.stdout == ""


def test_cli():
    run = invoke(
        "init", "--fan-in", "768", "--residual", "tfixup-encoder", "--layers", "6", "--get", "residual_scale"
    )
    assert run.code == 0
    with mpmath.workdps(30):
        assert run.stdout.strip() == mpmath.nstr(mpmath.mpf(67) / 100 / mpmath.root(6, 4), 15)
