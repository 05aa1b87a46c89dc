"""``initializer NAME``: every catalog entry against two routes.

1. Closed form at 30 digits: each call's documented formula, written out here by hand from the
   framework's source, with the truncation factor from the truncnorm command (std of N(0, 1)
   kept on [low, high]) and the uniform's std bound/sqrt(3).
2. Sampling: 10^6 numpy draws reproducing the framework's algorithm as its source describes it
   (PyTorch's and JAX's inverse CDF of a uniform then a clamp; TensorFlow's re-drawing outside
   ±2 std), compared within 5 standard errors of the sample std.
"""

from __future__ import annotations

import json
import math
from fractions import Fraction

import mpmath
import numpy
import pytest

from momentcalc.catalog.initializers import BY_NAME, CATALOG, TRUNCATED_STD_LITERAL
from momentcalc.computations.initializer import initializer
from momentcalc.computations.truncnorm import truncnorm
from momentcalc.errors import InputError
from momentcalc.verification.registry import REGISTRY
from tests import framework_replay as replay
from tests.conftest import invoke

DIGITS = 30
DRAWS = 10**6
FAN_IN, FAN_OUT = 300, 200
KERAS_C = Fraction(float(TRUNCATED_STD_LITERAL))
F32_C = Fraction(float(numpy.float32(float(TRUNCATED_STD_LITERAL))))
TORCH_ATOM = Fraction(1, 2**24)  # one of PyTorch's 2^24 float32 uniforms is its lower end exactly


def held(text, dtype=numpy.float32):
    """The decimal ``text`` as the weights' dtype holds it, exactly."""
    return mp(Fraction(float(dtype(float(text)))))


def keras(scale, n, distribution, dtype=numpy.float32):
    """Keras's VarianceScaling factor: Python doubles, then the weights' dtype (its sampler's)."""
    variance = float(scale) / max(1.0, float(n))
    value = {
        "truncated_normal": numpy.sqrt(variance) / float(TRUNCATED_STD_LITERAL),
        "uniform": numpy.sqrt(3.0 * variance),
    }.get(distribution, numpy.sqrt(variance))
    return mp(Fraction(float(dtype(value))))


def jax(scale, n, distribution, dtype=numpy.float32):
    """JAX's variance_scaling factor as an mpf (``jax_raw``)."""
    return mp(Fraction(float(jax_raw(scale, n, distribution, dtype))))


def jax_raw(scale, n, distribution, dtype=numpy.float32):
    """JAX's variance_scaling factor: variance = array(scale / n, dtype), then numpy ops in dtype."""
    variance = dtype(float(scale) / float(n))
    if distribution == "truncated_normal":
        value = numpy.sqrt(variance) / dtype(float(TRUNCATED_STD_LITERAL))
    elif distribution == "uniform":
        value = numpy.sqrt(dtype(3) * variance)
    else:
        value = numpy.sqrt(variance)
    assert value.dtype == numpy.dtype(dtype)
    return value


def mp(x):
    x = Fraction(x)
    return mpmath.mpf(x.numerator) / x.denominator


def trunc_factor(low, high):
    """std of N(0, 1) kept on [low, high], from the truncnorm command (another computation)."""
    return truncnorm(low=Fraction(low), high=Fraction(high), digits=DIGITS + 10).value("std_ratio")


