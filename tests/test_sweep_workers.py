"""A sweep at any scale (SPEC, Sweeps): worker processes that take one point at a time under
their own limits (``cli.pool``), --jobs and --dask byte-identical to --jobs 1, ``momentcalc.sweep``
on a Dask client, "point N of M" with the time left on a terminal, and no orphan: the computing
child dies with its parent whatever signal ends the parent."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time

import pytest

from momentcalc.cli.pool import run_points
from momentcalc.errors import InputError

GELU = ["meanfield", "gelu", "--sigma-w2", "1:3:0.5", "--sigma-b2", "0,0.1", "--json", "--digits", "12"]


def momentcalc_process(*args: str, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "momentcalc", *args], capture_output=True, text=True, check=False, **kwargs
    )


@pytest.fixture(scope="module")
def gelu_one_job():
    """The sweep's bytes at one job, in-process (what a process of its own prints: the other
    tests launch the processes whose bytes must equal these)."""
    from tests.conftest import invoke

    run = invoke(*GELU)
    assert run.code == 0 and run.stderr == "", run
    assert run.stdout.count('"status": "no_fixed_point"') == 4  # outcomes, in the rows
    return run.stdout


def test_jobs_give_the_bytes_of_one_job(gelu_one_job):
    two = momentcalc_process(*GELU, "--jobs", "2")
    assert two.returncode == 0 and two.stdout == gelu_one_job


def _burn(seconds: float) -> None:
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass


def _points(index: int) -> int:
    """Point 1 runs past any limit, point 3 is bad input, point 4 crashes; the others are
    their index squared."""
    if index == 1:
        _burn(30)
    if index == 3:
        raise InputError(param="x", allowed="not 3", got="3")
    if index == 4:
        os.kill(os.getpid(), signal.SIGSEGV)
    return index * index


def _lost(index: int, kind: str, detail: str) -> tuple[str, int, str]:
    return ("lost", index, kind)


def test_a_point_past_its_cpu_limit_is_lost_and_the_others_go_on():
    done = []
    records = run_points(
        lambda i: _points(2 * i),  # 0, 2, 4 (crash), 6, 8 ...
        5,
        workers=2,
        point_seconds=None,
        total_seconds=30,
        memory_bytes=None,
        lost=_lost,
        done=done.append,
    )
    assert records[0] == 0 and records[1] == 4 and records[3] == 36 and records[4] == 64
    assert records[2][:2] == ("lost", 2) and records[2][2] == "crash"
    assert done == [1, 2, 3, 4, 5]
    start = time.monotonic()
    records = run_points(
        _points, 3, workers=1, point_seconds=0.2, total_seconds=20, memory_bytes=None, lost=_lost
    )
    assert records == [0, ("lost", 1, "cpu"), 4]  # a new worker took point 2
    assert time.monotonic() - start < 15


def test_the_sweep_budget_stops_the_run_keeping_its_records_and_a_bad_point_ends_it():
    """Past the sweep's budget the points finished keep their records, the one being computed
    and those never handed out are lost to the "budget" ("1 of 3": one finished)."""
    details = []

    def lost(index: int, kind: str, detail: str) -> tuple[str, int, str]:
        details.append(detail)
        return _lost(index, kind, detail)

    records = run_points(
        _points, 3, workers=1, point_seconds=None, total_seconds=0.2, memory_bytes=None, lost=lost
    )
    assert records == [0, ("lost", 1, "budget"), ("lost", 2, "budget")]
    assert details == ["1 of 3", "1 of 3"]
    with pytest.raises(InputError, match="x must be not 3"):
        run_points(_points, 4, workers=2, point_seconds=5, total_seconds=None, memory_bytes=None, lost=_lost)


def test_a_point_past_its_memory_limit_is_lost():
    def hungry(index: int) -> int:
        if index == 0:
            return len(bytearray(2**31))
        return index

    records = run_points(
        hungry, 2, workers=1, point_seconds=5, total_seconds=None, memory_bytes=600 * 2**20, lost=_lost
    )
    assert records == [("lost", 0, "memory"), 1]


def test_the_sweeps_budget_says_how_far_it_got_and_what_to_give():
    run = momentcalc_process(
        # 38 points the work model counts as 20 ms each (0.76 s, within --budget 0.8); swish's take
        # about 70 ms here (2.7 s). (Was 72 points at --budget 1.5: 0.7 s more CPU for the same check.)
        "meanfield",
        "swish",
        "--sigma-w2",
        "2.2:4:0.1",
        "--sigma-b2",
        "0,0.1",
        "--budget",
        "0.8",
        "--format",
        "csv",
    )
    # The points computed are printed in place, the others refused in their rows; one stderr line.
    assert run.returncode == 3, run
    rows = run.stdout.splitlines()[1:]
    statuses = [row.split(",")[4] for row in rows]
    assert len(rows) == 38 and set(statuses) == {"ok", "refused"} and statuses[0] == "ok", run.stdout
    assert len(run.stderr.splitlines()) == 1, run.stderr
    assert "CPU time limit of 0.8 s" in run.stderr and "(refused in their rows)" in run.stderr, run.stderr
    finished = statuses.count("ok")
    assert f"after {finished} of 38 points: the other {38 - finished} are not computed" in run.stderr
    assert "raise --budget (e.g. --budget " in run.stderr


def _descendants(pid: int) -> list[int]:
    parents: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", encoding="ascii") as stat:
                    parents.setdefault(int(stat.read().rsplit(")", 1)[1].split()[1]), []).append(int(entry))
            except (OSError, ValueError, IndexError):
                pass
    found, todo = [], [pid]
    while todo:
        for kid in parents.get(todo.pop(), []):
            found.append(kid)
            todo.append(kid)
    return found


def _running(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except OSError:
        return False


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="reads the process tree from /proc")
@pytest.mark.parametrize(
    "number",
    # SIGTERM and SIGHUP end the parent as SIGKILL does (no handler: the child sees the same
    # closed pipe), 0.5 s of CPU: -m reference
    [signal.SIGKILL]
    + [pytest.param(s, marks=pytest.mark.reference) for s in (signal.SIGTERM, signal.SIGHUP)],
    ids=lambda s: s.name,
)
def test_the_computing_children_die_with_their_parent(number):
    """A supervisor or a closed SSH session ends the command's own process only: its child (and a
    sweep's workers) must not compute on for the hour --budget allows."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "momentcalc", "meanfield", "tanh", "--sigma-w2", "0.5:4:0.001"]
        + ["--budget", "3600", "--jobs", "2", "--format", "csv"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 30
        while len(_descendants(proc.pid)) < 3 and time.monotonic() < deadline:  # the child, two workers
            time.sleep(0.05)
        family = _descendants(proc.pid)
        assert len(family) == 3, family
        os.kill(proc.pid, number)  # the parent's PID alone, not its group
        proc.wait(timeout=10)
        deadline = time.monotonic() + 3
        while any(map(_running, family)) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not any(map(_running, family)), [pid for pid in family if _running(pid)]
    finally:
        for pid in _descendants(proc.pid):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


def test_a_terminal_sees_point_n_of_m_and_the_time_left(stderr_as):
    from momentcalc.progress import Spinner, duration

    terminal = stderr_as(terminal=True)
    spinner = Spinner()
    spinner(4.0, (37, 2816))
    assert terminal.getvalue().endswith("point 38 of 2816, 4.0 s, about 5 min 00 s left\x1b[K")
    spinner(4.05, (38, 2816))  # at most ten drawings a second
    assert terminal.getvalue().count("point") == 1
    spinner(9.0, (2816, 2816))
    assert terminal.getvalue().endswith("all 2816 points computed, 9.0 s\x1b[K")
    spinner.clear()
    assert [duration(s) for s in (7.4, 200, 7500)] == ["7 s", "3 min 20 s", "2 h 05 min"]
    pipe = stderr_as(terminal=False)
    spinner = Spinner()
    spinner(4.0, (37, 2816))
    assert pipe.getvalue() == ""


DASK_CHECK = """
import json, subprocess, sys
import distributed
import momentcalc

# A scheduler on a TCP port with one worker thread in this process: the points a command sends it
# are computed here, one at a time.
with distributed.LocalCluster(
    n_workers=1, threads_per_worker=1, processes=False, protocol="tcp", dashboard_address=None
) as cluster:
    run = subprocess.run(
        [sys.executable, "-m", "momentcalc", *ARGS, "--dask", cluster.scheduler_address],
        capture_output=True, text=True, check=False,
    )
    grid = {"activation": "gelu", "sigma_w2": [1, "2.5"], "sigma_b2": "0.1", "digits": 20}
    with distributed.Client(cluster, set_as_default=False) as client:
        there = momentcalc.sweep(momentcalc.meanfield, grid, client=client)
here = momentcalc.sweep(momentcalc.meanfield, grid)
print(json.dumps({
    "code": run.returncode, "stdout": run.stdout, "stderr": run.stderr,
    "statuses": [row.status for row in there],
    "same_outcome": there.rows[1] == here.rows[1],
    "same_values": [q.decimal(20) for q in there.rows[0].results] == [q.decimal(20) for q in here.rows[0].results],
}))
"""


def test_dask_gives_the_records_and_bytes_of_one_job(gelu_one_job):
    """On a LocalCluster, in a process of its own (dask's threads and event loop stay out of the
    test run's): the command's bytes and momentcalc.sweep's records."""
    pytest.importorskip("distributed")
    import json

    code = DASK_CHECK.replace("ARGS", repr(GELU))
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    found = json.loads(proc.stdout.strip().splitlines()[-1])
    assert found["code"] == 0 and found["stdout"] == gelu_one_job, found["stderr"]
    assert found["statuses"] == ["ok", "no_fixed_point"] and found["same_outcome"] and found["same_values"]


def test_dask_arguments_are_checked_before_any_work(monkeypatch):
    from tests.conftest import invoke

    assert (
        "cannot be combined with --jobs"
        in invoke("truncnorm", "--std", "1,2", "--dask", "x", "--jobs", "2").stderr
    )
    empty = invoke("truncnorm", "--std", "1,2", "--dask", " ", "--json")
    assert empty.code == 2 and empty.json()["error"]["message"].startswith("--dask must be the address")
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "distributed" else real(name, *a)
    )
    missing = invoke("truncnorm", "--std", "1,2", "--dask", "tcp://127.0.0.1:8786")
    assert missing.code == 2 and missing.stdout == ""
    assert missing.stderr == (
        "momentcalc: error: --dask needs dask.distributed, which is not installed: pip install 'momentcalc[dask]'\n"
    )


def test_a_deep_trajectorys_budget_says_how_many_layers_it_reached_and_what_to_give():
    """One deep kernel past its CPU limit: exit 3 saying after how many of its layers, and a
    --budget from the pace so far (the layers reported by the propagation core)."""
    import re

    run = momentcalc_process(
        "kernel", "tanh", "--rho", "0.3", "--depth", "3000", "--sigma-w2", "1", "--budget", "1"
    )
    assert run.returncode == 3 and run.stdout == "", run
    found = re.search(
        r"after (\d+) of 3000 layers without finishing: .* raise --budget \(e\.g\. --budget (\d+)\)",
        run.stderr,
    )
    assert found, run.stderr
    done, suggested = int(found.group(1)), int(found.group(2))
    assert 0 < done < 3000 and suggested >= max(4, 1.25 * 3000 / done) - 1


def test_the_spinner_names_its_unit():
    from momentcalc.progress import Spinner

    assert Spinner(unit="layer").text(2.0, (9, 100)).startswith("layer 10 of 100, 2.0 s, about ")
    assert Spinner().text(2.0, (100, 100)) == "all 100 points computed, 2.0 s"
