"""Every figure of an init report as Arb balls: the forward and backward pass (``forward``) with
the truncation ratios of the replayed init (``tables``) and the expected initial loss
(``engine.logsumexp``, as ``initial-loss``)."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from flint import arb

from ...engine.logsumexp import expected_logsumexp_variance
from .forward import propagate
from .rules import Group
from .spec import Model
from .tables import truncation_ratio


def figures_of(
    model: Model, roles: dict[str, Group], bits: int, digits: int, scale2: Fraction | None = None
) -> dict[str, Any]:
    """Every figure of the report as balls (lists per layer) at Arb precision ``bits``."""
    layers = model.decoder_layers or model.layers
    gamma = _gammas(roles, layers)
    figures = propagate(model, roles, gamma, max(digits, int(bits * 0.30103)), _gain2(model), scale2)
    ln_v = arb(model.vocab).log()
    loss = expected_logsumexp_variance(model.vocab, figures.output_variance, bits + 4)
    out = {
        "initial_loss": loss,
        "ln_vocab": ln_v,
        "excess": loss - ln_v,
        "output_logit_std": figures.output_variance.sqrt(),
        "final_residual_second_moment": figures.residual[-1],
        "residual_growth": figures.residual[-1] / figures.residual[0],
        "attention_logit_std": figures.logit_std[0],
        "gradient_ratio": figures.gradient[0],
        "residual_second_moment": figures.residual,
        "attention_variance": figures.attention,
        "cross_attention_variance": figures.cross,
        "mlp_variance": figures.mlp,
        "attention_logit_stds": figures.logit_std,
        "attention_output_variance": figures.value_variance,
        "gradient_second_moment": figures.gradient,
    }
    return {name: value for name, value in out.items() if not (isinstance(value, list) and not value)}


def _gain2(model: Model) -> Fraction:
    """The norms' gain squared: T5's layer norms are filled with initializer_factor."""
    if model.family == "t5":
        return Fraction(model.settings["initializer_factor"]) ** 2
    return Fraction(1)


def _gammas(roles: dict[str, Group], layers: int) -> dict[tuple[str, int], Any]:
    """The truncation's variance ratio of each group at each layer (1 without truncation)."""
    out: dict[tuple[str, int], Any] = {}
    for role, group in roles.items():
        for layer in range(layers if group.depth != "none" else 1):
            ratio = truncation_ratio(group, layer, layers)
            out[(role, layer)] = arb(1) if ratio is None else ratio[0]
        if group.depth == "none":
            for layer in range(1, layers):
                out[(role, layer)] = out[(role, 0)]
    return out
