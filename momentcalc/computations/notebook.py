"""Jupyter notebooks (``.ipynb``) for ``audit``: the code cells as one Python source, and each
place in it as a place in the notebook file.

The code cells are joined in order (markdown and raw cells are not code), so that an import in
the first cell says which framework a later cell's ``gelu`` is; IPython's magics and shell
escapes (``%matplotlib inline``, ``!pip install``) become comments, keeping every column. A
finding's place is given twice: ``cell`` and ``cell_line`` (1-based, as Jupyter counts code and
markdown cells alike), and ``line``/``column`` in the ``.ipynb`` file itself — where the
literal's first character stands in the JSON text of the cell's ``source`` (a string per line,
as nbformat writes it, or one string for the cell, in any layout, the escapes before it on its
line counted as written) — which an editor, SARIF viewers and GitHub's annotations can open.
"""

from __future__ import annotations

import functools
import json
import re
from typing import Any, NamedTuple

from .code_context import source_lines

_MAGIC = re.compile(r"^(\s*)([%!]|\?\?|\?(?=\w))")


class Cell(NamedTuple):
    number: int  # 1-based, among all cells
    first: int  # its first line in the joined source (1-based)
    lines: list[str]  # its source lines, without line breaks


class Notebook(NamedTuple):
    source: str  # the code cells joined, magics commented out
    python: bool
    cells: list[Cell]
    file_lines: list[str]  # the .ipynb file's own lines
    cell_starts: list[int]  # 0-based lines of the file with a "cell_type" key
    text: str = ""  # the .ipynb file's text


class NotANotebook(ValueError):
    pass


def _source_lines(cell: dict[str, Any]) -> list[str]:
    source = cell.get("source", "")
    if isinstance(source, list):
        source = "".join(s for s in source if isinstance(s, str))
    if not isinstance(source, str):
        return []
    return source_lines(source)


def read_notebook(text: str) -> Notebook:
    """The notebook's code cells; raises NotANotebook for JSON that is not one."""
    try:
        document = json.loads(text)
    except (ValueError, RecursionError) as error:
        where = f" (line {error.lineno})" if isinstance(error, json.JSONDecodeError) else ""
        raise NotANotebook(f"not a notebook: invalid JSON{where}") from None
    if not isinstance(document, dict) or not isinstance(document.get("cells"), list):
        raise NotANotebook("not a notebook: no list of cells (nbformat 4)")
    metadata = document.get("metadata")
    if not isinstance(metadata, dict):
        metadata = {}
    language = ""
    for key, field in (("kernelspec", "language"), ("language_info", "name")):
        value = metadata.get(key)
        if isinstance(value, dict) and isinstance(value.get(field), str):
            language = language or value[field].lower()
    python = language in ("", "python", "python3", "ipython")
    cells: list[Cell] = []
    joined: list[str] = []
    for index, cell in enumerate(document["cells"], 1):
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        lines = _source_lines(cell)
        cells.append(Cell(index, len(joined) + 1, lines))
        joined += [_MAGIC.sub(r"\1#", line) for line in lines] if python else lines
    file_lines = source_lines(text)
    starts = [n for n, raw in enumerate(file_lines) if '"cell_type":' in raw]
    return Notebook("\n".join(joined) + "\n", python, cells, file_lines, starts, text)


def cell_of(notebook: Notebook, line: int) -> tuple[Cell, int]:
    """The cell that holds line ``line`` of the joined source, and the line within it."""
    cell = notebook.cells[0]
    for c in notebook.cells:
        if c.first > line:
            break
        cell = c
    return cell, line - cell.first + 1


def place_in_file(notebook: Notebook, cell: Cell, cell_line: int, column: int) -> tuple[int, int]:
    """(line, column) in the .ipynb file of a place in a cell: where its character stands in the
    JSON text of the cell's ``source`` (one string per line as nbformat writes it, or one string
    for the whole cell, in any layout; the escapes before it on its line counted as written), by
    ``_source_tokens``; failing that, the JSON string holding that source line (searched from the
    cell's "source" key on, within the cell), else the cell's first line and column 1."""
    exact = _exact_place(notebook, cell, cell_line, column)
    if exact is not None:
        return exact
    text = cell.lines[cell_line - 1]
    lines = notebook.file_lines
    first, end = _cell_region(notebook, cell)
    if first is None:  # not nbformat's layout (a notebook on one line): the first such string
        first, end = 0, len(lines)
    source = next((n for n in range(first, end) if '"source":' in lines[n]), first)
    for number in (*range(source, end), *range(first, source)):
        raw = lines[number]
        for ascii_only in (False, True):
            for ending in ("\n", ""):
                at = raw.find(
                    json.dumps(text + ending, ensure_ascii=ascii_only), max(raw.find('"source":'), 0)
                )
                if at >= 0:
                    return number + 1, at + len(json.dumps(text[: column - 1], ensure_ascii=ascii_only))
    return source + 1, 1


