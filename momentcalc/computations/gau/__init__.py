"""``gau-scale``: the output magnitude of a Gated Attention Unit at initialization (Su, 2022,
GAU at initialization; FLASH's GAU), in modules by what they do:

    inputs      the frozen, checked inputs (GauInputs, read_inputs)
    numeric     the mpmath route: seed moments, Su's diagonal estimate, m_k at the actual init
    proof       the same results in Arb balls, printed only where proven
    full        the full estimate of E[O²] (all of A, finite width); negative: the relu's part
    report      the full estimate's results, accuracies and notes
    simulate    --simulate's checks; simulation: the drawn GAUs (numpy)
    scale       gau_scale(): the results assembled into one Computation
"""

from __future__ import annotations

from .scale import gau_scale

# CLI command -> the function of this module that computes it (the table ``momentcalc.command_table`` reads).
COMMANDS = {"gau-scale": "gau_scale"}

__all__ = ["gau_scale"]