# (entry, arguments, fan_in, fan_out, family, closed form of (sigma, low, high) or uniform bound)
# sigma: std of the normal before truncation; low/high: truncation in stds (None: untruncated).
def cases():
    return [
        # PyTorch: each call's parameter arithmetic replayed in numpy (tests/framework_replay.py),
        # the model's moments by quadrature over its uniform.
        ("torch.nn.init.trunc_normal_", {}, None, None, "model", lambda: replay.torch_trunc_normal()),
        # PyTorch's CPU uniform_(-1, 1) draws -1 with probability 2^-24: erfinv(-1) = -inf, clamped to a = -2.
        (
            "torch.nn.init.trunc_normal_",
            {"std": "0.02"},
            None,
            None,
            "model",
            lambda: replay.torch_trunc_normal(std=0.02),
        ),
        (
            "torch.nn.init.trunc_normal_",
            {"std": "0.5", "mean": "0.25", "a": "-0.5", "b": "1"},
            None,
            None,
            "model",
            lambda: replay.torch_trunc_normal(0.25, 0.5, -0.5, 1.0),
        ),
        (
            "torch.nn.init.trunc_normal_",
            {"mean": "1", "a": "0", "b": "1.5"},
            None,
            None,
            "model",
            lambda: replay.torch_trunc_normal(1.0, 1.0, 0.0, 1.5),
        ),
        (
            "torch.nn.init.normal_",
            {"std": "0.02"},
            None,
            None,
            "model",
            lambda: replay.torch_normal(0.0, 0.02),
        ),
        (
            "torch.nn.init.kaiming_normal_",
            {},
            FAN_IN,
            FAN_OUT,
            "model",
            lambda: replay.torch_kaiming("normal", FAN_IN),
        ),
        (
            "torch.nn.init.kaiming_normal_",
            {"mode": "fan_out", "nonlinearity": "tanh"},
            FAN_IN,
            FAN_OUT,
            "model",
            lambda: replay.torch_kaiming("normal", FAN_OUT, nonlinearity="tanh"),
        ),
        (
            "torch.nn.init.kaiming_uniform_",
            {"a": "0.2"},
            FAN_IN,
            FAN_OUT,
            "model",
            lambda: replay.torch_kaiming("uniform", FAN_IN, a=0.2),
        ),
        (
            "torch.nn.init.xavier_normal_",
            {"gain": "2"},
            FAN_IN,
            FAN_OUT,
            "model",
            lambda: replay.torch_xavier("normal", FAN_IN, FAN_OUT, gain=2.0),
        ),
        (
            "torch.nn.init.xavier_uniform_",
            {},
            FAN_IN,
            FAN_OUT,
            "model",
            lambda: replay.torch_xavier("uniform", FAN_IN, FAN_OUT),
        ),
        (
            "torch.nn.Linear",
            {},
            FAN_IN,
            None,
            "model",
            lambda: replay.torch_kaiming("uniform", FAN_IN, a=math.sqrt(5)),
        ),
        # Keras, TensorFlow, JAX: the std as the call computes and holds it (numpy's float32 here).
        ("tf.keras.initializers.TruncatedNormal", {}, None, None, "trunc", lambda: (held("0.05"), -2, 2)),
        (
            "tf.keras.initializers.VarianceScaling",
            {},
            FAN_IN,
            FAN_OUT,
            "trunc",
            lambda: (keras(1, FAN_IN, "truncated_normal"), -2, 2),
        ),
        (
            "tf.keras.initializers.VarianceScaling",
            {"scale": "3", "mode": "fan_avg", "distribution": "untruncated_normal"},
            FAN_IN,
            FAN_OUT,
            "normal",
            lambda: (keras(3, (FAN_IN + FAN_OUT) / 2, "normal"), None, None),
        ),
        (
            "tf.keras.initializers.GlorotUniform",
            {},
            FAN_IN,
            FAN_OUT,
            "uniform",
            lambda: keras(1, (FAN_IN + FAN_OUT) / 2, "uniform"),
        ),
        (
            "tf.keras.initializers.HeNormal",
            {},
            FAN_IN,
            None,
            "trunc",
            lambda: (keras(2, FAN_IN, "truncated_normal"), -2, 2),
        ),
        (
            "tf.keras.initializers.LecunNormal",
            {},
            FAN_IN,
            None,
            "trunc",
            lambda: (keras(1, FAN_IN, "truncated_normal"), -2, 2),
        ),
        (
            "tf.random.truncated_normal",
            {"stddev": "0.02"},
            None,
            None,
            "trunc",
            lambda: (held("0.02"), -2, 2),
        ),
        (
            "jax.nn.initializers.variance_scaling",
            {"scale": "2", "mode": "fan_geo_avg", "distribution": "truncated_normal"},
            FAN_IN,
            FAN_OUT,
            "model",
            lambda: replay.jax_trunc_normal(jax_raw(2, (FAN_IN * FAN_OUT) ** 0.5, "truncated_normal")),
        ),
        (
            "jax.nn.initializers.variance_scaling",
            {"scale": "1", "mode": "fan_out", "distribution": "uniform"},
            FAN_IN,
            FAN_OUT,
            "uniform",
            lambda: jax(1, FAN_OUT, "uniform"),
        ),
        (
            "jax.nn.initializers.lecun_normal",
            {},
            FAN_IN,
            None,
            "model",
            lambda: replay.jax_trunc_normal(jax_raw(1, FAN_IN, "truncated_normal")),
        ),
        (
            "jax.nn.initializers.variance_scaling",
            {"scale": "1", "mode": "fan_in", "distribution": "normal"},
            FAN_IN,
            FAN_OUT,
            "model",
            lambda: replay.jax_normal(jax_raw(1, FAN_IN, "normal")),
        ),
        (
            "jax.nn.initializers.lecun_normal",
            {"dtype": "float64"},
            FAN_IN,
            None,
            "model",
            lambda: replay.jax_trunc_normal(
                jax_raw(1, FAN_IN, "truncated_normal", numpy.float64), dtype=numpy.float64
            ),
        ),
        (
            "jax.nn.initializers.truncated_normal",
            {"lower": "-1", "upper": "3"},
            None,
            None,
            "model",
            lambda: replay.jax_trunc_normal(numpy.float32(0.01), -1.0, 3.0),
        ),
        (
            "flax.linen.Dense",
            {},
            FAN_IN,
            None,
            "model",
            lambda: replay.jax_trunc_normal(jax_raw(1, FAN_IN, "truncated_normal")),
        ),
    ]


CASES = cases()
IDS = [f"{name}-{i}" for i, (name, *_rest) in enumerate(CASES)]


