"""The command table: every command that a library function computes, with that function.

Each module that computes commands says which, in one line of its own source::

    COMMANDS = {"truncnorm": "truncnorm"}      # CLI command -> function of this module

(a literal dict of double-quoted strings on one line, at module level). ``commands()`` reads those lines from the
sources of ``momentcalc.computations`` (modules and sub-packages) and
``momentcalc.verification`` — without importing them, so reading the table costs about a
millisecond — and everything that lists commands reads this table: the Python API
(``momentcalc.truncnorm``, imported on first use), ``verify``'s registry, the snapshot cases'
and the README's tests. The CLI's modules (``momentcalc.cli.commands``, each imported when its command is
called) register their commands, and a test holds them to this table; so adding a command
touches its computation module, its CLI function, its tests and the README, and no list.

>>> [c.function for c in commands() if c.name in ("truncnorm", "selu-solve")]
['selu_solve', 'truncnorm']
>>> api()["truncnorm"]
'momentcalc.computations.truncnorm'
"""

from __future__ import annotations

import re
from functools import cache
from importlib import import_module
from pathlib import Path
from typing import Any, NamedTuple

PACKAGE = Path(__file__).resolve().parent
# Where computing modules live (relative to the package).
SEARCHED = ("computations", "verification")
_LINE = re.compile(r"^COMMANDS = \{([^}]*)\}", re.MULTILINE)
_PAIR = re.compile(r'"([^"]+)": "([^"]+)"')


class Command(NamedTuple):
    """``name``: the CLI command; ``function``: the Python function that computes it, defined
    in ``module``."""

    name: str
    function: str
    module: str

    def load(self) -> Any:
        """The function itself (imports its module)."""
        return getattr(import_module(self.module), self.function)


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


@cache
def commands() -> tuple[Command, ...]:
    """Every command of the table, sorted by CLI name."""
    found: list[Command] = []
    for folder in SEARCHED:
        for path in sorted((PACKAGE / folder).rglob("*.py")):
            match = _LINE.search(path.read_text(encoding="utf-8"))
            if match:
                module = _module_name(path)
                found.extend(
                    Command(name, function, module) for name, function in _PAIR.findall(match.group(1))
                )
    return tuple(sorted(found, key=lambda c: c.name))


def command(name: str) -> Command:
    """The command ``name`` (as the CLI spells it); KeyError if there is none."""
    for entry in commands():
        if entry.name == name:
            return entry
    raise KeyError(name)


@cache
def api() -> dict[str, str]:
    """Function name -> module, for every function that computes a command, but for names
    that two modules define (each module's ``catalog_listing``): import those from their module."""
    modules: dict[str, set[str]] = {}
    for entry in commands():
        modules.setdefault(entry.function, set()).add(entry.module)
    return {function: next(iter(found)) for function, found in sorted(modules.items()) if len(found) == 1}
