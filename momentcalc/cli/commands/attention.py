"""``momentcalc attention``."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from ..app import app
from ..options import number_option
from ..runner import Numeric, computing_command

D = Annotated[str, number_option("--d", "Dimension of queries and keys (d_k), a whole number >= 1.")]
QStd = Annotated[str, number_option("--q-std", "Std of each query component, > 0.")]
KStd = Annotated[str, number_option("--k-std", "Std of each key component, > 0.")]
SeqLen = Annotated[
    Optional[str],
    number_option("--seq-len", "Number of keys per query; simulates softmax (implies --simulate)."),
]
Simulate = Annotated[
    bool,
    typer.Option("--simulate", help="Draw q and K with numpy and report the mean largest softmax weight (needs --seq-len)."),
]
Seed = Annotated[Optional[str], number_option("--seed", "Random seed of the simulation, a whole number >= 0. [default: 0]")]
Trials = Annotated[
    Optional[str], number_option("--trials", "Queries drawn by the simulation, a whole number >= 2. [default: 1000]")
]

EXAMPLES = """
Examples:

  momentcalc attention                                logit std 8 at d = 64; scale 1/8

  momentcalc attention --d 64,128,256,512 --json

  momentcalc attention --simulate --seq-len 512       softmax peaks without 1/sqrt(d)

  momentcalc attention --seq-len 512 --trials 10000 --seed 1
"""


@computing_command(
    app, "attention",
    numeric={"d": Numeric(), "q_std": Numeric(), "k_std": Numeric(), "seq_len": Numeric(),
             "seed": Numeric(), "trials": Numeric()},
    epilog=EXAMPLES,
)
def attention(
    d: D = "64",
    q_std: QStd = "1",
    k_std: KStd = "1",
    seq_len: SeqLen = None,
    simulate: Simulate = False,
    seed: Seed = None,
    trials: Trials = None,
):
    """Why attention divides q.k by sqrt(d): logit moments, and (simulated) how peaked softmax gets."""
    from ...computations.attention import attention as compute

    return compute
