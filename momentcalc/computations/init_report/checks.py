"""The report's checks, each a verdict (ok, warn, wrong) naming the parameter and its reasoning.

* ``initial_loss``: the expected initial loss against ln V (excess ≤ 1 nat ok, ≤ 5 warn, beyond
  wrong: the model starts tens of nats above a uniform guess, as an untied T5 lm_head drawn at std 1
  does, huggingface/transformers PR #26441).
* ``output_logit_std``: the output logits' std S (≤ 2 ok; past √(2 ln V), where the loss grows like
  S·√(2 ln V) instead of S²/2, wrong; between, warn).
* ``truncation``: a truncation whose bounds exclude less than 1e-30 of the normal never fires
  (``trunc_normal_``'s absolute ±2 at std 0.02 = ±100σ, pytorch/torchtitan #1257): warn.
* ``depth_scaling``: the projections that write into the residual stream (attention output, MLP
  down) scaled alike; an input projection (q, k, v, up, gate) depth-scaled like them is warned
  (torchtitan's w3); one output projection scaled and not the other is wrong.
* ``residual_growth``: the residual stream's second moment after the last layer over the
  embeddings' (pre-norm): beyond ``max_growth`` warn (GPT-2 without its 1/√(2L)).
* ``tied_head``: an untied output head drawn at the embedding's scale (std ≫ 1/√d) where a tied
  model rescales: wrong; a library that ties the head of a config that unties it: warn; a tied
  head whose input token's own logit, |e|²/rms(x_L) ≈ σ_e²·d/√q_L, adds more than 0.01 nats to the
  loss (about log(1 + (e^shift − e^{S²/2})/(V·e^{S²/2}))): warn (the loss figure assumes
  independent logits).
* ``attention_logits``: attention logits of std > 1 at init: attention is not uniform, as the
  forward figures assume: warn.
"""

from __future__ import annotations

import math
from typing import Any

from ...result import Quantity
from .rules import Group
from .spec import Model, head_rescale2, key_line

OUTPUT_ROLES = ("o", "down")
INPUT_ROLES = ("q", "k", "v", "up", "gate")


def _float(quantity: Quantity) -> float:
    return float(quantity.value)  # type: ignore[arg-type]  # a scalar result (Quantity.value may be a list)


def _fmt(x: float) -> str:
    return f"{x:.4g}"


