"""Random and hostile arguments for every command: a clear answer, never a traceback.

Exit codes are 0, 1, 2 or 3 only; an exit 2 is one line on stderr (and the JSON error object
with --json); a success with --json is one parseable document.
"""

from __future__ import annotations

import pytest
import typer
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from momentcalc.cli import app
from tests.conftest import invoke

GROUP = typer.main.get_command(app)
COMMANDS = {
    name: [opt for param in command.params for opt in param.opts if opt.startswith("--") and opt != "--help"]
    for name, command in GROUP.commands.items()
}
# Options whose legitimate large values are slow by design (1000 digits of a quadrature):
# fuzzed with hostile text only, never with numbers.
TEXT_ONLY = {"--digits"}

hostile = st.one_of(
    st.text(max_size=10),
    st.sampled_from([
        "nan", "-inf", "inf", "1e999999", "-1", "0", "0.5", "1:0:1", "1,,2", "0:1:0", "__import__('os')",
        "x", "", "--json", "1e-400", "1e400", "½", "0x1f", "1_0", "2**10", "exp(x**2)", "relu",
    ]),
)


def check(run, as_json):
    assert run.code in (0, 1, 2, 3), run
    assert "Traceback" not in run.stderr
    if run.code in (2, 3):
        assert run.stderr.count("\n") == 1 and run.stderr.startswith("momentcalc: error: ")
        if as_json:
            assert run.json()["error"]["code"] == run.code
        else:
            assert run.stdout == ""
    elif as_json:
        run.json()


@pytest.mark.slow
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), as_json=st.booleans())
def test_every_command_survives_hostile_options(data, as_json):
    command = data.draw(st.sampled_from(sorted(COMMANDS)))
    options = COMMANDS[command]
    if not options:
        return
    option = data.draw(st.sampled_from(options))
    args = [command]
    if command == "activation-moment":
        args.append(data.draw(st.sampled_from(["relu", "tanh", "swish"])))
    value = data.draw(hostile)
    if option in TEXT_ONLY:
        value = data.draw(st.sampled_from(["", "abc", "0", "-5", "1001", "1.5", "nan"]))
    flag_like = any(p.is_flag for p in GROUP.commands[command].params if option in p.opts)
    args += [option] if flag_like else [option, value]
    if as_json:
        args.append("--json")
    # JSON is asked for by the trailing --json, by the option itself, or by --format json; a
    # "--json" given as the option's value is a value, not a request.
    wants = as_json or option == "--json" or (option == "--format" and value == "json")
    check(invoke(*args), wants)


@pytest.mark.slow
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(expression=st.text(alphabet="x0123456789.+-*/() epsqrtlogabcinh_,[]'\"", max_size=16), as_json=st.booleans())
def test_activation_expression_fuzz(expression, as_json):
    args = ["activation-moment", expression, "--digits", "8"] + (["--json"] if as_json else [])
    check(invoke(*args), as_json)


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_unknown_option_is_one_line(command):
    args = [command] + (["relu"] if command == "activation-moment" else []) + ["--no-such-option", "--json"]
    run = invoke(*args)
    assert run.code == 2 and "No such option" in run.stderr
    assert run.json()["error"]["code"] == 2


@pytest.mark.parametrize("expression", ["1if x else 2", "2x", "0x1g", "1_"])
def test_parser_warnings_do_not_reach_stderr(expression):
    """Python's parser warns (SyntaxWarning) about text like "1if x"; the user sees one line."""
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, "-W", "default", "-m", "momentcalc", "activation-moment", expression],
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and proc.stderr.startswith("momentcalc: error: ACTIVATION"), proc.stderr
