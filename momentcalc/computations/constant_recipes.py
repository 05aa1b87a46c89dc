"""The initialization constants that ``identify`` and ``audit`` recognise, each derived by the
engine (never typed in): ``ENTRIES`` says what each constant is, ``compute(digits)`` proves
every one of them to ``digits`` significant digits (Arb balls).

* every catalog activation φ (at its default parameters; leaky_relu also at the other slopes
  frameworks use: 0.1, 0.2 (``tf.nn.leaky_relu``, ``keras.activations.leaky_relu``), 0.25
  (PyTorch's ``PReLU`` at initialization), 0.3 (``keras.layers.LeakyReLU``)) under Z ~ N(0, 1): mean, second_moment,
  variance, rms, gain = 1/rms, centered_gain = 1/sqrt(variance) (the normalizer-free gamma of
  Brock et al., 2021, "Characterizing signal propagation to close the performance gap in
  unnormalized ResNets"), derivative_second_moment, and the forms code writes: std =
  sqrt(variance), inverse_variance, derivative_rms, derivative_gain = 1/sqrt(E[φ'²]);
* glu with independent halves (a·σ(b), a and b independent N(0, 1)): variance = E[σ(Z)²], gamma
  E[σ(Z)²]^(−1/2) (its mean is 0);
* the truncated normal on [−a, a], a = 1, 1.5, 2, 2.5, 3: gamma = Var/σ², std_ratio = sqrt(gamma),
  correction = 1/sqrt(gamma), acceptance = Φ(a) − Φ(−a) (``truncnorm``);
* jax's complex truncated normal (``variance_scaling(..., "truncated_normal")`` for a complex
  dtype): |z|² ~ Exp(1) cut at |z| < 2, so E|z|² = (1 − 5e⁻⁴)/(1 − e⁻⁴), its root (the std the
  samples are divided by), the root's reciprocal and the acceptance 1 − e⁻⁴; and, as a known
  mistake, √(1 − 5e⁻⁴) (E[|z|²; |z| < 2] without the division by the acceptance), which
  ``audit`` reports as a wrong value of that std;
* the coefficients activations are written with: GELU's tanh approximation 0.044715 (Hendrycks &
  Gimpel, 2016) and quick_gelu's 1.702, exact by definition (published);
* SELU's λ, α and λα (Klambauer et al., 2017, "Self-Normalizing Neural Networks"), and
  alpha-dropout's a = ((1 − p)(1 + p·λ²α²))^(−1/2) and b = a·p·λα at p = 0.05, 0.1, 0.2, 0.5;
* the framework gain heuristics (PyTorch's ``calculate_gain``: tanh 5/3, selu 3/4, relu √2,
  leaky_relu √(2/(1 + a²)) at the slopes above), marked heuristic;
* closed forms init code writes: √(2/π), √(π/2), 1/√(2π), 1/√2, √2, √3, 1/√3, π/(π − 1), 2/π;
* GPT-2's residual scaling (2L)^(−1/2) (Radford et al., 2019) at L = 6, 12, 24, 36, 48, and
  DeepNet's α = (2N)^(1/4), β = (8N)^(−1/4) (Wang et al., 2022, "DeepNet: Scaling Transformers
  to 1,000 Layers") at N = 6, 12, 18, 24, 48, 100.

``scripts/make_constant_index.py`` writes ``generated_constant_index`` from ``compute(40)``; a test
regenerates it and compares, so the decimals ``identify`` and ``audit`` read are the engine's.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any, NamedTuple

from flint import arb

from ..catalog import CATALOG
from ..catalog.activations import GELU_TANH_CUBIC
from ..catalog.framework_activations import QUICK_GELU_SCALE
from ..engine import normal_balls
from ..engine.rounding import ball_text
from ..errors import PrecisionError
from ..tier import arb_precision, bits_for, exact_ball, moment_balls, selu_constants


class Entry(NamedTuple):
    """One constant: its id, a name, its formula, the words that name its subject in code
    (each a token sequence joined by ``_``), the words that name its quantity (``gamma``,
    ``std``, ...), its kind (``derived``; ``heuristic``, a framework's rule of thumb;
    ``published``, a coefficient exact by definition; ``mistake``, a known wrong formula for the
    constant ``correct``) and the activation parameters it is at (``slope=0.2``)."""

    id: str
    name: str
    formula: str
    subjects: tuple[str, ...]
    quantities: tuple[str, ...] = ()
    kind: str = "derived"
    params: str = ""
    correct: str = ""


# The words code names a quantity with (a token of a name, key or the line; plurals count).
OUTPUT_SCALE = ("gamma", "gain", "scale", "multiplier")
STD = ("std", "stddev", "stdev", "sigma", "sd")
VARIANCE = ("var", "variance")
MEAN = ("mean", "mu", "expectation", "shift", "offset")
MOMENT = ("moment", "sq", "square", "m2")
DERIVATIVE = ("derivative", "deriv", "grad", "gradient", "prime")
ACCEPTANCE = ("acceptance", "mass", "prob", "probability", "coverage")
COEFFICIENT = ("coeff", "coef", "coefficient", "cubic")

# The activation forms: (suffix, name, formula in terms of the summary, quantity words).
ACTIVATION_FORMS = (
    ("centered_gain", "gamma (1/std)", "1/sqrt(Var[phi(Z)])", OUTPUT_SCALE),
    ("gain", "gain (1/rms)", "1/sqrt(E[phi(Z)^2])", OUTPUT_SCALE),
    ("mean", "mean", "E[phi(Z)]", MEAN),
    ("second_moment", "second moment", "E[phi(Z)^2]", MOMENT),
    ("variance", "variance", "Var[phi(Z)]", VARIANCE),
    ("std", "std", "sqrt(Var[phi(Z)])", STD),
    ("rms", "rms", "sqrt(E[phi(Z)^2])", ("rms", "norm")),
    ("inverse_variance", "1/variance", "1/Var[phi(Z)]", VARIANCE),
    ("derivative_second_moment", "derivative second moment", "E[phi'(Z)^2]", DERIVATIVE),
    ("derivative_rms", "derivative rms", "sqrt(E[phi'(Z)^2])", DERIVATIVE),
    ("derivative_gain", "derivative gain", "1/sqrt(E[phi'(Z)^2])", DERIVATIVE),
)

# Spellings code uses beside the catalog's names and aliases (jax.nn.soft_sign, HF's
# gelu_pytorch_tanh and gelu_fast, MobileNet's h_swish).
CODE_SPELLINGS = {
    "softsign": ("soft_sign",),
    "softplus": ("soft_plus",),
    "gelu_tanh": ("gelu_pytorch_tanh", "gelu_fast", "fast_gelu", "approx_gelu", "gelu_approximate"),
    "hard_swish": ("h_swish", "hswish"),
    "hard_sigmoid": ("h_sigmoid", "hsigmoid"),
    "relu6": ("relu_6",),
}

# leaky_relu's negative slope in the frameworks, beside the catalog's default 0.01 (PyTorch,
# jax, flax): 0.1 (Darknet, YOLO), 0.2 (tf.nn.leaky_relu, keras.activations.leaky_relu),
# 0.25 (PyTorch's PReLU at initialization), 0.3 (keras.layers.LeakyReLU).
FRAMEWORK_SLOPES = (Fraction(1, 10), Fraction(1, 5), Fraction(1, 4), Fraction(3, 10))

TRUNCATIONS = (Fraction(1), Fraction(3, 2), Fraction(2), Fraction(5, 2), Fraction(3))
DROPOUT_P = (Fraction(1, 20), Fraction(1, 10), Fraction(1, 5), Fraction(1, 2))
GPT2_LAYERS = (6, 12, 24, 36, 48)
DEEPNET_LAYERS = (6, 12, 18, 24, 48, 100)
LEAKY_SLOPES = (Fraction(1, 100), *FRAMEWORK_SLOPES)
COMPLEX_TRUNCATION = 2  # jax's variance_scaling truncates |z| at 2


def _text(x: Fraction) -> str:
    return str(x.numerator) if x.denominator == 1 else str(float(x))


def _activation_subjects(name: str, aliases: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(dict.fromkeys((name, *aliases, *CODE_SPELLINGS.get(name, ()))))


def _activation_entries(act: Any, prefix: str, values: dict[str, Fraction], extra: tuple = ()) -> list[Entry]:
    subjects = _activation_subjects(act.name, act.aliases) + extra
    shown = ", ".join(f"{p.name} = {_text(values[p.name])}" for p in act.params)
    label = f"{act.name} ({shown})" if shown else act.name
    params = ",".join(f"{p.name}={_text(values[p.name])}" for p in act.params)
    return [
        Entry(
            f"{prefix}.{suffix}",
            f"{label} {name}",
            formula.replace("phi", act.name),
            subjects,
            words,
            "derived",
            params,
        )
        for suffix, name, formula, words in ACTIVATION_FORMS
    ]


def entries() -> list[Entry]:
    """Every constant of the index, in the order ``identify --list`` prints them."""
    found: list[Entry] = []
    for act in CATALOG:
        found += _activation_entries(act, act.name, {p.name: p.default for p in act.params})
        if act.name == "leaky_relu":
            for slope in FRAMEWORK_SLOPES:
                extra = ("prelu",) if slope == Fraction(1, 4) else ()
                found += _activation_entries(act, f"leaky_relu.{_text(slope)}", {"slope": slope}, extra)
    found.append(
        Entry(
            "glu.centered_gain",
            "glu (independent halves) gamma",
            "E[sigmoid(Z)^2]^(-1/2)",
            ("glu",),
            OUTPUT_SCALE,
        )
    )
    found.append(
        Entry("glu.variance", "glu (independent halves) variance", "E[sigmoid(Z)^2]", ("glu",), VARIANCE)
    )
    tanh_gelu = _activation_subjects("gelu_tanh", ("gelu_approx", "gelu_new")) + ("gelu",)
    found += [
        Entry(
            "gelu_tanh.cubic_coefficient",
            "GELU's tanh approximation: the cubic coefficient (Hendrycks & Gimpel, 2016)",
            "0.044715 in x*(1 + tanh(sqrt(2/pi)*(x + 0.044715*x^3)))/2",
            tanh_gelu,
            COEFFICIENT,
            "published",
        ),
        Entry(
            "quick_gelu.scale",
            "quick_gelu's sigmoid scale (x*sigmoid(1.702*x))",
            "1.702 in x*sigmoid(1.702*x)",
            ("quick_gelu", "quickgelu"),
            ("slope", *COEFFICIENT),
            "published",
        ),
    ]
    for a in TRUNCATIONS:
        at = _text(a)
        subjects: tuple[str, ...] = ("trunc", "truncated", "truncnorm", "trunc_normal", "truncated_normal")
        found += [
            Entry(
                f"truncnorm.{at}.gamma",
                f"truncated normal on [-{at}, {at}] gamma",
                f"Var[Z | |Z| < {at}]",
                subjects,
                ("gamma", *VARIANCE),
            ),
            Entry(
                f"truncnorm.{at}.std_ratio",
                f"truncated normal on [-{at}, {at}] std ratio",
                f"sqrt(Var[Z | |Z| < {at}])",
                subjects,
                (*STD, "ratio"),
            ),
            Entry(
                f"truncnorm.{at}.correction",
                f"truncated normal on [-{at}, {at}] std correction",
                f"1/sqrt(Var[Z | |Z| < {at}])",
                subjects,
                (*STD, "correction", "scale"),
            ),
            Entry(
                f"truncnorm.{at}.acceptance",
                f"truncated normal on [-{at}, {at}] acceptance",
                f"Phi({at}) - Phi(-{at})",
                subjects,
                ACCEPTANCE,
            ),
        ]
    r = COMPLEX_TRUNCATION
    complex_subjects = ("complex_truncated_normal", "complex_trunc_normal", "complex_truncnorm")
    found += [
        Entry(
            f"complex_truncnorm.{r}.variance",
            f"complex truncated normal (|z| < {r}) E|z|^2",
            f"E[|z|^2 | |z| < {r}] = (1 - {1 + r * r}e^-{r * r})/(1 - e^-{r * r}), z ~ CN(0, 1)",
            complex_subjects,
            VARIANCE,
        ),
        Entry(
            f"complex_truncnorm.{r}.std",
            f"complex truncated normal (|z| < {r}) std",
            f"sqrt((1 - {1 + r * r}e^-{r * r})/(1 - e^-{r * r}))",
            complex_subjects,
            STD,
        ),
        Entry(
            f"complex_truncnorm.{r}.correction",
            f"complex truncated normal (|z| < {r}) std correction",
            f"sqrt((1 - e^-{r * r})/(1 - {1 + r * r}e^-{r * r}))",
            complex_subjects,
            (*STD, "correction", "scale"),
        ),
        Entry(
            f"complex_truncnorm.{r}.acceptance",
            f"complex truncated normal (|z| < {r}) acceptance",
            f"P(|z| < {r}) = 1 - e^-{r * r}",
            complex_subjects,
            ACCEPTANCE,
        ),
        Entry(
            f"complex_truncnorm.{r}.std_unnormalized",
            f"E[|z|^2; |z| < {r}] not divided by P(|z| < {r}), as in jax's complex truncated normal",
            f"sqrt(1 - {1 + r * r}e^-{r * r})",
            complex_subjects,
            STD,
            "mistake",
            correct=f"complex_truncnorm.{r}.std",
        ),
    ]
    selu = ("selu",)
    found += [
        Entry(
            "selu.lambda",
            "SELU lambda (scale)",
            "lambda with E[selu(Z)] = 0, E[selu(Z)^2] = 1",
            selu,
            ("scale", "lambda", "lam", "lmbda"),
        ),
        Entry("selu.alpha", "SELU alpha", "alpha with E[selu(Z)] = 0, E[selu(Z)^2] = 1", selu, ("alpha",)),
        Entry(
            "selu.lambda_alpha",
            "SELU lambda*alpha (alpha-dropout's -alpha')",
            "lambda*alpha",
            ("selu", "alpha_dropout", "alphadropout", "feature_alpha_dropout"),
            ("alpha", "scale", "saturation"),
        ),
    ]
    for p in DROPOUT_P:
        at = _text(p)
        subjects = ("alpha_dropout", "alphadropout", "feature_alpha_dropout")
        found += [
            Entry(
                f"alpha_dropout.{at}.a",
                f"alpha-dropout scale a at p = {at}",
                "((1 - p)(1 + p*(lambda*alpha)^2))^(-1/2)",
                subjects,
                ("a", "scale", "gain"),
            ),
            Entry(
                f"alpha_dropout.{at}.b",
                f"alpha-dropout shift b at p = {at}",
                "a*p*lambda*alpha",
                subjects,
                ("b", "shift", "bias", "offset"),
            ),
        ]
    found += [
        Entry(
            "heuristic.tanh_gain",
            "calculate_gain('tanh') (heuristic)",
            "5/3",
            ("tanh", "calculate_gain"),
            ("gain",),
            "heuristic",
        ),
        Entry(
            "heuristic.selu_gain",
            "calculate_gain('selu') (heuristic)",
            "3/4",
            ("selu", "calculate_gain"),
            ("gain",),
            "heuristic",
        ),
        Entry(
            "heuristic.relu_gain",
            "calculate_gain('relu') (heuristic)",
            "sqrt(2)",
            ("relu", "calculate_gain"),
            ("gain",),
            "heuristic",
        ),
    ]
    for a in LEAKY_SLOPES:
        at = _text(a)
        found.append(
            Entry(
                f"heuristic.leaky_relu_gain.{at}",
                f"calculate_gain('leaky_relu', {at}) (heuristic)",
                f"sqrt(2/(1 + {at}^2))",
                ("leaky_relu", "leakyrelu", "calculate_gain"),
                ("gain",),
                "heuristic",
                f"slope={at}",
            )
        )
    found += [
        Entry("closed.sqrt_2_over_pi", "sqrt(2/pi)", "sqrt(2/pi)", ("gelu", "gelu_tanh", "gelu_new")),
        Entry("closed.sqrt_pi_over_2", "sqrt(pi/2)", "sqrt(pi/2)", ()),
        Entry("closed.inv_sqrt_2pi", "1/sqrt(2*pi)", "1/sqrt(2*pi)", ()),
        Entry("closed.inv_sqrt_2", "1/sqrt(2)", "1/sqrt(2)", ()),
        Entry("closed.sqrt_2", "sqrt(2)", "sqrt(2)", ()),
        Entry("closed.sqrt_3", "sqrt(3)", "sqrt(3)", ()),
        Entry("closed.inv_sqrt_3", "1/sqrt(3)", "1/sqrt(3)", ()),
        Entry("closed.pi_over_pi_minus_1", "pi/(pi - 1) (relu: E[phi^2]/Var[phi])", "pi/(pi - 1)", ("relu",)),
        Entry("closed.two_over_pi", "2/pi", "2/pi", ()),
    ]
    for layers in GPT2_LAYERS:
        found.append(
            Entry(
                f"gpt2.residual_scale.{layers}",
                f"GPT-2 residual scale at {layers} layers",
                f"(2*{layers})^(-1/2)",
                ("gpt2", "gpt", "n_layer", "residual"),
                ("scale", *STD),
            )
        )
    for layers in DEEPNET_LAYERS:
        subjects = ("deepnet", "deepnorm")
        found += [
            Entry(
                f"deepnet.alpha.{layers}",
                f"DeepNet alpha at N = {layers}",
                f"(2*{layers})^(1/4)",
                subjects,
                ("alpha",),
            ),
            Entry(
                f"deepnet.beta.{layers}",
                f"DeepNet beta at N = {layers}",
                f"(8*{layers})^(-1/4)",
                subjects,
                ("beta",),
            ),
        ]
    return found


def _balls(digits: int) -> dict[str, Any]:
    """Every constant as a ball that should round at ``digits`` digits (the caller checks)."""
    out: dict[str, Any] = {}
    for act in CATALOG:
        out.update(_forms(act.name, act.name, None, digits))
        if act.name == "leaky_relu":
            for slope in FRAMEWORK_SLOPES:
                out.update(_forms(act.name, f"leaky_relu.{_text(slope)}", {"slope": slope}, digits))
    out["gelu_tanh.cubic_coefficient"] = exact_ball(GELU_TANH_CUBIC)
    out["quick_gelu.scale"] = exact_ball(QUICK_GELU_SCALE)
    sigmoid_second = moment_balls("sigmoid", digits=digits)["second_moment"]
    out["glu.centered_gain"] = 1 / sigmoid_second.sqrt()
    out["glu.variance"] = sigmoid_second

    bits = bits_for(digits) + 64
    for a in TRUNCATIONS:
        at = _text(a)
        accept, _, gamma = normal_balls.truncated_moments(-a, a, bits)
        out.update(
            {
                f"truncnorm.{at}.gamma": gamma,
                f"truncnorm.{at}.std_ratio": gamma.sqrt(),
                f"truncnorm.{at}.correction": 1 / gamma.sqrt(),
                f"truncnorm.{at}.acceptance": accept,
            }
        )
    cut = exact_ball(Fraction(COMPLEX_TRUNCATION**2))
    tail = (-cut).exp()  # P(|z| > a) = e^(-a^2): |z|^2 ~ Exp(1) for z ~ CN(0, 1)
    partial = 1 - (1 + cut) * tail  # E[|z|^2; |z| < a]
    r = COMPLEX_TRUNCATION
    out.update(
        {
            f"complex_truncnorm.{r}.variance": partial / (1 - tail),
            f"complex_truncnorm.{r}.std": (partial / (1 - tail)).sqrt(),
            f"complex_truncnorm.{r}.correction": ((1 - tail) / partial).sqrt(),
            f"complex_truncnorm.{r}.acceptance": 1 - tail,
            f"complex_truncnorm.{r}.std_unnormalized": partial.sqrt(),
        }
    )
    lam, alpha = selu_constants()
    out.update({"selu.lambda": lam, "selu.alpha": alpha, "selu.lambda_alpha": lam * alpha})
    s = lam * alpha
    for p in DROPOUT_P:
        q = exact_ball(p)
        a = 1 / ((1 - q) * (1 + q * s * s)).sqrt()
        out[f"alpha_dropout.{_text(p)}.a"] = a
        out[f"alpha_dropout.{_text(p)}.b"] = a * q * s
    out["heuristic.tanh_gain"] = arb(5) / 3
    out["heuristic.selu_gain"] = arb(3) / 4
    out["heuristic.relu_gain"] = arb(2).sqrt()
    for slope in LEAKY_SLOPES:
        out[f"heuristic.leaky_relu_gain.{_text(slope)}"] = (2 / (1 + exact_ball(slope) ** 2)).sqrt()
    pi = arb.pi()
    out.update(
        {
            "closed.sqrt_2_over_pi": (2 / pi).sqrt(),
            "closed.sqrt_pi_over_2": (pi / 2).sqrt(),
            "closed.inv_sqrt_2pi": 1 / (2 * pi).sqrt(),
            "closed.inv_sqrt_2": 1 / arb(2).sqrt(),
            "closed.sqrt_2": arb(2).sqrt(),
            "closed.sqrt_3": arb(3).sqrt(),
            "closed.inv_sqrt_3": 1 / arb(3).sqrt(),
            "closed.pi_over_pi_minus_1": pi / (pi - 1),
            "closed.two_over_pi": 2 / pi,
        }
    )
    for layers in GPT2_LAYERS:
        out[f"gpt2.residual_scale.{layers}"] = 1 / arb(2 * layers).sqrt()
    for layers in DEEPNET_LAYERS:
        out[f"deepnet.alpha.{layers}"] = arb(2 * layers).root(4)
        out[f"deepnet.beta.{layers}"] = 1 / arb(8 * layers).root(4)
    return out


def _forms(name: str, prefix: str, params: dict | None, digits: int) -> dict[str, Any]:
    b = moment_balls(name, digits=digits, params=params)
    d = b["derivative_second_moment"]
    forms = {
        **b,
        "std": b["variance"].sqrt(),
        "inverse_variance": 1 / b["variance"],
        "derivative_rms": d.sqrt(),
        "derivative_gain": 1 / d.sqrt(),
    }
    return {f"{prefix}.{suffix}": forms[suffix] for suffix, *_ in ACTIVATION_FORMS}


def compute(digits: int, wanted: Callable[[str], bool] = lambda key: True) -> dict[str, str]:
    """Every constant's decimal, correctly rounded to ``digits`` significant digits and proven
    (each ball's two ends round alike), raising the precision until they do."""
    for extra in (10, 30, 90):
        with arb_precision(bits_for(digits + extra) + 64):
            balls = _balls(digits + extra)
            texts = {key: ball_text(ball, digits) for key, ball in balls.items() if wanted(key)}
        proven = {key: text for key, text in texts.items() if text is not None}
        if len(proven) == len(texts):
            return proven
    raise PrecisionError(f"the constants' {digits} digits could not be proven")
