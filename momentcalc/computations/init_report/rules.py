"""Whose init code is replayed (``library``): for each parameter group of a model, the call that
code makes, the variance of the normal it draws from (exact: a rational), its truncation and the
depth scaling it applies, each with the source file and function it was read from.

Roles (the forward pass reads them): ``embedding``, ``position``, ``token_type``, ``q``, ``k``,
``v``, ``o``, ``up``, ``gate``, ``down``, ``cross_q``/``cross_k``/``cross_v``/``cross_o`` (an
encoder-decoder's cross-attention), ``transform`` (BERT's prediction head), ``head``, ``norms``.
A group's variance at layer l (0-based) is ``variance·depth_factor(l)``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from typing import NamedTuple

from ...engine.numbers import to_text
from ...errors import InputError
from .spec import Model

LIBRARIES = ("transformers", "nanogpt", "torchtitan", "olmo", "megatron")
NANOGPT_STD = Fraction(1, 50)  # karpathy/nanoGPT model.py, GPT._init_weights: std=0.02
TORCHTITAN_STD = Fraction(1, 50)  # pytorch/torchtitan llama3 model.py: std=0.02 for wq, wk, wv, w1
TORCHTITAN_ABSOLUTE = Fraction(2)  # torch.nn.init.trunc_normal_'s defaults a=-2, b=2 (absolute)
TORCHTITAN_OUTPUT_CUTOFF = Fraction(3)  # cutoff_factor = 3 for the output layer
MITCHELL_CUTOFF = Fraction(3)  # OLMo's mitchell init: trunc_normal_(a=-3*std, b=3*std)
MEGATRON_STD = Fraction(1, 50)  # Megatron-LM TransformerConfig.init_method_std default 0.02


class Group(NamedTuple):
    """One parameter group as the library initializes it."""

    role: str
    call: str  # the call as the code writes it
    variance: Fraction  # the nominal std², before depth scaling and truncation
    truncation: tuple[str, Fraction] | None  # ("sigma", c): ±c·std; ("absolute", a): ±a
    depth: str  # none | 1/(2L) | 1/(2(l+1)) | 1/L | 1/(l+1): the factor on the variance
    source: str  # "library, file, function"
    tied: bool = False  # drawn by another group (a tied head): not drawn itself

    def depth_factor(self, layer: int, layers: int) -> Fraction:
        if self.depth == "1/(2L)":
            return Fraction(1, 2 * layers)
        if self.depth == "1/(2(l+1))":
            return Fraction(1, 2 * (layer + 1))
        if self.depth == "1/L":
            return Fraction(1, layers)
        if self.depth == "1/(l+1)":
            return Fraction(1, layer + 1)
        return Fraction(1)

    def variance_at(self, layer: int, layers: int) -> Fraction:
        return self.variance * self.depth_factor(layer, layers)


def _std_text(variance: Fraction) -> str:
    n, d = variance.numerator, variance.denominator
    rn, rd = math.isqrt(n), math.isqrt(d)
    if rn * rn == n and rd * rd == d:
        return to_text(Fraction(rn, rd))
    return f"sqrt({to_text(variance)})"


def _normal(
    role: str, variance: Fraction, source: str, depth: str = "none", call: str | None = None
) -> Group:
    text = call or f"normal_(mean=0.0, std={_std_text(variance)})"
    return Group(role, text, variance, None, depth, source)


def groups(model: Model, library: str) -> list[Group]:
    """The parameter groups of ``model`` as ``library``'s init code draws them."""
    if library == "transformers":
        if model.family == "custom":
            return _custom(model)
        return _TRANSFORMERS[model.family](model)
    return _OTHERS[library](model)


def _with_head(model: Model, out: list[Group], head: Group) -> list[Group]:
    if model.tied:
        embedding = next(g for g in out if g.role == "embedding")
        out.append(
            Group(
                "head",
                f"tied to the embedding ({embedding.call})",
                embedding.variance,
                embedding.truncation,
                "none",
                head.source,
                tied=True,
            )
        )
    else:
        out.append(head)
    return out


