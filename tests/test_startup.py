"""Start-up of a CLI call: the lazy python-flint (only the real Arb type loads on a default call;
anything else of flint still works, the stand-in becoming the real package) and building only
the invoked command (no output changes)."""

from __future__ import annotations

import json
import subprocess
import sys

CHECK = """
import json, sys
import momentcalc.cli
from momentcalc.cli import child, main
child.run = lambda work, **limits: (work(), "", "")  # computed here, where sys.modules is read
sys.argv = ["momentcalc", *ARGS]
try:
    main()
except SystemExit:
    pass
loaded = sorted(m for m in sys.modules if m.startswith("flint."))
sys.stderr.write(json.dumps(loaded))
"""


def _flint_modules(*args: str) -> tuple[str, list[str]]:
    code = CHECK.replace("ARGS", repr(list(args)))
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return proc.stdout, json.loads(proc.stderr.strip().splitlines()[-1])


def test_default_call_loads_only_the_arb_types():
    out, loaded = _flint_modules("activation-moment", "swish", "--json", "--digits", "12")
    import mpmath

    with mpmath.workdps(30):  # the second route: E[swish(Z)^2] by mpmath quadrature
        value = mpmath.quad(
            lambda x: (x / (1 + mpmath.exp(-x))) ** 2 * mpmath.npdf(x), [-mpmath.inf, 0, mpmath.inf]
        )
        assert json.loads(out)["results"]["second_moment"]["decimal"] == mpmath.nstr(
            value, 12, strip_zeros=False
        )
    types = {m for m in loaded if m.startswith("flint.types.")}
    assert "flint.types.arb" in types
    # no complex ball is made: acb (bound by ``from flint import acb`` everywhere) never loads
    assert not types & {
        "flint.types.acb",
        "flint.types.fmpz_poly",
        "flint.types.nmod_mpoly",
        "flint.types.fq_default",
        "flint.types.acb_mat",
    }


def test_complex_balls_load_when_first_made():
    """An expression's moments go through Arb's integrator on complex balls: the deferred acb
    loads then, and the proven digits are mpmath's (the second route)."""
    out, loaded = _flint_modules("activation-moment", "sin(x)+x**2", "--json", "--digits", "12")
    assert "flint.types.acb" in loaded
    import mpmath

    with mpmath.workdps(30):
        mean = mpmath.quad(lambda x: (mpmath.sin(x) + x**2) * mpmath.npdf(x), [-mpmath.inf, 0, mpmath.inf])
    assert json.loads(out)["results"]["mean"]["decimal"] == mpmath.nstr(mean, 12, strip_zeros=False)


def test_exact_integer_products_load_only_fmpz_poly():
    """kernel tanh's proof multiplies integer polynomials (``engine.convolution``): fmpz_poly
    loads from its own submodule, not python-flint's whole package (about 10 ms of CPU)."""
    out, loaded = _flint_modules("kernel", "tanh", "--json")
    assert json.loads(out)["results"]
    types = {m for m in loaded if m.startswith("flint.types.")}
    assert "flint.types.fmpz_poly" in types
    assert not types & {"flint.types.nmod_mpoly", "flint.types.fq_default", "flint.types.acb_mat"}


def test_tats_reach_checks_load_no_other_flint_types():
    """A large --target-slope passes the reach checks (``moments.dks_selu``, which imports
    arb_series, proves selu's 1.5 out of reach): no python-flint type beyond the stand-in's loads."""
    out, loaded = _flint_modules("tat", "selu", "--target-slope", "1.5", "--json")
    assert json.loads(out)["error"]["code"] == 2
    types = {m for m in loaded if m.startswith("flint.types.")}
    assert not types & {"flint.types.nmod_mpoly", "flint.types.fq_default", "flint.types.acb_mat"}


