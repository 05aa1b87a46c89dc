"""The one error path of the CLI: every failure becomes one stderr line and an exit code.

Click/Typer run with ``standalone_mode=False`` so that usage errors (unknown option, missing
value) come back as exceptions and are reported like momentcalc's own errors: one line on
stderr naming the option, exit 2, and with ``--json`` the error object on stdout.
"""

from __future__ import annotations

import errno
import inspect
import os
import re
import sys
from collections.abc import Callable, Iterator, Sequence
from types import MethodType
from typing import Any

from typer.core import TyperGroup

from ..errors import MomentcalcError
from ..render import OutputClosed
from typer.main import get_command_from_info

# A closed pipe (``momentcalc ... | head``) ends the run quietly with exit 0, in every format: the
# reader chose to stop reading, which is no failure of the command (and under ``set -o pipefail``
# a script must not fail for it). Whether the cut reaches one of our writes at all is a race (a
# short output is often written whole before ``head`` exits), so 141, SIGPIPE's code, would
# come and go with the size of the output and the format.
EXIT_CLOSED_PIPE = 0
# Ctrl-C: 128 + SIGINT, as a shell reports a process it interrupted.
EXIT_INTERRUPTED = 130
# Output that cannot be written (a full disk, /dev/full): sysexits' EX_IOERR. Not 1, which
# means a failed check, and not 2 or 3, which are about the input and the computation.
EXIT_WRITE_FAILED = 74


def wants_json(argv: Sequence[str]) -> bool:
    """Did the user ask for JSON (``--json``, ``--format json``, ``--format=json``)?"""
    args = list(argv)
    for i, arg in enumerate(args):
        if arg == "--json" or arg == "--format=json":
            return True
        if arg == "--format" and i + 1 < len(args) and args[i + 1] == "json":
            return True
    return False


def cli_message(error: MomentcalcError) -> str:
    """The error's message with each parameter named as the command line spells it: a
    positional argument by its metavar, anything else as its option (std -> --std)."""
    names = error.cli_names or {}
    return error.render(lambda name: names.get(name) or LISTINGS.get(name) or "--" + name.replace("_", "-"))


# The listing command behind each ``{..._listing}`` of a message (errors.LISTINGS: Python's).
LISTINGS = {
    "activations_listing": "'momentcalc activations'",
    "initializers_listing": "'momentcalc initializers'",
    "activation_moment_command": "'momentcalc activation-moment'",
    "kernel_command": "'momentcalc kernel'",
    "hermite_command": "'momentcalc hermite'",
}


# A run of text this long in an error line is a user's input echoed back (a 1 MB ACTIVATION,
# --get or --expect name, option or command): only its start is shown, with its length.
LONGEST_ECHO = 200
SHOWN_OF_AN_ECHO = 40


def shortened(line: str) -> str:
    """``line`` with every run of more than LONGEST_ECHO non-space characters cut to its start
    and its length ("'yyyy…'... (1000002 characters)"), as ``engine.numbers.quoted`` does."""

    return re.sub(
        rf"\S{{{LONGEST_ECHO + 1},}}",
        lambda m: f"{m.group()[:SHOWN_OF_AN_ECHO]}... ({len(m.group())} characters)",
        line,
    )


def fail(code: int, message: str, as_json: bool) -> int:
    """Report an error: one line on stderr, the JSON error object on stdout if asked. Returns code."""
    from ..render.text import visible

    line = shortened(visible(" ".join(message.split())))
    if as_json:
        import json  # (only here: a call printing a table or text never imports it)

        from ..render.document import error_document

        from ..render.text import fitting_stream

        try:  # fitting_stream: on an ASCII stdout what does not fit is escaped as JSON's \uXXXX
            fitting_stream(sys.stdout, json=True).write(
                json.dumps(error_document(code, line), ensure_ascii=False) + "\n"
            )
            sys.stdout.flush()
        except OSError:  # a closed pipe or a full device: the stderr line still says it
            _discard_stdout()
    sys.stderr.write(f"momentcalc: error: {line}\n")
    sys.stderr.flush()
    return code


# Listed right before another command: a listing before the command that checks it.
LISTED_BEFORE = {"constants": "verify"}
# An example's comment starts after a run of at least this many spaces.
_COMMENT_GAP = re.compile(r"\s{3,}")


