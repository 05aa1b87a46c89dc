"""One module per command; importing a module registers its command on ``cli.app.app``.

Every module of this package is imported here, found by listing the package (alphabetically,
which is the order ``--help`` lists them in): a new command is a new module, and no list
needs it. ``tests/test_commands.py`` holds the commands registered to the command table
(``momentcalc.commands``).
"""

from importlib import import_module
from pkgutil import iter_modules

for _module in iter_modules(__path__):
    import_module(f"{__name__}.{_module.name}")
