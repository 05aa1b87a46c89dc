"""Tables (rich): results, checks, --derive forms, and a bar chart for list-valued results."""

from __future__ import annotations

from typing import Any, TextIO

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from ..engine.numbers import to_text
from ..engine.precision import to_decimal
from ..result import Check, Computation, Listing, Quantity, Sweep
from .chart import bar_chart
from .document import shown_digits
from .text import fits, spell_ascii, visible


def _inputs_text(computation: Computation) -> str:
    return "  ".join(
        f"{name}={value if isinstance(value, str) else to_text(value)}"
        for name, value in computation.inputs.items()
    )


def _markup_safe(text: str) -> str:
    """Text that may hold a user's characters, for a place rich reads as markup."""
    return escape(visible(text))


class _Console(Console):
    """rich's Console, but a closed pipe is the CLI's to report (exit 141, nothing on stderr:
    rich would exit 1), and on a stream that cannot encode φ, █, ± every text is spelled in
    ASCII before rich lays it out (so the columns still line up)."""

    def __init__(self, *args: Any, spell: bool = False, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._spell = spell

    def render_str(self, text: str, **kwargs: Any) -> Any:
        if self._spell:
            text = spell_ascii(text, markup=kwargs.get("markup") is not False and self._markup)
        return super().render_str(text, **kwargs)

    def on_broken_pipe(self) -> None:
        raise BrokenPipeError


def _checks_table(checks: tuple[Check, ...], with_row: bool = False) -> Table:
    table = Table(title="checks", title_justify="left")
    if with_row:
        table.add_column("row", justify="right")
    for column in ("name", "expected", "found", "tolerance", "ok"):
        table.add_column(column, overflow="fold")
    for index, check in enumerate(checks):
        cells = [*map(_markup_safe, (check.name, check.expected, check.found, f"±{check.tolerance}")),
                 "[green]ok[/]" if check.ok else "[red]MISMATCH[/]"]
        table.add_row(*([str(index)] if with_row else []), *cells)
    return table


def _certified(quantities: tuple[Quantity, ...]) -> str:
    """"  certified" for a title line when every result shown is proven."""
    return "  certified" if quantities and all(q.certified for q in quantities) else ""


def _single(computation: Computation, console: Console) -> None:
    title = f"{computation.command}  {_inputs_text(computation)}{_certified(computation.results)}"
    table = Table(title=_markup_safe(title), title_justify="left")
    table.add_column("result", style="bold", overflow="fold")
    table.add_column("value", justify="left", overflow="fold")
    table.add_column("description", style="dim", overflow="fold")
    for quantity in computation.results:
        if quantity.is_list:
            shown = f"{len(quantity.value)} values (chart below)"
        else:
            shown = to_decimal(quantity.rounded_from, shown_digits(quantity, computation.digits))
            if quantity.stderr is not None:
                shown += f" ± {to_decimal(quantity.stderr, 2)}"
        table.add_row(quantity.name, shown, _markup_safe(quantity.description))
    console.print(table)
    for quantity in computation.results:
        if quantity.is_list:
            console.print(bar_chart(quantity.name, quantity.value, computation.digits))
    if any(q.closed_form for q in computation.results) or computation.derivation:
        console.print("[bold]derivation[/]")
        for label, text, _latex in computation.derivation:
            console.print(f"  {visible(text)}", markup=False, highlight=False)
        for quantity in computation.results:
            if quantity.closed_form:
                console.print(f"  {quantity.name} = {visible(quantity.closed_form)}", markup=False, highlight=False)
    for note in computation.notes:
        console.print(f"[dim]note:[/] {_markup_safe(note)}")
    for key, value in computation.extra.items():
        for item in value if isinstance(value, list) else [value]:
            console.print(f"[dim]{key.rstrip('s')}:[/] {_markup_safe(str(item))}")
    if computation.checks:
        console.print(_checks_table(computation.checks))


def _sweep(sweep: Sweep, console: Console) -> None:
    first = sweep.rows[0]
    scalar = [q.name for q in first.results if not q.is_list]
    fixed = "  ".join(
        f"{name}={value if isinstance(value, str) else to_text(value)}"
        for name, value in first.inputs.items() if name not in sweep.swept
    )
    certified = _certified(tuple(q for row in sweep.rows for q in row.results if q.name in scalar))
    table = Table(title=_markup_safe(f"{sweep.command}  {fixed}  sweep over {', '.join(sweep.swept)}{certified}"), title_justify="left")
    for name in sweep.swept:
        table.add_column(name, style="cyan")
    for name in scalar:
        table.add_column(name, overflow="fold")
    for row in sweep.rows:
        inputs = [row.inputs[name] for name in sweep.swept]
        inputs = [_markup_safe(v) if isinstance(v, str) else to_text(v) for v in inputs]
        values = [to_decimal(row[name].rounded_from, shown_digits(row[name], row.digits)) for name in scalar]
        table.add_row(*inputs, *values)
    console.print(table)
    if sweep.checks:
        console.print(_checks_table(sweep.checks, with_row=True))


def _cell_text(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, dict):
        return "\n".join(_markup_safe(f"{k} = {v}") for k, v in value.items())
    if isinstance(value, list):
        return _markup_safe(", ".join(map(str, value)))
    if value is True:
        return "[green]ok[/]"
    if value is False:
        return "[red]FAIL[/]"
    return _markup_safe(str(value))


def _status_text(status: str) -> str:
    return {"ok": "[green]ok[/]", "fail": "[red]FAIL[/]"}.get(status, _markup_safe(status))


def _listing(listing: Listing, console: Console) -> None:
    table = Table(title=_markup_safe(listing.title or listing.command), title_justify="left")
    for column in listing.columns:
        table.add_column(listing.labels.get(column, column), overflow="fold")
    for row in listing.rows:
        table.add_row(*(_status_text(row[column]) if column == "status" else _cell_text(row.get(column))
                        for column in listing.columns))
    console.print(table)
    for note in listing.notes:
        console.print(f"[dim]note:[/] {_markup_safe(note)}")
    if listing.ok is not None:
        console.print("[green]all ok[/]" if listing.ok else "[red]FAILED[/]")


def render_table(result: Computation | Sweep | Listing, stream: TextIO) -> None:
    spell = not fits(stream)
    console = _Console(file=stream, highlight=False, soft_wrap=False, spell=spell)
    if isinstance(result, (Listing, Sweep)) and not console.is_terminal:
        # Logs and pipes have no width to respect: wide rows read better than folded ones.
        console = _Console(file=stream, highlight=False, soft_wrap=False, width=max(console.width, 160), spell=spell)
    if isinstance(result, Listing):
        _listing(result, console)
    elif isinstance(result, Sweep):
        _sweep(result, console)
    else:
        _single(result, console)
