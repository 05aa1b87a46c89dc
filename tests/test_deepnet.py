"""postnorm-decay --arch: DeepNet's alpha and beta for its three configurations (Wang et al., 2022,
DeepNet: Scaling Transformers to 1,000 Layers), against the paper's formulas evaluated directly."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest

from momentcalc.computations.deepnet import rational_root
from momentcalc.computations.postnorm import postnorm_decay
from tests.certified_checks import close_to
from tests.conftest import invoke

DIGITS = 30


@pytest.mark.parametrize(
    ("arch", "n", "m", "formulas"),
    [
        (
            "encoder",
            18,
            None,
            {
                "deepnorm_alpha": lambda n, m: mpmath.root(2 * n, 4),
                "deepnorm_beta": lambda n, m: mpmath.root(8 * n, 4) ** -1,
            },
        ),
        (
            "decoder",
            24,
            None,
            {
                "deepnorm_alpha": lambda n, m: mpmath.root(2 * n, 4),
                "deepnorm_beta": lambda n, m: 1 / mpmath.root(8 * n, 4),
            },
        ),
        (
            "encdec",
            100,
            50,
            {
                "deepnorm_alpha": lambda n, m: (
                    mpmath.mpf(81) / 100 * mpmath.power(mpmath.mpf(n) ** 4 * m, mpmath.mpf(1) / 16)
                ),
                "deepnorm_beta": lambda n, m: (
                    mpmath.mpf(87) / 100 * mpmath.power(mpmath.mpf(n) ** 4 * m, -mpmath.mpf(1) / 16)
                ),
                "decoder_alpha": lambda n, m: mpmath.root(3 * m, 4),
                "decoder_beta": lambda n, m: mpmath.root(12 * m, 4) ** -1,
            },
        ),
    ],
)
def test_alpha_and_beta_against_the_papers_formulas(arch, n, m, formulas):
    result = postnorm_decay(layers=n, scheme="deepnorm", arch=arch, decoder_layers=m, digits=DIGITS)
    with mpmath.workdps(DIGITS + 10):
        for name, formula in formulas.items():
            assert close_to(result.value(name), formula(n, m), DIGITS), name
            assert result[name].certified
        # the decay uses the configuration's alpha: alpha / sqrt(alpha² + 1) at sigma = 1
        alpha = formulas["deepnorm_alpha"](n, m)
        assert close_to(result.value("alpha"), alpha, DIGITS)
        assert close_to(result.value("decay"), alpha / mpmath.sqrt(alpha**2 + 1), DIGITS)
    if arch != "encdec":
        assert "decoder_alpha" not in result.names


def test_encoder_is_the_default_and_given_alpha_still_reports_the_papers():
    default = postnorm_decay(layers=8, scheme="deepnorm")
    assert default.value("deepnorm_alpha") == 2 and default.value("alpha") == 2  # (2·8)^(1/4), exact
    assert default.inputs["arch"] == "encoder"
    given = postnorm_decay(layers=8, scheme="deepnorm", alpha="3", arch="encoder")
    assert given.value("alpha") == 3 and given.value("deepnorm_alpha") == 2


def test_exact_roots_are_exact():
    assert rational_root(Fraction(16, 81), 4) == Fraction(2, 3)
    assert rational_root(Fraction(2), 4) is None
    assert rational_root(Fraction(3**160), 16) == 3**10
    result = postnorm_decay(layers=32, scheme="deepnorm", arch="decoder", digits=20)  # (64)^(1/4) = 2√2
    assert result["deepnorm_beta"].certified


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (("--arch", "encdec"), "--arch applies only with --scheme deepnorm"),
        (("--scheme", "deepnorm", "--arch", "encdec"), "--decoder-layers is required with --arch encdec"),
        (
            ("--scheme", "deepnorm", "--decoder-layers", "4"),
            "--decoder-layers applies only with --arch encdec",
        ),
        (
            ("--scheme", "deepnorm", "--arch", "decoder", "--decoder-layers", "4"),
            "--decoder-layers applies only",
        ),
        (("--scheme", "deepnorm", "--arch", "both"), "--arch must be one of encoder, decoder, encdec"),
        (("--scheme", "deepnorm", "--arch", "encdec", "--decoder-layers", "0"), "--decoder-layers must be"),
    ],
)
def test_bad_arch_is_exit_2(argv, message):
    run = invoke("postnorm-decay", *argv)
    assert run.code == 2 and message in run.stderr and run.stdout == ""


def test_cli_encdec():
    run = invoke(
        "postnorm-decay",
        "--scheme",
        "deepnorm",
        "--layers",
        "100",
        "--arch",
        "encdec",
        "--decoder-layers",
        "100",
        "--get",
        "deepnorm_alpha",
        "--get",
        "deepnorm_beta",
        "--get",
        "decoder_alpha",
        "--get",
        "decoder_beta",
    )
    assert run.code == 0
    assert run.stdout.split() == [
        "3.41574167777152",
        "0.206309512392564",
        "4.16179145028782",
        "0.169904424484712",
    ]
