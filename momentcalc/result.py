"""Plain result objects: what every computation returns and every renderer consumes.

A ``Computation`` holds exact values (mpmath numbers at working precision); the table, JSON
and CSV renderers round them to ``digits`` only when they print.

Descriptions and notes that mention an argument write it as a ``{name}`` placeholder, as error
messages do (``"std to pass so that the actual std equals {target_std}"``): the objects read
with Python names (``target_std``), and ``Computation.named(name_of)`` gives the copy the CLI
prints (``--target-std``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any, Protocol, runtime_checkable

import mpmath

from .engine.numbers import Number
from .engine.precision import justified_digits, to_decimal
from .engine.rounding import ball_end, directed_text, signed_binary
from .errors import InputError, PrecisionError, unknown_name

# A whole number is shown in full up to about 1000 digits (str() refuses 4300).
WHOLE_BITS = 3300

_PLACEHOLDER = re.compile(r"\{([a-z][a-z0-9_]*)\}")


def python_name(name: str) -> str:
    return name


def fill_names(text: str, name_of: Callable[[str], str] = python_name) -> str:
    """``text`` with every ``{name}`` placeholder replaced by ``name_of(name)`` (default: the
    Python name itself)."""
    return _PLACEHOLDER.sub(lambda match: name_of(match.group(1)), text) if "{" in text else text


def _templates(texts: tuple[str, ...]) -> tuple[str, ...] | None:
    return texts if any("{" in text for text in texts) else None


class FrozenInstanceError(AttributeError):
    """A result object's field was assigned (they are frozen)."""


class _Default:
    """A field's default made anew for each object (``default_factory`` of a dataclass field),
    or a field kept out of ``repr`` and ``==`` (``hidden``)."""

    def __init__(
        self, default: Any = None, factory: Callable[[], Any] | None = None, hidden: bool = False
    ) -> None:
        self.default, self.factory, self.hidden = default, factory, hidden


def _field(default: Any = None, factory: Callable[[], Any] | None = None, hidden: bool = False) -> Any:
    """A field's ``_Default`` (typed Any, as ``dataclasses.field`` is, so that it stands for the
    field's own type)."""
    return _Default(default, factory, hidden)


class _Record:
    """What ``@dataclass(frozen=True)`` gave the result objects, without building their methods
    from generated source at every start (about 0.6 ms of CPU a class, and every call imports
    this module): the fields are the class's annotations in order, with the class attributes as
    defaults; construction by position or keyword, ``__post_init__``, frozen fields,
    ``==`` and ``hash`` over the compared fields, ``repr``, and ``replace`` (this module's)."""

    _fields: tuple[str, ...] = ()
    # (class-level tables, set per class by __init_subclass__; never mutated through an instance)
    _defaults: dict[str, Any] = {}  # noqa: RUF012
    _factories: dict[str, Callable[[], Any]] = {}  # noqa: RUF012
    _compared: tuple[str, ...] = ()

    def __init_subclass__(cls) -> None:
        fields = tuple(cls.__annotations__)  # the class's own (Python >= 3.10), also under PEP 649
        defaults: dict[str, Any] = {}
        factories: dict[str, Callable[[], Any]] = {}
        hidden = set()
        for name in fields:
            if name not in cls.__dict__:
                continue
            default = cls.__dict__[name]
            if isinstance(default, _Default):
                if default.hidden:
                    hidden.add(name)
                if default.factory is not None:
                    factories[name] = default.factory
                    type.__delattr__(cls, name)
                    continue
                default = default.default
                type.__setattr__(cls, name, default)
            defaults[name] = default
        cls._fields, cls._defaults, cls._factories = fields, defaults, factories
        cls._compared = tuple(name for name in fields if name not in hidden)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        fields = self._fields
        if len(args) > len(fields):
            raise TypeError(
                f"{type(self).__name__}() takes at most {len(fields)} arguments ({len(args)} given)"
            )
        values = dict(zip(fields, args))
        for name, value in kwargs.items():
            if name not in fields or name in values:
                raise TypeError(f"{type(self).__name__}() got an unexpected or repeated argument {name!r}")
            values[name] = value
        own = self.__dict__
        for name in fields:
            if name in values:
                own[name] = values[name]
            elif name in self._defaults:
                own[name] = self._defaults[name]
            elif name in self._factories:
                own[name] = self._factories[name]()
            else:
                raise TypeError(f"{type(self).__name__}() missing argument {name!r}")
        self.__post_init__()

    def __post_init__(self) -> None:
        pass

    def __setattr__(self, name: str, value: Any) -> None:
        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise FrozenInstanceError(f"cannot delete field {name!r}")

    def _key(self) -> tuple[Any, ...]:
        return tuple(self.__dict__[name] for name in self._compared)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={self.__dict__[name]!r}" for name in self._compared)
        return f"{type(self).__qualname__}({shown})"


