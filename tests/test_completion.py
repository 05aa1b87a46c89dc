"""Shell completion completes values (issue 25): driven through the completion environment
variables, as bash sets them, in-process."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests import cli_runner


def complete(line: str) -> list[str]:
    """What bash completion offers for the last word of ``line`` (an empty last word when it
    ends with a space)."""
    words = line.split()
    cword = len(words) if line.endswith(" ") else len(words) - 1
    code, stdout, stderr = cli_runner.run(
        [], env={"_MOMENTCALC_COMPLETE": "complete_bash", "COMP_WORDS": line, "COMP_CWORD": str(cword)}
    )
    assert code == 0 and stderr == "", stderr
    return stdout.split()


@pytest.mark.parametrize(
    ("line", "offered"),
    [
        ("momentcalc activation-moment ge", ["gelu", "gelu_tanh"]),
        ("momentcalc activation-moment gelu,sw", ["gelu,swish"]),
        ("momentcalc meanfield ta", ["tanh"]),
        ("momentcalc gau-scale --activation sw", ["swish"]),
        ("momentcalc truncnorm --format ", ["table", "text", "json", "csv"]),
        ("momentcalc verify --format j", ["json"]),
        ("momentcalc init --scheme ", ["lecun", "xavier", "he"]),
        ("momentcalc postnorm-decay --arch ", ["encoder", "decoder", "encdec"]),
        ("momentcalc postnorm-decay --scheme d", ["deepnorm"]),
        ("momentcalc initializer torch.nn.init.kaiming_normal_ --mode ", ["fan_in", "fan_out"]),
        ("momentcalc initializer keras.initializers.He", ["keras.initializers.HeNormal"]),
        ("momentcalc verify --only selu.lambda", ["selu.lambda.seed", "selu.lambda.paper"]),
        ("momentcalc truncnorm --expect st", ["std_ratio=", "std="]),
        ("momentcalc activation-moment gelu --get ga", ["gain"]),
        ("momentcalc truncnorm --get input.s", ["input.std"]),
        ("momentcalc postnorm-decay --plot-y br", ["branch_weights"]),
        ("momentcalc meanfield tanh --chart chi", ["chi1"]),
        ("momentcalc truncnorm --ta", ["--target-std"]),  # option names, as before
    ],
)
def test_completion_offers_values(line, offered):
    assert complete(line) == offered


def test_activation_names_are_the_catalog():
    from momentcalc.catalog.resolving import CATALOG

    assert complete("momentcalc activation-moment ") == [entry.name for entry in CATALOG]


def test_results_of_a_command_that_cannot_run_yet_offer_nothing():
    assert complete("momentcalc init --get ") == []  # --fan-in is required


def test_a_normal_call_never_loads_completion():
    code = (
        "import sys; sys.argv = ['momentcalc', 'truncnorm', '--get', 'gamma']\n"
        "from momentcalc.cli.app import main\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "print('momentcalc.cli.completion' in sys.modules, file=sys.stderr)"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert proc.stdout == "0.773741303549923\n" and proc.stderr.strip() == "False"
