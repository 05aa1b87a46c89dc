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


_capped: list[int] = []


def capped() -> bool:
    """Has ``cap()`` set a ceiling in this process (the real command line, not a test)?"""
    return bool(_capped)


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
        _capped.append(soft)
        return soft
    try:
        resource.setrlimit(resource.RLIMIT_AS, (wanted, hard))
    except (ValueError, OSError):
        return None if soft == resource.RLIM_INFINITY else soft
    _capped.append(wanted)
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


# Seconds (wall clock) a computation runs before FLINT's handler is installed: ctypes costs
# about 2 ms to import, which a quick command does not pay; running out of memory takes longer.
FLINT_HANDLER_AFTER = 0.3


def report_flint_failures_later(as_json: bool) -> None:
    """``report_flint_failures`` from a daemon thread once the computation has run for
    FLINT_HANDLER_AFTER seconds (the handler is one pointer in libflint: any thread may set it)."""
    import threading

    timer = threading.Timer(FLINT_HANDLER_AFTER, report_flint_failures, (as_json,))
    timer.daemon = True
    timer.start()


# The callback FLINT calls instead of printing its error and aborting (kept alive here).
_on_flint_error: list = []


def report_flint_failures(as_json: bool) -> bool:
    """FLINT (python-flint's Arb) aborts the process when an allocation fails, as it does past
    the ceiling: point its error handler at one that writes the CLI's error line (and the
    JSON error object with ``as_json``) and exits 3. Only where a ceiling is in force and
    libflint is loaded by python-flint (Linux); returns whether it did."""
    if not _on_flint_error:
        try:
            import ctypes

            import flint.types.arb  # noqa: F401  (loads libflint)

            with open("/proc/self/maps", encoding="utf-8") as maps:
                path = next((line.split()[-1] for line in maps if "libflint" in line), None)
            if path is None:
                return False
            library = ctypes.CDLL(path)
        except (ImportError, OSError):
            return False
        message = (f"the computation needs more than {limit_text()} at this precision; "
                   "try fewer digits or less extreme values")
        line = f"momentcalc: error: {message}\n".encode()
        document = b""
        if as_json:
            import json

            from ..render.document import error_document

            document = (json.dumps(error_document(3, message)) + "\n").encode()

        @ctypes.CFUNCTYPE(None, ctypes.c_int, ctypes.c_char_p, ctypes.c_void_p)
        def on_error(kind: int, text: bytes, arguments: int) -> None:
            # Inside a failed allocation: write prepared bytes and leave at once (no cleanup
            # that could allocate; Python's own buffers are dropped).
            if document:
                os.write(1, document)
            os.write(2, line)
            os._exit(3)

        library.flint_set_throw(on_error)
        _on_flint_error.append(on_error)
    return True