def _gpt2(model: Model) -> list[Group]:
    std2 = Fraction(model.settings["initializer_range"]) ** 2
    src = "transformers, models/gpt2/modeling_gpt2.py, GPT2PreTrainedModel._init_weights"
    scaled = f"{src} (c_proj.weight: std = initializer_range/sqrt(2*n_layer))"
    out = [
        _normal("embedding", std2, src),
        _normal("position", std2, src),
        _normal("q", std2, src),
        _normal("k", std2, src),
        _normal("v", std2, src),
        _normal("o", std2, scaled, "1/(2L)"),
        _normal("up", std2, src),
        _normal("down", std2, scaled, "1/(2L)"),
    ]
    return _with_head(model, out, _normal("head", std2, src))


def _llama(model: Model) -> list[Group]:
    std2 = Fraction(model.settings["initializer_range"]) ** 2
    name = {"llama": "llama", "mistral": "mistral", "qwen2": "qwen2"}[model.family]
    cls = {"llama": "Llama", "mistral": "Mistral", "qwen2": "Qwen2"}[model.family]
    src = f"transformers, models/{name}/modeling_{name}.py, {cls}PreTrainedModel._init_weights"
    out = [_normal(role, std2, src) for role in ("embedding", "q", "k", "v", "o", "gate", "up", "down")]
    return _with_head(model, out, _normal("head", std2, src))


def _t5(model: Model) -> list[Group]:
    f2 = Fraction(model.settings["initializer_factor"]) ** 2
    d, dkv, h, dff = model.width, model.head_dim, model.heads, model.ffn
    src = "transformers, models/t5/modeling_t5.py, T5PreTrainedModel._init_weights"
    out = [
        _normal("embedding", f2, src, call="shared: normal_(mean=0.0, std=factor*1.0)"),
        _normal("q", f2 / (d * dkv), src, call="q: normal_(std=factor*(d_model*d_kv)**-0.5)"),
        _normal("k", f2 / d, src, call="k: normal_(std=factor*d_model**-0.5)"),
        _normal("v", f2 / d, src, call="v: normal_(std=factor*d_model**-0.5)"),
        _normal("o", f2 / (h * dkv), src, call="o: normal_(std=factor*(n_heads*d_kv)**-0.5)"),
        _normal(
            "cross_q", f2 / (d * dkv), src, call="EncDecAttention.q: normal_(std=factor*(d_model*d_kv)**-0.5)"
        ),
        _normal("cross_k", f2 / d, src, call="EncDecAttention.k: normal_(std=factor*d_model**-0.5)"),
        _normal("cross_v", f2 / d, src, call="EncDecAttention.v: normal_(std=factor*d_model**-0.5)"),
        _normal(
            "cross_o", f2 / (h * dkv), src, call="EncDecAttention.o: normal_(std=factor*(n_heads*d_kv)**-0.5)"
        ),
    ]
    if model.gated:
        out.append(_normal("gate", f2 / d, src, call="wi_0: normal_(std=factor*d_model**-0.5)"))
        out.append(_normal("up", f2 / d, src, call="wi_1: normal_(std=factor*d_model**-0.5)"))
    else:
        out.append(_normal("up", f2 / d, src, call="wi: normal_(std=factor*d_model**-0.5)"))
    out.append(_normal("down", f2 / dff, src, call="wo: normal_(std=factor*d_ff**-0.5)"))
    if model.tied:
        out.append(
            Group(
                "head",
                "tied to shared; T5ForConditionalGeneration.forward multiplies the decoder output by d_model**-0.5",
                f2,
                None,
                "none",
                "transformers, models/t5/modeling_t5.py, T5ForConditionalGeneration.forward",
                tied=True,
            )
        )
    else:
        out.append(
            _normal(
                "head",
                f2,
                f"{src} (lm_head when not tie_word_embeddings; no d_model**-0.5 rescale of the output then: "
                "T5ForConditionalGeneration.forward)",
                call="lm_head: normal_(mean=0.0, std=factor*1.0)",
            )
        )
    return out