def format_examples(command: Any, ctx: Any, formatter: Any) -> None:
    """A command's epilog at the help's real width: prose paragraphs wrap; an example line
    (``momentcalc ...   comment``) is never split — when it does not fit, its comment moves
    to the next lines, indented."""
    if not command.epilog:
        return
    from textwrap import wrap

    formatter.write_paragraph()
    with formatter.indentation():
        for paragraph in inspect.cleandoc(command.epilog).split("\n\n"):
            lines = paragraph.splitlines()
            if not any(line.lstrip().startswith("momentcalc ") for line in lines):
                formatter.write_text(paragraph)
                formatter.write_paragraph()
                continue
            for line in lines:
                indent = " " * (formatter.current_indent + len(line) - len(line.lstrip()))
                if len(indent) + len(line.lstrip()) <= formatter.width:
                    formatter.write(f"{indent}{line.lstrip()}\n")
                    continue
                parts = _COMMENT_GAP.split(line.strip(), maxsplit=1)
                formatter.write(f"{indent}{parts[0]}\n")
                if len(parts) > 1:
                    room = max(formatter.width - len(indent) - 4, 20)
                    for piece in wrap(parts[1], room, break_long_words=False, break_on_hyphens=False):
                        formatter.write(f"{indent}    {piece}\n")
            formatter.write_paragraph()


# A sentence ends at ". " before a capital letter, not after an abbreviation ("et al. 2016").
_SENTENCE_END = re.compile(r"(?<!\bal)(?<!\be\.g)(?<!\bi\.e)(?<!\bcf)\.\s+(?=[A-Z])")


def first_sentence(text: str) -> str:
    """The help's first sentence, whole (click's short help cuts it to a width with "…")."""
    paragraph = inspect.cleandoc(text).split("\n\n")[0]
    return " ".join(_SENTENCE_END.split(" ".join(paragraph.split()), maxsplit=1)[0].split()).rstrip(".")


class LazyCommands(dict):
    """The group's commands (name -> click command), imported and built when asked for.

    Looking one name up (what a call does) imports only the module that registers it, found in
    ``cli.commands.table()``, and builds only its click command; anything that lists them
    (iterating, ``keys``, ``items``, ``values``, ``len``: ``--help``, completion, a misspelt
    command's suggestions) imports and builds them all, in ``table()``'s order, which is the
    order an import of every module registers them in. Commands already registered on the app
    (a process that imported them) are there from the start."""

    def __init__(self, built: Any, typer_app: Callable[[], Any]) -> None:
        super().__init__(built)
        self._typer_app = typer_app  # the Typer app the modules register on
        self._complete = False

    def _build_registered(self) -> None:

        app = self._typer_app()
        for info in app.registered_commands:
            if info.name is not None and not dict.__contains__(self, info.name):
                dict.__setitem__(
                    self,
                    info.name,
                    get_command_from_info(
                        info,
                        pretty_exceptions_short=app.pretty_exceptions_short,
                        rich_markup_mode=app.rich_markup_mode,
                    ),
                )

    def _one(self, name: Any) -> None:
        if not self._complete and isinstance(name, str) and not dict.__contains__(self, name):
            from . import commands

            if commands.load(name):
                self._build_registered()

    def _all(self) -> None:
        if self._complete:
            return
        from . import commands

        commands.load_all()
        self._build_registered()
        order = {name: i for i, name in enumerate(commands.table())}
        built = sorted(dict.items(self), key=lambda item: order.get(item[0], len(order)))
        dict.clear(self)
        dict.update(self, built)
        self._complete = True

    def get(self, name: Any, default: Any = None) -> Any:
        self._one(name)
        return super().get(name, default)

    def __getitem__(self, name: Any) -> Any:
        self._one(name)
        return super().__getitem__(name)

    def __contains__(self, name: Any) -> bool:
        self._one(name)
        return super().__contains__(name)

    def __iter__(self) -> Iterator[Any]:
        self._all()
        return super().__iter__()

    def __len__(self) -> int:
        self._all()
        return super().__len__()

    def keys(self) -> Any:
        self._all()
        return super().keys()

    def items(self) -> Any:
        self._all()
        return super().items()

    def values(self) -> Any:
        self._all()
        return super().values()


