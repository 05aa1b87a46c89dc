"""``verify`` and ``constants``: recompute every published constant in the registry.

Each row reports the published text, momentcalc's value, how many leading digits agree, the
route momentcalc used and the independent route that confirmed it. A row fails when the value
does not match the publication under its printing convention (verification.tolerance) or when
the second route disagrees; informational rows (PyTorch's heuristic gains) never fail.
"""

from __future__ import annotations

from collections.abc import Sequence

import mpmath
from mpmath import mp

from ..engine.numbers import parse_number, to_mpf
from ..engine.precision import to_decimal, working_dps
from ..errors import InputError, MomentcalcError
from ..result import Listing
from .registry import REGISTRY, Published
from ..engine.written import significant_digits
from .tolerance import agreeing_digits, within

# CLI command -> the function of this module that computes it (the table ``momentcalc.command_table`` reads).
COMMANDS = {"verify": "verify", "constants": "constants"}

VERIFY_COLUMNS = ("id", "source", "published", "computed", "agreeing_digits", "route", "status")
VERIFY_LABELS = {"agreeing_digits": "agree"}
CONSTANT_COLUMNS = ("id", "published", "tolerance", "source", "description", "computed_by")
EXACT_DIGITS = 30


def _digits_for(entry: Published) -> int:
    if entry.exact is not None:
        return EXACT_DIGITS
    return max(12, significant_digits(entry.published) + 5)


def _published_value(entry: Published, digits: int) -> mpmath.mpf:
    with mp.workdps(working_dps(digits)):
        if entry.exact is not None:
            return entry.exact()
        return to_mpf(parse_number(entry.published, entry.id))


def check_entry(entry: Published) -> dict[str, object]:
    """Recompute one registry entry: a row of the ``verify`` table."""
    digits = _digits_for(entry)
    second = entry.check.name if entry.check else "no second route"
    row: dict[str, object] = {
        "id": entry.id,
        "source": entry.source,
        "published": entry.published,
        "route": f"{entry.via} | {second}",
        "informational": entry.informational,
    }
    try:
        computed = entry.compute(digits)
        published = _published_value(entry, digits)
        cap = digits if entry.exact is not None else significant_digits(entry.published)
        matches = within(entry.kind, computed, published, entry.published, digits)
        if entry.check is None:
            confirmed, detail = True, "none available"
        else:
            confirmed, detail = entry.check.run(computed, digits)
            detail = f"{entry.check.name}: {detail}"
        shown = cap + 3 if entry.exact is None else 20
        if entry.shown_digits is not None:
            shown = entry.shown_digits
        row.update(
            computed=to_decimal(computed, shown),
            agreeing_digits=agreeing_digits(computed, published, cap),
            check=detail,
            matches_published=matches,
            routes_agree=confirmed,
        )
    except Exception as error:  # a broken route fails its row; verify itself must not crash
        message = error.message if isinstance(error, MomentcalcError) else f"{type(error).__name__}: {error}"
        row.update(
            computed=None,
            agreeing_digits=0,
            check=f"error: {message}",
            matches_published=False,
            routes_agree=False,
        )
    passed = bool(row["matches_published"] and row["routes_agree"])
    row["status"] = "info" if entry.informational else "ok" if passed else "fail"
    row["ok"] = row["status"] != "fail"
    return row


def verify(
    *, only: Sequence[str] | str | None = None, registry: Sequence[Published] | None = None
) -> Listing:
    """Recompute the registry (or the entries whose id contains one of ``only``)."""
    entries = tuple(REGISTRY if registry is None else registry)
    if only:
        wanted = [only] if isinstance(only, str) else list(only)
        entries = tuple(e for e in entries if any(w in e.id for w in wanted))
        if not entries:
            raise InputError(
                f"{{only}} matches no constant; ids are: {', '.join(e.id for e in REGISTRY)}", param="only"
            )
    rows = tuple(check_entry(entry) for entry in entries)
    failures = tuple(failure_line(row) for row in rows if not row["ok"])
    return Listing(
        "verify",
        VERIFY_COLUMNS,
        rows,
        title="momentcalc verify: published constants",
        ok=not failures,
        failures=failures,
        labels=VERIFY_LABELS,
    )


def failure_line(row: dict[str, object]) -> str:
    """One line saying which constant failed and why (verify writes it to stderr)."""
    reasons = [
        part
        for part, bad in (
            ("does not match the published value", not row["matches_published"]),
            (str(row["check"]), not row["routes_agree"]),
        )
        if bad
    ]
    computed = "nothing" if row["computed"] is None else row["computed"]
    return (
        f"momentcalc: verify failed: {row['id']}: published {row['published']}, computed {computed} "
        f"({row['agreeing_digits']} digits agree): {'; '.join(reasons)}"
    )


def constants(*, registry: Sequence[Published] | None = None) -> Listing:
    """The registry itself, without computing anything."""
    rows = tuple(
        {
            "id": e.id,
            "published": e.published,
            "tolerance": e.kind + (" (informational)" if e.informational else ""),
            "source": e.source,
            "description": e.description,
            "computed_by": e.via,
        }
        for e in (REGISTRY if registry is None else registry)
    )
    return Listing("constants", CONSTANT_COLUMNS, rows, title="momentcalc constants: the verify registry")
