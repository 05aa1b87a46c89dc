"""What a newcomer tripped over (issue 37's papercuts), each held by a test."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from momentcalc._version import __version__
from tests import cli_runner, doc_pages
from tests.conftest import invoke

README = doc_pages.text()  # README and the docs pages

# A word of the top-level description for each command (the description named only five once).
TOPIC = {
    "truncnorm": "truncated-normal",
    "initializer": "init calls",
    "initializers": "init calls",
    "init": "init calls",
    "activation-moment": "activation moments",
    "activations": "activation moments",
    "selu-solve": "SELU",
    "postnorm-decay": "residual decay",
    "attention": "attention",
    "initial-loss": "initial loss",
    "init-report": "init report",
    "gau-scale": "GAU",
    "meanfield": "mean-field",
    "kernel": "kernels",
    "hermite": "Hermite",
    "tat": "activation transforms",
    "identify": "constants in a codebase",
    "audit": "constants in a codebase",
    "verify": "correct to every printed digit",
    "constants": "correct to every printed digit",
    "schema": "correct to every printed digit",
}


def _description() -> str:
    text = invoke("--help").stdout
    return " ".join(text.split("Options:")[0].split())


@pytest.mark.parametrize("command", sorted(cli_runner.command().commands))
def test_the_top_level_help_describes_every_command(command):
    topic = TOPIC.get(command)
    assert topic is not None, f"{command}: add its topic to the top-level help and to TOPIC"
    assert topic in _description()


def test_format_help_says_the_piped_default_is_text():
    text = " ".join(invoke("truncnorm", "--help").stdout.split())
    assert "[default: table]" not in text
    assert "[default: table on a terminal, else text]" in text


@pytest.mark.parametrize("command", sorted(cli_runner.command().commands))
def test_no_help_offers_a_sweep_outside_an_options_range(command):
    # every option's help took the generic example 0.5,1,2, and for --rho 2 is no correlation
    options = invoke(command, "--help").stdout.split("Example")[0]
    assert "0.5,1,2" not in options.replace("\n", "")


@pytest.mark.parametrize(
    ("shell", "marker"), [("zsh", "#compdef momentcalc"), ("fish", "complete --command")]
)
def test_show_completion_for_the_shell_named(shell, marker):
    proc = subprocess.run(
        [sys.executable, "-m", "momentcalc", "--show-completion", shell],
        capture_output=True,
        text=True,
        check=False,
        env={k: v for k, v in os.environ.items() if k != "_TYPER_COMPLETE_TEST_DISABLE_SHELL_DETECTION"},
    )
    assert proc.returncode == 0 and marker in proc.stdout


def test_install_completion_for_an_unknown_shell_is_exit_2():
    proc = subprocess.run(
        [sys.executable, "-m", "momentcalc", "--install-completion", "tcsh"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 2 and proc.stdout == ""
    assert "--install-completion" in proc.stderr and "zsh" in proc.stderr


def test_tat_leaky_relu_refuses_a_slope_it_solves_for():
    run = invoke("tat", "leaky_relu", "--slope", "0.2", "--depth", "5", "--target-c0", "0.5")
    assert run.code == 2 and run.stdout == ""
    assert "--slope" in run.stderr and "negative slope" in run.stderr


@pytest.mark.parametrize(
    "args",
    [
        ("truncnorm", "--get", "gama"),
        ("truncnorm", "--expect", "gama=0.774"),
        ("truncnorm", "--std", "1,2", "--plot-y", "gama", "--plot", "unused.png"),
    ],
)
def test_a_misspelt_result_name_gets_a_suggestion(args, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    run = invoke(*args)
    assert run.code == 2 and "(did you mean 'gamma'?)" in run.stderr
    assert not (tmp_path / "unused.png").exists()


def test_a_name_like_nothing_gets_no_suggestion():
    run = invoke("truncnorm", "--get", "zzzz")
    assert run.code == 2 and "did you mean" not in run.stderr


@pytest.mark.slow
@pytest.mark.parametrize(
    "args", [("meanfield", "relu", "--sigma-w2", "2"), ("kernel", "relu", "--rho", "0.5")]
)
def test_derive_writes_equations_not_sympy_calls(args):
    run = invoke(*args, "--derive")
    derivation = run.stdout.split("derivation\n", 1)[1]
    assert run.code == 0 and "Eq(" not in derivation
    assert re.search(r"^  \S.* = ", derivation, re.M)


def test_activation_moment_writes_phi_one_way():
    text = invoke("activation-moment", "x*sigmoid(x)").stdout
    assert "phi(x) = x*sigmoid(x)" in text and "φ" not in text


def test_the_pre_commit_snippet_pins_a_release_of_this_version():
    (rev,) = re.findall(r"^\s+rev: (v\S+)", README, re.M)
    assert rev == f"v{__version__}"


def test_a_terminal_that_reports_no_width_still_shows_the_results():
    """A pseudo-terminal can report a size of 0 x 0 (``script`` without a terminal on stdin, some
    CI and container ttys): the table was laid out 0 columns wide and nothing was printed, exit
    0. Such a width is unknown, as rich and shutil read it, and the table takes 80 columns."""
    lines = cli_runner.run_as_on_a_terminal("$ momentcalc kernel relu --rho 0.5", columns=0)
    assert any("nngp" in line and "0.304498890522115" in line for line in lines), lines


def test_the_child_passes_on_no_zero_terminal_size(monkeypatch):
    from momentcalc.cli import child

    class Terminal:
        def isatty(self) -> bool:
            return True

        def fileno(self) -> int:
            return 1

    for name in ("COLUMNS", "LINES"):  # set first, so that the test's end restores either
        monkeypatch.setenv(name, "1")
        monkeypatch.delenv(name)
    monkeypatch.setattr(sys, "stdout", Terminal())
    monkeypatch.setattr(os, "get_terminal_size", lambda fd=1: os.terminal_size((0, 0)))
    monkeypatch.setattr(os, "dup", lambda fd: -1)
    child._own_descriptors(None)
    assert "COLUMNS" not in os.environ and "LINES" not in os.environ