def test_stand_in_becomes_the_real_package():
    code = (
        "import momentcalc.cli, flint\n"
        "from flint import arb, fmpz_poly\n"
        "assert flint.arb is arb and str(fmpz_poly([1, 2])) == '2*x + 1'\n"
        "from flint import acb\n"
        "assert (acb(1, 2) * 2).imag == 4 and acb.pi().real > 3\n"
        "assert flint.__version__ and 'fmpz_poly' in flint.__all__\n"
        "from flint import *\n"
        "print(arb(2).sqrt().str(10))"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert proc.stdout.strip() == "[1.414213562 +/- 3.74e-10]"


def test_install_keeps_an_imported_flint():
    code = (
        "import flint, sys\nfrom momentcalc import flint_lazy\nassert not flint_lazy.install()\nprint('ok')"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert proc.stdout.strip() == "ok"


LAZY = """
import json, sys
from tests import cli_runner
outcomes = []
for args in CASES:
    cli_runner.command.cache_clear()  # the group built afresh, as each process builds it
    outcomes.append([*cli_runner.run(args), sorted(m for m in sys.modules if m.startswith("momentcalc.cli.commands."))])
print(json.dumps(outcomes))
"""


def test_importing_only_the_invoked_command_changes_no_output():
    """A process imports and builds only the command argv names (start-up): help, errors and
    results are byte for byte what the group with every command gives, and the command list of
    ``--help`` keeps its order whichever commands were imported first."""
    from pathlib import Path

    import typer

    from momentcalc.cli import app, commands
    from tests import cli_runner

    commands.load_all()
    cases = [
        ["truncnorm", "--json", "--digits", "5"],
        ["selu-solve", "--target-mean", "0.9"],
        ["truncnorm", "--bogus"],
        ["kernel", "--help"],
        ["--help"],
        ["truncnrm"],
        ["activation-moment"],
    ]
    cases += [[name, "--help"] for name in commands.table()]
    code = LAZY.replace("CASES", repr(cases))
    root = str(Path(__file__).resolve().parent.parent)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=root)
    lazy = json.loads(proc.stdout)
    assert lazy[0][3] == ["momentcalc.cli.commands.truncnorm"]  # the first call imported one module
    assert lazy[1][3] == ["momentcalc.cli.commands.selu", "momentcalc.cli.commands.truncnorm"]
    full = typer.main.get_command(app)
    assert list(full.commands) == list(commands.table())
    for args, (code_, out, err, _) in zip(cases, lazy):
        cli_runner.command.cache_clear()
        assert (code_, out, err) == cli_runner.run(args), args
    cli_runner.command.cache_clear()


def test_the_table_names_the_module_that_registers_each_command():
    from momentcalc.cli import app, commands

    commands.load_all()
    registered = [info.name for info in app.registered_commands]
    assert sorted(registered) == sorted(commands.table())
    for info in app.registered_commands:
        assert info.callback.__module__ == commands.table()[info.name], info.name


GC = """
import gc, json, sys
from momentcalc.cli import child
real = child.run_many
def run_many(*args, **kwargs):
    print(json.dumps([enabled_at_start, gc.isenabled(), gc.get_freeze_count()]), file=sys.stderr)
    return real(*args, **kwargs)
child.run_many = run_many
sys.argv = ["momentcalc", "truncnorm", "--get", "gamma"]
import atexit
atexit.register(lambda: print("teardown ran"))  # os._exit skips it
enabled_at_start = gc.isenabled()
from momentcalc.console import main
main()
"""


def test_the_console_script_freezes_start_up_and_collects_during_the_command():
    """momentcalc.console: the collector is off while the CLI imports, and on again (start-up's
    objects frozen) when the command runs; the run ends without the interpreter's teardown,
    with its exit code and its output flushed."""
    proc = subprocess.run([sys.executable, "-c", GC], capture_output=True, text=True, check=False)
    assert proc.returncode == 0 and proc.stdout == "0.773741303549923\n", proc
    enabled_at_start, enabled_in_command, frozen = json.loads(proc.stderr)
    assert enabled_at_start and enabled_in_command and frozen > 10000  # (about 28000 objects)
    proc = subprocess.run(
        [sys.executable, "-c", GC.replace('"gamma"', '"gamma", "--digits", "0"')],
        capture_output=True,
        text=True,
        check=False,
    )
    assert (
        proc.returncode == 2 and proc.stdout == "" and proc.stderr.startswith("momentcalc: error: --digits")
    )


def test_the_childs_message_is_marshal_when_it_can_be():
    """cli.child sends an exit code and texts with marshal (built in: no pickle to import on a
    call) and anything else (a sweep share's rows, an exception) with pickle."""
    from fractions import Fraction

    from momentcalc.cli.child import decode, encode

    usual = ("ok", 0, '{\n  "gamma": "0.77"\n}\n', "note: x\udcff")
    assert encode(usual)[:1] == b"M" and decode(encode(usual)) == usual
    rows = ("ok", [Fraction(1, 3)], "", "")
    assert encode(rows)[:1] == b"P" and decode(encode(rows)) == rows
    error = ("error", (ValueError, ("bad",), {}), "Traceback...", "", "")
    assert encode(error)[:1] == b"P" and decode(encode(error)) == error