def test_every_catalog_entry_is_tested():
    assert {name for name, *_ in CASES} == set(BY_NAME)
    spec = {
        "torch.nn.init.trunc_normal_",
        "torch.nn.init.normal_",
        "torch.nn.init.kaiming_normal_",
        "torch.nn.init.kaiming_uniform_",
        "torch.nn.init.xavier_normal_",
        "torch.nn.init.xavier_uniform_",
        "torch.nn.Linear",
        "tf.keras.initializers.TruncatedNormal",
        "tf.keras.initializers.VarianceScaling",
        "tf.keras.initializers.GlorotUniform",
        "tf.keras.initializers.HeNormal",
        "tf.keras.initializers.LecunNormal",
        "tf.random.truncated_normal",
        "jax.nn.initializers.variance_scaling",
        "jax.nn.initializers.lecun_normal",
        "jax.nn.initializers.truncated_normal",
        "flax.linen.Dense",
    }
    assert spec <= set(BY_NAME)
    for entry in CATALOG:
        assert entry.version[0].isdigit() and "/" in entry.source


def expected_std(family, closed):
    with mpmath.workdps(DIGITS + 10):
        if family == "model":
            return replay.model_moments(closed(), DIGITS + 10)[1]
        if family == "uniform":
            return closed() / mpmath.sqrt(3)
        sigma, low, high, *atoms = closed()
        if family == "normal":
            return sigma
        std = sigma * trunc_factor(low, high)
        if not atoms:
            return std
        # the mixture: atoms (value, probability), the rest the truncated normal (mean 0 here: symmetric)
        rest = 1 - sum(mp(p) for _, p in atoms[0])
        first = sum(mp(p) * x for x, p in atoms[0])
        second = sum(mp(p) * x * x for x, p in atoms[0]) + rest * std**2
        return mpmath.sqrt(second - first**2)


@pytest.mark.parametrize(("name", "args", "fan_in", "fan_out", "family", "closed"), CASES, ids=IDS)
def test_closed_form_at_30_digits(name, args, fan_in, fan_out, family, closed):
    result = initializer(name, arguments=args, fan_in=fan_in, fan_out=fan_out, digits=DIGITS)
    want = expected_std(family, closed)
    got = result.value("effective_std")
    with mpmath.workdps(DIGITS + 10):
        assert abs(got - want) <= abs(want) * mpmath.mpf(10) ** -(DIGITS - 1)
    assert result["effective_std"].certified
    if family == "model":
        mean = replay.model_moments(closed(), DIGITS + 10)[0]
        with mpmath.workdps(DIGITS + 10):
            assert abs(result.value("effective_mean") - mean) <= abs(want) * mpmath.mpf(10) ** -(DIGITS - 1)


def draw(family, closed, mean, rng):
    """DRAWS values by the framework's own algorithm."""
    from scipy.special import erf, erfinv

    if family == "model":
        model = closed()
        if model[0] == "normal":
            return rng.normal(float(model[1]), float(model[2]), DRAWS)
        if model[0] == "uniform":
            return rng.uniform(float(model[1]), float(model[2]), DRAWS)
        _, m, s, u0, u1, ca, cb, _atoms = model  # (atoms of 2^-24 are below what 10^6 draws see)
        values = erfinv(rng.uniform(float(u0), float(u1), DRAWS))
        return float(m) + float(s) * numpy.clip(values, float(ca), float(cb))
    if family == "uniform":
        bound = float(closed())
        return rng.uniform(-bound, bound, DRAWS)
    sigma, low, high, *_atoms = closed()  # (an atom of probability 2^-24 is below what 10^6 draws see)
    sigma = float(sigma)
    if family == "normal":
        return rng.normal(mean, sigma, DRAWS)
    low, high = float(low), float(high)
    if (low, high) == (-2.0, 2.0) and mean == 0:
        # tf.random.truncated_normal (and Keras's TF backend): re-draw anything beyond 2 std.
        values = rng.normal(0.0, 1.0, 2 * DRAWS)
        values = values[numpy.abs(values) <= 2][:DRAWS]
        assert values.size == DRAWS
        return values * sigma
    # PyTorch's trunc_normal_ and jax.random.truncated_normal: inverse CDF of a uniform, clamped.
    a, b = erf(low / numpy.sqrt(2)), erf(high / numpy.sqrt(2))
    values = erfinv(rng.uniform(a, b, DRAWS)) * numpy.sqrt(2)
    return numpy.clip(values, low, high) * sigma + mean


@pytest.mark.parametrize(("name", "args", "fan_in", "fan_out", "family", "closed"), CASES, ids=IDS)
def test_effective_std_against_sampling(name, args, fan_in, fan_out, family, closed):
    result = initializer(name, arguments=args, fan_in=fan_in, fan_out=fan_out, digits=15)
    mean = float(result.value("effective_mean"))
    rng = numpy.random.default_rng(20261123)
    values = draw(family, closed, float(Fraction(args.get("mean", "0"))), rng)
    sample = values.std()
    # standard error of a sample std: std·sqrt((kurtosis − 1)/(4n)); kurtosis <= 3 here.
    error = sample * numpy.sqrt(2 / (4 * DRAWS))
    assert abs(sample - float(result.value("effective_std"))) < 5 * error
    assert abs(values.mean() - mean) < 5 * sample / numpy.sqrt(DRAWS)


