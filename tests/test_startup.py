"""Start-up of a CLI call: the lazy python-flint (only the Arb types load on a default call;
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
        value = mpmath.quad(lambda x: (x / (1 + mpmath.exp(-x))) ** 2 * mpmath.npdf(x), [-mpmath.inf, 0, mpmath.inf])
        assert json.loads(out)["results"]["second_moment"]["decimal"] == mpmath.nstr(value, 12, strip_zeros=False)
    types = {m for m in loaded if m.startswith("flint.types.")}
    assert "flint.types.arb" in types and "flint.types.acb" in types
    assert not types & {"flint.types.fmpz_poly", "flint.types.nmod_mpoly", "flint.types.fq_default", "flint.types.acb_mat"}


def test_stand_in_becomes_the_real_package():
    code = ("import momentcalc.cli, flint\n"
            "from flint import arb, fmpz_poly\n"
            "assert flint.arb is arb and str(fmpz_poly([1, 2])) == '2*x + 1'\n"
            "assert flint.__version__ and 'fmpz_poly' in flint.__all__\n"
            "from flint import *\n"
            "print(arb(2).sqrt().str(10))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert proc.stdout.strip() == "[1.414213562 +/- 3.74e-10]"


def test_install_keeps_an_imported_flint():
    code = "import flint, sys\nfrom momentcalc import flint_lazy\nassert not flint_lazy.install()\nprint('ok')"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert proc.stdout.strip() == "ok"


def _main_output(monkeypatch, capsys, argv: list[str], build_all: bool) -> tuple[int, str, str]:
    import pytest

    import importlib

    app_module = importlib.import_module("momentcalc.cli.app")

    if build_all:
        monkeypatch.setattr(app_module, "only_the_invoked", lambda commands, argv: commands)
    monkeypatch.setattr(sys, "argv", ["momentcalc", *argv])
    with pytest.raises(SystemExit) as exit_info:
        app_module.main()
    out, err = capsys.readouterr()
    return exit_info.value.code, out, err


def test_building_only_the_invoked_command_changes_no_output(monkeypatch, capsys):
    """main() builds only the command argv names (start-up): help, errors and results are
    byte for byte what the whole group gives."""
    from momentcalc.cli.app import app

    cases = [[c.name, "--help"] for c in app.registered_commands]
    cases += [["truncnorm", "--bogus"], ["truncnorm", "--json", "--digits", "5"], ["truncnrm"], ["--help"],
              ["activation-moment"], ["selu-solve", "--target-mean", "0.9"]]
    for argv in cases:
        lazy = _main_output(monkeypatch, capsys, argv, build_all=False)
        full = _main_output(monkeypatch, capsys, argv, build_all=True)
        monkeypatch.undo()
        assert lazy == full, argv


def test_only_the_invoked_command_is_built():
    from momentcalc.cli.app import app, only_the_invoked

    assert [c.name for c in only_the_invoked(app.registered_commands, ["truncnorm", "--json"])] == ["truncnorm"]
    assert only_the_invoked(app.registered_commands, ["--json", "truncnorm"]) is app.registered_commands
    assert only_the_invoked(app.registered_commands, []) is app.registered_commands
