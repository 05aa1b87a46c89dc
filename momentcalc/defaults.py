"""Default inputs of every computation, in one place: the Python functions take them as their
keyword defaults and the command line shows and passes the same ones. Numbers are exact
decimal text (read like a user's ``--std 0.02``); simulation defaults sit with their counts."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

TRUNCNORM = {"low": "-2", "high": "2", "mean": "0", "std": "1"}
ACTIVATION_MOMENT = {"mean": "0", "std": "1"}
SELU_SOLVE = {"target_mean": "0", "target_var": "1", "input_mean": "0", "input_std": "1"}
POSTNORM_DECAY = {"layers": "12", "sigma": "1", "threshold": "0.01", "scheme": "post"}
GAU_SCALE: dict[str, Any] = {
    "s": "128",
    "n": "512",
    "d": "768",
    "e": "1536",
    "activation": "swish",
    "seed": 0,
    "trials": 3,
}
INIT = {"scheme": "lecun", "distribution": "normal", "activation": "relu"}
MEANFIELD = {"sigma_w2": "1", "sigma_b2": "0", "q0": "1"}
KERNEL = {"rho": "0.5", "q": "1", "sigma_w2": "1", "sigma_b2": "0"}
HERMITE = {"terms": "8"}
TAT = {"depth": "1"}
INITIAL_LOSS = {"vocab": "32000", "logit_std": "1"}
ATTENTION: dict[str, Any] = {"d": "64", "q_std": "1", "k_std": "1", "seed": 0, "trials": 1000}
DIGITS = 15

# Conventions (not computed constants): BERT's initializer std, and the cut-off of
# tf.random.truncated_normal and BERT's initializer in units of the std passed (±2σ).
BERT_STD = Fraction(1, 50)
TRUNCATION = 2