def test_keras_and_jax_ratios_are_their_own_float_arithmetic():
    """The std factor as the call computes and holds it (Keras: Python doubles, then the float32
    its sampler takes; JAX: variance, sqrt, the literal and the division in float32), replayed
    here with numpy: at fan_in 768 JAX's lecun_normal is 1 - 1.10e-7 of its promise (its factor
    alone 1 - 6.08e-8, the float32 sqrt(2) times erf_inv 1.71e-8 and the float32 erf(-2/sqrt2)
    the rest), Keras's 1 + 3.0e-8 in float32 and 1 - 3.99e-17 in float64."""

    def jax_ratio(name):
        model = replay.jax_trunc_normal(jax_raw(1, 768, "truncated_normal"))
        got = initializer(name, fan_in=768, digits=30).value("effective_ratio")
        with mpmath.workdps(40):
            want = replay.model_moments(model, 40)[1] / mpmath.sqrt(mpmath.mpf(1) / 768)
            assert abs(got - want) < mpmath.mpf(10) ** -29
            return mpmath.nstr(got - 1, 3)

    def ratio(name, args, want_factor):
        with mpmath.workdps(40):
            got = initializer(name, arguments=args, fan_in=768, digits=30).value("effective_ratio")
            want = want_factor * trunc_factor(-2, 2) / mpmath.sqrt(mpmath.mpf(1) / 768)
            assert abs(got - want) < mpmath.mpf(10) ** -29
            return mpmath.nstr(got - 1, 3)

    assert jax_ratio("jax.nn.initializers.lecun_normal") == "-1.1e-7"
    assert jax_ratio("flax.linen.Dense") == "-1.1e-7"
    assert ratio("tf.keras.initializers.VarianceScaling", {}, keras(1, 768, "truncated_normal")) == "3.01e-8"
    assert (
        ratio(
            "tf.keras.initializers.VarianceScaling",
            {"dtype": "float64"},
            keras(1, 768, "truncated_normal", numpy.float64),
        )
        == "-3.99e-17"
    )
    run = invoke(
        "initializer",
        "tf.keras.initializers.VarianceScaling",
        "--fan-in",
        "768",
        "--digits",
        "20",
        "--get",
        "effective_ratio",
    )
    assert run.stdout.strip() == "1.0000000300553357483"


def test_the_literal_is_the_published_one():
    published = next(e.published for e in REGISTRY if e.id == "truncnorm.std_ratio.tf")
    assert Fraction(float(published)) == Fraction(float(TRUNCATED_STD_LITERAL))


def test_bert_timm_keras():
    bert = initializer("tf.random.truncated_normal", arguments={"stddev": "0.02"}, digits=15)
    # stddev 0.02 as float32 (0.0199999995529652) times the ±2 truncation's 0.8796256610342…
    assert str(bert.value("effective_std")).startswith("0.0175925128274615")
    assert "torch.nn.init.trunc_normal_(w, mean=0.0, std=0.02, a=-0.04, b=0.04)" in bert.extra["equivalents"]
    timm = initializer("torch.nn.init.trunc_normal_", arguments={"std": "0.02"}, digits=15)
    # 1 in 2^24 values is -2 (PyTorch's uniform_ draws -1, erfinv gives -inf, the clamp gives a);
    # the rest is the normal of std float32(0.02*sqrt(2))/sqrt(2), its lowest cell replaced by that atom.
    _mean, std = replay.model_moments(replay.torch_trunc_normal(std=0.02), 30)
    assert abs(timm.value("effective_ratio") - std / mpmath.mpf("0.02")) < mpmath.mpf(10) ** -14
    assert str(timm["effective_ratio"].rounded_from).startswith("1.000297052911")
    assert 100 < timm.value("high_sigma") < 100.00001 and abs(timm.value("high") - 2) < 1e-14
    assert timm.value("low") == -2 and -100.00001 < timm.value("low_sigma") < -100  # the atom
    assert timm.value("excluded_mass") < mpmath.mpf(10) ** -2000
    assert any(
        call.startswith("tf.keras.initializers.RandomNormal(mean=0.0, stddev=0.01999999934")
        for call in timm.extra["equivalents"]
    )
    keras = initializer("tf.keras.initializers.TruncatedNormal", arguments={"stddev": "0.02"}, digits=15)
    assert keras.value("low_sigma") == -2


