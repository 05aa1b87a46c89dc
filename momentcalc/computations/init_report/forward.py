"""The signal through a transformer at initialization, at infinite width, as Arb balls.

Assumptions (stated in every report): weights are independent Gaussians of the variance the
init code samples (truncation included); token embeddings are independent across positions; at
initialization attention is uniform over the keys a query sees (causal: position t averages t
keys, so the output's variance is Var(v)/n with n = T/H_T over the T positions, H_T the harmonic
number; bidirectional: n = T) — a statement about small attention logits, whose std the report
gives so that it can be checked; a norm (LayerNorm or RMSNorm, gain 1 or T5's factor) makes its
output's second moment its gain², exactly at any width for RMSNorm and for LayerNorm of a
zero-mean input; a linear map W of fan-in n and variance σ² multiplies a second moment by n·σ²
(exact in expectation at any width); an activation at pre-activation variance a gives
E[φ(√a Z)²] (Gaussian pre-activations: exact given the norm before it).

Per layer of a pre-norm stack (Xiong et al., 2020, "On Layer Normalization in the Transformer
Architecture"), with u the normalised input (E[u²] = g²):

    Var(q) = σ_q²·d·g²,  logit variance = scale²·d_h·Var(q)·Var(k)
    attention branch = σ_o²·(H·d_h)·σ_v²·d·g²/n
    MLP branch = σ_down²·f·E[φ(√a Z)²]          a = σ_up²·d·g²
    gated (SwiGLU, GeGLU) = σ_down²·f·a·E[φ(√b Z)²],  b = σ_gate²·d·g²
    q_{l+1} = q_l + attention + (cross-attention) + MLP

A post-norm stack (BERT) normalises after each residual sum, so the stream stays at g² and a
branch of variance v is weighted 1/√(1 + v) (Liu et al., 2020, "Understanding the Difficulty of
Training Transformers"); DeepNorm's LN(α·x + F) likewise with α² in place of 1.

Backward (the gradient's second moment per coordinate, relative to the last layer's): through a
pre-norm layer it is multiplied by 1 + χ_attn + χ_mlp, with χ the branch's Jacobian gain divided
by q_l (the norm's Jacobian is I/√q_l on the directions that matter): χ_mlp = σ_down²·f·σ_up²·d·g²·
E[φ'(√a Z)²]/q_l (gated: σ_down²·f·(σ_up²·d·g²·E[φ(√b Z)²] + σ_gate²·d·g²·a·E[φ'(√b Z)²])/q_l),
χ_attn = attention branch/q_l (the value path; uniform attention passes no gradient through the
logits at first order); through a post-norm sublayer by (1 + χ)/(1 + v).
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any, NamedTuple

from flint import arb

from ...engine.balls import exact_ball, midpoint_fraction
from .gaussian import moments
from .rules import Group
from .spec import Model, head_rescale2


class Figures(NamedTuple):
    """Balls (lists per layer) of the forward and backward pass."""

    residual: list[Any]  # q_0 … q_L: the stream entering each layer, then after the last
    attention: list[Any]  # attention branch variance per layer
    cross: list[Any]  # cross-attention branch variance per layer (encoder-decoder), else []
    mlp: list[Any]  # MLP branch variance per layer
    logit_std: list[Any]  # attention logit std per head, per layer
    value_variance: list[Any]  # the attention output's variance (before o) per layer
    gradient: list[Any]  # gradient second moment entering each layer, relative to the last
    output_variance: Any  # the output logits' variance S²
    final_norm: Any  # the second moment of the final norm's output (g²)


def harmonic(n: int) -> Fraction:
    """H_n = 1 + 1/2 + … + 1/n (exact), as one integer fraction by binary splitting, reduced once
    (a sum of Fractions reduces at each of the n steps: 3 ms at GPT-2's 1024 positions)."""
    if n <= 20000:
        p, q = _harmonic_terms(1, n + 1) if n >= 1 else (0, 1)
        return Fraction(p, q)
    raise ValueError("use harmonic_ball")


def _harmonic_terms(a: int, b: int) -> tuple[int, int]:
    """(p, q) with p/q = 1/a + … + 1/(b − 1), unreduced."""
    if b - a == 1:
        return 1, a
    middle = (a + b) // 2
    p1, q1 = _harmonic_terms(a, middle)
    p2, q2 = _harmonic_terms(middle, b)
    return p1 * q2 + p2 * q1, q1 * q2


def keys_seen(model: Model, seq_len: int) -> Any:
    """n: the attention output's variance is Var(v)/n under uniform attention (a ball)."""
    if not model.causal:
        return arb(seq_len)
    if seq_len <= 20000:
        return exact_ball(Fraction(seq_len) / harmonic(seq_len))
    # H_T = ψ(T + 1) + γ (digamma), to the working precision: Llama-3's 8192 to 131072 positions
    t = arb(seq_len)
    return t / ((t + 1).digamma() + arb.const_euler())


def _variances(groups: Mapping[str, Group], effective: Mapping[str, Any], layer: int, layers: int) -> dict:
    out = {}
    for role, group in groups.items():
        out[role] = effective[role] * exact_ball(group.depth_factor(layer, layers))
    return out


def propagate(
    model: Model,
    groups: Mapping[str, Group],
    gamma: Mapping[tuple[str, int], Any],
    digits: int,
    norm_gain2: Fraction = Fraction(1),
    scale2: Fraction | None = None,
) -> Figures:
    """The figures of ``model`` with the groups' variances; ``gamma[role]``: the truncation's
    variance ratio (a ball; 1 without truncation) at layer 0 (and for depth-scaled groups, a
    function of the layer is folded in by the caller through ``effective``)."""
    d, f, h, dh = model.width, model.ffn, model.heads, model.head_dim
    layers = model.decoder_layers or model.layers
    if scale2 is None:
        scale2 = {"1/sqrt(d)": Fraction(1, dh), "1": Fraction(1), "1/d": Fraction(1, dh * dh)}[
            model.attention_scale
        ]
    g2 = exact_ball(norm_gain2)
    n_keys = keys_seen(model, model.seq_len)

    def var(role: str, layer: int) -> Any:
        group = groups[role]
        return exact_ball(group.variance_at(layer, layers)) * gamma[(role, layer)]

    # Embeddings
    q = var("embedding", 0)
    if "position" in groups:
        q = q + var("position", 0)
    if "token_type" in groups and model.type_vocab:
        q = q + var("token_type", 0)
    if model.embedding_norm:
        q = g2
    residual, attention, cross, mlp, logits, values, chis = [q], [], [], [], [], [], []
    cache: dict[tuple[Fraction, Fraction], tuple[Any, Any]] = {}

    def act(variance: Any) -> tuple[Any, Any]:
        """The activation's moments at a pre-activation variance ball (exact ends)."""
        key = (midpoint_fraction(variance.lower()), midpoint_fraction(variance.upper()))
        if key not in cache:
            cache[key] = moments(model.activation, *key, digits)
        return cache[key]

    post = model.placement in ("post", "deepnorm")
    alpha2 = arb(2 * layers).sqrt() if model.placement == "deepnorm" else arb(1)  # α = (2N)^(1/4), DeepNet
    for layer in range(layers):
        u2 = g2 if not post else residual[-1]  # post-norm: the branch sees the stream itself
        vq, vk, vv = var("q", layer) * d * u2, var("k", layer) * d * u2, var("v", layer) * d * u2
        logit_var = exact_ball(scale2) * dh * vq * vk
        value = vv / n_keys
        attn = var("o", layer) * (h * dh) * value
        logits.append(logit_var.sqrt())
        values.append(value)
        attention.append(attn)
        chi_attn = attn
        cross_var = arb(0)
        if model.decoder_layers:
            enc = g2  # the encoder's final norm
            cv = var("cross_v", layer) * d * enc / arb(model.seq_len)
            cross_var = var("cross_o", layer) * (h * dh) * cv
            cross.append(cross_var)
        # the MLP: Gaussian pre-activations of variance a (b at the gate)
        a = var("up", layer) * d * u2
        if model.gated:
            b = var("gate", layer) * d * u2
            second, deriv = act(b)
            branch = var("down", layer) * f * a * second
            chi_mlp = var("down", layer) * f * (a * second + b * a * deriv)
        else:
            second, deriv = act(a)
            branch = var("down", layer) * f * second
            chi_mlp = var("down", layer) * f * a * deriv
        mlp.append(branch)
        if post:
            # LN(α x + F): the stream stays at g²; the gradient through each sublayer is
            # (α² + χ)/(α² + v) with χ, v at the stream's second moment
            stream = residual[-1]
            chis.append(
                ((alpha2 * stream + chi_attn) / (alpha2 * stream + attn))
                * ((alpha2 * stream + chi_mlp) / (alpha2 * stream + branch))
            )
            residual.append(g2)
        else:
            ql = residual[-1]
            chis.append(1 + (chi_attn + chi_mlp) / ql)
            residual.append(ql + attn + cross_var + branch)
    # Backward: relative to the last layer's gradient
    gradient = [arb(1)]
    for chi in reversed(chis):
        gradient.append(gradient[-1] * chi)
    gradient.reverse()
    # The output: the final norm (pre-norm) or the stream itself (post-norm), then the head
    final = g2
    if "transform" in groups:  # BERT's prediction head: dense, activation, LayerNorm
        final = arb(1)
    head = var("head", 0)
    out_var = head * d * final
    rescale = head_rescale2(model)
    if rescale != 1:
        out_var = out_var * exact_ball(rescale)
    return Figures(residual, attention, cross, mlp, logits, values, gradient, out_var, final)
