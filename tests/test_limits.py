"""The operating system's limits on a computation (cli.child, cli.budget, cli.memory): CPU time
and memory in a child process, exit 3 naming the limit and what to change, Ctrl-C as exit 130,
--budget, --jobs, and a sweep refused by its work model before anything is computed.

The console script forks; in-process calls (tests/cli_runner.py) do not, so the end-to-end
cases run ``python -m momentcalc`` (a few, kept short), the others call ``cli.child`` directly.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from momentcalc.cli import child
from momentcalc.errors import InputError
from tests.cli_runner import run as invoke

# A computation that takes many seconds (an expression no catalog route takes, at 1000 digits:
# about 10 s of CPU; mish's formula, a catalog twin, now ends in under a second): stopped by its limit.
ENDLESS = ["activation-moment", "sin(x)/x+tanh(x)", "--digits", "1000"]


def momentcalc(*args: str, env: dict[str, str] | None = None, **kwargs) -> subprocess.CompletedProcess:
    environment = {**os.environ, **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "momentcalc", *args],
        capture_output=True,
        text=True,
        env=environment,
        check=False,
        **kwargs,
    )


def one_error_line(stderr: str) -> str:
    assert stderr.count("\n") == 1 and stderr.startswith("momentcalc: error: "), stderr
    assert "Traceback" not in stderr
    return stderr


def test_the_cpu_limit_is_exit_3_naming_it_and_budget():
    proc = momentcalc(*ENDLESS, "--budget", "0.3", "--json")
    assert proc.returncode == 3, proc
    line = one_error_line(proc.stderr)
    assert "CPU time limit of 0.3 s" in line and "--digits 1000" in line and "--budget" in line, line
    assert json.loads(proc.stdout)["error"]["code"] == 3


def test_the_budget_comes_from_the_environment_too():
    proc = momentcalc(*ENDLESS, env={"MOMENTCALC_BUDGET": "0.2"})
    assert proc.returncode == 3 and "CPU time limit of 0.2 s" in one_error_line(proc.stderr), proc


@pytest.mark.parametrize(
    ("args", "env", "fragment"),
    [
        (["truncnorm", "--budget", "-1"], {}, "--budget must be a number of seconds"),
        (["truncnorm", "--budget", "１"], {}, "--budget must be a number of seconds"),
        (["truncnorm"], {"MOMENTCALC_BUDGET": "soon"}, "MOMENTCALC_BUDGET must be"),
        (["truncnorm"], {"MOMENTCALC_MAX_MEMORY": "lots"}, "MOMENTCALC_MAX_MEMORY must be a size"),
        (["truncnorm"], {"MOMENTCALC_MAX_MEMORY": "1M"}, "MOMENTCALC_MAX_MEMORY must be at least 64M"),
        (["truncnorm", "--std", "0.1,0.2", "--jobs", "-1"], {}, "--jobs"),
    ],
)
def test_bad_limits_are_exit_2(args, env, fragment):
    run = invoke(args, env=env)
    assert run[0] == 2 and fragment in run[2] and run[2].count("\n") == 1, run


def test_memory_sizes():
    from momentcalc.cli.memory import default_bytes, parse_size

    assert (
        parse_size("512M") == 512 * 2**20
        and parse_size("1.5GiB") == 3 * 2**29
        and parse_size(" 4g ") == 4 * 2**30
    )
    assert parse_size("3000000000") == 3_000_000_000 and parse_size("none") is None
    assert 64 * 2**20 <= default_bytes() <= 2 * 2**30


def test_a_memory_error_in_the_child_is_the_memory_limit():
    with pytest.raises(child.LimitHit) as hit:
        child.run(lambda: bytearray(2**31), cpu_seconds=5, memory_bytes=800 * 2**20)
    assert hit.value.kind == "memory"


def test_flint_aborting_past_the_memory_limit_is_the_memory_limit():
    """FLINT aborts the process when an allocation fails (its message on fd 2): in the child,
    whose fd 2 is collected, that is the memory limit, and nothing reaches the user's stderr."""

    def huge() -> None:
        from flint import arb, ctx

        ctx.prec = 10**11
        arb(1) / 3

    with pytest.raises(child.LimitHit) as hit:
        child.run(huge, cpu_seconds=5, memory_bytes=600 * 2**20)
    assert hit.value.kind == "memory"


