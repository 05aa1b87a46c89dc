"""Width tables: what a parametrization asks of each parameter group at width W against a base
width W0 (m = W/W0), and whether the replayed init code does it.

abc-parametrizations (Yang & Hu, 2021, "Feature Learning in Infinite-Width Neural Networks",
Tensor Programs IV; Yang et al., 2022, "Tensor Programs V: Tuning Large Neural Networks via
Zero-Shot Hyperparameter Transfer", Table 3) and u-μP (Blake et al., 2024, "u-μP: The
Unit-Scaled Maximal Update Parametrization", Table 2). Weights are input (the embeddings: fan-in
the vocabulary, fixed), hidden (q, k, v, o, MLP: fan-in ∝ width) or output (the head). Multipliers
of the init std, of the forward pass (a constant the layer's output is multiplied by), and of the
learning rate (SGD and Adam), each a power of m:

    sp    init 1, m^-1/2, m^-1/2   forward 1, 1, 1              SGD 1, 1, 1        Adam 1, 1, 1
    ntk   init 1, 1, 1             forward 1, m^-1/2, m^-1/2    SGD 1, 1, 1        Adam -
    mup   init 1, m^-1/2, m^-1     forward 1, 1, 1              SGD m, 1, m^-1     Adam 1, m^-1, m^-1
    umup  init 1, 1, 1             forward 1, m^-1/2, m^-1      SGD -              Adam m^-1/2, m^-1/2, 1

with attention logits scaled by 1/d_head under μP and u-μP (1/√d_head otherwise). The report's
forward figures then use that attention scale; the check ``width`` compares the init code's own
std at W and at W0 (the model narrowed to W0, heads of the same dimension) with what the
parametrization asks.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, NamedTuple

from ...engine.numbers import Number, to_text
from ...errors import InputError
from ...tier import whole
from .rules import Group, groups
from .spec import Model

PARAMETRIZATIONS = ("sp", "ntk", "mup", "umup")
ALIASES = {"ntp": "ntk", "μp": "mup", "u-mup": "umup", "u-μp": "umup", "standard": "sp"}
CATEGORY = {"embedding": "input", "position": "input", "token_type": "input", "head": "output"}
# exponents of m: (init std, forward, SGD LR, Adam LR) per category (input, hidden, output); None: n/a
TABLE: dict[str, dict[str, tuple[Fraction | None, ...]]] = {
    "sp": {
        "input": (Fraction(0), Fraction(0), Fraction(0), Fraction(0)),
        "hidden": (Fraction(-1, 2), Fraction(0), Fraction(0), Fraction(0)),
        "output": (Fraction(-1, 2), Fraction(0), Fraction(0), Fraction(0)),
    },
    "ntk": {
        "input": (Fraction(0), Fraction(0), Fraction(0), None),
        "hidden": (Fraction(0), Fraction(-1, 2), Fraction(0), None),
        "output": (Fraction(0), Fraction(-1, 2), Fraction(0), None),
    },
    "mup": {
        "input": (Fraction(0), Fraction(0), Fraction(1), Fraction(0)),
        "hidden": (Fraction(-1, 2), Fraction(0), Fraction(0), Fraction(-1)),
        "output": (Fraction(-1), Fraction(0), Fraction(-1), Fraction(-1)),
    },
    "umup": {
        "input": (Fraction(0), Fraction(0), None, Fraction(-1, 2)),
        "hidden": (Fraction(0), Fraction(-1, 2), None, Fraction(-1, 2)),
        "output": (Fraction(0), Fraction(-1), None, Fraction(0)),
    },
}


class Plan(NamedTuple):
    rows: list[dict[str, str]]
    notes: tuple[str, ...]
    inputs: dict[str, Number | str]
    scale2: Fraction | None
    contradictions: list[dict[str, Any]]


def _power(exponent: Fraction | None, m: Fraction) -> str:
    if exponent is None:
        return "n/a"
    if exponent == 0:
        return "1"
    value = float(m) ** float(exponent)
    return f"m^{to_text(exponent)} = {value:.6g}"


def plan(model: Model, drawn: list[Group], parametrization: object, base_width: object) -> Plan:
    if parametrization is None or base_width is None:
        missing = "base_width" if base_width is None else "parametrization"
        raise InputError(
            "{parametrization} and {base_width} go together: give both",
            param=missing,
            params=("parametrization", "base_width"),
        )
    name = str(parametrization).strip().lower()
    name = ALIASES.get(name, name)
    if name not in PARAMETRIZATIONS:
        raise InputError(
            param="parametrization", allowed="one of sp, ntk (also ntp), mup, umup", got=repr(parametrization)
        )
    w0 = int(whole(base_width, "base_width"))
    m = Fraction(model.width, w0)
    base = _narrowed(model, w0)
    library = _library_of(drawn)
    base_groups = {g.role: g for g in groups(base, library)} if library else {}
    rows, contradictions = [], []
    for group in drawn:
        category = CATEGORY.get(group.role, "hidden")
        init, forward, sgd, adam = TABLE[name][category]
        own = "?"
        if group.role in base_groups:
            ratio = group.variance / base_groups[group.role].variance
            # the std's exponent of m, to the nearest half (the rules are powers of the width)
            own_exponent = (
                Fraction(round(math.log(float(ratio)) / math.log(float(m))), 2) if m != 1 else Fraction(0)
            )
            own = _power(own_exponent, m) if m != 1 else "1"
            if m != 1 and init is not None and own_exponent != init:
                contradictions.append(
                    {
                        "role": group.role,
                        "message": f"{group.role} ({category}): the init code's std scales as {own} from width "
                        f"{w0} to {model.width}; {name} asks {_power(init, m)}",
                    }
                )
        rows.append(
            {
                "group": group.role,
                "kind": category,
                "init_std": _power(init, m),
                "code_init_std": own,
                "forward": _power(forward, m),
                "lr_sgd": _power(sgd, m),
                "lr_adam": _power(adam, m),
            }
        )
    scale2 = Fraction(1, model.head_dim**2) if name in ("mup", "umup") else None
    if scale2 is not None and model.attention_scale != "1/d":
        contradictions.append(
            {
                "role": "q, k",
                "message": f"the model scales attention logits by {model.attention_scale} (d = d_head); {name} asks 1/d",
            }
        )
    notes = [
        f"width tables: {name} at width {model.width} against base width {w0} (m = {to_text(m)}); "
        "init_std, forward and the learning rates are multipliers of the base width's; code_init_std is how the "
        "replayed init code's std changes from the base width to this one",
    ]
    if scale2 is not None:
        notes.append(f"{name} scales attention logits by 1/d_head: the forward figures use it")
    if name == "ntk":
        notes.append(
            "ntk: the NTK parametrization is stated for SGD (Yang & Hu, 2021, Tensor Programs IV); no Adam "
            "rule is published for it, so its Adam multipliers are n/a"
        )
    if name == "umup":
        notes.append(
            "umup: Adam's multipliers as Blake et al., 2024, Table 2 state them (Graphcore's unit-scaling "
            "library, optim.lr_scale_func_adam: input and hidden 1/sqrt(fan-in ratio), output 1); u-μP "
            "gives no SGD rule (n/a)"
        )
    if name == "mup":
        notes.append(
            "μP's output row in the form of Tensor Programs V, Table 3 (init std m^-1); the mup package's "
            "equivalent multiplies the head's output by 1/m instead (MuReadout), keeping its init"
        )
    return Plan(
        rows, tuple(notes), {"parametrization": name, "base_width": Fraction(w0)}, scale2, contradictions
    )


def _narrowed(model: Model, width: int) -> Model:
    """The model at ``width`` (heads of the same dimension, feed-forward in proportion)."""
    head_dim = min(model.head_dim, width)
    heads = max(1, round(model.heads * width / model.width))
    kv = max(1, round(model.kv_heads * width / model.width))
    return model._replace(
        width=width,
        heads=heads,
        kv_heads=kv,
        head_dim=head_dim,
        ffn=max(1, round(model.ffn * width / model.width)),
    )


def _library_of(drawn: list[Group]) -> str | None:
    source = drawn[0].source if drawn else ""
    for name in ("transformers", "nanoGPT", "torchtitan", "OLMo", "Megatron-LM"):
        if source.startswith(name):
            return {"nanoGPT": "nanogpt", "OLMo": "olmo", "Megatron-LM": "megatron"}.get(name, name)
    if source.startswith("the description"):
        return "transformers"
    return None
