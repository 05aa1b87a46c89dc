"""Tables (rich): results, checks, --derive forms, and a bar chart for list-valued results."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TextIO

from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from ..result import Check, Computation, Listing, NoResult, Sweep
from .cells import (
    column_table,
    extra_tables,
    is_table,
    listing_cell,
    listing_headers,
    outcome_notes,
    single_rows,
    single_title,
    sweep_cells,
    sweep_headers,
    sweep_lists,
    sweep_title,
)
from .chart import bar_chart, list_section
from .plain import aligned
from .text import fits, spell_ascii, visible


def _markup_safe(text: str) -> str:
    """Text that may hold a user's characters, for a place rich reads as markup."""
    return escape(visible(text))


# The width a table takes where the terminal's is unknown (rich's and shutil's fallback).
UNKNOWN_WIDTH = 80


class _Console(Console):
    """rich's Console, but a closed pipe is the CLI's to report (exit 0, nothing on stderr:
    rich would exit 1), and on a stream that cannot encode φ, █, ± every text is spelled in
    ASCII before rich lays it out (so the columns still line up). A width of 0 (COLUMNS=0, as a
    pseudo-terminal nobody sized reports) is unknown, not 0 columns: rich would print nothing."""

    def __init__(self, *args: Any, spell: bool = False, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._spell = spell
        if self.width <= 0:
            self.width = UNKNOWN_WIDTH

    def render_str(self, text: str, **kwargs: Any) -> Any:
        if self._spell:
            text = spell_ascii(text, markup=kwargs.get("markup") is not False and self._markup)
        return super().render_str(text, **kwargs)

    def on_broken_pipe(self) -> None:
        raise BrokenPipeError


# A table with n columns (heavy head box, one space of padding each side) spends 3n + 1
# characters on borders and padding.
def _overhead(columns: int) -> int:
    return 3 * columns + 1


# The narrowest a description column is let wrap to before it moves below the table.
DESCRIPTION_MIN = 16
BELOW = "(below)"


def _width(cells: list[str]) -> int:
    return max((len(cell) for cell in cells), default=0)


def _token_width(cells: list[str]) -> int:
    """The longest unbreakable word of the cells: a column narrower than that would fold it."""
    return max((len(word) for cell in cells for word in cell.split()), default=0)


def _line_width(cells: list[str]) -> int:
    return max((len(line) for cell in cells for line in cell.split("\n")), default=0)


def _fit_widths(least: list[int], natural: list[int], room: int) -> list[int]:
    """Column widths within ``room``: each at least its longest word (so that no word is
    folded), the rest of the room shared in proportion to what each column would still use.
    (rich's own shrinking takes from the widest column first, below its longest word.)"""
    if sum(natural) <= room:
        return natural
    spare = room - sum(least)
    wants = [n - m for n, m in zip(natural, least)]
    total = sum(wants) or 1
    widths = [m + spare * w // total for m, w in zip(least, wants)]
    for index in sorted(range(len(widths)), key=lambda i: wants[i] - (widths[i] - least[i]), reverse=True):
        if sum(widths) >= room:
            break
        if widths[index] < natural[index]:
            widths[index] += 1
    return widths


def _whole(console: Console, label: str, value: str) -> None:
    """A value too long for the terminal, whole, on its own lines (the terminal wraps it,
    nothing is inserted into it, so it copies and pastes as one number)."""
    console.print(f"{label} =", markup=False, highlight=False)
    console.print(value, markup=False, highlight=False, soft_wrap=True)


def _print_aligned(
    console: Console, title: str | None, header: list[str], rows: list[list[str]], right: Sequence[bool] = ()
) -> None:
    """A table of text cells (init-report's per-layer figures and parameter groups) as aligned
    lines, whole: a boxed table would fold its numbers to fit the terminal; a line wider than the
    terminal wraps there, nothing inserted into it."""
    if title:
        console.print(f"[bold]{_markup_safe(title)}[/]")
    for line in aligned(header, rows, right) if rows else ():
        console.print(line, markup=False, highlight=False, soft_wrap=True)


def _checks_table(checks: tuple[Check, ...], with_row: bool = False) -> Table:
    table = Table(title="checks", title_justify="left", title_style="")
    if with_row:
        table.add_column("row", justify="right", no_wrap=True)
    for column in ("name", "expected", "found", "tolerance"):
        table.add_column(column, no_wrap=True)
    table.add_column("ok")
    for index, check in enumerate(checks):
        cells = [
            *map(_markup_safe, (check.name, check.expected, check.found, f"±{check.tolerance}")),
            "[green]ok[/]" if check.ok else "[red]MISMATCH[/]",
        ]
        table.add_row(*([str(index)] if with_row else []), *cells)
    return table


def _single(computation: Computation, console: Console) -> None:
    rows = single_rows(computation)
    names = [name for name, _, _ in rows]
    values = [value for _, value, _ in rows]
    name_width = max(_width(names), len("result"))
    value_width = max(_width(values), len("value"))
    room = console.width
    with_description = name_width + value_width + _overhead(3) + DESCRIPTION_MIN <= room
    # The widest value a two-column table holds; a longer one is printed whole below it.
    fits_value = room - name_width - _overhead(2)
    console.print(Text(visible(single_title(computation))))
    table = Table()
    table.add_column("result", style="bold", no_wrap=True)
    table.add_column(
        "value",
        justify="left",
        no_wrap=True,
        min_width=max((len(v) if len(v) <= fits_value else len(BELOW) for v in values), default=0),
    )
    if with_description:
        table.add_column("description", style="dim", overflow="fold", ratio=1)
    below = []
    for name, value, description in rows:
        if len(value) > fits_value:
            below.append((name, value))
            value = BELOW
        table.add_row(_markup_safe(name), value, *([_markup_safe(description)] if with_description else []))
    console.print(table)
    for name, value in below:
        _whole(console, name, value)
    if not with_description:
        for name, _, description in rows:
            console.print(f"[bold]{_markup_safe(name)}[/]: [dim]{_markup_safe(description)}[/]")
    if computation.columns:
        header, table_rows = column_table(computation)
        _print_aligned(console, None, header, table_rows)
    for quantity in computation.results:
        if quantity.is_list and quantity.name not in computation.columns:
            title, header, table_rows = list_section(quantity, computation.digits, console.width)
            _print_aligned(console, title, header, table_rows, right=[True])
    if any(q.closed_form for q in computation.results) or computation.derivation:
        console.print("[bold]derivation[/]")
        for _label, text, _latex in computation.derivation:
            console.print(f"  {visible(text)}", markup=False, highlight=False)
        for quantity in computation.results:
            if quantity.closed_form:
                console.print(
                    f"  {quantity.name} = {visible(quantity.closed_form)}", markup=False, highlight=False
                )
    for note in computation.notes:
        console.print(f"[dim]note:[/] {_markup_safe(note)}")
    for title, header, table_rows in extra_tables(computation):
        _print_aligned(console, title, header, table_rows)
    for key, value in computation.extra.items():
        if is_table(value):
            continue
        for item in value if isinstance(value, list) else [value]:
            console.print(f"[dim]{key.rstrip('s')}:[/] {_markup_safe(str(item))}")
    if computation.checks:
        console.print(_checks_table(computation.checks))


def _column_groups(fixed: int, widths: list[int], room: int, columns_before: int) -> list[list[int]] | None:
    """The result columns (indices) split into tables that each fit ``room`` beside the swept
    inputs (``fixed`` characters in ``columns_before`` columns); None if one column cannot."""
    groups: list[list[int]] = []
    used = fixed
    for index, width in enumerate(widths):
        if fixed + width + _overhead(columns_before + 1) > room:
            return None
        if groups and used + width + _overhead(columns_before + len(groups[-1]) + 1) <= room:
            groups[-1].append(index)
            used += width
        else:
            groups.append([index])
            used = fixed + width
    return groups


def _sweep(sweep: Sweep, console: Console) -> None:
    inputs, results = sweep_headers(sweep)
    cells = sweep_cells(sweep)
    console.print(Text(visible(sweep_title(sweep))))
    input_widths = [max(len(header), *(len(i[k]) for i, _ in cells)) for k, header in enumerate(inputs)]
    result_widths = [max(len(header), *(len(r[k]) for _, r in cells)) for k, header in enumerate(results)]
    groups = _column_groups(sum(input_widths), result_widths, console.width, len(inputs))
    if groups is None:
        # Not even one result column fits beside the inputs: one block per point.
        for point, values in cells:
            console.print(
                Text("  ".join(f"{name}={value}" for name, value in zip(sweep.swept, point)), style="cyan")
            )
            for name, value in zip(results, values):
                if value:
                    console.print(f"  {name} = {value}", markup=False, highlight=False, soft_wrap=True)
    for group in groups or ():
        table = Table()
        for header in inputs:
            table.add_column(_markup_safe(header), style="cyan", no_wrap=True)
        for index in group:
            table.add_column(results[index], no_wrap=True)
        for row, (point, values) in zip(sweep.rows, cells):
            shown = [values[index] for index in group]
            if isinstance(row, NoResult):  # its outcome in the first column of every table
                shown = [values[0], *[""] * (len(group) - 1)]
            table.add_row(*map(_markup_safe, point), *shown)
        console.print(table)
    for title, list_header, list_rows in sweep_lists(sweep, console.width):
        _print_aligned(console, title, list_header, list_rows, right=[True])
    for note in outcome_notes(sweep):
        console.print(f"[dim]note:[/] {_markup_safe(note)}")
    if sweep.checks:
        console.print(_checks_table(sweep.checks, with_row=True))


def _cell_markup(column: str, value: object) -> str:
    if column == "status" and value in ("ok", "fail"):
        return "[green]ok[/]" if value == "ok" else "[red]FAIL[/]"
    if value is True:
        return "[green]ok[/]"
    if value is False:
        return "[red]FAIL[/]"
    return "\n".join(map(_markup_safe, listing_cell(value, separator="\n").split("\n")))


def _listing(listing: Listing, console: Console) -> None:
    headers = listing_headers(listing)
    texts = [
        [listing_cell(row.get(column), separator="\n") for row in listing.rows] for column in listing.columns
    ]
    least = [max(_token_width([header]), _token_width(column)) for header, column in zip(headers, texts)]
    title = Text(visible(listing.title or listing.command))
    if sum(least) + _overhead(len(headers)) > console.width:
        # Too narrow for a table that breaks no word: one block per row.
        console.print(title)
        for row in listing.rows:
            console.print()
            for column, header in zip(listing.columns, headers):
                console.print(f"[bold]{_markup_safe(header)}:[/] {_cell_markup(column, row.get(column))}")
    else:
        console.print(title)
        table = Table()
        natural = [max(_line_width([header]), _line_width(column)) for header, column in zip(headers, texts)]
        for header, width in zip(
            headers, _fit_widths(least, natural, console.width - _overhead(len(headers)))
        ):
            table.add_column(_markup_safe(header), overflow="fold", width=width)
        for row in listing.rows:
            table.add_row(*(_cell_markup(column, row.get(column)) for column in listing.columns))
        console.print(table)
    for note in listing.notes:
        console.print(f"[dim]note:[/] {_markup_safe(note)}")
    if listing.ok is not None:
        console.print("[green]all ok[/]" if listing.ok else "[red]FAILED[/]")


def render_table(result: Computation | Sweep | Listing, stream: TextIO) -> None:
    spell = not fits(stream)
    console = _Console(file=stream, highlight=False, soft_wrap=False, spell=spell)
    if isinstance(result, Listing):
        _listing(result, console)
    elif isinstance(result, Sweep):
        _sweep(result, console)
    else:
        _single(result, console)


def print_chart(
    stream: TextIO, name: str, values: list, labels: list[str], header: str, texts: list[str]
) -> None:
    """``--chart``: a sweep's result as bars under its table (``texts``: each point's value as
    printed, or its outcome where it has no value: ``None`` in ``values``, no bar)."""
    console = _Console(file=stream, highlight=False, soft_wrap=False, spell=not fits(stream))
    console.print(bar_chart(name, values, labels, header, texts))