class MomentcalcGroup(TyperGroup):
    """TyperGroup whose ``main`` owns exit codes and error output, and whose help uses the
    terminal's real width: the command list is never cut with "…" and examples never split.
    Its commands are imported as they are asked for (``LazyCommands``), registering on the
    Typer app that ``typer_app()`` returns (``cli.app`` defines it)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.commands = LazyCommands(self.commands, self.typer_app)
        # click caps help at 80 columns; wrap at the real width instead (inherited by commands).
        self.context_settings.setdefault("max_content_width", 100_000)

    def typer_app(self) -> Any:
        raise NotImplementedError

    def list_commands(self, ctx: Any) -> list[str]:
        names = super().list_commands(ctx)
        for name, before in LISTED_BEFORE.items():
            if name in names and before in names:
                names.remove(name)
                names.insert(names.index(before), name)
        return names

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        command = super().get_command(ctx, cmd_name)
        if command is not None and command.epilog:
            command.format_epilog = MethodType(format_examples, command)
        if command is not None and getattr(ctx, "resilient_parsing", False):  # shell completion
            from .completion import attach

            attach(command)
        return command

    def format_commands(self, ctx: Any, formatter: Any) -> None:
        """Each command with the whole first sentence of its help (click cuts it with "…")."""
        rows = []
        for name in self.list_commands(ctx):
            command = self.get_command(ctx, name)
            if command is not None and not command.hidden:
                rows.append((name, command.short_help or first_sentence(command.help or "")))
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)

    def main(
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> Any:
        argv = list(sys.argv[1:] if args is None else args)
        try:
            result = super().main(
                args=argv,
                prog_name=prog_name or "momentcalc",
                complete_var=complete_var,
                standalone_mode=False,
                **extra,
            )
            code = result if isinstance(result, int) else 0
            sys.stdout.flush()  # a full device fails here, where it can still be reported
        except MomentcalcError as error:
            as_json = getattr(error, "json_output", None)
            code = fail(error.code, cli_message(error), wants_json(argv) if as_json is None else as_json)
        except (BrokenPipeError, OutputClosed):
            _discard_stdout()
            code = EXIT_CLOSED_PIPE
        except SystemExit as exit_:
            # click turns a broken pipe met while writing help, the version or ``schema`` into
            # exit 1 (after wrapping the streams in its PacifyFlushWrapper): the same closed
            # pipe as anywhere else.
            if exit_.code != 1 or type(sys.stdout).__name__ != "PacifyFlushWrapper":
                raise
            _discard_stdout()
            code = EXIT_CLOSED_PIPE
        except OSError as error:
            if error.errno not in (errno.ENOSPC, errno.EIO, errno.EDQUOT, errno.EFBIG, errno.EPIPE):
                raise
            _discard_stdout()
            code = fail(EXIT_WRITE_FAILED, f"cannot write the output: {os.strerror(error.errno)}", False)
        except KeyboardInterrupt:
            # Ctrl-C: the computation's child has ended (cli.child); quietly, as a shell reports it.
            _discard_stdout()
            code = EXIT_INTERRUPTED
        except MemoryError:
            # The machine's memory ran out in this process (a computation's own limit is its
            # child's: cli.child, cli.memory).
            code = fail(
                3,
                "the computation needs more than the memory available at this precision; "
                "try fewer digits or less extreme values",
                wants_json(argv),
            )
        except OverflowError as error:
            # Only extreme inputs get here (a number too large for an intermediate double
            # inside mpmath or numpy): say so rather than print a traceback.
            message = f"the computation overflowed for these inputs ({error}); try less extreme values"
            code = fail(3, message, wants_json(argv))
        except Exception as error:  # click/typer usage errors carry exit_code + format_message
            if not (hasattr(error, "exit_code") and hasattr(error, "format_message")):
                raise
            if type(error).__name__ == "NoArgsIsHelpError":  # bare `momentcalc`: show help
                sys.stdout.write(error.format_message() + "\n")
                code = 0
            else:
                command = getattr(getattr(error, "ctx", None), "command_path", "momentcalc")
                code = fail(2, f"{error.format_message()} (see '{command} --help')", wants_json(argv))
        sys.exit(code)


def _discard_stdout() -> None:
    """Point stdout at /dev/null, so that the interpreter's last flush of what is still
    buffered does not fail a second time on the way out."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):  # not a real file (tests capture stdout)
        pass
