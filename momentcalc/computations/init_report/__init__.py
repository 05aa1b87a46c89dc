"""``init-report CONFIG``: a whole transformer's initialization, checked before the first step.

From a Hugging Face ``config.json`` or a model description (``spec``), the init code of a library
replayed per parameter group (``rules``: the call, the std actually sampled, the truncation in σ
and whether it fires, the depth scaling), the signal at infinite width through every layer and
back (``forward``), the output logits' std and the expected initial loss (``engine.logsumexp``,
as ``initial-loss``), and checks with verdicts (``checks``). ``simulate`` draws the network at a
small width with numpy and reports Monte Carlo figures beside the predictions; ``width`` gives
the multipliers of a parametrization (SP, NTK, μP, u-μP) at the model's width against a base.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from ...engine.numbers import Number
from ...tier import Computation, InputError, check_digits, prove, quantities, whole
from .checks import verdicts
from .figures import figures_of
from .rules import check_library, groups
from .spec import key_line, read_config
from .tables import parameter_rows

# CLI command -> the function of this module that computes it (the table ``momentcalc.command_table`` reads).
COMMANDS = {"init-report": "init_report"}

# The residual stream may grow this many times over the embeddings before the check warns.
MAX_GROWTH = 100

ASSUMPTIONS = (
    "assumed: infinite width, independent Gaussian weights of the variance the init code samples "
    "(truncation included), independent token embeddings and positions independent at every layer (the "
    "covariance between positions that attention's averaging and the activation's nonzero mean build up is "
    "left out: it raises later layers' attention branch a little), attention uniform over the keys a query "
    "sees (its logits' std is reported to check that), norms at gain 1 (T5: its factor), output logits "
    "independent of each other and of the target (a tied head shifts each input token's own logit, one in "
    "V); the gradient follows the value path of attention"
)

DESCRIPTIONS = {
    "initial_loss": "expected cross-entropy at init: E[log sum_i exp(z_i)] for the output logits (as initial-loss)",
    "ln_vocab": "ln(vocab): the loss of uniform predictions",
    "excess": "initial_loss - ln(vocab)",
    "output_logit_std": "std of each output logit at init",
    "final_residual_second_moment": "the residual stream's second moment after the last layer (per coordinate)",
    "residual_growth": "final_residual_second_moment / the embeddings' second moment",
    "attention_logit_std": "std of an attention logit (per head) in the first layer",
    "gradient_ratio": "the gradient's second moment entering the first layer / entering the last",
    "residual_second_moment": "per layer: the residual stream's second moment entering it (last: after it)",
    "attention_variance": "per layer: the attention branch's output variance",
    "cross_attention_variance": "per layer: the cross-attention branch's output variance",
    "mlp_variance": "per layer: the MLP branch's output variance",
    "attention_logit_stds": "per layer: the attention logits' std per head",
    "attention_output_variance": "per layer: the attention output's variance before the output projection",
    "gradient_second_moment": "per layer: the gradient's second moment entering it, relative to the last layer's",
}
LAYER_COLUMNS = (
    "residual_second_moment",
    "attention_variance",
    "cross_attention_variance",
    "mlp_variance",
    "attention_logit_stds",
    "attention_output_variance",
    "gradient_second_moment",
)


def init_report(
    config: object,
    *,
    library: object = None,
    max_growth: object = MAX_GROWTH,
    simulate: bool = False,
    seed: object = None,
    trials: object = None,
    simulate_width: object = None,
    parametrization: object = None,
    base_width: object = None,
    digits: int = 15,
    derive: bool = False,
) -> Computation:
    """The init report of the model in the file ``config`` (a Hugging Face config.json, or a
    description in JSON, TOML or YAML), the init code of ``library`` (transformers by default)
    replayed, every figure proven to ``digits`` digits under the stated assumptions."""
    digits = check_digits(digits)
    model, text = read_config(config)
    chosen = check_library(model, library)
    growth_limit = whole(max_growth, "max_growth")
    drawn = groups(model, chosen)
    roles = {g.role: g for g in drawn}
    layers = model.decoder_layers or model.layers
    width_plan = None
    if parametrization is not None or base_width is not None:
        from .width import plan

        width_plan = plan(model, drawn, parametrization, base_width)

    def evaluate(bits: int) -> dict[str, Any]:
        scale2 = None if width_plan is None else width_plan.scale2
        return figures_of(model, roles, bits, digits, scale2)

    fields = prove(evaluate, digits)
    results = quantities(DESCRIPTIONS, {name: fields[name] for name in DESCRIPTIONS if name in fields})
    found = {q.name: q for q in results}
    parameters = parameter_rows(model, drawn, layers, digits)
    checks = verdicts(model, drawn, found, parameters, text, growth_limit)
    if width_plan is not None:
        line = key_line(text, model.keys.get("width", ""))
        checks += [
            {
                "check": "width",
                "verdict": "warn",
                "parameter": c["role"],
                "message": c["message"],
                "line": line,
            }
            for c in width_plan.contradictions
        ]
    notes = [
        ASSUMPTIONS,
        f"init code replayed: {chosen} (each group's source file and function: the parameters table)",
    ]
    if model.decoder_layers:
        notes.append(
            "an encoder-decoder: the decoder stack (which makes the logits) is reported; the encoder's output "
            "enters its cross-attention at the encoder's final norm"
        )
    extra: dict[str, Any] = {"parameters": parameters, "verdicts": checks}
    if width_plan is not None:
        extra["width"] = width_plan.rows
        notes += list(width_plan.notes)
    inputs: dict[str, Number | str | None] = {
        "config": str(config),
        "family": model.family,
        "library": chosen,
        "vocab": Fraction(model.vocab),
        "width": Fraction(model.width),
        "layers": Fraction(layers),
        "heads": Fraction(model.heads),
        "seq_len": Fraction(model.seq_len),
        "max_growth": growth_limit,
    }
    if simulate or seed is not None or trials is not None or simulate_width is not None:
        if not simulate:
            raise InputError(
                "{seed}, {trials} and {simulate_width} apply only with {simulate}",
                param="simulate",
                params=("seed", "trials", "simulate_width"),
            )
        from .simulate import simulated_results

        more, rows, sim_inputs, sim_notes = simulated_results(
            model, chosen, seed, trials, simulate_width, digits
        )
        results = (*results, *more)
        extra["simulation"] = rows
        inputs.update(sim_inputs)
        notes += sim_notes
    if width_plan is not None:
        inputs.update(width_plan.inputs)
    return Computation(
        "init_report",
        inputs,
        digits,
        results,
        notes=tuple(notes),
        extra=extra,
        columns=tuple(name for name in LAYER_COLUMNS if name in found),
    )


__all__ = ["init_report"]
