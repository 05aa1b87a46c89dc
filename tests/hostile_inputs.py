"""The hostile inputs of issue 16, shared by the fuzz driver (tests/fuzz/fuzz_cli.py, thousands of
subprocess calls) and the in-process fuzz test (tests/test_cli_fuzz.py, hypothesis draws from
the same lists): one list, so a class added for one is exercised by both.

The commands and their options are written out (not discovered) so that the driver's set of
calls stays the same while the CLI grows: its before/after figures compare like with like.
"""

from __future__ import annotations

NUMERIC = {
    "truncnorm": ["--low", "--high", "--mean", "--std", "--target-std"],
    "activation-moment": ["--mean", "--std", "--slope"],
    "selu-solve": ["--target-mean", "--target-var", "--input-mean", "--input-std"],
    "postnorm-decay": ["--layers", "--sigma", "--threshold", "--alpha"],
    "gau-scale": ["--s", "--n", "--d", "--e", "--init-std", "--seed", "--trials"],
    "init": ["--fan-in", "--fan-out", "--slope"],
    "attention": ["--d", "--q-std", "--k-std", "--seq-len", "--seed", "--trials"],
}
COMPUTING = list(NUMERIC)
# What a command needs to run at all (a positional, a required option).
BASE = {
    "activation-moment": ["relu"],
    "init": ["--fan-in", "768"],
}
# Options that only apply together with another.
NEEDS = {
    ("gau-scale", "--seed"): ["--simulate"],
    ("gau-scale", "--trials"): ["--simulate"],
    ("attention", "--seed"): ["--seq-len", "16"],
    ("attention", "--trials"): ["--seq-len", "16"],
    ("postnorm-decay", "--alpha"): ["--scheme", "deepnorm"],
    ("activation-moment", "--slope"): [],  # relu refuses --slope; leaky_relu below
    ("init", "--slope"): ["--scheme", "he", "--activation", "leaky_relu"],
}

MANY = "7" * 5000
HOSTILE_NUMBERS = [
    # magnitudes
    "1e309",
    "-1e309",
    "1e-320",
    "-1e-320",
    "1e-100000",
    "-1e-100000",
    "1e100000",
    "-1e100000",
    "1e100001",
    "1e-100001",
    "1e4300",
    "1e-4300",
    "4.9e-324",
    "1.7976931348623157e308",
    # many digits
    MANY,
    "-" + MANY,
    "0." + "0" * 4999 + "1",
    "1." + "3" * 5000,
    "1" + "0" * 5000 + "e-5000",
    "9" * 4301,
    "1e" + "9" * 5000,
    "1e-" + "9" * 5000,
    "0.5e" + "1" * 40,
    # spelling
    " 1",
    "1 ",
    "+1",
    " +2 ",
    "+0.5",
    "\t3",
    "1\n",
    "01",
    "1.",
    ".5",
    "1e0",
    "1E2",
    # malformed
    "",
    " ",
    "1e",
    "e1",
    ".",
    "-",
    "+",
    "1..2",
    "1e+",
    "0x10",
    "1_000",
    "１",
    "½",
    "1/2",
    "1j",
    "nan",
    "inf",
    "-inf",
    "Infinity",
    "--1",
    "1,",
    ",1",
    "1,,2",
    "2**10",
    "1e5.5",
    "true",
    # markup and control characters
    "[bold]1",
    "1[/]",
    "[link=http://x]1[/link]",
    "\x1b[31m1",
    "1\x1b]0;title\x07",
    "1\r2",
    "\x01",
]
HOSTILE_SWEEPS = [
    "1:1:1",
    "0:1:0",
    "1:0:1",
    "0:1:1e-300",
    "0:99999:1",
    "1:100000:1",
    "1:100001:1",
    "0:1:0.00001",
    ",".join(["1"] * 1000),
    ",".join(str(i) for i in range(1, 400)),
    "1:2:3:4",
    "1e-320:1e309:1e300",
    "1:1e100000:1",
    "0.5:" + MANY + ":1",
    "1:1:" + MANY,
    "-1:1:0.5",
]
HOSTILE_EXPRESSIONS = [
    "x-pi",
    "e-x",
    "x-x",
    "pi-x",
    "x-e",
    "e*x",
    "pi*x-e",
    "abs(x)**0.5001",
    "abs(x)**0.5",
    "abs(x)**0",
    "abs(x)**-0.5",
    "abs(x)**-1",
    "abs(x)**-0.4999",
    "x**1000000",
    "x**" + "9" * 50,
    "x**(10**10)",
    "exp(x)**1000",
    "exp(exp(exp(x)))",
    "exp(1e309*x)",
    "1e309*x",
    "1e-320*x",
    "x*" + MANY,
    "x+" + "0." + "0" * 4999 + "1",
    "sin(" * 60 + "x" + ")" * 60,
    "(" * 200 + "x" + ")" * 200,
    "sin(" * 20 + "x" + ")" * 20,
    "-" * 500 + "x",
    "+".join(["x"] * 500),
    "*".join(["x"] * 60),
    "x" + "**x" * 10,
    "log(abs(x))",
    "1/x",
    "1/abs(x)**0.5",
    "sqrt(-x)",
    "log(x)",
    "x**0.5",
    "max(x, 0)**0.3",
    "x # [bold]hi",
    "x # \x1b[31mred",
    "x # [link=http://evil]click[/link]",
    "x #",
    "# x",
    "x # " + "a" * 2000,
    "[bold]x",
    "x[/]",
    "[link=http://a]x[/link]",
    "\x1b[31mx",
    "x\r",
    "x\x01",
    "x\n",
    " x",
    "x ",
    "X",
    "__import__('os')",
    "x.real",
    "lambda: x",
    "x if x else 1",
    "relu(x)",
    "gelu",
    " relu",
    "relu ",
    "RELU",
    "leaky_relu",
    "selu",
    "erf",
]
ACTIVATION_NAMES = [
    "identity",
    "relu",
    "relu2",
    "leaky_relu",
    "elu",
    "selu",
    "gelu",
    "gelu_tanh",
    "sigmoid",
    "tanh",
    "swish",
    "softplus",
    "mish",
    "softsign",
    "erf",
]
EXTREME_MEANS = ["1e309", "-1e309", "1e100000", "-1e100000", "-1e20", "1e20", "1e-100000", "-1e-100000"]
EXTREME_STDS = ["1e-320", "1e-100000", "1e309", "1e100000", "1e20"]
TEXT_VALUES = [
    "[bold]x",
    "\x1b[31mjson",
    "[link=http://x]csv[/link]",
    "json ",
    " json",
    "JSON",
    "",
    "x" * 5000,
    "[/]",
]
DIGITS = [
    "0",
    "1",
    "+15",
    " 15",
    "15 ",
    "15.0",
    "1e1",
    "998",
    "999",
    "1000",
    "1001",
    "-1",
    "9" * 5000,
    "[bold]5",
    "nan",
    "",
]
OUTPUT_ENVS = ["ascii", "latin1", "c_locale", "dev_full", "closed_pipe", "head"]
INJECTION_MARKERS = ("\x1b", "\x07", "\x01")

