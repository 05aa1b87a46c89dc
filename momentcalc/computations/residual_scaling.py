"""Residual-projection scalings that users copy by hand into their init code, as data.

GPT-2 (Radford et al., 2019, Language Models are Unsupervised Multitask Learners, section 2.3)
scales "the weights of residual layers at initialization by a factor of 1/sqrt(N) where N is the
number of residual layers": two per block (attention and MLP), so the output projections
(``c_proj``) of a model with L blocks get std·(2L)^(-1/2) — 0.02/sqrt(2·n_layer) in Hugging Face
transformers' GPT-2 and in nanoGPT.

T-Fixup (Huang et al., 2020, Improving Transformer Optimization Through Better Initialization;
official code layer6ai-labs/T-Fixup, fairseq/modules/transformer_layer.py) removes LayerNorm and
warmup by scaling, in an encoder of N layers, the feed-forward weights and the attention's value
and output projections by 0.67·N^(-1/4) (the value projection also by sqrt(2), undoing fairseq's
Xavier gain 1/sqrt(2) there), and in a decoder of M layers by (9M)^(-1/4); the input embeddings
(drawn N(0, d^(-1/2))) by (9N)^(-1/4) and (9M)^(-1/4) (fairseq/models/transformer.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from .deepnet import Root

RESIDUALS = ("gpt2", "tfixup-encoder", "tfixup-decoder")
# T-Fixup's published constant for the encoder (Huang et al., 2020, section 3.2 and the official code).
TFIXUP_ENCODER = Fraction("0.67")


@dataclass(frozen=True)
class ResidualScaling:
    """The factor on the init std of a residual branch's weights, and what it applies to."""

    scale: Root
    embedding: Root | None  # T-Fixup: the factor on the input embeddings
    applies_to: str
    source: str


def residual_scaling(kind: str, layers: int) -> ResidualScaling:
    n = Fraction(layers)
    if kind == "gpt2":
        return ResidualScaling(
            Root(Fraction(1), 1 / (2 * n), 2, "(2L)^(-1/2)"),
            None,
            "the residual output projections (attention and MLP c_proj) of each of the L blocks",
            "Radford et al., 2019, Language Models are Unsupervised Multitask Learners (1/sqrt(N), N = 2L residual "
            "layers); 0.02/sqrt(2*n_layer) in Hugging Face's GPT-2 and nanoGPT",
        )
    if kind == "tfixup-encoder":
        return ResidualScaling(
            Root(TFIXUP_ENCODER, 1 / n, 4, "0.67*N^(-1/4)"),
            Root(Fraction(1), 1 / (9 * n), 4, "(9N)^(-1/4)"),
            "the feed-forward weights and the attention's value and output projections of each of the N encoder "
            "layers (the value projection also times sqrt(2) in fairseq)",
            "Huang et al., 2020, Improving Transformer Optimization Through Better Initialization (T-Fixup)",
        )
    return ResidualScaling(
        Root(Fraction(1), 1 / (9 * n), 4, "(9M)^(-1/4)"),
        Root(Fraction(1), 1 / (9 * n), 4, "(9M)^(-1/4)"),
        "the feed-forward weights and the self- and cross-attention value and output projections of each of the M "
        "decoder layers (value projections also times sqrt(2) in fairseq)",
        "Huang et al., 2020, Improving Transformer Optimization Through Better Initialization (T-Fixup)",
    )
