"""The three ways a computation can fail, each tied to the exit code SPEC fixes.

Every error that reaches a user goes through one of these; the CLI turns them into
one line on stderr (and a JSON error object with ``--json``) and the exit code.

An error about an argument names it by its Python name and carries it as data: ``param``
(the argument), ``allowed`` (what it may be) and ``got`` (what it was, as text), e.g.
``InputError(param="std", allowed="greater than 0", got="-1")`` reads
``std must be greater than 0, got -1``. Messages that mention arguments write them as
``{name}`` placeholders (``"{low} must be less than {high}"``, with ``params=("high",)``);
``render`` fills them in, with the Python names by default and with ``--low`` and the like
when the CLI reports the error. A message may also point to where the allowed names are listed
(``{activations_listing}``): Python reads ``momentcalc.catalog.CATALOG``, the CLI its listing command.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any


# Where Python finds the names a message refers to; the CLI names its listing command instead.
LISTINGS = {
    "activations_listing": "momentcalc.catalog.CATALOG",
    "initializers_listing": "momentcalc.catalog.initializers.CATALOG",
    "activation_moment_command": "momentcalc.activation_moment",
    "kernel_command": "momentcalc.kernel",
    "hermite_command": "momentcalc.hermite",
}


def _same(name: str) -> str:
    return LISTINGS.get(name, name)


class MomentcalcError(Exception):
    """Base class: ``code`` is the process exit code, ``message`` one line for the user."""

    code = 2
    # Set by the CLI once it knows whether the error must also be written as a JSON object,
    # and how the command names its positional arguments (``{"activation": "ACTIVATION"}``).
    json_output: bool | None = None
    cli_names: dict[str, str] | None = None

    def __init__(
        self,
        message: str | None = None,
        *,
        param: str | None = None,
        allowed: str | None = None,
        got: str | None = None,
        params: tuple[str, ...] = (),
    ) -> None:
        if message is None:
            if param is None or allowed is None:
                raise TypeError("an error needs a message, or a param and what is allowed")
            message = f"{{{param}}} must be {allowed}" + ("" if got is None else f", got {got}")
        self.template = message
        self.param = param
        self.allowed = allowed
        self.got = got
        self.params = tuple(dict.fromkeys(((param,) if param else ()) + tuple(params)))
        self.message = self.render()
        super().__init__(self.message)

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled as its class, ``args`` and fields, rebuilt without ``__init__`` (which takes
        keyword arguments ``args`` does not hold): a sweep's point sends its error from a worker
        process, or a Dask worker, to the process that reports it."""
        return _rebuilt, (type(self), self.args, dict(vars(self)))

    def render(self, name_of: Callable[[str], str] = _same) -> str:
        """The message with every argument named by ``name_of`` (default: its Python name)."""
        text = self.template
        for name in self.params:
            text = text.replace("{" + name + "}", name_of(name))
        return text

    def with_template(self, template: str) -> MomentcalcError:
        """The same error (class, fields) with another message template."""
        error = type(self)(template, param=self.param, allowed=self.allowed, got=self.got, params=self.params)
        error.json_output = self.json_output
        error.cli_names = self.cli_names
        return error


def _rebuilt(kind: type[MomentcalcError], args: tuple[Any, ...], state: dict[str, Any]) -> MomentcalcError:
    error = kind.__new__(kind)
    error.args = args
    vars(error).update(state)
    return error


class InputError(MomentcalcError, ValueError):
    """Bad input or usage (exit 2). The message names the argument and what is allowed."""

    code = 2


class Outcome(InputError):
    """A decided fact about this point of the inputs, not a fault in them: the length of the
    network explodes (at ``layer``), the length map has no fixed point, a moment diverges, a
    target is out of reach. Exit 2 for one call, as any InputError; a sweep reports it in the
    point's row and goes on (``kind`` names it: "explodes", "collapses", "no_fixed_point",
    "no_edge_of_chaos", "diverges", "unreachable")."""

    code = 2
    kind = "outcome"
    layer: int | None = None

    def __init__(
        self, message: str | None = None, *, kind: str, layer: int | None = None, **fields: Any
    ) -> None:
        super().__init__(message, **fields)
        self.kind, self.layer = kind, layer

    def with_template(self, template: str) -> MomentcalcError:
        error = type(self)(
            template,
            kind=self.kind,
            layer=self.layer,
            param=self.param,
            allowed=self.allowed,
            got=self.got,
            params=self.params,
        )
        error.json_output, error.cli_names = self.json_output, self.cli_names
        return error


class ExpectationFailed(MomentcalcError):
    """An ``--expect`` or ``verify`` mismatch (exit 1)."""

    code = 1


class PrecisionError(MomentcalcError, ArithmeticError):
    """The requested precision could not be reached, or a solver did not converge (exit 3)."""

    code = 3


def unknown_name(what: str, name: str, names: Sequence[str]) -> str:
    """The text of a misspelt name's error: "names an unknown result 'gama' (did you mean
    'gamma'?); results are: ...". The suggestion is the closest of ``names`` by difflib's ratio
    (at least 0.6), if any; ``what`` is the kind of name ("result")."""
    import difflib  # (on the error path only)

    close = difflib.get_close_matches(name, list(names), n=1, cutoff=0.6)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    return f"names an unknown {what} {name!r}{hint}; {what}s are: {', '.join(names)}"
