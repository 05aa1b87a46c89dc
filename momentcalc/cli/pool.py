"""A sweep's points in worker processes, each point under its own CPU limit, every point decided.

``run_points(compute, count, ...)`` forks ``workers`` processes from this one (the child of
``cli.child``, after every import: a fork costs no start-up and a worker keeps what earlier points
loaded), hands each the index of the next point whenever it finishes one (a slow region of a phase
diagram holds no other point back), and returns the records in index order. A worker

- ends with this process (``child.forked``: whatever kills it);
- has the memory limit, no core files and one BLAS thread (``child.set_limits``);
- may spend ``point_seconds`` of CPU on one point: before each point its soft RLIMIT_CPU is moved
  to what it has used plus that (whole seconds; a fractional limit is watched from here), so a
  point past it ends the worker with SIGXCPU;

and once the points together have used ``total_seconds`` (the sweep's budget) this process hands
out no more points and stops every worker: each point not finished then — those the workers were
computing and those never handed out — gets the record ``lost(index, "budget", "N of M")`` (N the
points finished, M all of them), so that the points already computed are kept. A worker that ends
during a point — its CPU limit, its memory limit, a crash — gives that point the record
``lost(index, kind, detail)`` (kind "cpu", "memory" or "crash") and a new worker takes the next
points. What ``compute`` raises (other than
MemoryError) ends the whole run: it is raised here.

Messages are length-prefixed: a worker reads 4-byte point indices from its task pipe (EOF: its
work is done) and writes ``child.encode((kind, ..., cpu_seconds))`` back.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import struct
import sys
from collections.abc import Callable
from typing import Any

from . import child

_INDEX = struct.Struct("<I")
_LENGTH = struct.Struct("<Q")


def _cpu_used() -> float:
    import resource

    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _read_exactly(fd: int, size: int) -> bytes:
    data = b""
    while len(data) < size:
        chunk = os.read(fd, size - len(data))
        if not chunk:
            return b""
        data += chunk
    return data


def _worker(
    compute: Callable[[int], Any],
    tasks: int,
    results: int,
    captured: int | None,
    life: int,
    memory_bytes: int | None,
    point_seconds: float | None,
) -> None:
    """In a worker: take indices until the task pipe closes; leave without cleanup."""
    try:
        child.forked(life)
        if captured is not None:  # what a C library prints as it aborts: read by the parent
            os.dup2(captured, 1)
            os.dup2(captured, 2)
        child.set_limits(None, memory_bytes)
        import resource

        while True:
            header = _read_exactly(tasks, _INDEX.size)
            if not header:
                break
            (index,) = _INDEX.unpack(header)
            start = _cpu_used()
            if point_seconds is not None:
                soft = max(1, int(start + point_seconds + 0.999))
                hard = resource.getrlimit(resource.RLIMIT_CPU)[1]
                if hard != resource.RLIM_INFINITY:
                    soft = min(soft, hard)
                resource.setrlimit(resource.RLIMIT_CPU, (soft, hard))
            try:
                message: tuple[Any, ...] = ("ok", compute(index))
            except MemoryError:
                message = ("memory",)
            except BaseException as error:  # (sent to the parent, raised there)
                import traceback

                message = ("error", child._reduce_exception(error), traceback.format_exc())
            message += (_cpu_used() - start,)
            try:
                data = child.encode(message)
            except MemoryError:
                data = child.encode(("memory", 0.0))
            view = memoryview(_LENGTH.pack(len(data)) + data)
            while view:
                view = view[os.write(results, view) :]
    finally:
        os._exit(0)


class _Worker:
    """One worker as this process sees it."""

    def __init__(self, pid: int, tasks: int, results: int, captured: int | None) -> None:
        self.pid, self.tasks, self.results, self.captured = pid, tasks, results, captured
        self.buffer = b""
        self.index: int | None = None  # the point it computes
        self.accounted = 0.0  # CPU seconds of the points it finished
        self.point_start = 0.0  # its CPU time when it took its point (watched fractional limits)


def run_points(
    compute: Callable[[int], Any],
    count: int,
    *,
    workers: int,
    point_seconds: float | None,
    total_seconds: float | None,
    memory_bytes: int | None,
    lost: Callable[[int, str, str], Any],
    done: Callable[[int], None] | None = None,
) -> list[Any]:
    """The records of points 0 … count − 1 computed in ``workers`` processes (see the module's
    docstring); ``done(finished)`` after each point."""
    sys.stdout.flush()
    sys.stderr.flush()
    records: list[Any] = [None] * count  # None: not finished
    pool: dict[int, _Worker] = {}  # result pipe -> worker
    life_read, life = os.pipe()
    waiting = iter(range(count))
    finished, spent = 0, 0.0

    def start() -> _Worker:
        tasks_read, tasks = os.pipe()
        results, results_write = os.pipe()
        captured = _captured()
        pid = os.fork()
        if pid == 0:
            os.close(tasks)
            os.close(results)
            os.close(life)
            for other in pool.values():
                os.close(other.tasks)
                os.close(other.results)
                if other.captured is not None:
                    os.close(other.captured)
            _worker(compute, tasks_read, results_write, captured, life_read, memory_bytes, point_seconds)
        os.close(tasks_read)
        os.close(results_write)
        worker = pool[results] = _Worker(pid, tasks, results, captured)
        return worker

    def hand_out(worker: _Worker) -> None:
        index = next(waiting, None)
        worker.index = index
        if index is None:
            os.close(worker.tasks)  # no more points: the worker leaves
            worker.tasks = -1
            return
        worker.point_start = child._cpu_time(worker.pid)
        os.write(worker.tasks, _INDEX.pack(index))

    def finish(index: int, record: Any) -> None:
        nonlocal finished
        records[index] = record
        finished += 1
        if done is not None:
            done(finished)

    try:
        for _ in range(min(workers, count)):
            start()
        for worker in list(pool.values()):
            hand_out(worker)
        while finished < count:
            ready, _, _ = select.select(list(pool), [], [], child.TICK)
            for fd in ready:
                worker = pool[fd]
                chunk = os.read(fd, 1 << 20)
                if chunk:
                    worker.buffer += chunk
                    while len(worker.buffer) >= _LENGTH.size:
                        (size,) = _LENGTH.unpack_from(worker.buffer)
                        if len(worker.buffer) < _LENGTH.size + size:
                            break
                        data = worker.buffer[_LENGTH.size : _LENGTH.size + size]
                        worker.buffer = worker.buffer[_LENGTH.size + size :]
                        message = child.decode(data)
                        spent += message[-1]
                        worker.accounted += message[-1]
                        index = worker.index
                        assert index is not None
                        if message[0] == "ok":
                            finish(index, message[1])
                        elif message[0] == "memory":
                            finish(index, lost(index, "memory", ""))
                        else:
                            error = child._rebuild_exception(*message[1])
                            if not type(error).__module__.startswith("momentcalc"):
                                error.add_note("in a sweep's worker process:\n" + message[2])
                            raise error
                        hand_out(worker)
                    continue
                # The worker has ended: after its last point, or during one (a limit, a crash).
                del pool[fd]
                os.close(fd)
                _, status, usage = os.wait4(worker.pid, 0)
                spent += max(0.0, usage.ru_utime + usage.ru_stime - worker.accounted)
                printed = child._read_all(worker.captured)
                if worker.tasks >= 0:
                    os.close(worker.tasks)
                if worker.index is not None:
                    finish(worker.index, lost(worker.index, *_why(status, printed, memory_bytes)))
                    if finished < count:
                        hand_out(start())
            running = [w for w in pool.values() if w.index is not None]
            if point_seconds is not None and point_seconds % 1:
                for worker in running:  # RLIMIT_CPU counts whole seconds: a fraction is watched here
                    if child._cpu_time(worker.pid) - worker.point_start >= point_seconds:
                        os.kill(worker.pid, signal.SIGXCPU)
            if total_seconds is not None:
                now = spent + sum(max(0.0, child._cpu_time(w.pid) - w.accounted) for w in running)
                if now > total_seconds:
                    break
        if finished < count:  # the budget is spent: the points not finished are not computed
            progress = f"{finished} of {count}"
            for index in range(count):
                if records[index] is None:
                    records[index] = lost(index, "budget", progress)
    finally:
        for worker in pool.values():
            if worker.index is not None:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(worker.pid, signal.SIGKILL)
            if worker.tasks >= 0:
                os.close(worker.tasks)
        for fd, worker in list(pool.items()):
            with contextlib.suppress(ChildProcessError):
                os.waitpid(worker.pid, 0)
            os.close(fd)
            if worker.captured is not None:
                os.close(worker.captured)
        os.close(life)
        os.close(life_read)
    return records


def _captured() -> int | None:
    try:
        return os.memfd_create("momentcalc-worker-output")
    except (AttributeError, OSError):
        return None


def _why(status: int, printed: str, memory_bytes: int | None) -> tuple[str, str]:
    """Why a worker ended during its point: ("cpu" | "memory" | "crash", what it printed)."""
    if os.WIFSIGNALED(status) and os.WTERMSIG(status) in (signal.SIGXCPU, signal.SIGKILL):
        return "cpu", ""
    if memory_bytes is not None and child._about_memory(printed):
        return "memory", printed.strip()
    what = (
        signal.Signals(os.WTERMSIG(status)).name
        if os.WIFSIGNALED(status)
        else f"exit status {os.WEXITSTATUS(status)}"
    )
    return "crash", f"{what}{': ' + printed.strip() if printed.strip() else ''}"