def test_equivalents_sample_the_same():
    """An equivalent that is itself a catalog call gives the same effective std."""
    first = initializer("tf.random.truncated_normal", arguments={"stddev": "0.02"}, digits=15)
    jax_call = next(
        c for c in first.extra["equivalents"] if c.startswith("jax.nn.initializers.truncated_normal")
    )
    assert jax_call == "jax.nn.initializers.truncated_normal(stddev=0.02, lower=-2.0, upper=2.0)"
    again = initializer(
        "jax.nn.initializers.truncated_normal", arguments={"stddev": "0.02", "lower": "-2", "upper": "2"}
    )
    # the same up to each call's float32 parameters (JAX: float32 sqrt(2) and erf bounds)
    assert abs(again.value("effective_std") / first.value("effective_std") - 1) < mpmath.mpf(2) ** -23
    torch = initializer("torch.nn.init.trunc_normal_", arguments={"std": "0.02", "a": "-0.04", "b": "0.04"})
    assert abs(torch.value("effective_std") / first.value("effective_std") - 1) < mpmath.mpf(2) ** -23


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (("torch.nn.init.trunc_norml_",), ("NAME", "torch.nn.init.trunc_normal_")),
        (("TruncatedNormal",), ("tf.keras.initializers.TruncatedNormal",)),
        (("torch.nn.init.trunc_normal_", "--a", "2", "--b", "1"), ("--a must be less than --b",)),
        (("torch.nn.init.trunc_normal_", "--std", "-0.02"), ("--std must be greater than 0",)),
        (("tf.keras.initializers.TruncatedNormal", "--stddev", "-1"), ("--stddev must be greater than 0",)),
        (
            ("torch.nn.init.kaiming_normal_", "--mode", "fan_avg", "--fan-in", "3"),
            ("--mode", "fan_in, fan_out"),
        ),
        (("tf.keras.initializers.VarianceScaling", "--mode", "fan", "--fan-in", "3"), ("--mode", "fan_avg")),
        (
            ("tf.keras.initializers.VarianceScaling", "--distribution", "cauchy", "--fan-in", "3"),
            ("--distribution",),
        ),
        (("torch.nn.init.kaiming_normal_", "--nonlinearity", "gelu", "--fan-in", "3"), ("--nonlinearity",)),
        (("torch.nn.init.trunc_normal_", "--stddev", "1"), ("--stddev is not an argument", "--std")),
        (("jax.nn.initializers.variance_scaling", "--fan-in", "3"), ("--scale is required",)),
        (("torch.nn.Linear",), ("--fan-in is required",)),
        (("torch.nn.init.normal_", "--fan-in", "3"), ("--fan-in",)),
        (
            ("jax.nn.initializers.truncated_normal", "--lower", "2", "--upper", "2"),
            ("--lower must be less than --upper",),
        ),
        (("torch.nn.Linear", "--fan-in", "0"), ("--fan-in must be a whole number >= 1",)),
    ],
)
def test_bad_input_is_exit_2_naming_the_argument(argv, words):
    run = invoke("initializer", *argv)
    assert run.code == 2 and run.stdout == ""
    assert run.stderr.count("\n") == 1 and "Traceback" not in run.stderr
    for word in words:
        assert word in run.stderr
    assert invoke("initializer", *argv, "--json").json()["error"]["code"] == 2


def test_framework_spellings_are_accepted():
    """PyTorch lower-cases mode; Keras lower-cases distribution and reads normal as truncated_normal."""
    assert (
        initializer(
            "torch.nn.init.kaiming_normal_", arguments={"mode": "FAN_OUT"}, fan_in=3, fan_out=5
        ).inputs["mode"]
        == "fan_out"
    )
    keras = initializer(
        "tf.keras.initializers.VarianceScaling", arguments={"distribution": "Normal"}, fan_in=3
    )
    assert keras.inputs["distribution"] == "truncated_normal" and keras.value("low_sigma") == -2


def test_library_errors_use_python_names():
    with pytest.raises(InputError, match="std must be greater than 0"):
        initializer("torch.nn.init.normal_", arguments={"std": "0"})


def test_listing_has_every_entry_with_its_source():
    run = invoke("initializers", "--json")
    rows = run.json()["rows"]
    assert [row["name"] for row in rows] == [entry.name for entry in CATALOG]
    by_name = {row["name"]: row for row in rows}
    assert by_name["torch.nn.Linear"]["effective_ratio"].startswith("0.5773502691896257")
    assert by_name["tf.keras.initializers.VarianceScaling"]["effective_ratio"] == "1.0000000204737968015"
    assert by_name["jax.nn.initializers.variance_scaling"]["effective_ratio"] is None
    assert json.loads(invoke("initializers", "--format", "json").stdout)["command"] == "initializers"


def test_readme_table_is_the_listing():

    from momentcalc.computations.initializer import ratio_table_markdown

    from tests import doc_pages

    readme = doc_pages.text()
    table = readme.split("<!-- initializers-table -->\n", 1)[1].split("\n<!-- /initializers-table -->", 1)[0]
    assert table == ratio_table_markdown()
    assert "| `tf.keras.initializers.VarianceScaling` |" in table and "1.0000000204737968015" in table


def test_far_tails_and_extremes_answer_or_exit_3():
    """std 1e-300 puts trunc_normal_'s bounds at ±2e300 stds: the excluded mass is e^(-2e600),
    next to a gamma of 1 (its ball's radius must not blow up the rounding). Beyond the budget:
    exit 3, said plainly."""
    run = invoke(
        "initializer",
        "torch.nn.init.trunc_normal_",
        "--std",
        "1e-300",
        "--get",
        "effective_std",
        "--get",
        "effective_ratio",
    )
    # float32(1e-300 * sqrt(2)) is 0: erfinv(U)*0 is 0, but erfinv(-1)*0 is NaN: not a scaled normal
    assert run.code == 3 and "float32" in run.stderr and run.stdout == ""
    run = invoke("initializer", "torch.nn.init.trunc_normal_", "--a", "-1e100000", "--b", "1e100000")
    assert run.code in (0, 3) and "Traceback" not in run.stderr


