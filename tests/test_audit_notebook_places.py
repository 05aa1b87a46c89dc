"""audit's place of a finding in a notebook file: line and column of the literal's first
character in the .ipynb text, for a cell ``source`` written as one string per line (nbformat) or
as one string (allowed by nbformat), laid out by ``json.dump`` with an indent or on one line, with
JSON escapes before the literal on its line. Every notebook is written here."""

from __future__ import annotations

import json

import pytest

from momentcalc.computations.audit import scan_file

LITERAL = "0.87962566103423978"  # the truncated normal's std ratio at ±2


def _notebook(source: str | list[str]) -> dict:
    cells = [
        {"cell_type": "markdown", "metadata": {}, "source": "# 1.0507009873554805 in prose"},
        {
            "cell_type": "code",
            "metadata": {"tags": ["source"]},
            "execution_count": 1,
            "source": "y = 2\n",
            "outputs": [],
        },
        {"cell_type": "code", "metadata": {}, "execution_count": 2, "source": source, "outputs": []},
    ]
    return {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}


def _lines(*lines: str) -> list[str]:
    return [line + "\n" for line in lines]


SOURCES = {
    "plain": ["x = 1", f"std_ratio = {LITERAL}"],
    "escapes": ["s = 'a\tb'", f'd = {{"\\\\é\\"": 1, "k": {LITERAL}}}'],
    "astral": ["x = 1", f"s = '😀'; ratio = {LITERAL}"],
    "first line": [f"std_ratio = {LITERAL}", "x = 1"],
}


@pytest.mark.parametrize("indent", [1, None], ids=["indented", "one line"])
@pytest.mark.parametrize("ascii_only", [True, False], ids=["ascii", "utf8"])
@pytest.mark.parametrize("as_list", [False, True], ids=["one string", "list"])
@pytest.mark.parametrize("case", list(SOURCES))
def test_a_finding_points_at_its_literal_in_the_file(tmp_path, indent, ascii_only, as_list, case):
    lines = SOURCES[case]
    source: str | list[str] = _lines(*lines) if as_list else "\n".join(lines) + "\n"
    path = tmp_path / "n.ipynb"
    path.write_text(json.dumps(_notebook(source), indent=indent, ensure_ascii=ascii_only), encoding="utf-8")
    found = [f for f in scan_file(str(path)) if f["literal"] == LITERAL]
    assert len(found) == 1
    f = found[0]
    cell_line = next(n for n, line in enumerate(lines, 1) if LITERAL in line)
    assert (f["cell"], f["cell_line"]) == (3, cell_line)
    text_line = path.read_text(encoding="utf-8").split("\n")[f["line"] - 1]
    assert text_line[f["column"] - 1 :].startswith(LITERAL), (f["line"], f["column"], text_line)
    if indent is None:
        assert f["line"] == 1


def test_the_reported_places_of_the_audit_report():
    # the layouts of the report: json.dump(indent=1) puts the string on line 7, the literal at 34
    text = json.dumps(
        {
            "cells": [
                {
                    "cell_type": "code",
                    "metadata": {},
                    "execution_count": 1,
                    "source": f"x = 1\nstd_ratio = {LITERAL}\n",
                    "outputs": [],
                }
            ],
            "metadata": {},
            "nbformat": 4,
            "nbformat_minor": 5,
        },
        indent=1,
    )
    import os
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "a.ipynb")
        with open(path, "w") as handle:
            handle.write(text)
        assert [(f["line"], f["column"]) for f in scan_file(path)] == [(7, 34)]
        with open(path, "w") as handle:
            handle.write(json.dumps(json.loads(text)))
        assert [(f["line"], f["column"]) for f in scan_file(path)] == [(1, 102)]
