"""Run one computation in a forked child process under the operating system's limits.

The console script (``cli.app.main``) turns this on; the library and in-process callers
(tests through ``tests/cli_runner.py``) run without it. The child is forked after every import,
so it costs no start-up, and gets

- ``RLIMIT_CPU``: seconds of CPU time (whole seconds, at least 1); past it the kernel ends the
  child with SIGXCPU (SIGKILL a second later), which the parent reports as ``LimitHit("cpu")``;
- ``RLIMIT_AS``: bytes of address space (``cli.memory``); an allocation past it fails:
  Python's MemoryError, or FLINT/GMP aborting, both reported as ``LimitHit("memory")``;
- one BLAS/OpenMP thread (``THREAD_VARIABLES``), so numpy's threads do not eat the budget;
- no core files, SIGINT at its default action (Ctrl-C reaches the whole process group: the
  child ends at once, the parent's KeyboardInterrupt becomes exit 130), and its fds 1 and 2
  into a memory file, so that what a C library prints as it aborts (FLINT on stdout, GMP on
  stderr) never reaches the user; the parent reads it to tell a failed allocation.

The child ends with its parent, whatever ends the parent (SIGTERM, SIGHUP, SIGKILL to the
parent's PID alone: a supervisor, a closed SSH session): it holds the read end of a pipe whose
write end only the parent holds, in O_ASYNC mode and owned by the child, so that the kernel sends
the child SIGIO — whose default action ends a process, C code running or not — once the parent's
end closes, as it does when the parent dies (``watch_parent``; ``fcntl`` is loaded anyway, where
``prctl(PR_SET_PDEATHSIG)`` through ``ctypes`` would cost every call 2.5 ms of CPU to import, and
works on Linux only). A sweep's child reports its progress (points done of all) on another pipe,
which the parent shows (``waiting``).

The child runs ``work()`` with ``sys.stdout`` and ``sys.stderr`` collected in memory (stdout
answers ``isatty``, ``encoding`` and ``fileno`` as the real one does, so output looks the same;
stderr is never a terminal there, so no progress bar is drawn into it)
and sends ``(result, stdout text, stderr text)`` back over a pipe (``encode``: marshal for the
usual exit code and texts, pickle for anything else); the parent writes
the texts only once the child has finished, so stdout never gets half a document. An
exception raised by ``work()`` is sent back and raised again in the parent.
"""

from __future__ import annotations

import contextlib
import io
import marshal
import os
import select
import signal
import sys
import time
from collections.abc import Callable
from typing import Any

from ..errors import PrecisionError

# Seconds between two looks at the child while it runs (the spinner's frame rate).
TICK = 0.1
# Set in a child that reports progress: where to (``report_progress``).
_PROGRESS: int | None = None
# In a child: the file descriptors a process forked from it must close (its parent's pipes),
# so that only the child itself holds them (``forked``).
_INHERITED: set[int] = set()


class LimitHit(Exception):
    """The child was stopped by a limit: ``kind`` is "cpu" or "memory"."""

    def __init__(self, kind: str, detail: str = "") -> None:
        super().__init__(kind, detail)
        self.kind, self.detail = kind, detail


class ChildCrashed(PrecisionError):
    """The child ended by a signal that is no limit of ours (a C extension crashed): exit 3."""


class _Collected(io.StringIO):
    """A stream kept in memory that otherwise looks like ``real`` (a terminal or not, its
    encoding, its file descriptor for the terminal's size)."""

    def __init__(self, real: Any, terminal: bool = True, fileno: int | None = None) -> None:
        super().__init__()
        self._real = real
        self._terminal = terminal and _isatty(real)
        self._fileno = fileno

    @property
    def encoding(self) -> str:
        return getattr(self._real, "encoding", None) or "utf-8"

    @property
    def errors(self) -> str | None:
        return getattr(self._real, "errors", None)

    def isatty(self) -> bool:
        return self._terminal

    def fileno(self) -> int:
        if self._fileno is None:
            raise io.UnsupportedOperation("fileno")
        return self._fileno


def _isatty(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):
        return False


def _own_descriptors(captured: int | None) -> int | None:
    """In the child: fds 1 and 2 into the collected file (FLINT writes its abort message to
    stdout, GMP to stderr: neither may reach the user), the real stdout kept on a new fd for
    its terminal size, which COLUMNS and LINES also carry (rich and shutil read them); a
    terminal that reports 0 x 0 (a pseudo-terminal nobody sized) passes on no size, so the
    child lays out at the default width, as shutil does, and not 0 columns wide."""
    kept = None
    try:
        if _isatty(sys.stdout) and "COLUMNS" not in os.environ:
            size = os.get_terminal_size(sys.stdout.fileno())
            if size.columns > 0 and size.lines > 0:
                os.environ["COLUMNS"], os.environ["LINES"] = str(size.columns), str(size.lines)
    except (AttributeError, ValueError, OSError):
        pass
    with contextlib.suppress(OSError):
        kept = os.dup(1)
    if captured is not None:
        os.dup2(captured, 1)
        os.dup2(captured, 2)
    return kept


