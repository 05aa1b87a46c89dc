"""``gau-scale``'s results beyond Su's diagonal estimate: the attention means and the
full output RMS (``gau_full``), with their accuracies and the notes that state assumptions.

    attention_diag_mean    E[A_ii] = E[‖Z_i‖⁴]/(n·s) = (m4 + (s−1)·m2²)/n             exact
    attention_offdiag_mean E[A_ij] = (m2² + (s−1)·m1⁴)/n − E[relu'd part]/(n·s)       exact for φ ≥ 0
    output_rms             sqrt(E[O²]) (``gau_full``), ±2 % against drawn GAUs
    output_rms_ratio       output_rms / scaled_output (Su's λ⁷·s·ν⁶/n)
    deepnorm_alpha_full    1 / output_rms

with m_k = E[φ(λε)^k] at the actual init (λ = init_std·sqrt(d)), where Su uses the moments
at λ = 1 and the λ⁷ law.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import mpmath
from mpmath import mp

from ...engine.precision import working_dps
from ...errors import InputError
from .full import diverges, full_estimate

DESCRIPTIONS = {
    "attention_diag_mean": "E(A_ii) = (m4 + (s-1)*m2^2)/n, m_k = E(phi(lambda*Z)^k): keeps the spread of <Z_i, Z_i>",
    "attention_offdiag_mean": "E(A_ij), i != j: (m2^2 + (s-1)*m1^4)/n less what the relu removes from <Z_i, Z_j> < 0",
    "output_rms": "sqrt(E(O^2)) keeping all of A and the moments of phi(lambda*Z), with finite-width terms "
    "(estimate: see notes)",
    "output_rms_ratio": "output_rms / scaled_output: how far Su's diagonal estimate is from the full one",
    "deepnorm_alpha_full": "1/output_rms: the DeepNorm alpha that x + GAU(x) actually resembles",
}


def full_results(
    activation: str,
    params: Mapping[str, object] | None,
    sizes: Mapping[str, Any],
    lam: mpmath.mpf,
    moments: tuple[mpmath.mpf, mpmath.mpf, mpmath.mpf],
    scaled_output: mpmath.mpf,
    digits: int,
) -> tuple[dict[str, mpmath.mpf], dict[str, mpmath.mpf], list[str]]:
    """(values, accuracies of the estimated ones, notes) at the working precision of ``digits``."""
    s, n, d = (int(sizes[k]) for k in ("s", "n", "d"))
    m1, m2, m4 = moments
    errors: dict[str, mpmath.mpf] = {}
    notes: list[str] = []
    try:
        estimate = full_estimate(activation, params, s, n, d, lam)
    except InputError as error:
        if not diverges(error):
            raise
        estimate = None
    with mp.workdps(working_dps(digits)):
        values = {"attention_diag_mean": (m4 + (s - 1) * m2 * m2) / n}
        offdiag = (m2 * m2 + (s - 1) * m1**4) / n
        if estimate is None:
            values["attention_offdiag_mean"] = offdiag if mpmath.isfinite(m4) else mpmath.inf
            values.update(
                output_rms=mpmath.inf, output_rms_ratio=mpmath.inf, deepnorm_alpha_full=mpmath.mpf(0)
            )
            notes.append(
                "output_rms is infinite: a moment E[phi(lambda*Z)^k], k <= 8, that E[O^2] needs diverges"
            )
            return values, errors, notes
        values["attention_offdiag_mean"] = offdiag - estimate.offdiag_removed
        if estimate.offdiag_error:
            errors["attention_offdiag_mean"] = estimate.offdiag_error
        rms = mpmath.sqrt(estimate.mean_square)
        values["output_rms"] = rms
        values["output_rms_ratio"] = rms / scaled_output if scaled_output else mpmath.inf
        values["deepnorm_alpha_full"] = 1 / rms if rms else mpmath.inf
        for name in ("output_rms", "output_rms_ratio", "deepnorm_alpha_full"):
            if mpmath.isfinite(values[name]) and values[name]:
                errors[name] = abs(values[name]) * estimate.accuracy
    iid = mpmath.sqrt(estimate.iid_mean_square)
    notes.append(
        "output_rms is an estimate, not an identity: U, V, Z entries taken as phi(lambda*Z) with W_o, U, V "
        "integrated out exactly; the relu on <Z_i, Z_j> by a shifted-gamma law given Z_i; the finite width d "
        "(token norms, token overlaps O(1/sqrt(d))) to order 1/d. Measured within 2 % of drawn GAUs (swish, "
        "relu, gelu; lambda 0.3-1; s 32-128; n 128-2048; d 256-768); printed to the digits that "
        f"{estimate.accuracy:.0%} allows (the ± shown)"
    )
    share = estimate.offdiag_terms_share
    notes.append(
        f"A's off-diagonal entries carry {share:.0%} of E[O^2]; the relu removes {estimate.relu_share:.1%} "
        f"of it, and the finite width adds {estimate.width_share:.1%} (without it: {mpmath.nstr(iid, 3)})"
    )
    if estimate.offdiag_error:
        notes.append(
            "attention_offdiag_mean: the part the relu removes is approximated (shifted-gamma law), "
            "the rest is exact; printed to the digits its accuracy allows"
        )
    return values, errors, notes