def _bert(model: Model) -> list[Group]:
    std2 = Fraction(model.settings["initializer_range"]) ** 2
    src = "transformers, models/bert/modeling_bert.py, BertPreTrainedModel._init_weights"
    out = [
        _normal(role, std2, src)
        for role in ("embedding", "position", "token_type", "q", "k", "v", "o", "up", "down", "transform")
    ]
    return _with_head(model, out, _normal("head", std2, src))


def _gpt_neox(model: Model) -> list[Group]:
    std2 = Fraction(model.settings["initializer_range"]) ** 2
    src = "transformers, models/gpt_neox/modeling_gpt_neox.py, GPTNeoXPreTrainedModel._init_weights"
    out = [_normal(role, std2, src) for role in ("embedding", "q", "k", "v", "o", "up", "down")]
    return _with_head(model, out, _normal("head", std2, src))


def _custom(model: Model) -> list[Group]:
    init = model.init
    assert init is not None
    src = "the description's [init] table"
    std2, emb2 = init.std**2, init.embedding_std**2
    depth = {"none": "none", "1/sqrt(2L)": "1/(2L)", "1/sqrt(2(l+1))": "1/(2(l+1))", "1/sqrt(L)": "1/L"}[
        init.residual_scaling
    ]
    trunc = init.truncation
    call = "trunc_normal_" if trunc else "normal_"
    roles = ["q", "k", "v", "o", *(["gate"] if model.gated else []), "up", "down"]
    out = [Group("embedding", f"{call}(std={_std_text(emb2)})", emb2, trunc, "none", src)]
    if model.positions == "learned":
        out.append(Group("position", f"{call}(std={_std_text(emb2)})", emb2, trunc, "none", src))
    for role in roles:
        scaled = depth if role in ("o", "down") else "none"
        out.append(Group(role, f"{call}(std={_std_text(std2)})", std2, trunc, scaled, src))
    head2 = std2 if init.head_std is None else init.head_std**2
    return _with_head(model, out, Group("head", f"{call}(std={_std_text(head2)})", head2, trunc, "none", src))


def _nanogpt(model: Model) -> list[Group]:
    std2 = NANOGPT_STD**2
    src = "nanoGPT, model.py, GPT._init_weights"
    scaled = "nanoGPT, model.py, GPT.__init__ (c_proj.weight: std=0.02/math.sqrt(2 * config.n_layer))"
    roles = ["embedding", *(["position"] if model.positions == "learned" else []), "q", "k", "v"]
    out = [_normal(role, std2, src) for role in roles]
    out.append(_normal("o", std2, scaled, "1/(2L)"))
    if model.gated:
        out.append(_normal("gate", std2, src))
    out.append(_normal("up", std2, src))
    out.append(_normal("down", std2, scaled, "1/(2L)"))
    embedding = out[0]
    out.append(
        Group(
            "head",
            "tied: transformer.wte.weight = lm_head.weight",
            embedding.variance,
            None,
            "none",
            "nanoGPT, model.py, GPT.__init__",
            tied=True,
        )
    )
    return out


def _torchtitan(model: Model) -> list[Group]:
    std2 = TORCHTITAN_STD**2
    base = "torchtitan, torchtitan/models/llama3/model/model.py"
    absolute = ("absolute", TORCHTITAN_ABSOLUTE)
    call = "trunc_normal_(mean=0.0, std=0.02)"
    out_call = "trunc_normal_(mean=0.0, std=init_std), init_std = 0.02/(2*(layer_id+1))**0.5"
    out = [
        Group(
            "embedding",
            "normal_(tok_embeddings.weight)",
            Fraction(1),
            None,
            "none",
            f"{base}, Transformer.init_weights",
        ),
    ]
    for role in ("q", "k", "v"):
        out.append(Group(role, call, std2, absolute, "none", f"{base}, Attention.init_weights"))
    out.append(Group("o", out_call, std2, absolute, "1/(2(l+1))", f"{base}, Attention.init_weights"))
    gate_role, up_role = ("gate", "up") if model.gated else ("up", None)
    out.append(Group(gate_role, "w1: " + call, std2, absolute, "none", f"{base}, FeedForward.init_weights"))
    if up_role:
        out.append(
            Group(
                up_role, "w3: " + out_call, std2, absolute, "1/(2(l+1))", f"{base}, FeedForward.init_weights"
            )
        )
    out.append(
        Group("down", "w2: " + out_call, std2, absolute, "1/(2(l+1))", f"{base}, FeedForward.init_weights")
    )
    head2 = Fraction(1, model.width)
    out.append(
        Group(
            "head",
            "trunc_normal_(std=dim**-0.5, a=-3*std, b=3*std)",
            head2,
            ("sigma", TORCHTITAN_OUTPUT_CUTOFF),
            "none",
            f"{base}, Transformer.init_weights (final_out_std, cutoff_factor = 3)",
        )
    )
    return out


