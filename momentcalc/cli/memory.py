"""A memory ceiling for the command-line process.

An extreme input that got past every precision check could make Arb, gmpy or mpmath allocate
until the machine runs out (six concurrent runs of one such call once took 8 GB each and were
killed by the kernel, with other work on the machine). The console-script entry point sets the
process's address-space limit (RLIMIT_AS, soft limit only, never above a lower one already set)
to ``ceiling_bytes()``: a quarter of physical memory, at most MAX_BYTES and at least MIN_BYTES.
An allocation past it fails: Python code gets a MemoryError, which the CLI reports as exit 3
("needs more than N GB of memory"). The library and in-process callers (tests) get no limit:
only ``cap()``, called by ``cli.app.main``, sets it.
"""

from __future__ import annotations

import os

# Generous: --digits 1000 computations peak near 100 MB, gau-scale --simulate's largest sizes
# near 1 GB (numpy arrays); the point is a ceiling that stops a runaway, not a tight fit.
MAX_BYTES = 4 * 2**30
MIN_BYTES = 2**30


def ceiling_bytes() -> int:
    """A quarter of physical memory, within [MIN_BYTES, MAX_BYTES]."""
    try:
        physical = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        return MAX_BYTES
    return max(MIN_BYTES, min(MAX_BYTES, physical // 4))


def cap() -> int | None:
    """Lower this process's soft RLIMIT_AS to ``ceiling_bytes()`` (a lower limit already set
    stays); the limit in force in bytes, or None where there is none (no ``resource`` module)."""
    try:
        import resource
    except ImportError:  # not on this platform
        return None
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    wanted = ceiling_bytes()
    if hard != resource.RLIM_INFINITY:
        wanted = min(wanted, hard)
    if soft != resource.RLIM_INFINITY and soft <= wanted:
        return soft
    try:
        resource.setrlimit(resource.RLIMIT_AS, (wanted, hard))
    except (ValueError, OSError):
        return None if soft == resource.RLIM_INFINITY else soft
    return wanted


def limit_text() -> str:
    """The limit in force, for the error message ("4 GB")."""
    try:
        import resource

        soft = resource.getrlimit(resource.RLIMIT_AS)[0]
    except ImportError:
        soft = -1
    if soft in (-1, getattr(resource, "RLIM_INFINITY", -1)):
        return "the memory available"
    gigabytes = soft / 2**30
    return f"{gigabytes:.3g} GB of memory"
