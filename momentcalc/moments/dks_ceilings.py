"""Proven ceilings on the per-layer C'(1) of deep kernel shaping (Martens et al., 2021, "Rapid
training of deep neural networks without skip connections or normalization layers") declared
by catalog entries: ``Activation.dks_ceiling`` names a proof module in ``PROOFS``.

A proof module defines ``CEILING`` (a Fraction B: C'(1) < B wherever Q'(1) = 1, for every
input_scale and input_shift), ``WHY`` (the text ``tat``'s exit 2 quotes: what φ is, the bound,
the proof's idea, ending in ", "), ``proof()`` (the whole proof; the reference tests run it) and
``proof_slice()`` (its closing inequalities and a few cells of every region; the default tests
run it). Such proofs cost minutes of CPU, so a call trusts the declaration: declare one only
once its whole proof holds (tests/test_dks_ceilings.py runs every declared proof's slice, and
its whole proof under the reference marker).

To add one: write the module, register it here, and set ``dks_ceiling`` on the catalog entry.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from types import ModuleType
from typing import Any

from .dks import catalog_entry


def _swish() -> ModuleType:
    from . import dks_swish

    return dks_swish


def _gelu() -> ModuleType:
    from . import dks_gelu

    return dks_gelu


PROOFS: dict[str, Callable[[], ModuleType]] = {"dks_swish": _swish, "dks_gelu": _gelu}


def declared_ceiling(act: Any) -> tuple[Fraction, str] | None:
    """(CEILING, WHY) of the proof φ's catalog entry (or the entry its formula is) declares."""
    entry = catalog_entry(act)
    if entry is None or entry.expression or not entry.dks_ceiling:
        return None
    module = PROOFS[entry.dks_ceiling]()
    return module.CEILING, module.WHY


__all__ = ["PROOFS", "declared_ceiling"]