# Issue 26: commands the lists above leave out (kept apart, so that the driver's set of calls
# stays comparable): meanfield's and the initializer catalog's numeric options.
MORE_NUMERIC = {
    "meanfield": ["--sigma-w2", "--sigma-b2", "--q0", "--c0", "--depth", "--slope"],
    "initializer": ["--mean", "--std", "--a", "--b", "--gain", "--scale", "--fan-in", "--fan-out"],
    "initial-loss": ["--vocab", "--logit-std"],
}
MORE_BASE = {
    "meanfield": ["tanh"],
    "initializer": ["torch.nn.init.trunc_normal_"],
    "initial-loss": [],
}
MORE_NEEDS = {
    ("meanfield", "--slope"): ["leaky_relu"],
    ("initializer", "--gain"): ["torch.nn.init.xavier_normal_", "--fan-in", "8", "--fan-out", "8"],
    ("initializer", "--scale"): ["tf.keras.initializers.VarianceScaling", "--fan-in", "8", "--fan-out", "8"],
    ("initializer", "--fan-in"): ["torch.nn.init.kaiming_normal_"],
    ("initializer", "--fan-out"): ["torch.nn.init.xavier_uniform_", "--fan-in", "8"],
}
# Text a user can put into an output cell (an expression's comment): control characters, CSV's
# own separators and quotes, markup.
CELL_TEXTS = [
    "\x1b[2J\x1b]0;pwn\x07",
    "a,b",
    'say "hi"',
    "line\nbreak",
    "\r",
    "[bold]x[/]",
    "\x00",
    "\u202eevil",
    "tab\there",
    "\x9b31m",
    ";",
    "=cmd|' /C calc'!A0",
]
# --derive on the longest inputs allowed (4300+ digit integers in sympy's text).
DERIVE_LONG = [
    ["truncnorm", "--mean", "1e-5000", "--derive"],
    ["truncnorm", "--std", "1." + "3" * 1999, "--derive"],
    ["truncnorm", "--low", "-" + "7" * 2000, "--derive"],
    ["activation-moment", "relu", "--mean", "1e-5000", "--derive"],
    ["activation-moment", "x*" + "3" * 400, "--derive"],
    ["postnorm-decay", "--layers", "1000", "--sigma", "1e1000", "--derive"],
]
