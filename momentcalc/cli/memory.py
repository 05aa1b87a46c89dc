"""The memory ceiling of a command-line computation.

An extreme input that got past every precision check could make Arb, GMP or mpmath allocate
until the machine runs out. The child process that runs a computation (``cli.child``) gets an
address-space limit (RLIMIT_AS) of ``ceiling_bytes()``: by default an eighth of physical memory,
at most DEFAULT_MAX_BYTES (2 GiB), which leaves room for several concurrent runs;
``MOMENTCALC_MAX_MEMORY`` sets it (``parse_size``: ``512M``, ``4G``, ``1.5GiB``, ``3000000000``;
``none`` for no limit). An allocation past it fails: Python code gets a MemoryError, FLINT and
GMP abort the child; either way the parent reports exit 3 naming the limit.
"""

from __future__ import annotations

import os
import re

from ..errors import InputError
from ..engine.numbers import quoted

DEFAULT_MAX_BYTES = 2 * 2**30
# Below this the interpreter itself (about 30 MB of address space once momentcalc is
# imported, 150 MB with numpy) could not run.
MIN_BYTES = 64 * 2**20
ENVIRONMENT = "MOMENTCALC_MAX_MEMORY"
_UNITS = {"": 1, "k": 2**10, "m": 2**20, "g": 2**30, "t": 2**40}
_SIZE = re.compile(r"(\d+(?:\.\d+)?|\.\d+)\s*([kmgt]?)(?:i?b)?", re.IGNORECASE | re.ASCII)


def parse_size(text: str) -> int | None:
    """Bytes from ``MOMENTCALC_MAX_MEMORY``'s syntax: a number with an optional unit K, M, G, T
    (binary: 1K = 1024 bytes; ``KB``, ``KiB`` mean the same), or ``none``/``unlimited`` (None:
    no limit). Raises InputError for anything else, or below MIN_BYTES."""
    stripped = text.strip()
    if stripped.lower() in ("none", "unlimited", "off"):
        return None
    match = _SIZE.fullmatch(stripped) if stripped.isascii() and len(stripped) <= 40 else None
    if match is None:
        raise InputError(
            f"{ENVIRONMENT} must be a size such as 512M, 4G or 1.5GiB (binary units K, M, G, T), "
            f"or none; got {_echo(text)}"
        )
    size = int(float(match.group(1)) * _UNITS[match.group(2).lower()])
    if size < MIN_BYTES:
        raise InputError(f"{ENVIRONMENT} must be at least 64M, got {_echo(text)}")
    return size


def _echo(text: str) -> str:

    return quoted(text)


def default_bytes() -> int:
    """An eighth of physical memory, at most DEFAULT_MAX_BYTES (and at least MIN_BYTES)."""
    try:
        physical = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        return DEFAULT_MAX_BYTES
    return max(MIN_BYTES, min(DEFAULT_MAX_BYTES, physical // 8))


def ceiling_bytes() -> int | None:
    """The ceiling for a computation: ``MOMENTCALC_MAX_MEMORY`` if set, else the default."""
    text = os.environ.get(ENVIRONMENT)
    if text is not None and text.strip():
        return parse_size(text)
    return default_bytes()


def limit_text(limit: int | None) -> str:
    """The limit for an error message ("2 GiB of memory")."""
    if limit is None:
        return "the memory available"
    for unit, size in (("GiB", 2**30), ("MiB", 2**20)):
        if limit >= size:
            return f"{limit / size:.3g} {unit} of memory"
    return f"{limit} bytes of memory"
