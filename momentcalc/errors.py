"""The three ways a computation can fail, each tied to the exit code SPEC fixes.

Every error that reaches a user goes through one of these; the CLI turns them into
one line on stderr (and a JSON error object with ``--json``) and the exit code.
"""

from __future__ import annotations


class MomentcalcError(Exception):
    """Base class: ``code`` is the process exit code, ``message`` one line for the user."""

    code = 2
    # Set by the CLI once it knows whether the error must also be written as a JSON object.
    json_output: bool | None = None

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class InputError(MomentcalcError, ValueError):
    """Bad input or usage (exit 2). The message names the option and what is allowed."""

    code = 2


class ExpectationFailed(MomentcalcError):
    """An ``--expect`` or ``verify`` mismatch (exit 1)."""

    code = 1


class PrecisionError(MomentcalcError, ArithmeticError):
    """The requested precision could not be reached, or a solver did not converge (exit 3)."""

    code = 3