def test_derive_states_the_distribution():
    doc = invoke(
        "initializer", "tf.keras.initializers.HeNormal", "--fan-in", "512", "--derive", "--json"
    ).json()
    lines = {line["label"]: line["text"] for line in doc["derivation"]}
    factor = Fraction(float(numpy.float32(numpy.sqrt(2 / 512) / float(TRUNCATED_STD_LITERAL))))
    assert lines["sigma"] == f"sigma = ({factor})"
    assert "kept on" in lines["draw"] and "gamma" in lines["effective_std"]
    assert invoke("initializer", "torch.nn.init.normal_", "--json").json()["derivation"] == []


def test_trunc_normal_far_beyond_the_mean_is_a_constant():
    """a = 10, b = 11 (std 1): PyTorch's norm_cdf in double is 1.0 at both, uniform_(1, 1) draws 1,
    erfinv(1) = inf and the clamp sets every value to b: std 0 (PyTorch warns), not the 0.0971 of
    a truncated normal on [10, 11]."""
    result = initializer("torch.nn.init.trunc_normal_", arguments={"a": "10", "b": "11"}, digits=15)
    assert result.value("effective_std") == 0 and result.value("effective_mean") == 11
    assert result["effective_std"].exact == 0 and result.value("low") == result.value("high") == 11
    assert any("every value to b = 11" in note for note in result.notes)
    assert any("PyTorch warns" in note for note in result.notes)
    low = initializer("torch.nn.init.trunc_normal_", arguments={"a": "-11", "b": "-10"}, digits=15)
    assert low.value("effective_mean") == -11 and low.value("effective_std") == 0
    run = invoke("initializer", "torch.nn.init.trunc_normal_", "--a", "-1e100000", "--b", "1e100000")
    assert run.code == 3 and "infinite" in run.stderr


def test_trunc_normal_uniform_ends_replay_pytorch():
    """from/to of _no_grad_trunc_normal_'s uniform_ in float32, and the 2^-24 atom at -1."""
    from momentcalc.catalog.initializers import torch_uniform_ends

    assert torch_uniform_ends(0.0, 1.0, -2.0, 2.0)[3:] == (0, 0)  # from = 2*Phi(-2) - 1 > -1: no atom
    bottom, top, width, low, high = torch_uniform_ends(0.0, 0.02, -2.0, 2.0)
    assert (bottom, top, width, low, high) == (-1.0, 1.0, 2.0, TORCH_ATOM, 0)  # top value 1 - 2^-23 < 1


def test_a_negative_binary_result_keeps_its_sign_as_a_literal():
    """A decided result that is exactly a double is written as its shortest literal, sign
    included (mpf.man_exp drops the sign: -0.5 was written 0.5)."""
    from momentcalc.computations.initializer import _code

    assert _code(mpmath.mpf(-0.5), 6) == "-0.5" and _code(mpmath.mpf(0.5), 6) == "0.5"
    assert _code(-(mpmath.mpf(2) ** -30), 6) == "-9.313226e-10"  # the shortest float32 literal of -2^-30
    with mpmath.workdps(30):
        assert _code(-mpmath.mpf(1) / 3, 6) == "-0.333333"


@pytest.mark.slow
@pytest.mark.parametrize(
    ("args", "call"),
    [
        ({"std": "0.02"}, (0.0, 0.02, -2.0, 2.0)),
        # a shifted, one-sided window of the same path (0.6 s of CPU): -m reference
        pytest.param({"mean": "1", "a": "0", "b": "1.5"}, (1.0, 1.0, 0.0, 1.5), marks=pytest.mark.reference),
    ],
)
def test_trunc_normal_against_all_of_pytorchs_float32_grid(args, call):
    """All 2^24 values of PyTorch 2.8's float32 trunc_normal_ path (numpy-emulated, about 3 s):
    the model's std is within parts in 10^7 of the real output's (the grid and per-value
    rounding); the exact-arithmetic formula of the previous model was 9.1e-7 off at std=0.02."""
    values = replay.torch_trunc_normal_grid(*call).astype(numpy.float64)
    result = initializer("torch.nn.init.trunc_normal_", arguments=args, digits=20)
    std = float(result.value("effective_std"))
    assert abs(values.std() / std - 1) < 2e-7
    assert abs(values.mean() - float(result.value("effective_mean"))) < 1e-6 * std
    # within the proven bounds the command prints (rounded up)
    assert abs(values.std() - std) <= float(result.value("output_std_bound"))
    assert abs(values.mean() - float(result.value("effective_mean"))) <= float(
        result.value("output_mean_bound")
    )
    assert result["output_std_bound"].certified


