"""Published constants that momentcalc recomputes (``momentcalc verify``, ``momentcalc constants``).

These are the only literals of computed constants in momentcalc: each is kept exactly as its
source printed it, to be compared against, never used in a computation. Each entry names the
momentcalc computation that recomputes it and, where one exists, an independent second route.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from importlib import import_module

import mpmath
from mpmath import mp

from ..command_table import api
from .routes import (
    Route,
    critical_sigma_w2_directly,
    direct_expectation,
    monte_carlo,
    same_value,
    truncated_gamma_by_quadrature,
)
from ..engine.numbers import to_mpf
from ..engine.precision import working_dps

SEED_TRUNC = (
    "Su, 2021, Initialization, parameterization and normalization of Transformers (sampling distributions)"
)
SEED_RESIDUAL = (
    "Su, 2021, Initialization, parameterization and normalization of Transformers (residual connections)"
)
SEED_ACT = (
    "Su, 2021, Initialization, parameterization and normalization of Transformers (activation functions)"
)
SEED_SELU = (
    "Su, 2021, Initialization, parameterization and normalization of Transformers (SELU, Mathematica solve)"
)
SEED_BERT = "Su, 2021, Why is BERT's initial standard deviation 0.02?"
SEED_SQRT_D = "Garg, 2023, Where does 1/sqrt(d) come from"
SEED_GAU = "Su, 2022, GAU at initialization"
SEED_NOTES = "Wu, 2022, NLP reading notes"
SELU_PAPER = "SELU paper (Klambauer et al. 2017) / PyTorch nn.SELU"
TF_TRUNC = "TensorFlow / Keras / JAX truncated-normal initializers"
MEANFIELD = "Schoenholz et al., 2017, Deep information propagation (Fig. 1, tanh phase diagram)"
MEANFIELD_RELU = (
    "He et al., 2015, Delving deep into rectifiers; Schoenholz et al., 2017, Deep information propagation"
)
GPT2 = (
    "Radford et al., 2019, Language Models are Unsupervised Multitask Learners (1/sqrt(N), N residual layers)"
)
TFIXUP = "Huang et al., 2020, Improving Transformer Optimization Through Better Initialization (T-Fixup)"
DEEPNET = "Wang et al., 2022, DeepNet: Scaling Transformers to 1,000 Layers (Table 1)"
DEEPNET_CODE = (
    "Wang et al., 2022, DeepNet (Table 1: 0.87) vs its official code, torchscale's encoder (1/1.15)"
)
MEANFIELD_ERF = "Williams, 1997, Computing with infinite networks (arcsine kernel); Poole et al., 2016, Exponential expressivity in deep neural networks through transient chaos"


@dataclass(frozen=True)
class Published:
    """One published constant and how momentcalc recomputes it."""

    id: str
    description: str
    published: str  # exactly as the source prints it
    source: str
    kind: str  # tolerance kind, see verification.tolerance
    compute: Callable[[int], mpmath.mpf]  # momentcalc's computation, at ``digits``
    via: str  # the momentcalc command behind ``compute``
    check: Route | None = None  # an independent second route
    exact: Callable[[], mpmath.mpf] | None = None  # the value of a published formula
    informational: bool = False  # shown, never fails (e.g. PyTorch's heuristic gains)
    shown_digits: int | None = None  # digits of an estimate's computed value that its accuracy allows


def result(function: str, name: str, **kwargs: object) -> Callable[[int], mpmath.mpf]:
    """``<function>(**kwargs, digits=d).value(name)``: a command's function (``momentcalc.command_table``),
    imported lazily."""

    def compute(digits: int) -> mpmath.mpf:
        module = import_module(api()[function])
        quantity = getattr(module, function)(**kwargs, digits=digits)[name]
        if quantity.exact is not None:  # an exact rational: its mpf at the digits asked, not a short copy
            with mpmath.mp.workdps(working_dps(digits)):
                return to_mpf(quantity.exact)
        return quantity.value

    return compute


def moment(activation: str, name: str) -> Callable[[int], mpmath.mpf]:
    """A Gaussian moment of a catalog activation under N(0, 1) (the activation-moment engine)."""

    def compute(digits: int) -> mpmath.mpf:
        from ..moments import gaussian_moments

        return gaussian_moments(activation, digits=digits)[name]

    return compute


def ratio(
    numerator: Callable[[int], mpmath.mpf], denominator: Callable[[int], mpmath.mpf]
) -> Callable[[int], mpmath.mpf]:
    def compute(digits: int) -> mpmath.mpf:
        top, bottom = numerator(digits), denominator(digits)
        with mp.workdps(working_dps(digits)):
            return top / bottom

    return compute


def fraction(value: Fraction) -> Callable[[], mpmath.mpf]:
    return lambda: mpmath.mpf(value.numerator) / value.denominator


def _sigmoid(t):
    return 1 / (1 + mpmath.exp(-t))


def _swish(t):
    return t * _sigmoid(t)


def _np_swish(z):
    return z / (1 + __import__("numpy").exp(-z))


def _selu_closed_form(index: int | None) -> Callable[[], mpmath.mpf]:
    """λ (0), α (1) or −λ·α (None) from the catalog's closed form, not from a root finder."""

    def compute() -> mpmath.mpf:
        from ..catalog.activations import selu_constants

        lam, alpha = selu_constants()
        return -lam * alpha if index is None else (lam, alpha)[index]

    return compute


