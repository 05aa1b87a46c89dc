"""Swish's proven ceiling on the per-layer C'(1) of deep kernel shaping (Martens et al., 2021,
"Rapid training of deep neural networks without skip connections or normalization layers"):
below 3 wherever Q'(1) = 1, for every input_scale a > 0 and input_shift b.

Where Q'(1) = 1, C'(1) = 1/(1 − κ) with κ = −Cov(φ(X), φ''(X))/E[φ'(X)²], X = aZ + b
(``dks_smooth``'s docstring), so C'(1) < 3 there as soon as
G = 2·E[φ'(X)²] + 3·Cov(φ(X), φ''(X)) > 0 for every a > 0 and b. The proof has these parts,
with y = −b/a, t = 1/a, λ = −b/a²:

* ``dks_smooth`` (y ≤ 6): core cells 0 ≤ t ≤ 4, −8 ≤ y ≤ 6; the linear side y ≤ −8 (two
  closing inequalities and a bounded piece of cells); small input scales a ≤ 1/4 (every b).
* ``dks_smooth_left`` (y ≥ 6, a ≥ 1/4): the far left b ≤ b_far(a) (a sign argument);
  small tilts λ ≤ 1/16; the strip a ≥ 20 (cells in λ); box cells in (t, λ) for
  4/5 ≤ a ≤ 20; Cauchy–Schwarz cells 1/4 ≤ a ≤ 4/5.

The whole proof (``proof``) costs about sixteen minutes of CPU (949 s measured: the core's
cells 485 s, the box cells 377 s, the linear side's and the Cauchy–Schwarz cells with the
closing inequalities 87 s), too much for a call: ``tat`` trusts
the catalog's declaration (``Activation.dks_ceiling = "dks_swish"``, read through
``dks_ceilings``), the reference tests run ``proof`` and the default run ``proof_slice``: every
closing inequality and a few cells of every cell region, so that a broken proof fails there too.

The largest C'(1) on the curve Q'(1) = 1 appears to be about 1.747 (input_scale 1.21,
input_shift −3.31: a double-precision survey, ``tat_reach``, confirmed by mpmath quadrature on the curve), well below the bound.
"""

from __future__ import annotations

from fractions import Fraction

from . import dks_smooth, dks_smooth_left

CEILING = Fraction(3)
WHY = (
    "(a smooth relu-like activation): below 3 wherever Q'(1) = 1 (proven: there C'(1) = 1/(1 - kappa) "
    "with kappa = -Cov(f, f'')/E[f'^2] < 2/3 for every input_scale and input_shift; the largest C'(1) on "
    "that curve appears to be about 1.747, near input_scale 1.21 and input_shift -3.31), "
)


def _closing() -> bool:
    """Every closing inequality and sign argument of both modules."""
    left = dks_smooth_left
    return (
        dks_smooth.linear_side(dks_smooth.SWISH, CEILING)
        and dks_smooth.small_scale(CEILING)
        and left.p_signs()
        and left.far_left()
        and left.small_tilt()
        and left.strip_cells(left.strip_grid())
    )


def proof() -> bool:
    """The whole proof: minutes of CPU."""
    left = dks_smooth_left
    return (
        _closing()
        and dks_smooth.core_cells(dks_smooth.SWISH, CEILING, dks_smooth.core_grid())
        and dks_smooth.core_cells(dks_smooth.SWISH, CEILING, dks_smooth.linear_grid())
        and left.box_cells(left.box_grid())
        and left.cs_cells(left.cs_grid())
    )


def proof_slice() -> bool:
    """The closing inequalities and the first, middle and last starting cell of every cell region
    (the core's middle one alone: its cells cost seconds)."""
    left = dks_smooth_left
    pick = lambda cells: [cells[0], cells[len(cells) // 2], cells[-1]]
    core = dks_smooth.core_grid()
    return (
        _closing()
        and dks_smooth.core_cells(dks_smooth.SWISH, CEILING, [core[len(core) // 2]])
        and dks_smooth.core_cells(dks_smooth.SWISH, CEILING, pick(dks_smooth.linear_grid()))
        and left.box_cells(pick(left.box_grid()))
        and left.cs_cells(pick(left.cs_grid()))
    )


__all__ = ["CEILING", "WHY", "proof", "proof_slice"]