def _reduce_exception(error: BaseException) -> tuple[Any, ...]:
    """An exception as (type, args, attributes): rebuilt without calling its ``__init__``
    (ours take keyword arguments that ``args`` does not carry)."""
    state = {k: v for k, v in vars(error).items() if k != "__traceback__"}
    return type(error), error.args, state


def _rebuild_exception(kind: type, args: tuple, state: dict) -> BaseException:
    error = kind.__new__(kind)
    error.args = args
    vars(error).update(state)
    return error


# numpy's BLAS (and OpenMP) thread pools: one thread in the child, so that its threads do
# not spend the CPU budget several times over on a busy machine (gau-scale --simulate); the
# simulations are bounded by their work, not by the cores they get.
THREAD_VARIABLES = (
    "OMP_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "MKL_NUM_THREADS",
    "BLIS_NUM_THREADS",
    "VECLIB_MAXIMUM_THREADS",
    "NUMEXPR_NUM_THREADS",
)


def _one_thread() -> None:
    """Read when numpy is first imported (in the child, as a rule); where it already is,
    threadpoolctl (if installed) sets the pools it loaded."""
    for name in THREAD_VARIABLES:
        os.environ[name] = "1"
    if "numpy" in sys.modules:
        try:
            from threadpoolctl import threadpool_limits

            threadpool_limits(1)
        except ImportError:
            pass


def watch_parent(life: int) -> None:
    """In a child just forked, ``life`` the read end of a pipe whose write end only the parent
    holds: the child ends (SIGIO, default action) when the parent's end closes, that is when the
    parent dies, whatever killed it. Ends at once if the parent is gone already."""
    import fcntl

    try:
        signal.signal(signal.SIGIO, signal.SIG_DFL)
        fcntl.fcntl(life, fcntl.F_SETOWN, os.getpid())
        fcntl.fcntl(life, fcntl.F_SETFL, fcntl.fcntl(life, fcntl.F_GETFL) | os.O_ASYNC | os.O_NONBLOCK)
    except (AttributeError, ValueError, OSError):  # no O_ASYNC here: the parent's own cleanup only
        return
    if select.select([life], [], [], 0)[0]:  # EOF already: the parent died before we watched
        os._exit(1)


def forked(life: int | None) -> None:
    """In a process just forked from a child (a sweep's worker): close its parent's pipes, which
    only that parent may hold, and end with it (``watch_parent``)."""
    global _PROGRESS
    for fd in _INHERITED:
        with contextlib.suppress(OSError):
            os.close(fd)
    _INHERITED.clear()
    _PROGRESS = None
    if life is not None:
        watch_parent(life)


def set_limits(cpu_seconds: float | None, memory_bytes: int | None) -> None:
    """In a child: no core files, SIGINT and SIGPIPE at their default actions, one BLAS thread,
    the CPU time limit (whole seconds, SIGXCPU past it) and the memory limit."""
    try:
        import faulthandler  # (built in) a test run's: it would report FLINT's abort on its own fd

        faulthandler.disable()
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
        _one_thread()
        import resource

        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        if cpu_seconds is not None:
            soft = max(1, int(cpu_seconds + 0.999))
            hard = resource.getrlimit(resource.RLIMIT_CPU)[1]
            if hard == resource.RLIM_INFINITY or hard > soft + 1:
                resource.setrlimit(resource.RLIMIT_CPU, (soft, soft + 1))
            else:
                resource.setrlimit(resource.RLIMIT_CPU, (min(soft, hard), hard))
        if memory_bytes is not None:
            soft, hard = resource.getrlimit(resource.RLIMIT_AS)
            wanted = memory_bytes if hard == resource.RLIM_INFINITY else min(memory_bytes, hard)
            if soft == resource.RLIM_INFINITY or soft > wanted:
                resource.setrlimit(resource.RLIMIT_AS, (wanted, hard))
    except (ImportError, ValueError, OSError):
        pass


def report_progress(done: int, total: int) -> None:
    """In a child that reports progress (a sweep's): ``done`` points of ``total`` are finished.
    Never blocks (a full pipe drops the report: the next one says more)."""
    if _PROGRESS is None:
        return
    with contextlib.suppress(OSError):
        os.write(_PROGRESS, done.to_bytes(8, "little") + total.to_bytes(8, "little"))


