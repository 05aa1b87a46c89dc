"""One module per command; importing a module registers its commands on ``cli.app.app``.

Nothing is imported here: the command line's group (``cli.group.LazyCommands``) imports the
module of the command it is asked for, found in ``table()`` — read from this package's
sources, as ``momentcalc.command_table`` reads the computing modules', at about a millisecond —
so that a call imports and builds one command, not every one (about 10 ms of start-up).
Listing the commands (``--help``, shell completion, a misspelt command's suggestions) imports
them all, module by module alphabetically, which is the order ``--help`` lists them in. A new
command is a new module (or one more decorator in one), and no list needs it;
``tests/test_commands.py`` holds the commands registered to the command table.
"""

from __future__ import annotations

import re
from functools import cache
from importlib import import_module
from pathlib import Path

# ``@app.command("name"`` or ``@computing_command(app, "name"`` at the start of a line: the
# registrations, in the order they run.
_REGISTRATION = re.compile(r'^@(?:app\.command\(|computing_command\(app, )"([^"]+)"', re.MULTILINE)


@cache
def table() -> dict[str, str]:
    """CLI command -> the module of this package that registers it, in the order an import of
    every module (alphabetically) registers them."""
    found: dict[str, str] = {}
    for path in sorted(Path(__file__).resolve().parent.glob("*.py")):
        if path.stem != "__init__":
            for name in _REGISTRATION.findall(path.read_text(encoding="utf-8")):
                found[name] = f"{__name__}.{path.stem}"
    return found


def load(name: str) -> bool:
    """Import the module that registers command ``name``; False if no module does."""
    module = table().get(name)
    if module is None:
        return False
    import_module(module)
    return True


def load_all() -> None:
    """Import every command module (alphabetically)."""
    for module in dict.fromkeys(table().values()):
        import_module(module)