def replace(record: Any, **changes: Any) -> Any:
    """A copy of a result object (or of a dataclass) with ``changes``, as ``dataclasses.replace``."""
    if not isinstance(record, _Record):
        import dataclasses

        return dataclasses.replace(record, **changes)
    return type(record)(**{**{name: record.__dict__[name] for name in record._fields}, **changes})


class Numerals(list[str]):
    """Numbers as text (a long list result's ``decimal``): nothing in them needs escaping,
    so renderers may join them as they are."""


class Underflowed(list[float | None]):
    """Doubles of a long list result whose first ``zeros`` items underflowed to 0.0."""

    def __init__(self, zeros: int, rest: list[float | None]) -> None:
        super().__init__([0.0] * zeros)
        self.extend(rest)
        self.zeros = zeros


@runtime_checkable
class BulkValues(Protocol):
    """A long list-valued result that renders itself in bulk (per-layer weights at 10^6
    layers): a sequence of mpf that also gives all its doubles, all its decimals, and its
    largest |value| over an index range without computing the others. Renderers use these
    instead of converting item by item; a plain list or tuple of mpf works too, item by item."""

    def __len__(self) -> int: ...

    def __getitem__(self, index: int) -> mpmath.mpf: ...

    def doubles(self) -> Underflowed:
        """The nearest double of every item (0.0 on underflow, None beyond the largest double)."""
        ...

    def decimals(self, digits: int) -> Numerals:
        """Every item as ``to_decimal(item, digits)`` would write it."""
        ...

    def largest(self, first: int, last: int) -> mpmath.mpf:
        """The item of largest |value| among indices first … last (inclusive)."""
        ...


class Quantity(_Record):
    """One named result. ``value`` is an mpf, or a sequence of mpf for a list-valued result
    (a sequence may render itself in bulk through ``doubles()`` and ``decimals(digits)``)."""

    name: str
    value: mpmath.mpf | Sequence[mpmath.mpf]
    description: str
    closed_form: str | None = None
    latex: str | None = None
    # Standard error of a Monte Carlo estimate: it is printed only to the digits this justifies.
    stderr: mpmath.mpf | None = None
    # Proven: the printed digits are the correctly rounded true value, shown by ``error_bound``
    # (|value − true value| ≤ error_bound; 0 for an exact value) or by exact arithmetic.
    certified: bool = False
    error_bound: mpmath.mpf | None = None
    # The exact value when it is rational (``value`` is then its mpf): it is what gets rounded.
    exact: Fraction | None = None
    # A count (a depth): printed as the whole number it is, every digit, whatever ``digits`` is.
    whole: bool = False
    # How ``decimal`` and the JSON double round: "nearest" (the true value correctly rounded), or
    # outward for a result that is a bound (``tail_bound``): "up" for an upper bound, the true
    # value rounded towards +inf (never below it), "down" for a lower bound.
    rounding: str = "nearest"
    # ``description`` as written, with ``{name}`` placeholders (None when it has none);
    # ``description`` itself names arguments as Python does.
    template: str | None = _field(hidden=True)

    def __post_init__(self) -> None:
        if self.template is None and "{" in self.description:
            self.__dict__["template"] = self.description
        if self.template is not None:
            self.__dict__["description"] = fill_names(self.template)

    def named(self, name_of: Callable[[str], str]) -> Quantity:
        """This quantity with its description naming arguments by ``name_of``."""
        if self.template is None:
            return self
        return replace(self, description=fill_names(self.template, name_of), template=None)

    @property
    def is_list(self) -> bool:
        return isinstance(self.value, Sequence)

    @property
    def rounded_from(self) -> Any:
        """What the printed decimal is rounded from: the exact fraction when there is one; for a
        bound (``rounding`` up or down) the end of its ball on that side, value ± error_bound."""
        if self.exact is not None:
            return self.exact
        if self.rounding == "nearest" or self.is_list or not self.error_bound:
            return self.value
        return outer_end(self.value, self.error_bound, self.rounding == "up")

    @property
    def outward(self) -> bool:
        """A bound: printed rounded outward (``rounding`` up or down), not to the nearest."""
        return self.rounding != "nearest"

    def decimal(self, digits: int) -> str | list[str]:
        """The value as printed at ``digits`` significant digits (a list of texts for a list
        result): correctly rounded, from the exact fraction when there is one; a whole number
        in full; a Monte Carlo estimate only to the digits its standard error justifies."""
        if self.is_list:
            if isinstance(self.value, BulkValues):
                return list(self.value.decimals(digits))
            return [to_decimal(v, digits) for v in self.value]
        if self.outward:
            return directed_text(self.rounded_from, digits, self.rounding == "up")
        return to_decimal(self.rounded_from, self.shown_digits(digits))

    def shown_digits(self, digits: int) -> int:
        """``digits``, or fewer for a Monte Carlo estimate whose standard error allows fewer; a
        whole-number result (``whole``) shows all of its digits (up to about 1000)."""
        if self.whole and self.exact is not None and self.exact:
            if abs(self.exact.numerator).bit_length() > WHOLE_BITS:
                return digits  # (postnorm-decay --sigma 1e-4300: a depth of 10^8600) rounded, as any value
            return len(str(abs(self.exact.numerator)))
        if self.stderr is None or self.is_list:
            return digits
        return justified_digits(self.value, self.stderr, digits)


