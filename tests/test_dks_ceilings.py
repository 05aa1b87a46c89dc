"""Proven ceilings declared by catalog entries (``Activation.dks_ceiling``, ``moments.dks_ceilings``):
every declared proof's slice holds in the default run and its whole proof under the reference
marker (``tat`` trusts the declaration at call time); ``tat`` refuses a target at or above the
ceiling with exit 2, and lets a deeper network's per-layer target through."""

from __future__ import annotations

from fractions import Fraction

import pytest
from flint import arb

from momentcalc.catalog import CATALOG, resolve
from momentcalc.computations import tat as tat_module
from momentcalc.errors import Outcome
from momentcalc.moments import dks_ceilings
from tests.conftest import invoke

DECLARED = sorted({act.dks_ceiling for act in CATALOG if act.dks_ceiling})


def test_declarations_name_registered_proofs():
    assert [act.name for act in CATALOG if act.dks_ceiling] == ["gelu", "swish"]
    assert set(DECLARED) <= set(dks_ceilings.PROOFS)
    for name, load in dks_ceilings.PROOFS.items():
        module = load()
        assert isinstance(module.CEILING, Fraction) and module.CEILING > 1, name
        assert module.WHY.startswith("(") and module.WHY.endswith(", "), name
        assert callable(module.proof) and callable(module.proof_slice), name


def test_an_undeclared_activation_has_no_ceiling():
    assert dks_ceilings.declared_ceiling(resolve("mish", None)) is None
    assert dks_ceilings.declared_ceiling(resolve("gelu", None))[0] == 3
    assert dks_ceilings.declared_ceiling(resolve("gelu_tanh", None)) is None  # its own function
    assert dks_ceilings.declared_ceiling(resolve("swish", None))[0] == 3
    assert dks_ceilings.declared_ceiling(resolve("silu", None))[0] == 3


@pytest.mark.parametrize("name", DECLARED)
def test_the_declared_proofs_slice_holds(name):
    """The closing inequalities and a few cells of every region: a broken proof fails here."""
    assert dks_ceilings.PROOFS[name]().proof_slice()


@pytest.mark.reference
@pytest.mark.slow
@pytest.mark.parametrize("name", DECLARED)
def test_the_declared_proof_holds(name):
    """The whole proof: about sixteen minutes of CPU."""
    assert dks_ceilings.PROOFS[name]().proof()


@pytest.mark.parametrize(
    "argv, power",
    [
        (("swish", "--target-slope", "3"), "3^1 = 3"),
        (("silu", "--depth", "3", "--target-slope", "30"), "3^3 = 27"),
        (("x*sigmoid(x)", "--target-slope", "3.5"), "3^1 = 3"),
        (("gelu", "--target-slope", "3"), "3^1 = 3"),
        (("gelu", "--depth", "2", "--target-slope", "9"), "3^2 = 9"),
    ],
)
def test_a_target_at_or_above_the_ceiling_is_exit_2(argv, power):
    run = invoke("tat", *argv)
    assert run.code == 2 and run.stdout == "" and run.stderr.count("\n") == 1
    assert "(a smooth relu-like activation): below 3 wherever Q'(1) = 1 (proven:" in run.stderr
    assert f"--target-slope below {power}" in run.stderr and "--depth" in run.stderr


def test_the_ceiling_with_json_is_an_error_object():
    run = invoke("tat", "swish", "--target-slope", "3", "--json")
    assert run.code == 2
    error = run.json()["error"]
    assert error["code"] == 2 and "below 3 wherever Q'(1) = 1 (proven:" in error["message"]


def test_a_deeper_network_is_not_refused_by_the_ceiling():
    """ζ = 3 over 2 layers is a per-layer 1.732, below 3: the rule lets it through (the survey
    then looks for it; ``test_tat_reach`` solves swish's 1.747)."""
    act = resolve("swish", None)
    tat_module._declared_reach(act, arb(3).sqrt(), Fraction(3), 2)  # returns: no Outcome
    with pytest.raises(Outcome, match="below 3 wherever"):
        tat_module._declared_reach(act, arb(3), Fraction(9), 2)


@pytest.mark.reference
@pytest.mark.slow
def test_a_deeper_network_is_solved():
    run = invoke("tat", "swish", "--target-slope", "3", "--depth", "2")
    assert run.code == 0, run.stderr
