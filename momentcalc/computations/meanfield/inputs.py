"""``meanfield``'s inputs, checked and made exact (Fractions) at the boundary: one frozen
``Inputs`` instead of a string-keyed dict."""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import NamedTuple

from ...catalog import Activation, resolve
from ...defaults import MEANFIELD as DEFAULTS
from ...engine.numbers import as_number, to_text
from ...tier import InputError, check_digits
from .model import Model

MAX_DEPTH = 1000


class Inputs(NamedTuple):
    """The checked inputs: ``sigma_w2`` is None with ``critical`` (it is what is solved for);
    ``c0`` and ``depth`` are None without a trajectory. (A NamedTuple: a frozen dataclass took
    about 0.5 ms more to create at every meanfield call.)"""

    text: str  # the activation as given (name or expression), stripped
    act: Activation
    model: Model
    digits: int
    critical: bool
    sigma_w2: Fraction | None
    sigma_b2: Fraction
    q0: Fraction
    c0: Fraction | None = None
    depth: int | None = None

    @property
    def weight(self) -> Fraction:
        """``sigma_w2`` where it is given, i.e. without ``critical`` (asking for it with
        ``critical``, where it is solved for, is a bug)."""
        assert self.sigma_w2 is not None, "sigma_w2 is solved for with critical"
        return self.sigma_w2

    @property
    def layers(self) -> int:
        """``depth`` where a trajectory was asked for (asking without one is a bug)."""
        assert self.depth is not None, "no depth: no trajectory was asked for"
        return self.depth

    @property
    def label(self) -> str:
        """The activation's name, or the expression as given."""
        return self.act.name if not self.act.expression else self.text


def read(
    activation: object,
    sigma_w2: object,
    sigma_b2: object,
    critical: object,
    q0: object,
    c0: object,
    depth: object,
    params: Mapping[str, object] | None,
    digits: object,
) -> Inputs:
    """``Inputs`` from the public function's arguments (InputError naming the bad one)."""
    if not isinstance(activation, str):
        raise InputError(
            f"{{activation}} must be a catalog name or an expression in x, got {activation!r}",
            param="activation",
            allowed="a catalog name or an expression in x",
            got=repr(activation),
        )
    checked_digits = check_digits(digits)
    if critical and sigma_w2 is not None:
        raise InputError(
            "{sigma_w2} cannot be given with {critical}: the critical value is what it solves for",
            param="sigma_w2",
            params=("critical",),
        )
    w: Fraction | None = None
    if sigma_w2 is not None or not critical:
        number = as_number(DEFAULTS["sigma_w2"] if sigma_w2 is None else sigma_w2, "sigma_w2")
        if not isinstance(number, Fraction) or number <= 0:
            raise InputError(param="sigma_w2", allowed="a finite number greater than 0", got=to_text(number))
        w = number
    b = as_number(sigma_b2, "sigma_b2")
    if not isinstance(b, Fraction) or b < 0:
        raise InputError(param="sigma_b2", allowed="a finite number >= 0", got=to_text(b))
    q = as_number(q0, "q0")
    if not isinstance(q, Fraction) or q <= 0:
        raise InputError(
            param="q0",
            allowed="a finite number greater than 0 (the squared length of the input)",
            got=to_text(q),
        )
    c: Fraction | None = None
    if c0 is not None:
        number = as_number(c0, "c0")
        if not isinstance(number, Fraction) or not -1 <= number <= 1:
            raise InputError(param="c0", allowed="a correlation from -1 to 1", got=to_text(number))
        if depth is None:
            raise InputError(
                "{c0} applies only with {depth} (the correlation at layer 0 of the trajectory)",
                param="c0",
                params=("depth",),
            )
        c = number
    layers: int | None = None
    if depth is not None:
        d = as_number(depth, "depth")
        if not isinstance(d, Fraction) or d.denominator != 1 or not 1 <= d <= MAX_DEPTH:
            raise InputError(param="depth", allowed=f"a whole number from 1 to {MAX_DEPTH}", got=to_text(d))
        layers = int(d)
    if critical and depth is not None:
        raise InputError("{depth} cannot be combined with {critical}", param="depth", params=("critical",))
    name = activation.strip()
    chosen = dict(params or {})
    act = resolve(name, chosen)
    return Inputs(name, act, Model(act, name, chosen), checked_digits, bool(critical), w, b, q, c, layers)