def outer_end(value: mpmath.mpf, radius: mpmath.mpf, up: bool) -> Fraction | mpmath.mpf:
    """value + radius (``up``) or value − radius exactly, as ``directed_ball_text`` proved its
    rounding (a tiny radius widened); ``value`` itself beyond 2^±4096, where nothing is printed
    as a bound without a proof of its own."""
    (mid, mid_e), (rad, rad_e) = signed_binary(value), signed_binary(radius)
    end = None if mid is None or rad is None else ball_end((mid, mid_e), (rad, rad_e), up)
    return value if end is None else end


class Check(_Record):
    """One ``--expect NAME=VALUE`` comparison: ``found`` carries at least two digits more
    than ``expected``; ``tolerance`` is the absolute tolerance (exact decimal text) and
    ``rule`` where it comes from."""

    name: str
    expected: str
    found: str
    ok: bool
    tolerance: str
    rule: str = ""


def _fill_notes(record: Any) -> None:
    """A Computation's or Listing's notes from their ``{name}`` templates (kept, hidden, for
    ``named``): the templates taken from ``notes`` when not given, the notes filled with the
    Python names."""
    if record.note_templates is None:
        record.__dict__["note_templates"] = _templates(record.notes)
    if record.note_templates is not None:
        record.__dict__["notes"] = tuple(fill_names(note) for note in record.note_templates)


class Computation(_Record):
    """The result of one command at one point of its inputs. ``command`` is the name of the
    function that computed it (``selu_solve``); the CLI's copy (``named``) carries the command's
    name (``selu-solve``)."""

    command: str
    inputs: dict[str, Number | str]
    digits: int
    results: tuple[Quantity, ...]
    notes: tuple[str, ...] = ()
    derivation: tuple[tuple[str, str, str], ...] = ()  # (label, sympy str, LaTeX) shown by --derive
    checks: tuple[Check, ...] = ()
    # Further JSON keys of this command's documents (always the same keys for a command), e.g.
    # initializer's ``equivalents``; the table shows them under the notes (a list of dicts as a
    # table of its own).
    extra: dict[str, Any] = _field(factory=dict)
    # List results shown side by side as one table (init-report's per-layer figures) rather than
    # as a chart each; the JSON is the same.
    columns: tuple[str, ...] = ()
    # ``notes`` as written, with ``{name}`` placeholders (None when none has any).
    note_templates: tuple[str, ...] | None = _field(hidden=True)
    # Results of this command that could not be proven here, by name, with the reason (also in
    # ``notes``): ``--get``/``--expect``/``--plot-y`` of one is exit 3 with it, not "unknown".
    left_out: dict[str, str] = _field(factory=dict, hidden=True)

    def __post_init__(self) -> None:
        _fill_notes(self)

    def not_here(self, option: str, name: str) -> Exception:
        """The error for ``option`` naming a result this computation does not have: exit 3 with
        the reason where the command computes it but could not prove it here (``left_out``),
        else an unknown name (exit 2, with the closest name)."""
        if name in self.left_out:
            return PrecisionError(
                f"{{{option}}} {name!r} is left out of this result: {self.left_out[name]}", params=(option,)
            )
        return InputError(f"{{{option}}} " + unknown_name("result", name, self.names), param=option)

    def named(self, name_of: Callable[[str], str], command: str | None = None) -> Computation:
        """This result with its descriptions and notes naming arguments by ``name_of`` (the
        CLI's ``--std``), and called ``command`` when given (the CLI's ``selu-solve``)."""
        command = self.command if command is None else command
        results = tuple(quantity.named(name_of) for quantity in self.results)
        if (
            self.note_templates is None
            and command == self.command
            and all(new is old for new, old in zip(results, self.results))
        ):
            return self
        notes = (
            self.notes
            if self.note_templates is None
            else tuple(fill_names(note, name_of) for note in self.note_templates)
        )
        return replace(self, command=command, results=results, notes=notes, note_templates=None)

    @property
    def status(self) -> str:
        """ "ok": a computation has its results (a sweep's ``NoResult`` says why it has none)."""
        return OK

    def __getitem__(self, name: str) -> Quantity:
        for quantity in self.results:
            if quantity.name == name:
                return quantity
        raise KeyError(name)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(q.name for q in self.results)

    def value(self, name: str) -> Any:
        """The exact value of result ``name`` (mpf, or tuple of mpf)."""
        return self[name].value