@pytest.mark.slow
def test_lecun_normal_against_all_of_jaxs_float32_grid():
    """All 2^23 values of JAX's float32 truncated_normal path for lecun_normal at fan_in 768
    (numpy-emulated, about 1 s): the model's std within parts in 10^7 of the real output's.
    Through JAX 0.10.2's own ops the grid gives 1 - 1.03e-7 of the promise, the model 1 - 1.10e-7
    (the previous model said 1 - 6.08e-8)."""
    values = replay.jax_trunc_normal_grid(jax_raw(1, 768, "truncated_normal")).astype(numpy.float64)
    result = initializer("jax.nn.initializers.lecun_normal", fan_in=768, digits=20)
    assert abs(values.std() / float(result.value("effective_std")) - 1) < 1e-7
    assert abs(values.std() - float(result.value("effective_std"))) <= float(result.value("output_std_bound"))
    assert abs(values.mean()) <= float(result.value("output_mean_bound"))
    assert abs(values.mean()) < 1e-6 * values.std()  # the grid stops one step short of its top


def test_output_bound_integrals_against_quadrature():
    """The closed forms behind output_std_bound's edge cells: the integrals of |erfinv| and
    erfinv² over [a, b], against mpmath's quadrature."""
    from momentcalc.computations.initializer import _erfinv_integrals
    from momentcalc.engine.balls import arb_precision

    for a, b in ((Fraction(-1), Fraction(-9, 10)), (Fraction(-1, 3), Fraction(1, 2)), (Fraction(99, 100), 1)):
        with arb_precision(120):
            first, second = _erfinv_integrals(Fraction(a), Fraction(b))
        with mpmath.workdps(30):
            want1 = mpmath.quad(lambda u: abs(mpmath.erfinv(u)), [a, 0, b] if a < 0 < b else [a, b])
            want2 = mpmath.quad(lambda u: mpmath.erfinv(u) ** 2, [a, b])
            assert abs(mpmath.mpf(first.mid().str(25, radius=False)) - want1) < mpmath.mpf(10) ** -20
            assert abs(mpmath.mpf(second.mid().str(25, radius=False)) - want2) < mpmath.mpf(10) ** -20


def test_output_bounds_are_rounded_up_and_named_where_not_bounded():
    result = initializer("torch.nn.init.trunc_normal_", arguments={"std": "0.02"}, digits=15)
    bound = result["output_std_bound"]
    assert bound.certified and bound.rounding == "up"
    assert any("assuming PyTorch's float32 erfinv within 1 ulp" in note for note in result.notes)
    normal = initializer("tf.random.truncated_normal", arguments={"stddev": "0.02", "dtype": "float64"})
    assert "output_std_bound" not in {q.name for q in normal.results}
    assert any("not bounded for this sampler" in note for note in normal.notes)


@pytest.mark.slow
def test_uniform_calls_against_their_whole_grid():
    """torch.nn.Linear's uniform_ (all 2^24 float32 values x*(to - from) + from, numpy-emulated)
    and JAX's uniform(-1, 1) times the bound (2^23 values): within the exact bounds printed."""
    result = initializer("torch.nn.Linear", fan_in=768, digits=20)
    low, high = (numpy.float32(float(result.value(k))) for k in ("low", "high"))
    x = numpy.arange(2**24, dtype=numpy.float64).astype(numpy.float32) * numpy.float32(2.0**-24)
    values = ((x * numpy.float32(high - low)).astype(numpy.float32) + low).astype(numpy.float64)
    assert abs(values.std() - float(result.value("effective_std"))) <= float(result.value("output_std_bound"))
    assert abs(values.mean()) <= float(result.value("output_mean_bound"))
    args = {"scale": "1", "mode": "fan_in", "distribution": "uniform"}
    result = initializer("jax.nn.initializers.variance_scaling", arguments=args, fan_in=768, digits=20)
    floats = numpy.arange(2**23, dtype=numpy.float64).astype(numpy.float32) * numpy.float32(2.0**-23)
    u = numpy.maximum(numpy.float32(-1), floats * numpy.float32(2) + numpy.float32(-1))
    values = (u * jax_raw(1, 768, "uniform")).astype(numpy.float64)
    assert abs(values.std() - float(result.value("effective_std"))) <= float(result.value("output_std_bound"))
    assert abs(values.mean()) <= float(result.value("output_mean_bound"))


@pytest.mark.slow
def test_box_muller_grid_moments():
    """PyTorch's normal_fill on its grid (u1 = 1 - k/N, u2 = k/N, N = 2^24) in exact arithmetic:
    variance std^2 * (log N - lgamma(N + 1)/N), summed here directly in float64 (about 1 s), and
    the std bound covers that grid's deficit (2.75e-7 of the std) with room for the rounding."""
    n = 2**24
    k = numpy.arange(n, dtype=numpy.float64)
    radius2 = -2 * numpy.log1p(-k / n)  # r^2 = -2 log(1 - k/N)
    cos2 = numpy.cos(2 * numpy.pi * k / n) ** 2
    variance = radius2.mean() * cos2.mean()
    assert abs(cos2.mean() - 0.5) < 1e-12 and abs(numpy.cos(2 * numpy.pi * k / n).mean()) < 1e-12
    result = initializer("torch.nn.init.normal_", arguments={"std": "0.02"}, digits=20)
    std = float(result.value("effective_std"))
    deficit = std * (1 - numpy.sqrt(variance))
    assert abs(deficit / std - 2.7527529e-7) < 1e-13
    assert deficit < float(result.value("output_std_bound"))


