"""Every command has help with a worked example and is documented (README and the docs/ pages);
the documentation's examples print what they say."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests import cli_runner, doc_pages
from tests.conftest import invoke

README = doc_pages.README.read_text()
DOCS = doc_pages.text()  # README and every page of the documentation site
COMMANDS = sorted(cli_runner.command().commands)


def test_there_are_commands():
    assert "truncnorm" in COMMANDS


@pytest.mark.parametrize("command", COMMANDS)
def test_command_has_help_with_example(command):
    run = invoke(command, "--help")
    assert run.code == 0
    assert "Examples:" in run.stdout or "Example:" in run.stdout
    assert f"momentcalc {command}" in run.stdout


@pytest.mark.parametrize("command", COMMANDS)
def test_command_is_documented(command):
    assert f"momentcalc {command}" in DOCS


def test_readme_has_no_placeholders():
    for marker in ("COMMAND_EXAMPLES", "CI_SECTION", "API_SECTION", "EXAMPLE_"):
        assert marker not in DOCS


def test_readme_python_examples_run():
    """The >>> examples of the README and the docs pages are doctests: their printed outputs are
    the real ones."""
    import doctest

    tried_in_all = 0
    for page in doc_pages.PAGES:
        failures, tried = doctest.testfile(str(page), module_relative=False, optionflags=doctest.ELLIPSIS)
        assert failures == 0, doc_pages.name(page)
        tried_in_all += tried
    assert tried_in_all >= 8


def _readme_cli_examples(abridged: bool = False) -> list[tuple[str, list[str]]]:
    """Each `$ momentcalc ...` line of the README and the docs pages followed by its complete
    output (not piped into another program), with that output's lines; with ``abridged``, those
    whose output is an excerpt (lines starting with "..." stand for lines left out) instead."""
    import re

    examples = []
    for block in re.findall(r"```console\n(.*?)```", DOCS, flags=re.S):
        lines = block.splitlines()
        for i, line in enumerate(lines):
            if not line.startswith("$ momentcalc ") or "|" in line:
                continue
            expected = []
            for following in lines[i + 1 :]:
                if following.startswith("$ "):
                    break
                expected.append(following)
            if expected and any(l.startswith("...") for l in expected) == abridged:
                examples.append((line, expected))
    return examples


README_CLI_EXAMPLES = _readme_cli_examples()
README_EXCERPTS = _readme_cli_examples(abridged=True)


def _excerpt_chunks(expected: list[str]) -> list[list[str]]:
    """The runs of lines between "..." markers."""
    chunks: list[list[str]] = [[]]
    for line in expected:
        if line.startswith("..."):
            chunks.append([])
        else:
            chunks[-1].append(line)
    return [chunk for chunk in chunks if chunk]


def test_readme_has_excerpts():
    assert len(README_EXCERPTS) >= 2


@pytest.mark.parametrize(("line", "expected"), README_EXCERPTS, ids=[line for line, _ in README_EXCERPTS])
def test_readme_excerpt_is_real(line, expected):
    """An abridged example shows real lines: each run of lines between "..." markers appears,
    whole and in order, in what the command prints on a 100-column terminal."""
    shown = cli_runner.run_as_on_a_terminal(line)
    at = 0
    for chunk in _excerpt_chunks(expected):
        for start in range(at, len(shown) - len(chunk) + 1):
            if shown[start : start + len(chunk)] == chunk:
                at = start + len(chunk)
                break
        else:
            raise AssertionError(
                f"{line}: these lines are not in its output (in this order):\n" + "\n".join(chunk)
            )


def test_readme_has_cli_examples():
    assert len(README_CLI_EXAMPLES) >= 8


def test_every_cli_example_shows_its_output():
    """Only an example that draws a figure (--plot FILE) may show no output: every other one is
    checked above (scripts/update_readme_examples.py fills it in)."""
    import re

    bare = []
    for block in re.findall(r"```console\n(.*?)```", DOCS, flags=re.S):
        lines = block.splitlines()
        for i, line in enumerate(lines):
            last = i + 1 == len(lines) or lines[i + 1].startswith("$ ")
            if line.startswith("$ momentcalc ") and last and "--plot " not in line:
                bare.append(line)
    assert bare == []


# Examples that run the route of an example before them again at other inputs (0.7 s of CPU
# each): checked with -m reference.
SAME_ROUTE_AGAIN = {
    "$ momentcalc gau-scale --init-std 0.02 --simulate --trials 4 --get scaled_output --get output_rms"
    " --get simulated_rms",
}


def test_the_examples_left_to_the_reference_run_are_in_the_docs():
    assert not SAME_ROUTE_AGAIN - {line for line, _ in README_CLI_EXAMPLES}


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        pytest.param(line, expected, marks=pytest.mark.reference if line in SAME_ROUTE_AGAIN else ())
        for line, expected in README_CLI_EXAMPLES
    ],
    ids=[line for line, _ in README_CLI_EXAMPLES],
)
def test_readme_cli_example_is_real(line, expected):
    """The example prints exactly the README's output (stdout then stderr) as a terminal of the
    README's 100 columns shows it (the boxed table; without colour). In-process, as the other CLI
    tests run; the installed entry point is tested through a real process in test_cli.py
    (`python -m momentcalc`)."""
    assert cli_runner.run_as_on_a_terminal(line) == expected, line


def test_module_doctests():
    """Docstring examples in the package run and print what they say."""
    import doctest
    import importlib
    import pkgutil

    import momentcalc

    attempted = 0
    # walk_packages lists the subpackages and modules, not the root package itself
    names = ["momentcalc", *(info.name for info in pkgutil.walk_packages(momentcalc.__path__, "momentcalc."))]
    for name in names:
        if name.endswith("__main__"):
            continue
        result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
        assert result.failed == 0, name
        attempted += result.attempted
        if name == "momentcalc":
            assert result.attempted >= 5, "the package docstring's examples must run"
    assert attempted >= 5


@pytest.mark.parametrize("command", COMMANDS)
def test_short_help_on_every_command(command):
    run = invoke(command, "-h")
    assert run.code == 0 and run.stdout == invoke(command, "--help").stdout
    assert "-h, --help" in run.stdout


def test_shell_completion_is_available(monkeypatch):
    import os
    import subprocess
    import sys

    import typer.completion

    top = invoke("-h").stdout
    assert "--install-completion" in top and "--show-completion" in top
    # Typer detects the user's shell from the process tree, which a test runner's workers do
    # not always show: say it is bash, as it would be in a terminal.
    monkeypatch.setattr(typer.completion, "_get_shell_name", lambda: "bash")
    script = invoke("--show-completion", "bash")
    assert script.code == 0 and "_MOMENTCALC_COMPLETE" in script.stdout
    env = {
        **os.environ,
        "_MOMENTCALC_COMPLETE": "complete_bash",
        "COMP_WORDS": "momentcalc truncnorm --tar",
        "COMP_CWORD": "2",
    }
    proc = subprocess.run(
        [sys.executable, "-m", "momentcalc"], env=env, capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0 and proc.stdout.split() == ["--target-std"]


def test_readme_counts_the_registry():
    """The README's count of published constants is the registry's."""
    import re

    from momentcalc.verification.run import constants

    (count,) = re.findall(r"lists a registry of (\d+) published constants", DOCS)
    assert int(count) == len(constants().rows)


def test_readme_jq_projection_is_real():
    """The `truncnorm --json | jq '{schema_version, inputs, gamma: .results.gamma}'` block shows
    what that filter prints (jq indents by 2, as json.dumps(indent=2))."""
    import re

    from scripts.update_readme_examples import JQ_LINE, jq_projection

    (shown,) = re.findall(re.escape(JQ_LINE) + r"(.*?)```", DOCS, flags=re.S)
    assert shown == jq_projection()


def test_sources_are_cited_by_author_and_title_not_by_our_file_names():
    """Docstrings reach users through help(); README and help text are read by users: none may
    cite a source as "seed 003" (the name of our copy), only by author and title."""
    import re

    root = Path(__file__).resolve().parents[1]
    pattern = re.compile(r"\bseeds? ?\d{3}|seeds/\d|\d{3}_[0-9a-f]{16}", re.IGNORECASE)
    texts = [*doc_pages.PAGES, *sorted((root / "momentcalc").rglob("*.py"))]
    found = [
        f"{path.relative_to(root)}:{n}"
        for path in texts
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if pattern.search(line)
    ]
    assert found == []


def test_every_docs_page_is_in_the_site_navigation():
    """A page of docs/ that mkdocs.yml's nav does not list would be built but unreachable, and
    every command's page is linked from the README's table of commands."""
    import re

    root = doc_pages.ROOT
    nav = set(re.findall(r"^\s+- (?:[^:\n]+: )?(\S+\.md)\s*$", (root / "mkdocs.yml").read_text(), re.M))
    pages = {str(page.relative_to(root / "docs")) for page in doc_pages.PAGES if page != doc_pages.README}
    assert pages == nav
    commands = {page for page in pages if page.startswith("commands/")}
    assert all(f"](docs/{page})" in README for page in commands)