# What a sweep's row holds in its ``status``: a value ("ok"), a decided outcome (its kind), or
# a refusal ("refused").
OK, REFUSED = "ok", "refused"


class NoResult(_Record):
    """A point of a sweep that has no results: a decided outcome about the point (``kind``, from
    ``errors.Outcome``: "explodes" — at ``layer`` where known —, "no_fixed_point", "diverges",
    ...; ``code`` None) or a refusal (``code`` 3: not proven or past a limit; 2: the point is
    bad input), with the ``message`` that says why. Its ``inputs`` are the point's, in the keys
    and order of the sweep's computed rows where there are any."""

    command: str
    inputs: dict[str, Number | str]
    digits: int
    message: str
    kind: str | None = None
    code: int | None = None
    layer: int | None = None

    results: tuple[Quantity, ...] = ()
    notes: tuple[str, ...] = ()
    derivation: tuple[tuple[str, str, str], ...] = ()
    checks: tuple[Check, ...] = ()

    @property
    def decided(self) -> bool:
        return self.code is None

    @property
    def status(self) -> str:
        return REFUSED if self.code is not None else self.kind or "outcome"

    @property
    def names(self) -> tuple[str, ...]:
        return ()

    @property
    def extra(self) -> dict[str, Any]:
        return {}


class Sweep(_Record):
    """A command evaluated at several points (a swept option): one row per point, a
    ``Computation`` or, for a point without results, a ``NoResult`` (iterating over a sweep
    gives its rows)."""

    command: str
    digits: int
    rows: tuple[Computation | NoResult, ...]
    swept: tuple[str, ...] = ()

    @property
    def checks(self) -> tuple[Check, ...]:
        return tuple(check for row in self.rows for check in row.checks)

    @property
    def computed(self) -> tuple[Computation, ...]:
        """The rows with results."""
        return tuple(row for row in self.rows if isinstance(row, Computation))

    @property
    def refused(self) -> tuple[NoResult, ...]:
        return tuple(row for row in self.rows if isinstance(row, NoResult) and not row.decided)

    def __iter__(self) -> Any:
        return iter(self.rows)

    def __len__(self) -> int:
        return len(self.rows)


class Listing(_Record):
    """A table of plain cells (``verify``, ``constants``, ``activations``): one dict per row.

    ``ok`` is None for a plain listing, or the overall verdict of a check (``verify``), whose
    ``failures`` are one line each for stderr. ``extra`` holds further top-level JSON fields;
    ``labels`` shorter table headers for some columns.
    """

    command: str
    columns: tuple[str, ...]
    rows: tuple[dict[str, Any], ...]
    title: str = ""
    ok: bool | None = None
    extra: dict[str, Any] = _field(factory=dict)
    notes: tuple[str, ...] = ()  # shown under the table only (JSON rows carry the details)
    failures: tuple[str, ...] = ()
    labels: dict[str, str] = _field(factory=dict)
    rows_in_json: bool = True  # audit's JSON carries its findings (in ``extra``) instead of the table rows
    # ``notes`` as written, with ``{name}`` placeholders (None when none has any).
    note_templates: tuple[str, ...] | None = _field(hidden=True)

    def __post_init__(self) -> None:
        _fill_notes(self)

    def named(self, name_of: Callable[[str], str]) -> Listing:
        """This listing with its notes naming arguments by ``name_of``."""
        if self.note_templates is None:
            return self
        return replace(
            self, notes=tuple(fill_names(note, name_of) for note in self.note_templates), note_templates=None
        )
