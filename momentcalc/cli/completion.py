"""Shell completion of values, not only of option names: activation and initializer names,
choices (``--format``, ``--scheme``, ``--mode``, ``--arch``, ... as their metavar ``a|b|c``
or the initializer catalog lists them), ``verify --only`` ids, and result names after
``--get``, ``--expect``, ``--plot-y`` and ``--chart``.

Attached to a command's parameters when the group resolves the command (``attach``); a
completer runs only while the shell asks for completions (``_MOMENTCALC_COMPLETE``), so a
normal call never imports anything here beyond this module.
"""

from __future__ import annotations

import io
import json
import os
import re
from collections.abc import Callable
from contextlib import redirect_stderr, redirect_stdout
from typing import Any

_CHOICES = re.compile(r"[a-z0-9_-]+(\|[a-z0-9_-]+)+")
RESULT_OPTIONS = ("get", "expect", "plot_y", "chart")
Completer = Callable[[Any, Any, str], list[str]]


def _starting(items: list[str], incomplete: str) -> list[str]:
    return [item for item in dict.fromkeys(items) if item.startswith(incomplete)]


def _listed(names: Callable[[], list[str]]) -> Completer:
    """Complete a name, or the last item of a comma list of them (``gelu,sw`` -> ``gelu,swish``)."""

    def complete(ctx: Any, param: Any, incomplete: str) -> list[str]:
        head, comma, last = incomplete.rpartition(",")
        prefix = head + comma
        return [prefix + name for name in _starting(names(), last)]

    return complete


def _activation_names() -> list[str]:
    from ..catalog.resolving import CATALOG

    return [entry.name for entry in CATALOG]


def _initializer_names() -> list[str]:
    from ..catalog.initializers import CATALOG

    names = [entry.name for entry in CATALOG]
    return names + [name[len("tf.") :] for name in names if name.startswith("tf.keras.")]


def _constant_ids() -> list[str]:
    from ..verification.run import constants

    return [str(row["id"]) for row in constants().rows]


def _initializer_choices(ctx: Any, param: Any, incomplete: str) -> list[str]:
    """An initializer argument's choices: the named call's, else every call's."""
    from ..catalog.initializers import CATALOG

    name = str(_params(ctx).get("name") or "").strip()
    name = "tf." + name if name.startswith("keras.") else name
    entries = [e for e in CATALOG if e.name == name] or list(CATALOG)
    choices = [c for e in entries for a in e.arguments if a.name == param.name for c in a.choices]
    return _starting(choices, incomplete)


# Options left out when the typed command line is run to learn its result names.
_LEFT_OUT = {"--get", "--expect", "--plot-y", "--chart", "--plot", "--format", "--digits", "--rtol", "--atol"}


def _typed_words(ctx: Any) -> list[str] | None:
    """The words typed after the command name, as the shell passed them (click's completion
    context drops the positional arguments when an option still lacks its value)."""
    import shlex

    text = os.environ.get("COMP_WORDS") or os.environ.get("_TYPER_COMPLETE_ARGS")
    if not text:
        return None
    try:
        words = shlex.split(text)
    except ValueError:
        words = text.split()
    if ctx.command.name not in words:
        return None
    words = words[words.index(ctx.command.name) + 1 :]
    kept, skip = [], False
    for word in words:
        if skip:
            skip = False
            continue
        if word in _LEFT_OUT:
            skip = True
            continue
        if word.split("=", 1)[0] in _LEFT_OUT or word in ("--json", "--derive"):
            continue
        kept.append(word)
    return kept


def _params(ctx: Any) -> dict[str, Any]:
    words = _typed_words(ctx)
    for cut in range(3 if words else 0):  # the word being completed, and its option, may not parse
        try:
            return dict(
                ctx.command.make_context(
                    ctx.command.name, words[: len(words) - cut], parent=ctx.parent
                ).params
            )
        except Exception:
            continue
    return dict(ctx.params or {})


def result_names(ctx: Any, inputs: bool = False) -> list[str]:
    """The results this command line computes (with ``inputs``, then its inputs as
    ``input.NAME``): the command run at what is typed so far (at 3 digits, as JSON, nothing
    printed); nothing if it cannot run yet."""
    params = _params(ctx)
    overrides = {
        "format": "json",
        "json_": False,
        "digits": "3",
        "derive": False,
        "expect": None,
        "get": None,
        "plot": None,
        "plot_y": None,
        "chart": None,
        "rtol": None,
        "atol": None,
    }
    params.update({key: value for key, value in overrides.items() if key in params})
    out = io.StringIO()
    try:
        with redirect_stdout(out), redirect_stderr(io.StringIO()):
            ctx.command.callback(**params)
    except BaseException:
        pass
    try:
        document = json.loads(out.getvalue())
    except ValueError:
        return []
    first = (document.get("rows") or [document])[0]
    return [
        *(first.get("results") or {}),
        *(f"input.{name}" for name in (first.get("inputs") or {}) if inputs),
    ]


def _results(suffix: str = "") -> Completer:
    def complete(ctx: Any, param: Any, incomplete: str) -> list[str]:
        names = result_names(ctx, inputs=param.name == "get")
        return _starting([name + suffix for name in names], incomplete)

    return complete


def _fixed(choices: list[str]) -> Completer:
    return lambda ctx, param, incomplete: _starting(choices, incomplete)


def completer(command: str, param: Any) -> Completer | None:
    """The value completer for ``param`` of ``command``, if its values can be listed."""
    if param.name in RESULT_OPTIONS:
        return _results("=" if param.name == "expect" else "")
    if param.name == "activation":
        return _listed(_activation_names)
    if command == "initializer" and param.name == "name":
        return _listed(_initializer_names)
    if command == "verify" and param.name == "only":
        return _listed(_constant_ids)
    metavar = getattr(param, "metavar", None)
    if isinstance(metavar, str) and _CHOICES.fullmatch(metavar):
        return _fixed(metavar.split("|"))
    if command == "initializer" and metavar == "TEXT":
        return _initializer_choices
    return None


def attach(command: Any) -> None:
    """Give each parameter of ``command`` its value completer (once)."""
    if getattr(command, "_values_complete", False):
        return
    for param in command.params:
        found = completer(command.name, param)
        if found is not None and getattr(param, "_custom_shell_complete", None) is None:
            param._custom_shell_complete = found
    command._values_complete = True