SELU_ROUTE = "closed form (catalog): α = φ(0)/(1/2 − √e·Φ(−1)), no root finder"
SELU_LAMBDA = same_value(SELU_ROUTE, _selu_closed_form(0))
SELU_ALPHA = same_value(SELU_ROUTE, _selu_closed_form(1))
SELU_SATURATION = same_value(SELU_ROUTE, _selu_closed_form(None))
S, N = 128, 512  # Su's GAU sizes


def _tanh_critical_directly() -> mpmath.mpf:
    sech2 = lambda t: 1 / mpmath.cosh(t) ** 2
    return critical_sigma_w2_directly(mpmath.tanh, sech2, mpmath.mpf(5) / 100, 0.5)


REGISTRY: tuple[Published, ...] = (
    Published(
        "truncnorm.gamma",
        "Var of the ±2σ truncated normal, in units of σ²",
        "0.7737413",
        SEED_TRUNC,
        "truncated",
        result("truncnorm", "gamma"),
        "truncnorm",
        same_value(
            "quadrature of the density (Wu, 2022's ratio of integrals)",
            lambda: truncated_gamma_by_quadrature(-2, 2),
        ),
    ),
    Published(
        "truncnorm.correction",
        "std to pass per unit of wanted std, ±2σ truncation",
        "1.1368472",
        SEED_TRUNC,
        "truncated",
        result("truncnorm", "correction"),
        "truncnorm",
        same_value(
            "quadrature of the density", lambda: 1 / mpmath.sqrt(truncated_gamma_by_quadrature(-2, 2))
        ),
    ),
    Published(
        "truncnorm.std_ratio.tf",
        "actual std / std passed, hard-coded as a double",
        "0.87962566103423978",
        TF_TRUNC,
        "double",
        result("truncnorm", "std_ratio"),
        "truncnorm",
        same_value("quadrature of the density", lambda: mpmath.sqrt(truncated_gamma_by_quadrature(-2, 2))),
    ),
    Published(
        "bert.actual_std",
        "actual std of BERT's truncated N(0, 0.02²), 0.02/1.1368472",
        "0.0176",
        SEED_BERT,
        "rounded",
        result("truncnorm", "std", std="0.02"),
        "truncnorm --std 0.02",
        same_value(
            "quadrature of the density", lambda: mpmath.sqrt(truncated_gamma_by_quadrature(-2, 2)) / 50
        ),
    ),
    Published(
        "xavier.std_768",
        "Xavier/LeCun std for an n×n matrix, n = 768 (1/sqrt(768))",
        "0.0361",
        SEED_BERT,
        "rounded",
        result("init", "std", fan_in=768),
        "init --fan-in 768",
        same_value("1/sqrt(n) directly", lambda: 1 / mpmath.sqrt(768)),
    ),
    Published(
        "sigmoid.second_moment",
        "E[sigmoid(Z)²], Z ~ N(0, 1)",
        "0.2933790",
        SEED_ACT,
        "truncated",
        moment("sigmoid", "second_moment"),
        "activation-moment sigmoid",
        same_value("direct quadrature", lambda: direct_expectation(lambda t: _sigmoid(t) ** 2)),
    ),
    Published(
        "swish.mean",
        "mu = E[swish(Z)], Z ~ N(0, 1)",
        "0.2066",
        SEED_GAU,
        "truncated",
        moment("swish", "mean"),
        "activation-moment swish",
        same_value(
            "Stein's identity: 1/2 − E[sigmoid²] (direct quadrature)",
            lambda: mpmath.mpf(1) / 2 - direct_expectation(lambda t: _sigmoid(t) ** 2),
        ),
    ),
    Published(
        "swish.second_moment",
        "nu² = E[swish(Z)²], Z ~ N(0, 1)",
        "0.3557",
        SEED_GAU,
        "truncated",
        moment("swish", "second_moment"),
        "activation-moment swish",
        same_value("direct quadrature", lambda: direct_expectation(lambda t: _swish(t) ** 2)),
    ),
    Published(
        "swish.nu",
        "nu = sqrt(E[swish²]) ('one can take nu = 0.6')",
        "0.6",
        SEED_GAU,
        "rounded",
        result("gau_scale", "nu"),
        "gau-scale",
        monte_carlo("Monte Carlo (seeded)", lambda z: float((_np_swish(z) ** 2).mean() ** 0.5)),
    ),
    Published(
        "gau.diag_offdiag_ratio",
        "A_ii / A_ij ≈ nu⁴/mu⁴ for swish",
        "69",
        SEED_GAU,
        "rounded",
        result("gau_scale", "diag_offdiag_ratio"),
        "gau-scale",
        monte_carlo(
            "Monte Carlo (seeded)",
            lambda z: float((_np_swish(z) ** 2).mean() ** 2 / _np_swish(z).mean() ** 4),
        ),
    ),
    Published(
        "gau.output_scale",
        "GAU output magnitude s·nu⁶/n at s = 128, n = 512",
        "0.01",
        SEED_GAU,
        "rounded",
        result("gau_scale", "output_scale"),
        "gau-scale",
        monte_carlo("Monte Carlo (seeded)", lambda z: float(S * (_np_swish(z) ** 2).mean() ** 3 / N)),
    ),
    Published(
        "gau.deepnorm_alpha",
        "DeepNorm alpha equivalent to the GAU's 1/(s·nu⁶/n)",
        "100",
        SEED_GAU,
        "magnitude",
        result("gau_scale", "deepnorm_alpha"),
        "gau-scale",
        monte_carlo("Monte Carlo (seeded)", lambda z: float(N / (S * (_np_swish(z) ** 2).mean() ** 3))),
    ),
    Published(
        "gau.crazy_scale",
        "λ⁷ at λ = 1/2: the 'crazy scale' of scaling every init by λ",
        "0.01",
        SEED_GAU,
        "magnitude",
        ratio(
            result("gau_scale", "scaled_output", d=4, init_std="0.25"),
            result("gau_scale", "output_scale", d=4, init_std="0.25"),
        ),
        "gau-scale --d 4 --init-std 0.25 (λ = 1/2)",
        same_value("(1/2)^7 exactly", fraction(Fraction(1, 128))),
    ),
    Published(
        "gau.output_rms",
        "GAU output RMS at s = 128, n = 512, d = 768 by the full estimate (all of A, finite "
        "width; ±2 %): about 5× Su's ≈ 0.01, which keeps A's diagonal only. No published figure: shown, "
        "not checked",
        "0.01",
        SEED_GAU,
        "magnitude",
        result("gau_scale", "output_rms"),
        "gau-scale (output_rms)",
        None,
        informational=True,
        shown_digits=2,
    ),
    Published(
        "selu.lambda.seed",
        "SELU λ for mean 0, variance 1",
        "1.0507",
        SEED_SELU,
        "truncated",
        result("selu_solve", "lambda"),
        "selu-solve",
        SELU_LAMBDA,
    ),
    Published(
        "selu.alpha.seed",
        "SELU α for mean 0, variance 1",
        "1.6732",
        SEED_SELU,
        "truncated",
        result("selu_solve", "alpha"),
        "selu-solve",
        SELU_ALPHA,
    ),
    Published(
        "selu.lambda.paper",
        "SELU λ, 32 digits",
        "1.0507009873554804934193349852946",
        SELU_PAPER,
        "rounded",
        result("selu_solve", "lambda"),
        "selu-solve",
        SELU_LAMBDA,
    ),
    Published(
        "selu.alpha.paper",
        "SELU α, 32 digits",
        "1.6732632423543772848170429916717",
        SELU_PAPER,
        "rounded",
        result("selu_solve", "alpha"),
        "selu-solve",
        SELU_ALPHA,
    ),
    Published(
        "selu.saturation",
        "−λ·α, selu's limit for very negative inputs (alpha-dropout's constant)",
        "-1.7580993408473766",
        "PyTorch alpha_dropout (ATen Dropout.cpp)",
        "double",
        result("selu_solve", "saturation"),
        "selu-solve",
        SELU_SATURATION,
    ),
    Published(
        "postnorm.identity_weight",
        "weight of x_0 after l = 12 Post-Norm layers, 2^(−l/2)",
        "2^(-12/2)",
        SEED_RESIDUAL,
        "exact",
        result("postnorm_decay", "identity_weight", layers=12),
        "postnorm-decay --layers 12",
        same_value("2^(−6) exactly", fraction(Fraction(1, 64))),
        exact=fraction(Fraction(1, 64)),
    ),
    Published(
        "postnorm.last_branch",
        "weight of F_(l−1) in x_l under Post-Norm, 2^(−1/2)",
        "2^(-1/2)",
        SEED_BERT,
        "exact",
        lambda d: result("postnorm_decay", "branch_weights", layers=12)(d)[-1],
        "postnorm-decay --layers 12",
        same_value("1/sqrt(2) directly", lambda: 1 / mpmath.sqrt(2)),
        exact=lambda: 1 / mpmath.sqrt(2),
    ),
    Published(
        "postnorm.first_branch",
        "weight of F_0 in x_l under Post-Norm, l = 12: 2^(−l/2)",
        "2^(-12/2)",
        SEED_BERT,
        "exact",
        lambda d: result("postnorm_decay", "branch_weights", layers=12)(d)[0],
        "postnorm-decay --layers 12",
        same_value("2^(−6) exactly", fraction(Fraction(1, 64))),
        exact=fraction(Fraction(1, 64)),
    ),
    Published(
        "he.relu_second_moment",
        "E[relu(Z)²] = 1/2: why He init uses 2/m",
        "1/2",
        SEED_SQRT_D,
        "exact",
        moment("relu", "second_moment"),
        "activation-moment relu",
        same_value("direct quadrature", lambda: direct_expectation(lambda t: t * t if t > 0 else 0 * t)),
        exact=fraction(Fraction(1, 2)),
    ),
    Published(
        "he.variance",
        "He init variance 2/m for m = 768",
        "2/768",
        SEED_SQRT_D,
        "exact",
        result("init", "variance", fan_in=768, scheme="he"),
        "init --fan-in 768 --scheme he",
        same_value("2/m exactly", fraction(Fraction(2, 768))),
        exact=fraction(Fraction(2, 768)),
    ),
    Published(
        "pytorch.gain.relu",
        "torch.nn.init.calculate_gain('relu') = sqrt(2)",
        "sqrt(2)",
        "PyTorch calculate_gain",
        "exact",
        moment("relu", "gain"),
        "activation-moment relu",
        same_value(
            "direct quadrature",
            lambda: 1 / mpmath.sqrt(direct_expectation(lambda t: t * t if t > 0 else 0 * t)),
        ),
        exact=lambda: mpmath.sqrt(2),
    ),
    Published(
        "xavier.variance",
        "Xavier N(0, 2/(d_in + d_out)) at d_in = 768, d_out = 3072",
        "2/(768+3072)",
        SEED_NOTES,
        "exact",
        result("init", "variance", fan_in=768, fan_out=3072, scheme="xavier"),
        "init --scheme xavier",
        same_value("2/3840 exactly", fraction(Fraction(2, 3840))),
        exact=fraction(Fraction(2, 3840)),
    ),
    Published(
        "uniform.bound",
        "U[−sqrt(3)σ, sqrt(3)σ] has std σ: bound / std",
        "sqrt(3)",
        SEED_TRUNC,
        "exact",
        ratio(
            result("init", "bound", fan_in=768, distribution="uniform"),
            result("init", "std", fan_in=768, distribution="uniform"),
        ),
        "init --distribution uniform",
        same_value("sqrt(3) directly", lambda: mpmath.sqrt(3)),
        exact=lambda: mpmath.sqrt(3),
    ),
    Published(
        "attention.qk_second_moment",
        "E[(q·k)²] = d for unit-variance q, k; d = 64",
        "64",
        SEED_SQRT_D,
        "exact",
        result("attention", "logit_second_moment", d=64),
        "attention --d 64",
        monte_carlo(
            "Monte Carlo (seeded)",
            lambda z: float(
                (z.reshape(-1, 128)[:, :64] * z.reshape(-1, 128)[:, 64:]).sum(axis=1).__pow__(2).mean()
            ),
        ),
        exact=fraction(Fraction(64)),
    ),
    Published(
        "pytorch.gain.tanh",
        "torch calculate_gain('tanh') heuristic vs the exact 1/sqrt(E[tanh²])",
        "5/3",
        "PyTorch calculate_gain",
        "exact",
        moment("tanh", "gain"),
        "activation-moment tanh",
        same_value(
            "direct quadrature", lambda: 1 / mpmath.sqrt(direct_expectation(lambda t: mpmath.tanh(t) ** 2))
        ),
        exact=fraction(Fraction(5, 3)),
        informational=True,
    ),
    Published(
        "pytorch.gain.selu",
        "torch calculate_gain('selu') heuristic vs the exact 1/sqrt(E[selu²])",
        "3/4",
        "PyTorch calculate_gain",
        "exact",
        moment("selu", "gain"),
        "activation-moment selu",
        None,
        exact=fraction(Fraction(3, 4)),
        informational=True,
    ),
    Published(
        "meanfield.tanh.critical_sigma_w2",
        "edge of chaos of tanh at sigma_b2 = 0.05: chi1 = 1",
        "1.76",
        MEANFIELD,
        "rounded",
        result("meanfield", "sigma_w2", activation="tanh", sigma_b2="0.05", critical=True),
        "meanfield tanh --sigma-b2 0.05 --critical",
        same_value(
            "tanh-sinh quadrature and a secant root on q = A(q)/B(q) + sigma_b2", _tanh_critical_directly
        ),
    ),
    Published(
        "meanfield.relu.critical_sigma_w2",
        "edge of chaos of relu (sigma_b2 = 0): He init's sigma_w2 = 2",
        "2",
        MEANFIELD_RELU,
        "exact",
        result("meanfield", "sigma_w2", activation="relu", critical=True),
        "meanfield relu --critical",
        same_value(
            "1/E[relu'(Z)^2] by direct quadrature",
            lambda: 1 / direct_expectation(lambda t: mpmath.mpf(1) if t > 0 else mpmath.mpf(0)),
        ),
        exact=fraction(Fraction(2)),
    ),
    Published(
        "meanfield.erf.critical_sigma_w2",
        "edge of chaos of erf at sigma_b2 = 0: 1/erf'(0)^2 = pi/4",
        "pi/4",
        MEANFIELD_ERF,
        "exact",
        result("meanfield", "sigma_w2", activation="erf", critical=True),
        "meanfield erf --critical",
        same_value(
            "1/erf'(0)^2 by numerical differentiation of erf", lambda: 1 / mpmath.diff(mpmath.erf, 0) ** 2
        ),
        exact=lambda: mpmath.pi / 4,
    ),
    Published(
        "deepnet.alpha.encoder",
        "DeepNet encoder-only alpha (2N)^(1/4) at N = 18: sqrt(6)",
        "(2*18)^(1/4)",
        DEEPNET,
        "exact",
        result("postnorm_decay", "deepnorm_alpha", layers=18, scheme="deepnorm"),
        "postnorm-decay --scheme deepnorm --layers 18",
        same_value("sqrt(6) directly", lambda: mpmath.sqrt(6)),
        exact=lambda: mpmath.root(36, 4),
    ),
    Published(
        "deepnet.beta.encoder",
        "DeepNet encoder-only init gain (8N)^(-1/4) at N = 18: 1/sqrt(12)",
        "(8*18)^(-1/4)",
        DEEPNET,
        "exact",
        result("postnorm_decay", "deepnorm_beta", layers=18, scheme="deepnorm"),
        "postnorm-decay --scheme deepnorm --layers 18",
        same_value("1/sqrt(12) directly", lambda: 1 / mpmath.sqrt(12)),
        exact=lambda: mpmath.root(144, 4) ** -1,
    ),
    Published(
        "deepnet.alpha.decoder",
        "DeepNet decoder-only alpha (2M)^(1/4) at M = 32: 2*sqrt(2)",
        "(2*32)^(1/4)",
        DEEPNET,
        "exact",
        result("postnorm_decay", "deepnorm_alpha", layers=32, scheme="deepnorm", arch="decoder"),
        "postnorm-decay --scheme deepnorm --arch decoder --layers 32",
        same_value("2*sqrt(2) directly", lambda: 2 * mpmath.sqrt(2)),
        exact=lambda: mpmath.root(64, 4),
    ),
    Published(
        "deepnet.alpha.encdec",
        "DeepNet encoder alpha in an encoder-decoder, 0.81 (N^4 M)^(1/16), N = M = 100",
        "0.81*(100^4*100)^(1/16)",
        DEEPNET,
        "exact",
        result(
            "postnorm_decay",
            "deepnorm_alpha",
            layers=100,
            scheme="deepnorm",
            arch="encdec",
            decoder_layers=100,
        ),
        "postnorm-decay --scheme deepnorm --arch encdec --layers 100 --decoder-layers 100",
        same_value(
            "0.81*10^(5/8) directly", lambda: mpmath.mpf(81) / 100 * mpmath.power(10, mpmath.mpf(5) / 8)
        ),
        exact=lambda: mpmath.mpf(81) / 100 * mpmath.root(mpmath.mpf(10) ** 10, 16),
    ),
    Published(
        "deepnet.beta.encdec",
        "DeepNet encoder init gain in an encoder-decoder, 0.87 (N^4 M)^(-1/16), N = M = 100",
        "0.87*(100^4*100)^(-1/16)",
        DEEPNET,
        "exact",
        result(
            "postnorm_decay",
            "deepnorm_beta",
            layers=100,
            scheme="deepnorm",
            arch="encdec",
            decoder_layers=100,
        ),
        "postnorm-decay --scheme deepnorm --arch encdec --layers 100 --decoder-layers 100",
        same_value(
            "0.87*10^(-5/8) directly", lambda: mpmath.mpf(87) / 100 * mpmath.power(10, -mpmath.mpf(5) / 8)
        ),
        exact=lambda: mpmath.mpf(87) / 100 / mpmath.root(mpmath.mpf(10) ** 10, 16),
    ),
    Published(
        "deepnet.decoder.encdec",
        "DeepNet decoder alpha in an encoder-decoder, (3M)^(1/4), M = 27: 3",
        "(3*27)^(1/4)",
        DEEPNET,
        "exact",
        result(
            "postnorm_decay", "decoder_alpha", layers=6, scheme="deepnorm", arch="encdec", decoder_layers=27
        ),
        "postnorm-decay --scheme deepnorm --arch encdec --layers 6 --decoder-layers 27",
        same_value("3 exactly", fraction(Fraction(3))),
        exact=fraction(Fraction(3)),
    ),
    Published(
        "deepnet.decoder_beta.encdec",
        "DeepNet decoder init gain in an encoder-decoder, (12M)^(-1/4), M = 27: 1/sqrt(18)",
        "(12*27)^(-1/4)",
        DEEPNET,
        "exact",
        result(
            "postnorm_decay", "decoder_beta", layers=6, scheme="deepnorm", arch="encdec", decoder_layers=27
        ),
        "postnorm-decay --scheme deepnorm --arch encdec --layers 6 --decoder-layers 27",
        same_value("1/sqrt(18) directly", lambda: 1 / mpmath.sqrt(18)),
        exact=lambda: mpmath.root(324, 4) ** -1,
    ),
    Published(
        "deepnet.beta.encdec.code",
        "the paper's 0.87 against the official code's 1/1.15 = 0.8696 (torchscale divides "
        "the init by (N^4 M)^(1/16)/1.15)",
        "0.87",
        DEEPNET_CODE,
        "rounded",
        lambda d: fraction(Fraction(100, 115))(),
        "torchscale (official DeepNet code)",
        None,
    ),
    Published(
        "gpt2.residual_scale",
        "GPT-2 small's residual-projection scale: 12 blocks, N = 24 residual layers",
        "24^(-1/2)",
        GPT2,
        "exact",
        result("init", "residual_scale", fan_in=768, residual="gpt2", layers=12),
        "init --fan-in 768 --residual gpt2 --layers 12",
        same_value("1/sqrt(24) directly", lambda: 1 / mpmath.sqrt(24)),
        exact=lambda: mpmath.mpf(24) ** -0.5,
    ),
    Published(
        "tfixup.encoder_scale",
        "T-Fixup's encoder scale 0.67 N^(-1/4) at N = 6 layers",
        "0.67*6^(-1/4)",
        TFIXUP,
        "exact",
        result("init", "residual_scale", fan_in=512, residual="tfixup-encoder", layers=6),
        "init --fan-in 512 --residual tfixup-encoder --layers 6",
        same_value("0.67/6^(1/4) directly", lambda: mpmath.mpf(67) / 100 / mpmath.sqrt(mpmath.sqrt(6))),
        exact=lambda: mpmath.mpf(67) / 100 * mpmath.root(6, 4) ** -1,
    ),
    Published(
        "tfixup.decoder_scale",
        "T-Fixup's decoder scale (9M)^(-1/4) at M = 6 layers",
        "(9*6)^(-1/4)",
        TFIXUP,
        "exact",
        result("init", "residual_scale", fan_in=512, residual="tfixup-decoder", layers=6),
        "init --fan-in 512 --residual tfixup-decoder --layers 6",
        same_value("1/sqrt(sqrt(54)) directly", lambda: 1 / mpmath.sqrt(mpmath.sqrt(54))),
        exact=lambda: mpmath.root(54, 4) ** -1,
    ),
)
