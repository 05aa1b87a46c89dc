"""Monte Carlo of softmax attention at initialization (numpy; imported only by the simulation).

Each trial draws a query q (d components, std q_std) and seq_len keys K (seq_len × d, std
k_std) — as standard normals, the product q_std·k_std applied once to the dot products — forms the logits l = K q and records the largest softmax weight, with and without
the 1/sqrt(d) scaling (Garg, where 1/sqrt(d) comes from: softmax(Q Kᵀ / sqrt(d_k))). The largest weight is computed
as 1 / Σ_j exp(l_j − max l), which cannot overflow however large the logits are.

Trials are drawn in chunks of whole trials from one stream, query then keys, so the draws do
not depend on the chunk size: the first N trials of a longer run are exactly an N-trial run.
"""

from __future__ import annotations

import math

from fractions import Fraction

from ..engine.numbers import to_text
from ..errors import InputError

# Normal draws held in memory at once (8 bytes each).
CHUNK_DRAWS = 1 << 22
# One trial needs (seq_len + 1)·d draws in memory; beyond this it is refused, not swapped.
MAX_TRIAL_DRAWS = 1 << 25
# Total normal draws of one call: about 3 s on a 2-core machine (10^8 draws take about 1 s).
MAX_TOTAL_DRAWS = 3 * 10**8


def largest_weight(logits):
    """max_j softmax(logits)_j along the last axis, overflow-free."""
    import numpy as np

    shifted = logits - logits.max(axis=-1, keepdims=True)
    return 1.0 / np.exp(shifted).sum(axis=-1)


def simulate_softmax(d: int, std_product: float, seq_len: int, trials: int, seed: int) -> dict[str, float]:
    """Mean largest softmax weight (unscaled and scaled) over ``trials`` draws, with standard errors.

    ``std_product`` is q_std·k_std: the logits depend on the two stds only through it."""
    import numpy as np

    per_trial = (seq_len + 1) * d
    if per_trial > MAX_TRIAL_DRAWS:
        raise InputError(
            f"{{seq_len}} and {{d}} are too large to simulate: (seq_len + 1)*d = {to_text(Fraction(per_trial))} normal "
            "draws per trial, "
            f"at most {MAX_TRIAL_DRAWS}",
            param="seq_len",
            params=("d",),
        )
    if per_trial * trials > MAX_TOTAL_DRAWS:
        raise InputError(
            f"{{trials}} is too large for this {{seq_len}} and {{d}}: {to_text(Fraction(per_trial * trials))} normal draws, "
            f"at most {MAX_TOTAL_DRAWS}",
            param="trials",
            params=("seq_len", "d"),
        )
    rng = np.random.default_rng(seed)
    chunk = max(1, CHUNK_DRAWS // per_trial)
    scale = 1.0 / math.sqrt(d)
    unscaled = np.empty(trials)
    scaled = np.empty(trials)
    mean_square = np.empty(trials)
    for start in range(0, trials, chunk):
        stop = min(start + chunk, trials)
        draws = rng.standard_normal((stop - start, seq_len + 1, d))
        # Scaling the unit-variance dot products once is cheaper than scaling every draw.
        logits = np.einsum("tnd,td->tn", draws[:, 1:, :], draws[:, 0, :]) * std_product
        mean_square[start:stop] = np.square(logits).mean(axis=1)
        unscaled[start:stop] = largest_weight(logits)
        scaled[start:stop] = largest_weight(logits * scale)
    root_n = math.sqrt(trials)
    logit_std = math.sqrt(float(mean_square.mean()))
    return {
        "simulated_logit_std": logit_std,
        # delta method: sd(sqrt(m)) = sd(m) / (2 sqrt(m))
        "simulated_logit_std_stderr": float(mean_square.std(ddof=1)) / root_n / (2 * logit_std),
        "max_weight_unscaled": float(unscaled.mean()),
        "max_weight_unscaled_stderr": float(unscaled.std(ddof=1)) / root_n,
        "max_weight_scaled": float(scaled.mean()),
        "max_weight_scaled_stderr": float(scaled.std(ddof=1)) / root_n,
    }
