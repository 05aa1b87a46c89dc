"""``momentcalc init-report CONFIG``."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from ...engine.numbers import parse_integer
from ...engine.precision import MAX_DIGITS
from ...errors import InputError
from ...render import emit, emit_values
from ...result import replace
from ..app import app
from ..options import Atol, Digits, Expect, Get, Json, Rtol, Seed, Simulate, Trials
from ..runner import errors_as, flag, output_format

EXAMPLES = """
Examples:

  momentcalc init-report config.json                   GPT-2, Llama, T5, BERT, GPT-NeoX configs

  momentcalc init-report config.json --library torchtitan

  momentcalc init-report model.toml --simulate         Monte Carlo at a small width beside the figures

  momentcalc init-report config.json --format github   annotations for CI (exit 1 on a wrong verdict)

  momentcalc init-report config.json --parametrization mup --base-width 256
"""

Config = Annotated[
    str,
    typer.Argument(
        metavar="CONFIG",
        help="A Hugging Face config.json (gpt2, llama, mistral, qwen2, t5, bert, gpt_neox) or a model "
        "description (.toml, .json; .yaml with PyYAML).",
        show_default=False,
    ),
]
Library = Annotated[
    str | None,
    typer.Option(
        "--library",
        metavar="transformers|nanogpt|torchtitan|olmo|megatron",
        help="Whose init code to replay.  [default: transformers]",
        show_default=False,
    ),
]
MaxGrowth = Annotated[
    str,
    typer.Option(
        "--max-growth",
        metavar="X",
        help="Warn when the residual stream's second moment grows more than X times over the embeddings'.",
    ),
]
SimulateWidth = Annotated[
    str | None,
    typer.Option(
        "--simulate-width",
        metavar="W",
        help="Width of the simulated network (heads and feed-forward scaled with it).  [default: 64]",
        show_default=False,
    ),
]
Parametrization = Annotated[
    str | None,
    typer.Option(
        "--parametrization",
        metavar="sp|ntk|mup|umup",
        help="Width multipliers of init, forward and learning rate against --base-width (ntp = ntk).",
        show_default=False,
    ),
]
BaseWidth = Annotated[
    str | None,
    typer.Option(
        "--base-width", metavar="W0", help="The base width of --parametrization.", show_default=False
    ),
]
Format = Annotated[
    str | None,
    typer.Option(
        "--format",
        metavar="table|text|json|csv|sarif|github",
        show_default=False,
        help="Output format: table (a terminal), text (a pipe), json, csv, sarif (code scanning), github "
        "(workflow annotations).  [default: table]",
    ),
]


@app.command("init-report", epilog=EXAMPLES)
def init_report(
    config: Config,
    library: Library = None,
    max_growth: MaxGrowth = "100",
    simulate: Simulate = False,
    seed: Seed = None,
    trials: Trials = None,
    simulate_width: SimulateWidth = None,
    parametrization: Parametrization = None,
    base_width: BaseWidth = None,
    digits: Digits = "15",
    format: Format = None,
    json_: Json = False,
    expect: Expect = None,
    rtol: Rtol = None,
    atol: Atol = None,
    get: Get = None,
) -> None:
    """A transformer's initialization checked from its config: per-parameter stds, the signal through every layer, the initial loss."""
    from ...computations.init_report import init_report as report

    with errors_as(format, json_, {"config": "CONFIG"}):
        if format in ("sarif", "github"):
            if json_:
                raise InputError(
                    f"{{format}} {format} contradicts --json (short for --format json): give one of them",
                    param="format",
                )
            form = format
        else:
            form = output_format(format, json_)
        n = parse_integer(digits, "digits", 1, MAX_DIGITS)
        expectations, tolerance, work = [], None, n
        if expect or rtol is not None or atol is not None:
            from ..expect import needed_digits, parse_expect, parse_tolerance

            tolerance = parse_tolerance(rtol, atol)
            expectations = [parse_expect(text, tolerance) for text in expect or ()]
            work = needed_digits(expectations, n)
        if get and form not in ("table", "text"):
            raise InputError(
                f"{{get}} prints bare values; it cannot be combined with {{format}} {form}",
                param="get",
                params=("format",),
            )
        result = report(
            config,
            library=library,
            max_growth=max_growth,
            simulate=simulate,
            seed=seed,
            trials=trials,
            simulate_width=simulate_width,
            parametrization=parametrization,
            base_width=base_width,
            digits=work,
        ).named(lambda name: "CONFIG" if name == "config" else flag(name), "init-report")
        if work != n:
            result = replace(result, digits=n)
        if expectations:
            from ..expect import apply_expectations

            result = apply_expectations(result, expectations, tolerance)
        if get:
            emit_values(result, get)
        else:
            emit(result, form)
    sys.stdout.flush()
    failed = [check for check in result.checks if not check.ok]
    if failed:
        from ..expect import mismatch_line

        for check in failed:
            sys.stderr.write(mismatch_line(check) + "\n")
    wrong = [v for v in result.extra.get("verdicts", []) if v["verdict"] == "wrong"]
    if form in ("table", "text") and not get:
        for verdict in wrong:
            sys.stderr.write(f"momentcalc: init-report: {verdict['parameter']}: {verdict['message']}\n")
    if failed or wrong:
        raise typer.Exit(1)