def verdicts(
    model: Model,
    drawn: list[Group],
    found: dict[str, Quantity],
    parameters: list[dict[str, str]],
    text: str,
    max_growth: Any,
) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    std_key = model.keys.get("std", "")

    def add(check: str, verdict: str, parameter: str, message: str, key: str = "") -> None:
        out.append(
            {
                "check": check,
                "verdict": verdict,
                "parameter": parameter,
                "message": message,
                "line": key_line(text, key) if key else 1,
            }
        )

    head_key = "tie_word_embeddings" if "tie_word_embeddings" in text else std_key
    loss, ln_v = _float(found["initial_loss"]), _float(found["ln_vocab"])
    excess = loss - ln_v
    s = _float(found["output_logit_std"])
    ceiling = math.sqrt(2 * math.log(model.vocab)) if model.vocab > 1 else 0.0
    verdict = "ok" if excess <= 1 else "warn" if excess <= 5 else "wrong"
    add(
        "initial_loss",
        verdict,
        "head",
        f"expected initial loss {_fmt(loss)} nats, {_fmt(excess)} above ln V = {_fmt(ln_v)} "
        f"(output logits of std {_fmt(s)})",
        head_key,
    )
    verdict = "ok" if s <= 2 else "wrong" if s > ceiling else "warn"
    add(
        "output_logit_std",
        verdict,
        "head",
        f"output logits of std {_fmt(s)}"
        + (
            f": beyond sqrt(2 ln V) = {_fmt(ceiling)} the largest logit dominates softmax at init"
            if s > ceiling
            else ""
        ),
        head_key,
    )
    for group, row in zip(drawn, parameters):
        if group.truncation is None or group.tied:
            continue
        if row["fires"] == "never":
            add(
                "truncation",
                "warn",
                group.role,
                f"{group.call}: the bounds sit at {row['truncation']} and never fire (the values are plain "
                "normal); absolute bounds were probably meant relative to the std (a=-2*std, b=2*std)",
                std_key,
            )
        else:
            add(
                "truncation",
                "ok",
                group.role,
                f"truncated at {row['truncation']}: std {row['nominal_std']} samples {row['std']}",
                std_key,
            )
    roles = {g.role: g for g in drawn}
    scaled_out = {r: roles[r].depth for r in OUTPUT_ROLES if r in roles}
    kinds = set(scaled_out.values())
    layers_key = model.keys.get("layers", "")
    if len(kinds) > 1:
        add(
            "depth_scaling",
            "wrong",
            "o" if scaled_out.get("o") == "none" else "down",
            "the residual output projections are depth-scaled differently: "
            + ", ".join(f"{r}: {k}" for r, k in scaled_out.items()),
            layers_key,
        )
    scaled_in = [r for r in INPUT_ROLES if r in roles and roles[r].depth != "none"]
    if scaled_in:
        add(
            "depth_scaling",
            "warn",
            scaled_in[0],
            f"{', '.join(scaled_in)} depth-scaled like the output projections: only the projections that "
            "write into the residual stream (o, down) are usually scaled",
            layers_key,
        )
    if len(kinds) <= 1 and not scaled_in:
        kind = next(iter(kinds), "none")
        add(
            "depth_scaling",
            "ok",
            "o, down",
            "the residual output projections are depth-scaled alike"
            + ("" if kind == "none" else f" ({kind})")
            if kind != "none"
            else "no depth scaling (o and down drawn like the other projections)",
            layers_key,
        )
    growth = _float(found["residual_growth"])
    if model.placement == "pre":
        limit = float(max_growth)
        add(
            "residual_growth",
            "warn" if growth > limit else "ok",
            "o, down",
            f"the residual stream's second moment grows {_fmt(growth)}x over the embeddings' across "
            f"{model.decoder_layers or model.layers} layers (warned beyond {_fmt(limit)}x)",
            layers_key,
        )
    head = roles.get("head")
    if head is not None and not head.tied and model.width * head.variance > 4:
        add(
            "tied_head",
            "wrong",
            "head",
            f"the untied output head is drawn with std {_fmt(math.sqrt(float(head.variance)))}, the scale of an "
            f"embedding, and nothing rescales it: logits of std {_fmt(s)} (a tied model would rescale)",
            head_key,
        )
    elif head is not None and head.tied and not model.tied:
        add(
            "tied_head", "warn", "head", "the config unties the head but the library's code ties it", head_key
        )
    elif head is not None and head.tied and model.placement == "pre" and "transform" not in roles:
        # each input token's own logit: e·h = |e|²/rms(x_L) ≈ σ_e²·d/√q_L at infinite width, times
        # the model's rescale before the head (T5: d_model^-0.5)
        shift = (
            float(roles["embedding"].variance)
            * model.width
            * math.sqrt(head_rescale2(model))
            / math.sqrt(_float(found["final_residual_second_moment"]))
        )
        # about what it adds to the loss: one logit of V moved from ~N(0, S²) to the shift
        typical = s * s / 2
        impact = math.log1p(
            max(0.0, math.exp(min(shift, 700.0)) - math.exp(typical)) / (model.vocab * math.exp(typical))
        )
        add(
            "tied_head",
            "warn" if impact > 0.01 else "ok",
            "head",
            f"the head is tied: each input token's own logit sits near {_fmt(shift)} (|e|^2/rms of the final "
            f"stream), adding about {impact:.2g} nats to the loss"
            + (" (the loss figure assumes independent logits)" if impact > 0.01 else ""),
            head_key,
        )
    else:
        add(
            "tied_head",
            "ok",
            "head",
            "the output head " + ("is tied" if model.tied else "is drawn at its own scale"),
        )
    first = _float(found["attention_logit_std"])
    add(
        "attention_logits",
        "warn" if first > 1 else "ok",
        "q, k",
        f"attention logits of std {_fmt(first)} per head at init"
        + (": attention is far from uniform, which the forward figures assume" if first > 1 else ""),
        std_key,
    )
    return out