def _cell_region(notebook: Notebook, cell: Cell) -> tuple[int | None, int]:
    """The 0-based lines of the file from the cell's "cell_type" key to the next cell's (or the
    end): nbformat's layout, one key per line; (None, 0) when the file is not laid out so."""
    starts = notebook.cell_starts
    if len(starts) < cell.number:
        return None, 0
    first = starts[cell.number - 1]
    if cell.number < len(starts):
        return first, starts[cell.number]
    return first, len(notebook.file_lines)


# --- exact places ------------------------------------------------------------------------------

# Outside its strings JSON holds no quote: its strings and brackets, in order, are its structure.
_JSON_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[{}\[\]:,]')
_ESCAPE = re.compile(r"\\u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}|\\u[0-9a-fA-F]{4}|\\.")


@functools.lru_cache(maxsize=4)  # (asked once a finding: a notebook is scanned once)
def _source_tokens(text: str) -> dict[int, list[tuple[int, str]]]:
    """For each cell (1-based, as ``Cell.number``), the JSON strings of its ``source`` value as
    (offset in the file of the opening quote, the string as written): the top object's
    ``cells`` list, each cell an object in it, its key ``source``; a string or a list of them."""
    found: dict[int, list[tuple[int, str]]] = {}
    depth = 0
    in_cells = False  # inside the top object's "cells" list
    cell = 0
    key: str | None = None
    last_string: str | None = None
    value_of: str | None = None  # the key whose value comes next
    for m in _JSON_TOKEN.finditer(text):
        token = m.group()
        if token == ":":
            value_of, last_string = last_string, None
            continue
        if token == ",":
            value_of = last_string = None
            continue
        if token in "{[":
            if depth == 1 and value_of == '"cells"' and token == "[":
                in_cells = True
            elif in_cells and depth == 2 and token == "{":
                cell += 1
            depth += 1
            if not (depth == 4 and key == '"source"' and token == "["):
                key = None
            value_of = None
            continue
        if token in "}]":
            depth -= 1
            if in_cells and depth == 1:
                in_cells = False
            key = '"source"' if depth == 3 and key == '"source"' else None
            continue
        # a string: a key, or a value
        if in_cells and depth == 3 and value_of == '"source"':
            found.setdefault(cell, []).append((m.start(), token))
            value_of = None
        elif in_cells and depth == 4 and key == '"source"':
            found.setdefault(cell, []).append((m.start(), token))
        elif depth == 3 and value_of is None:
            key = token
        last_string = token
    return found


def _exact_place(notebook: Notebook, cell: Cell, cell_line: int, column: int) -> tuple[int, int] | None:
    """(line, column) of the character in the file, by decoding the cell's source strings with
    each character's offset (None when they do not hold the cell's lines)."""
    text = notebook.text
    strings = _source_tokens(text).get(cell.number) if text else None
    if not strings:
        return None
    offsets: list[int] = []  # the file offset of each character of the source
    decoded: list[str] = []
    for start, token in strings:
        at = start + 1
        body_end = start + len(token) - 1
        while at < body_end:
            escape = _ESCAPE.match(text, at) if text[at] == "\\" else None
            raw = escape.group() if escape else text[at]
            try:
                char = json.loads(f'"{raw}"') if escape else raw
            except ValueError:
                return None
            for c in char:
                decoded.append(c)
                offsets.append(at)
            at += len(raw)
    source = "".join(decoded)
    if source_lines(source) != cell.lines:
        return None
    breaks = [0, *(m.end() for m in _BREAK.finditer(source))]
    if cell_line - 1 >= len(breaks):
        return None
    index = breaks[cell_line - 1] + column - 1
    if index >= len(offsets):
        return None
    where = offsets[index]
    line_start = max(text.rfind("\n", 0, where), text.rfind("\r", 0, where)) + 1
    return len(_BREAK.findall(text, 0, where)) + 1, where - line_start + 1


_BREAK = re.compile(r"\r\n|\r|\n")