def _child(
    work: Callable[[], Any],
    write_end: int,
    captured: int | None,
    cpu_seconds: float | None,
    memory_bytes: int | None,
    life: int | None = None,
    progress: int | None = None,
) -> None:
    """In the child: set the limits, run ``work``, send the outcome, leave without cleanup."""
    global _PROGRESS
    if life is not None:
        watch_parent(life)
    _PROGRESS = progress
    _INHERITED.update(fd for fd in (write_end, progress, life) if fd is not None)
    # stderr is never a terminal in the child: progress is the parent's to show (``Spinner``).
    out, err = _Collected(sys.stdout), _Collected(sys.stderr, terminal=False)
    out._fileno = _own_descriptors(captured)
    sys.stdout, sys.stderr = out, err
    set_limits(cpu_seconds, memory_bytes)
    try:
        try:
            message: tuple[Any, ...] = ("ok", work())
        except MemoryError:
            message = ("memory",)
        except BaseException as error:
            import traceback

            message = ("error", _reduce_exception(error), traceback.format_exc())
        message += (out.getvalue(), err.getvalue())
        try:
            data = encode(message)
        except MemoryError:
            data = encode(("memory", "", ""))
        except Exception:
            import traceback

            text = traceback.format_exc()
            data = encode(
                (
                    "error",
                    (RuntimeError, (f"the computation's outcome could not be sent: {text}",), {}),
                    text,
                    "",
                    "",
                )
            )
        view = memoryview(data)
        while view:
            view = view[os.write(write_end, view) :]
    finally:
        os._exit(0)


def encode(message: tuple[Any, ...]) -> bytes:
    """The child's message as bytes: marshal (built in) where it can hold it — a command's exit
    code and output texts, the usual case — else pickle, which costs about 2 ms of start-up to
    import. A first byte says which."""

    try:
        return b"M" + marshal.dumps(message)
    except ValueError:  # a type marshal does not write (a sweep share's rows, an exception)
        import pickle

        return b"P" + pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)


def decode(data: bytes) -> tuple[Any, ...]:
    """``encode``'s message back."""
    if data[:1] == b"M":
        return marshal.loads(data[1:])
    import pickle

    return pickle.loads(data[1:])


def _stderr_file() -> int | None:
    """A file in memory for the child's fd 2 (what a C library prints as it aborts)."""
    try:
        return os.memfd_create("momentcalc-child-stderr")
    except (AttributeError, OSError):
        return None


# Set by the console script (``cli.app.main``): run computations in a child process.
ENABLED = False


def run(
    work: Callable[[], Any],
    *,
    cpu_seconds: float | None,
    memory_bytes: int | None,
    waiting: Callable[..., None] | None = None,
    progress: bool = False,
) -> tuple[Any, str, str]:
    """``work()`` in a child under the limits: (its return value, its stdout text, its stderr
    text). Raises what ``work`` raised, ``LimitHit`` past a limit, ``ChildCrashed``.
    ``waiting(seconds, progress)`` is called about every TICK seconds while the child runs, with
    ``progress`` (points done, points in all) as the child last reported it (``report_progress``,
    with ``progress=True``), else None."""
    return run_many(
        [work], cpu_seconds=cpu_seconds, memory_bytes=memory_bytes, waiting=waiting, progress=progress
    )[0]


