"""Look-up of activations by name or expression, and their parameters bound: ``resolve``."""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from fractions import Fraction

from ..engine.numbers import Number, as_number
from ..errors import InputError
from .activations import CORE_CATALOG, Activation
from .framework_activations import FRAMEWORK_ACTIVATIONS
from .gated import gated

# Every catalog entry: the core ones, then relu6, hardtanh, hard_sigmoid, hard_swish, celu,
# log_sigmoid, quick_gelu (their own module).
CATALOG: tuple[Activation, ...] = CORE_CATALOG + FRAMEWORK_ACTIVATIONS
BY_NAME: dict[str, Activation] = {key: entry for entry in CATALOG for key in (entry.name, *entry.aliases)}

_IDENTIFIER_CHARS = set("abcdefghijklmnopqrstuvwxyz0123456789_")


def names() -> tuple[str, ...]:
    """The catalog's names, in catalog order (aliases not included)."""
    return tuple(entry.name for entry in CATALOG)


def _key(name: str) -> str:
    return name.strip().lower().replace("-", "_")


def lookup(name: str) -> Activation | None:
    """The catalog entry for a name or alias (case and -/_ insensitive), or None."""
    return BY_NAME.get(_key(name))


def _looks_like_name(text: str) -> bool:
    key = _key(text)
    return bool(key) and set(key) <= _IDENTIFIER_CHARS and key != "x" and not key[0].isdigit()


def _is_expression(text: str) -> bool:
    """Is ``text``, which looks like a name (catalog names may be written with - for _), an
    expression in x? ``x-pi``, ``e-x`` and ``x-x`` are: every part between the minus signs is
    x, pi, e or a number."""
    parts = [part.strip().lower() for part in text.split("-")]
    return len(parts) > 1 and all(part in ("", "x", "pi", "e") or part.isdigit() for part in parts)


def resolve(activation: str, params: Mapping[str, object] | None = None) -> Activation:
    """A catalog name, an alias or an expression in x, with its parameters bound.

    ``params`` sets the entry's parameters by name (leaky_relu's ``slope``); ``None`` values
    are left at their defaults. A parameter the activation does not have is an InputError,
    as are unknown names (with the closest names suggested).
    """
    if not isinstance(activation, str) or not activation.strip():
        raise InputError(
            f"{{activation}} must be a catalog name or an expression in x, got {activation!r}",
            param="activation",
            allowed="a catalog name or an expression in x",
            got=repr(activation),
        )
    entry = lookup(activation)
    unit = gated(activation) if entry is None else None
    if unit is not None:
        raise InputError(
            f"{{activation}} {unit.name} = {unit.formula} is a gated unit of two independent inputs: "
            "only {activation_moment_command}, {kernel_command} and {hermite_command} take it "
            "(this needs an activation of one input)",
            param="activation",
            params=("activation_moment_command", "kernel_command", "hermite_command"),
        )
    if entry is None:
        from .expressions import parse_activation

        if _looks_like_name(activation) and not _is_expression(activation):
            choices = sorted(BY_NAME)
            close = difflib.get_close_matches(_key(activation), choices, n=3, cutoff=0.5)
            hint = f"; did you mean {', '.join(close)}?" if close else ""
            raise InputError(
                f"{{activation}} {activation.strip()!r} is not in the catalog{hint} "
                "(see {activations_listing}, or give an expression in x)",
                param="activation",
                params=("activations_listing",),
            )
        entry = parse_activation(activation)
    values: dict[str, Number] = {}
    for name, value in (params or {}).items():
        if value is None:
            continue
        if not any(p.name == name for p in entry.params):
            takes = ", ".join(e.name for e in CATALOG if any(p.name == name for p in e.params))
            raise InputError(
                f"{{{name}}} applies only to {takes}, not to {activation.strip()!r}",
                param=name,
                allowed=f"only with {takes}",
            )
        values[name] = as_number(value, name)
        if any(p.name == name and p.positive for p in entry.params) and not values[name] > 0:
            raise InputError(
                f"{{{name}}} must be greater than 0, got {value}", param=name, allowed="a number > 0"
            )
    bound = entry.bind(**values)
    return bound if bound.fn is not None else defined_by_expression(bound)


def defined_by_expression(entry: Activation) -> Activation:
    """A catalog entry without hand-written functions: its expression (``source``, else
    ``formula``, parameters bound) as every command takes an expression in x — φ, φ', kinks,
    parity, balls and sympy form all derived from it — under the entry's name and parameters."""
    from .expressions import tree_activation
    from .formulas import source_text
    from .expression_parse import parse

    given = dict(entry.values)
    text = source_text(entry, {p.name: Fraction(given.get(p.name, p.default)) for p in entry.params})
    return tree_activation(parse(text), entry.name)._replace(
        name=entry.name, params=entry.params, values=entry.values
    )