@pytest.mark.slow
def test_jax_normal_against_its_whole_grid():
    """jax.random.normal's float32 path (uniform on [nextafter(-1, 0), 1), sqrt2 * erf_inv) times
    the variance-scaling std: all 2^23 values (numpy-emulated) within the printed bounds."""
    from scipy.special import erfinv

    f32 = numpy.float32
    low = numpy.nextafter(f32(-1), f32(0))
    floats = numpy.arange(2**23, dtype=numpy.float64).astype(f32) * f32(2.0**-23)
    u = numpy.maximum(low, (floats * (f32(1) - low)).astype(f32) + low)
    out = numpy.array(numpy.sqrt(2), f32) * erfinv(u.astype(numpy.float64)).astype(f32)
    values = (out * jax_raw(1, 768, "normal")).astype(numpy.float64)
    args = {"scale": "1", "mode": "fan_in", "distribution": "normal"}
    result = initializer("jax.nn.initializers.variance_scaling", arguments=args, fan_in=768, digits=20)
    assert abs(values.std() - float(result.value("effective_std"))) <= float(result.value("output_std_bound"))
    assert abs(values.mean()) <= float(result.value("output_mean_bound"))


@pytest.mark.parametrize("name", ["jax.nn.initializers.truncated_normal", "torch.nn.init.trunc_normal_"])
def test_excluded_mass_is_what_the_calls_uniform_never_reaches(name):
    """At std 1 and ±2: both calls draw a uniform between the float32 roundings of ±erf(sqrt(2))
    (PyTorch as 2Φ(±2) − 1), so the normal's mass they never sample is 1 − f32(erf(sqrt(2))),
    exactly; the same digits as the printed bounds ±1.99999986500945σ (was the mass beyond ±2σ,
    0.0455002602…, which the clip is never reached to cut)."""
    import numpy as np

    top = Fraction(float(np.float32(float(mpmath.erf(mpmath.sqrt(2))))))
    result = initializer(name, digits=20)
    assert result.value("excluded_mass") == 1 - top
    assert result["excluded_mass"].decimal(20) == "0.045500278472900390625"
    low = result.value("low_sigma")
    assert abs(2 * mpmath.ncdf(low) - (1 - top)) < mpmath.mpf(10) ** -18


def test_box_muller_log_error_moves_the_radius_by_ulps_roundoffs():
    """PyTorch's Box-Muller bound (``_box_muller_bounds``) allows log within ``ulps`` ulp: at
    log(u1) just past a power of two in size an ulp is 2u·|log(u1)| (u = 2^-24), so r = sqrt(-2 log u1)
    moves by up to ulps·u relative, not ulps/2·u; replayed in numpy float32 with the log pushed
    4 ulp outward, r's error reaches above 3.9u (where ulps/2 + 1.5 = 3.5 was allowed) and stays
    within ulps + 1.5 = 5.5 roundoffs."""
    f32 = numpy.float32
    unit = 2.0**-24
    worst = 0.0
    for k in range(1, 200):
        y_exact = -(1 + k * 2.0**-20)  # |log u1| just above 1: an ulp is 2^-23 = 2u there
        u1 = f32(numpy.exp(y_exact))
        y = numpy.log(u1)
        for _ in range(4):
            y = numpy.nextafter(y, f32(-numpy.inf))
        r = numpy.sqrt(f32(-2) * y)
        exact = mpmath.sqrt(-2 * mpmath.log(mpmath.mpf(float(u1))))
        worst = max(worst, float(abs(mpmath.mpf(float(r)) - exact) / exact) / unit)
    assert 3.9 < worst <= 4 + 1.5


@pytest.mark.parametrize(
    "spelled, name",
    [
        ("nn.init.trunc_normal_", "torch.nn.init.trunc_normal_"),  # import torch.nn as nn
        ("nn.Linear", "torch.nn.Linear"),
        ("keras.initializers.he_normal", "tf.keras.initializers.HeNormal"),  # Keras's snake_case alias
        ("tf.keras.initializers.glorot_uniform", "tf.keras.initializers.GlorotUniform"),
        ("keras.initializers.TruncatedNormal", "tf.keras.initializers.TruncatedNormal"),
    ],
)
def test_the_spellings_code_uses_name_the_same_call(spelled, name):
    from momentcalc.computations.initializer import lookup

    assert lookup(spelled).name == name
    run = invoke("initializer", spelled, "--fan-in", "768", "--fan-out", "768", "--json")
    if run.code == 2:  # a call whose std ignores the fans says so
        run = invoke("initializer", spelled, "--json")
    assert run.code == 0 and run.json()["inputs"]["name"] == name