def run_many(
    works: list[Callable[[], Any]],
    *,
    cpu_seconds: float | None,
    memory_bytes: int | None,
    waiting: Callable[..., None] | None = None,
    progress: bool = False,
) -> list[tuple[Any, str, str]]:
    """Each of ``works`` in its own child, all at once, under the same limits; their outcomes
    in the order given (the first failure, in that order, is raised once all have ended)."""
    sys.stdout.flush()
    sys.stderr.flush()
    running: dict[int, tuple[int, int | None, list[bytes]]] = {}  # read end -> (pid, stderr file, chunks)
    order: list[int] = []
    life_read, life = os.pipe()  # the children's line to this process (``watch_parent``)
    reports, report_end = os.pipe() if progress else (None, None)
    shown: tuple[int, int] | None = None
    try:
        for work in works:
            read_end, write_end = os.pipe()
            captured = _stderr_file()
            pid = os.fork()
            if pid == 0:  # the child
                os.close(read_end)
                os.close(life)
                if reports is not None:
                    os.close(reports)
                for other in running:
                    os.close(other)
                _child(work, write_end, captured, cpu_seconds, memory_bytes, life_read, report_end)
            os.close(write_end)
            running[read_end] = (pid, captured, [])
            order.append(read_end)
        os.close(life_read)
        if report_end is not None:
            os.close(report_end)
        started = time.monotonic()
        open_ends = list(order)
        watched = open_ends + ([reports] if reports is not None else [])
        over: set[int] = set()  # children stopped here for their CPU time
        while open_ends:
            ready, _, _ = select.select(watched, [], [], TICK)
            for end in ready:
                chunk = os.read(end, 1 << 20)
                if end == reports:
                    if len(chunk) >= 16:  # the last whole report (16 bytes each, written at once)
                        last = chunk[len(chunk) // 16 * 16 - 16 : len(chunk) // 16 * 16]
                        shown = (int.from_bytes(last[:8], "little"), int.from_bytes(last[8:], "little"))
                    elif not chunk:
                        watched.remove(end)
                elif chunk:
                    running[end][2].append(chunk)
                else:
                    open_ends.remove(end)
                    watched.remove(end)
            if not ready or (reports in ready and waiting is not None):
                if waiting is not None:
                    waiting(time.monotonic() - started, shown)
                if cpu_seconds is not None and cpu_seconds % 1:
                    # RLIMIT_CPU counts whole seconds: a fractional limit is watched from here.
                    for end in open_ends:
                        pid = running[end][0]
                        if _cpu_time(pid) >= cpu_seconds:
                            os.kill(pid, signal.SIGKILL)
                            over.add(pid)
        statuses = {end: os.wait4(running[end][0], 0) for end in order}
    except BaseException:  # Ctrl-C (KeyboardInterrupt) or anything else: the children end too
        for pid, _, _ in running.values():
            try:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
            except (ProcessLookupError, ChildProcessError):
                pass
        for end, (_, captured, _) in running.items():
            os.close(end)
            if captured is not None:
                os.close(captured)
        raise
    finally:
        for fd in (life, reports):
            if fd is not None:
                os.close(fd)
    outcomes = []
    for end in order:
        pid, captured, chunks = running[end]
        os.close(end)
        _, status, usage = statuses[end]
        outcomes.append(
            lambda status=status, usage=usage, captured=captured, chunks=chunks, pid=pid: _outcome(
                status, usage, _read_all(captured), b"".join(chunks), cpu_seconds, memory_bytes, pid in over
            )
        )
    return [_with_progress(outcome, shown) for outcome in outcomes]


def _with_progress(outcome: Callable[[], Any], shown: tuple[int, int] | None) -> Any:
    """``outcome()``; a CPU limit hit with the progress last reported as its detail ("N of M")."""
    try:
        return outcome()
    except LimitHit as hit:
        if hit.kind == "cpu" and not hit.detail and shown is not None:
            raise LimitHit("cpu", f"{shown[0]} of {shown[1]}") from None
        raise


def _outcome(
    status: int,
    usage: Any,
    printed: str,
    data: bytes,
    cpu_seconds: float | None,
    memory_bytes: int | None,
    stopped: bool = False,
) -> tuple[Any, str, str]:
    """What one child's end means: its outcome, or the error to raise."""
    if os.WIFSIGNALED(status) or not data:
        number = os.WTERMSIG(status) if os.WIFSIGNALED(status) else 0
        spent = usage.ru_utime + usage.ru_stime
        if (
            number == signal.SIGXCPU
            or stopped
            or (
                number == signal.SIGKILL
                and cpu_seconds is not None
                and spent >= max(1, int(cpu_seconds + 0.999)) - 0.05
            )
        ):
            raise LimitHit("cpu")
        if memory_bytes is not None and _about_memory(printed):
            raise LimitHit("memory", printed.strip())
        what = signal.Signals(number).name if number else f"exit status {os.WEXITSTATUS(status)}"
        raise ChildCrashed(
            f"the computation ended abnormally ({what}){': ' + printed.strip() if printed.strip() else ''}"
        )
    message = decode(data)
    kind, out, err = message[0], message[-2], message[-1]
    if kind == "memory":
        raise LimitHit("memory")
    if kind == "error":
        error = _rebuild_exception(*message[1])
        if not type(error).__module__.startswith("momentcalc"):  # a bug: show where it happened
            error.add_note("in the computation's child process:\n" + message[2])
        raise error
    return message[1], out, err


def _read_all(fd: int | None) -> str:
    if fd is None:
        return ""
    try:
        os.lseek(fd, 0, os.SEEK_SET)
        data = b""
        while len(data) < 1 << 16:
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                break
            data += chunk
        return data.decode("utf-8", "replace")
    except OSError:
        return ""
    finally:
        os.close(fd)


def _cpu_time(pid: int) -> float:
    """A running child's CPU time (user + system) in seconds, from /proc (0 where unreadable)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            fields = stat.read().rsplit(b")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return 0.0


def _about_memory(printed: str) -> bool:
    text = printed.lower()
    return any(word in text for word in ("alloc", "memory", "mmap"))