def test_a_convolution_too_large_for_the_limit_is_refused_before_flint_runs():
    """engine.convolution estimates a product's peak memory (2.4 GB measured for 160000 terms
    of 3431 bits: the chaotic meanfield tanh at 1000 digits) and refuses it up front under a
    lower address-space limit: a MemoryError, the memory limit, not FLINT's abort."""
    from momentcalc.engine.convolution import NeedsTooMuchMemory, check_room, product_bytes

    assert 1.8 * 2**30 < product_bytes(157667, 166478, 3431, 3431) < 3 * 2**30

    def refused() -> str:
        try:
            check_room(157667, 166478, 3431, 3431)
        except NeedsTooMuchMemory as error:
            return str(error)
        return "fits"

    outcome, _, _ = child.run(refused, cpu_seconds=5, memory_bytes=1 * 2**30)
    assert "would need about 2.1 GiB" in outcome, outcome
    check_room(157667, 166478, 3431, 3431)  # no limit in this process: nothing refused


def test_the_child_sends_back_output_and_errors():
    def work() -> int:
        sys.stdout.write("out")
        sys.stderr.write("err")
        return 7

    assert child.run(work, cpu_seconds=5, memory_bytes=None) == (7, "out", "err")
    from momentcalc.errors import InputError

    def bad() -> None:
        raise InputError(param="std", allowed="greater than 0", got="-1")

    with pytest.raises(InputError) as raised:
        child.run(bad, cpu_seconds=5, memory_bytes=None)
    assert raised.value.param == "std" and raised.value.message == "std must be greater than 0, got -1"


def test_ctrl_c_ends_the_child_and_exits_130_quietly():
    from tests.test_cli_fuzz import _wait_for_a_child, interruptible

    proc = subprocess.Popen(
        [sys.executable, "-m", "momentcalc", *ENDLESS],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        preexec_fn=interruptible,
    )
    _wait_for_a_child(proc.pid)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 130 and out == "" and err == "", (proc.returncode, out, err)
    time.sleep(0.1)
    with pytest.raises(ProcessLookupError):  # the child is gone too
        os.killpg(proc.pid, 0)


def test_jobs_give_the_same_output_in_sweep_order():
    """--jobs 3 and --jobs 0 (every core) in processes of their own print the bytes of one job
    (in-process: a third process cost 0.3 s of CPU to start for the same bytes)."""
    args = ["truncnorm", "--std", "0.1:2:0.1", "--format", "csv"]
    code, one, _ = invoke(args)
    three = momentcalc(*args, "--jobs", "3")
    every = momentcalc(*args, "--jobs", "0")
    assert code == three.returncode == every.returncode == 0, (three, every)
    assert three.stdout == one == every.stdout and one.count("\n") == 21


def test_every_point_of_a_sweep_is_computed_as_a_fresh_process_would():
    """Arb's cached Gauss-Legendre nodes from abs(x)'s integrals once tightened erf's C''(1)
    bound when erf came after it in one process: --jobs changed the JSON."""
    from flint import ctx

    args = ["--rho", "0.5", "--json", "--digits", "6"]
    swept = invoke(["kernel", "abs(x),erf", *args])
    ctx.cleanup()
    alone = invoke(["kernel", "erf", *args])
    erf = json.loads(swept[1])["rows"][1]["results"]["c_map_curvature_at_1"]
    assert erf == json.loads(alone[1])["results"]["c_map_curvature_at_1"]


