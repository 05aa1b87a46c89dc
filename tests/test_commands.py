"""One command table (``momentcalc.command_table``), read by every place that lists commands: the
CLI registers exactly its commands (and ``schema``, which prints the JSON schema and computes
nothing), the Python API exports their functions, ``verify`` finds them through it, and every
command has a snapshot case and a README section."""

from __future__ import annotations


import momentcalc
from momentcalc.command_table import api, command, commands
from tests import cli_runner, doc_pages
from tests.snapshot_cases import CASES

CLI_ONLY = {"schema"}
README = doc_pages.text()  # README and the docs pages


def test_the_cli_registers_the_table():
    assert set(cli_runner.command().commands) == {c.name for c in commands()} | CLI_ONLY


def test_every_function_of_the_table_exists_and_takes_no_cli_words():
    for entry in commands():
        assert callable(entry.load()), entry
    assert command("selu-solve").function == "selu_solve"


def test_the_python_api_exports_the_table():
    for function, module in api().items():
        assert getattr(momentcalc, function) is getattr(__import__(module, fromlist=[function]), function)
    assert {"initializer", "meanfield", "truncnorm", "verify", "expectations"} <= set(momentcalc.__all__)
    assert "initializer" in dir(momentcalc)


def test_every_command_has_a_snapshot_case_and_a_readme_section():
    cased = {argv[0] for _, argv in CASES}
    for entry in commands():
        assert entry.name in cased, entry.name
        assert f"momentcalc {entry.name}" in README, entry.name


# What a function is about may come first, positionally; everything else is keyword-only.
# (``sweep(function, grid, *, jobs=1, client=None)``, as SPEC writes it: what it sweeps over what;
# ``init_report(config, ...)``: the file it reports on.)
SUBJECTS = {"activation", "name", "paths", "values", "monomials", "function", "grid", "config"}


def test_public_functions_take_their_options_by_keyword():
    import inspect

    for name in momentcalc.__all__:
        if name == "__version__":
            continue
        positional = [
            p.name
            for p in inspect.signature(getattr(momentcalc, name)).parameters.values()
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
        ]
        assert set(positional) <= SUBJECTS, (name, positional)
