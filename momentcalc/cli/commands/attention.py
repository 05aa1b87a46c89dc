"""``momentcalc attention``."""

from __future__ import annotations

from ...defaults import ATTENTION as DEFAULTS
from ...result import Computation
from ..app import app
from ..options import Seed, Simulate, Trials, number
from ..runner import computing_command

D = number("--d", "Dimension of queries and keys (d_k), a whole number >= 1.")
QStd = number("--q-std", "Std of each query component, > 0.")
KStd = number("--k-std", "Std of each key component, > 0.")
SeqLen = number(
    "--seq-len", "Number of keys per query; simulates softmax (implies --simulate).", optional=True
)

EXAMPLES = """
Examples:

  momentcalc attention                                logit std 8 at d = 64; scale 1/8

  momentcalc attention --d 64,128,256,512 --json

  momentcalc attention --simulate --seq-len 512       softmax peaks without 1/sqrt(d)

  momentcalc attention --seq-len 512 --trials 10000 --seed 1
"""


@computing_command(app, "attention", epilog=EXAMPLES)
def attention(
    d: D = DEFAULTS["d"],
    q_std: QStd = DEFAULTS["q_std"],
    k_std: KStd = DEFAULTS["k_std"],
    seq_len: SeqLen = None,
    simulate: Simulate = False,
    seed: Seed = None,
    trials: Trials = None,
    *,
    digits: int,
    derive: bool,
) -> Computation:
    """Why attention divides q.k by sqrt(d): logit moments, and (simulated) how peaked softmax gets."""
    from ...computations.attention import attention

    return attention(
        d=d,
        q_std=q_std,
        k_std=k_std,
        seq_len=seq_len,
        simulate=simulate,
        seed=seed,
        trials=trials,
        digits=digits,
        derive=derive,
    )