def _olmo(model: Model) -> list[Group]:
    src = "OLMo, olmo/initialization.py, init_weights (init_fn mitchell)"
    block = "OLMo, olmo/model.py, OLMoSequentialBlock.reset_parameters (init_fn mitchell)"
    cut = ("sigma", MITCHELL_CUTOFF)
    d2 = Fraction(1, model.width)
    call = "trunc_normal_(std=1/sqrt(d_model), a=-3*std, b=3*std)"
    out = [Group("embedding", call, d2, cut, "none", src)]
    if model.positions == "learned":
        out.append(Group("position", call, d2, cut, "none", src))
    for role in ("q", "k", "v"):
        out.append(Group(role, call, d2, cut, "none", src))
    out.append(
        Group("o", "trunc_normal_(std=1/sqrt(2*d_model*(layer_id+1)), ±3 std)", d2 / 2, cut, "1/(l+1)", block)
    )
    if model.gated:
        out.append(Group("gate", call, d2, cut, "none", src))
    out.append(Group("up", call, d2, cut, "none", src))
    out.append(
        Group(
            "down",
            "trunc_normal_(std=1/sqrt(2*ff_out.in_features*(layer_id+1)), ±3 std)",
            Fraction(1, 2 * model.ffn),
            cut,
            "1/(l+1)",
            block,
        )
    )
    return _with_head(model, out, Group("head", call, d2, cut, "none", src))


def _megatron(model: Model) -> list[Group]:
    std2 = MEGATRON_STD**2
    src = "Megatron-LM, megatron/core/utils.py, init_method_normal"
    scaled = "Megatron-LM, megatron/core/utils.py, scaled_init_method_normal (std/sqrt(2*num_layers))"
    roles = ["embedding", *(["position"] if model.positions == "learned" else []), "q", "k", "v"]
    out = [_normal(role, std2, src) for role in roles]
    out.append(_normal("o", std2, scaled, "1/(2L)"))
    if model.gated:
        out.append(_normal("gate", std2, src))
    out.append(_normal("up", std2, src))
    out.append(_normal("down", std2, scaled, "1/(2L)"))
    return _with_head(model, out, _normal("head", std2, src))


_TRANSFORMERS: dict[str, Callable[[Model], list[Group]]] = {
    "gpt2": _gpt2,
    "llama": _llama,
    "mistral": _llama,
    "qwen2": _llama,
    "t5": _t5,
    "bert": _bert,
    "gpt_neox": _gpt_neox,
}
_OTHERS: dict[str, Callable[[Model], list[Group]]] = {
    "nanogpt": _nanogpt,
    "torchtitan": _torchtitan,
    "olmo": _olmo,
    "megatron": _megatron,
}


def check_library(model: Model, library: object) -> str:
    """The library to replay: transformers by default (a description's own [init] table)."""
    if library is None:
        return "transformers"
    text = str(library).strip().lower()
    if text not in LIBRARIES:
        raise InputError(param="library", allowed=f"one of {', '.join(LIBRARIES)}", got=repr(library))
    if model.family in ("t5", "bert") and text != "transformers":
        raise InputError(
            f"{{library}} {text} has no init code for the {model.family} family; use transformers",
            param="library",
        )
    return text