def test_a_sweep_is_refused_by_its_work_model_before_computing():
    """Deterministic: the same verdict on every run, decided from points and digits (it was
    exit 0 in 7 runs and exit 2 in 3, projected from 3 points' timings)."""
    start = time.process_time()
    codes = {invoke(["truncnorm", "--std", "0.001:30:0.001", "--format", "csv"])[0] for _ in range(3)}
    assert codes == {2} and time.process_time() - start < 1.0
    run = invoke(["truncnorm", "--std", "0.001:30:0.001", "--format", "csv"])
    assert "--budget" in run[2] and "sweep fewer points" in run[2]
    lowered = invoke(["truncnorm", "--std", "0.1:1:0.1", "--format", "csv", "--budget", "0.01"])
    assert lowered[0] == 2 and "the budget you gave of 0.01 s" in lowered[2], lowered
    lifted = invoke(["truncnorm", "--std", "0.1:1:0.1", "--format", "csv", "--budget", "1"])
    assert lifted[0] == 0 and lifted[1].count("\n") == 11


def test_the_phase_diagram_is_refused_at_once_naming_the_budget_it_needs():
    """meanfield's points are counted as 20 ms (a tanh point of the 0.02 phase diagram takes 15-22 ms
    at 15 digits): its 2816 points need --budget 57, said before anything is computed, and run
    with it; the advice has half again to spare (85), as a loaded machine needs."""
    from momentcalc.cli.budget import call_seconds, check_sweep

    swept = ("sigma_w2", "sigma_b2")
    with pytest.raises(
        InputError, match=r"about 56.3 s, .* raise budget \(at least 57, better 85: half again to spare\)"
    ):
        check_sweep(2816, 15, False, call_seconds(15, False, 2816, None), swept, False, "meanfield")
    check_sweep(2816, 15, False, call_seconds(15, False, 2816, 57.0), swept, True, "meanfield")
    check_sweep(2816, 15, False, call_seconds(15, False, 2816, None), swept, False, "truncnorm")  # 3 ms


def test_a_deep_trajectory_gets_a_deeper_default_budget():
    """--depth L adds 100 ms a layer to one computation's default CPU time, at most 150 s (elu's
    1000 layers take about 18 s; they exited 3 at the 4 s default; tanh's 10000 at sigma_w2 = 1,
    50-80 s, exited 3 at 64 s); a --depth that does not read as a whole number adds nothing (the
    command refuses it)."""
    from momentcalc.cli.budget import call_seconds, default_seconds, layers_of

    assert default_seconds(15, False, 0) == default_seconds(15, False) == 4.0
    assert default_seconds(15, False, 100) == 14.0
    assert default_seconds(15, False, 1000) == 104.0
    assert default_seconds(15, False, 1500) == default_seconds(15, False, 10000) == 154.0
    assert layers_of([{"depth": "1000"}, {"depth": "10"}]) == 1000
    assert layers_of([{"depth": "1e3"}, {"depth": "-5"}, {"depth": "１０"}, {}]) == 0
    assert call_seconds(15, False, 1, 2.5, 1000) == 2.5  # --budget wins


def test_the_budget_suggested_for_a_trajectory_follows_its_pace():
    """Exit 3 after part of a deep trajectory suggests the budget its pace asks for with half
    again to spare, for a chosen budget too (408 s stopped at 981 of 1000 layers: 624, not
    4 x 408); with no pace known, four times a chosen budget, twice the default."""
    from momentcalc.cli.runner import _limit_error

    def suggested(detail: str, seconds: float, chosen: bool) -> int:
        error = _limit_error(child.LimitHit("cpu", detail), seconds, chosen, None, 15, False, (), "layers")
        return int(error.template.rsplit("{budget} ", 1)[1].rstrip(")"))

    assert suggested("981 of 1000", 408, True) == 624
    assert suggested("319 of 1000", 104, False) == 490  # 489.03, rounded up
    assert suggested("900 of 1000", 10, False) == 60
    assert suggested("", 408, True) == 1632 and suggested("", 10, False) == 60
    assert suggested("0 of 1000", 100, False) == 200
    error = _limit_error(child.LimitHit("cpu", "981 of 1000"), 408, True, None, 15, False, (), "layers")
    assert "408 s after 981 of 1000 layers" in str(error)
