"""``momentcalc initializer NAME`` and ``momentcalc initializers``."""

from __future__ import annotations

from typing import Annotated

import typer

from ...result import Computation, replace
from ..app import app
from ..options import Format, Json, number
from ..runner import computing_command, errors_as, flag, output_format
from ...render import emit

Name = Annotated[
    str,
    typer.Argument(
        metavar="NAME",
        show_default=False,
        help="The call as written in the framework, e.g. torch.nn.init.trunc_normal_ or "
        "tf.keras.initializers.VarianceScaling (see 'momentcalc initializers').",
    ),
]


def _choice(flag: str, help: str) -> object:
    return Annotated[
        str | None, typer.Option(flag, metavar="TEXT", help=help + " [default: the framework's]")
    ]


Mean = number(
    "--mean",
    "mean (PyTorch normal_/trunc_normal_, Keras TruncatedNormal, tf.random). [default: 0.0]",
    optional=True,
)
Std = number(
    "--std",
    "std (PyTorch normal_ and trunc_normal_: the std before truncation). [default: 1.0]",
    optional=True,
)
Stddev = number(
    "--stddev",
    "stddev (Keras TruncatedNormal [0.05], tf.random.truncated_normal [1.0], JAX "
    "truncated_normal [0.01]): the std before truncation. [default: the framework's]",
    optional=True,
)
A = number(
    "--a",
    "a: trunc_normal_'s lower cut-off, an absolute value [-2.0]; kaiming_*'s negative slope [0]. "
    "[default: the framework's]",
    optional=True,
)
B = number("--b", "b: trunc_normal_'s upper cut-off, an absolute value. [default: 2.0]", optional=True)
Lower = number("--lower", "lower: JAX truncated_normal's lower bound in stds. [default: -2.0]", optional=True)
Upper = number("--upper", "upper: JAX truncated_normal's upper bound in stds. [default: 2.0]", optional=True)
Scale = number(
    "--scale",
    "scale of VarianceScaling (Keras [1.0]; JAX: required), > 0. [default: the framework's]",
    optional=True,
)
Gain = number("--gain", "gain of PyTorch's xavier_*. [default: 1.0]", optional=True)
Mode = _choice(
    "--mode",
    "mode: fan_in|fan_out (PyTorch kaiming_*), fan_in|fan_out|fan_avg (Keras), also fan_geo_avg (JAX).",
)
Distribution = _choice(
    "--distribution",
    "distribution: truncated_normal|untruncated_normal|uniform (Keras; normal "
    "means truncated_normal there), truncated_normal|normal|uniform (JAX).",
)
Nonlinearity = _choice(
    "--nonlinearity",
    "nonlinearity of PyTorch's kaiming_*: linear, conv1d ..., sigmoid, tanh, "
    "relu, leaky_relu (default), selu.",
)
Dtype = _choice(
    "--dtype",
    "the weights' dtype (JAX, Keras, TensorFlow calls): float32 (default: JAX without jax_enable_x64, "
    "Keras's floatx) or float64; the call's std is computed and held in it.",
)
ParamDtype = _choice("--param-dtype", "param_dtype of flax.linen.Dense: float32 (default) or float64.")
FanIn = number(
    "--fan-in",
    "The layer's fan-in (inputs of each unit), a whole number >= 1; required where the std depends on it.",
    optional=True,
)
FanOut = number(
    "--fan-out",
    "The layer's fan-out, a whole number >= 1; required where the std depends on it.",
    optional=True,
)

EXAMPLES = """
Examples:

  momentcalc initializer tf.random.truncated_normal --stddev 0.02     BERT: 0.0176

  momentcalc initializer torch.nn.init.trunc_normal_ --std 0.02       timm: +-100 std, no truncation

  momentcalc initializer tf.keras.initializers.VarianceScaling --fan-in 768 --digits 20

  momentcalc initializer torch.nn.Linear --fan-in 768 --json

  momentcalc initializer jax.nn.initializers.variance_scaling --scale 2 --mode fan_in --distribution normal --fan-in 512
"""

LIST_EXAMPLES = """
Examples:

  momentcalc initializers

  momentcalc initializers --json
"""


@computing_command(app, "initializer", epilog=EXAMPLES)
def initializer(
    name: Name,
    mean: Mean = None,
    std: Std = None,
    stddev: Stddev = None,
    a: A = None,
    b: B = None,
    lower: Lower = None,
    upper: Upper = None,
    scale: Scale = None,
    mode: Mode = None,
    distribution: Distribution = None,
    gain: Gain = None,
    nonlinearity: Nonlinearity = None,
    dtype: Dtype = None,
    param_dtype: ParamDtype = None,
    fan_in: FanIn = None,
    fan_out: FanOut = None,
    *,
    digits: int,
    derive: bool,
) -> Computation:
    """What a framework's initializer call actually samples: its effective std and mean, its truncation in
    stds, its std relative to the one its arguments name, and the same call in the other frameworks.

    Options are the call's own arguments, spelled as the framework spells them, with its defaults."""
    from ...computations.initializer import initializer

    arguments = {
        "mean": mean,
        "std": std,
        "stddev": stddev,
        "a": a,
        "b": b,
        "lower": lower,
        "upper": upper,
        "scale": scale,
        "mode": mode,
        "distribution": distribution,
        "gain": gain,
        "nonlinearity": nonlinearity,
        "dtype": dtype,
        "param_dtype": param_dtype,
    }
    return initializer(
        name, arguments=arguments, fan_in=fan_in, fan_out=fan_out, digits=digits, derive=derive
    )


@app.command("initializers", epilog=LIST_EXAMPLES)
def initializers(format: Format = None, json_: Json = False) -> None:
    """List the initializer catalog: each call with its arguments and defaults, the framework version whose
    source it encodes, and its effective_ratio at the defaults."""
    from ...computations.initializer import catalog_listing

    with errors_as(format, json_):
        listing = replace(
            catalog_listing().named(flag),
            title="initializer catalog: momentcalc initializer NAME (effective_ratio at the defaults)",
        )
        emit(listing, output_format(format, json_))
