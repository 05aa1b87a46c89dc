"""``momentcalc initial-loss``."""

from __future__ import annotations

from ...defaults import INITIAL_LOSS as DEFAULTS
from ...result import Computation
from ..app import app
from ..options import number
from ..runner import computing_command

Vocab = number("--vocab", "Number of classes V (the vocabulary), a whole number >= 1.")
LogitStd = number("--logit-std", "Std S of each logit at initialization, >= 0.")

EXAMPLES = """
Examples:

  momentcalc initial-loss --vocab 32000 --logit-std 1      ln V + ~1/2

  momentcalc initial-loss --vocab 32128 --logit-std 22.6   an untied T5 head drawn at std 1

  momentcalc initial-loss --vocab 50257 --logit-std 0,1,2,5,10,20 --get initial_loss

  momentcalc initial-loss --vocab 2 --logit-std 1 --digits 30 --derive
"""


@computing_command(app, "initial-loss", epilog=EXAMPLES)
def initial_loss(
    vocab: Vocab = DEFAULTS["vocab"],
    logit_std: LogitStd = DEFAULTS["logit_std"],
    *,
    digits: int,
    derive: bool,
) -> Computation:
    """Expected cross-entropy at init of V iid N(0, S^2) logits: E[log sum exp(z_i)], proven (not ln V + S^2/2)."""
    from ...computations.initial_loss import initial_loss

    return initial_loss(vocab=vocab, logit_std=logit_std, digits=digits, derive=derive)
