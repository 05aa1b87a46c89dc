"""The README's "Add an activation" recipe, followed literally in a copy of the package: one
entry, name and formula, and every command takes the new name, printing what the same formula
given as an expression prints."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests import doc_pages

ROOT = Path(__file__).resolve().parent.parent
README = doc_pages.text()  # the recipe is in docs/development.md


def _recipe_entry() -> str:
    """The entry the recipe writes (its ```python block)."""
    section = README[README.index("**Add an activation**") : README.index("**Add an output format**")]
    return re.search(r"```python\n(.*?)\n\s*```", section, re.S).group(1).strip()


# The copy first on the path, past an editable install's finder (which would find this checkout).
LAUNCH = (
    "import runpy, sys; "
    "sys.meta_path[:] = [f for f in sys.meta_path if 'editable' not in type(f).__module__]; "
    "sys.path.insert(0, sys.argv.pop(1)); sys.argv[0] = 'momentcalc'; "
    "runpy.run_module('momentcalc', run_name='__main__', alter_sys=True)"
)


def _run(copy: Path, *argv: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", LAUNCH, str(copy), *argv], capture_output=True, text=True, timeout=300
    )


# The calls below, in one process on the copy (each in-process, as tests/cli_runner.py runs them):
# a process of its own per call compiled the copy's modules eight times (no bytecode is written).
CALLS = """
import json, sys
sys.meta_path[:] = [f for f in sys.meta_path if 'editable' not in type(f).__module__]
copy, root = sys.argv[1], sys.argv[2]
sys.path[:0] = [copy, root]
from tests.cli_runner import run
import momentcalc
assert momentcalc.__file__.startswith(copy), momentcalc.__file__
print(json.dumps([run(argv) for argv in json.loads(sys.stdin.read())]))
"""


@pytest.fixture(scope="module")
def copy(tmp_path_factory):
    """The package copied, the recipe's entry added to CORE_CATALOG as the README says."""
    target = tmp_path_factory.mktemp("clone")
    shutil.copytree(ROOT / "momentcalc", target / "momentcalc", ignore=shutil.ignore_patterns("__pycache__"))
    path = target / "momentcalc" / "catalog" / "activations.py"
    text = path.read_text(encoding="utf-8")
    anchor = "CORE_CATALOG: tuple[Activation, ...] = (\n"
    assert anchor in text
    path.write_text(text.replace(anchor, anchor + "    " + _recipe_entry() + "\n", 1), encoding="utf-8")
    return target


def test_the_recipe_is_one_line():
    assert _recipe_entry() == 'Activation("tanh_shrunk", "tanh(x)/2 + x/4"),'


EVERY_COMMAND = [
    ("activation-moment", "{}", "--get", "second_moment", "--get", "gain"),
    ("kernel", "{}", "--rho", "0.5", "--get", "nngp", "--get", "ntk_derivative"),
    ("hermite", "{}", "--terms", "4", "--get", "coefficients"),
    ("meanfield", "{}", "--sigma-w2", "2", "--get", "q_star", "--get", "chi1"),
]


@pytest.fixture(scope="module")
def outputs(copy):
    """(code, stdout, stderr) of each call of EVERY_COMMAND, with the new name and with its formula."""
    calls = [
        [a.format(name) for a in argv]
        for argv in EVERY_COMMAND
        for name in ("tanh_shrunk", "tanh(x)/2 + x/4")
    ]
    done = subprocess.run(
        [sys.executable, "-c", CALLS, str(copy), str(ROOT)],
        input=json.dumps(calls),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    results = json.loads(done.stdout)
    return {tuple(call): result for call, result in zip(calls, results)}


@pytest.mark.xdist_group("added-activation")  # one copy of the package, one process for the calls
@pytest.mark.parametrize("argv", EVERY_COMMAND)
def test_every_command_takes_the_new_name(outputs, argv):
    named_code, named, named_err = outputs[tuple(a.format("tanh_shrunk") for a in argv)]
    assert named_code == 0, named_err
    formula_code, formula, _ = outputs[tuple(a.format("tanh(x)/2 + x/4") for a in argv)]
    assert formula_code == 0 and named == formula and named.strip()


def test_the_copy_runs_as_a_command(copy):
    """``momentcalc`` launched on the copy as a process of its own (the calls above run in one)."""
    run = _run(copy, "activation-moment", "tanh_shrunk", "--get", "gain")
    assert run.returncode == 0 and run.stdout.strip(), run.stderr


@pytest.mark.parametrize(
    "name", [entry.name for entry in __import__("momentcalc.catalog", fromlist=["CATALOG"]).CATALOG]
)
def test_hand_written_functions_are_their_expression(name):
    """Every entry's hand-written φ and φ' (overrides, for speed) equal its defining expression's
    (``source``, else ``formula``: ``catalog.formulas.tree_of``) and that expression's derivative,
    at 50 digits, at the default parameters and at another value (selu, whose λ and α are roots
    of equations, has no expression)."""
    from fractions import Fraction

    import mpmath

    from momentcalc.catalog import resolve
    from momentcalc.catalog.expression_calculus import derivative
    from momentcalc.catalog.expression_eval import compile_mpmath
    from momentcalc.catalog.formulas import tree_of

    entry = resolve(name)
    settings = [None] + ([{p.name: Fraction(3, 7) for p in entry.params}] if entry.params else [])
    for params in settings:
        act = resolve(name, params)
        tree = tree_of(act)
        if tree is None:
            assert name == "selu"
            continue
        phi, slope = compile_mpmath(tree), compile_mpmath(derivative(tree))
        with mpmath.workdps(50):
            for k in range(-40, 41, 3):
                x = mpmath.mpf(k) / 7 + mpmath.mpf(1) / 1000  # off the kinks
                for own, want in ((act.fn, phi), (act.derivative, slope)):
                    got, expected = own(x, act.param_values()), want(x)
                    assert abs(got - expected) <= mpmath.mpf(10) ** -45 * max(1, abs(expected)), (
                        name,
                        params,
                        x,
                    )
