"""Hostile-input fuzz driver for the momentcalc CLI (issue 16): not part of the default test run.

Fires a few thousand hostile invocations across every command and option, each as its own
subprocess with a time limit, and records for each one the exit code, whether a traceback
appeared, the number of stderr lines and the wall time. The invocations are generated from a
fixed seed, so two runs (before and after a fix) fire the same calls.

    python tests/fuzz/fuzz_cli.py --jobs 2 --out /tmp/fuzz.jsonl

prints a summary (invocations, tracebacks, wrong exit codes, calls over 5 s of wall and of CPU
time, killed calls) and
the worst offenders by class. ``--limit N`` runs only the first N invocations, ``--only CLASS``
one class. A call is "wrong" when its exit code or output breaks the contract:

* exit code outside 0, 1, 2, 3 (141 or SIGPIPE allowed for a closed pipe only); 1 without
  --expect (only --expect and verify may fail a check);
* an error exit (2, 3) that is not exactly one ``momentcalc: error:`` line on stderr;
* a call with a stated expectation (``gau-scale --digits 1000`` must work, ``--seed 1:1:1``
  must be refused, ...) that does something else;
* a closed pipe that writes anything on stderr or exits other than 0/141; ``/dev/full`` that
  exits 0 or 1 or writes more than one stderr line;
* an escape character from the user's text copied to stdout (terminal injection).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter, defaultdict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field

SEED = 16
# A call is killed past CPU_LIMIT seconds of its own CPU time (the fair measure on a machine
# shared with other work, where wall time also counts the others), or past WALL_LIMIT seconds.
CPU_LIMIT = 10.0
WALL_LIMIT = 60.0
TIME_LIMIT = CPU_LIMIT  # (the summary's wording)
SLOW = 5.0  # a call slower than this counts as slow
# Each call's address space is capped (on top of the CLI's own ceiling, cli.memory): a runaway
# call must not take the memory of a machine other work shares (2 jobs x this at most).
MEMORY_LIMIT = 4 * 2**30

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
from tests.hostile_inputs import (  # noqa: E402  (the driver runs as a script)
    ACTIVATION_NAMES,
    BASE,
    COMPUTING,
    DIGITS,
    EXTREME_MEANS,
    EXTREME_STDS,
    HOSTILE_EXPRESSIONS,
    HOSTILE_NUMBERS,
    HOSTILE_SWEEPS,
    INJECTION_MARKERS,
    MANY,
    NEEDS,
    NUMERIC,
    OUTPUT_ENVS,
    TEXT_VALUES,
)


@dataclass
class Call:
    cls: str
    args: list[str]
    env: str = "plain"  # or one of OUTPUT_ENVS
    expect: str | None = None  # "ok" (exit 0), "refused" (exit 2), "error" (2 or 3)
    record: dict = field(default_factory=dict)


def _base(command: str) -> list[str]:
    return [command] + BASE.get(command, [])


def _numeric_calls(rng: random.Random) -> list[Call]:
    calls = []
    for command, options in NUMERIC.items():
        for option in options:
            for value in HOSTILE_NUMBERS:
                args = _base(command) + NEEDS.get((command, option), []) + [option, value]
                if command == "activation-moment":
                    args[1] = "leaky_relu" if option == "--slope" else rng.choice(ACTIVATION_NAMES)
                calls.append(Call("number", args + rng.choice([[], [], ["--json"], ["--format", "csv"]])))
    return calls


def _sweep_calls(rng: random.Random) -> list[Call]:
    calls = []
    for command, options in NUMERIC.items():
        for option in options:
            for value in HOSTILE_SWEEPS:
                args = _base(command) + NEEDS.get((command, option), []) + [option, value]
                # (gau-scale --seed 1:1:1 was once accepted as a single value while --seed 1,2
                # was refused; --seed is now sweepable in every command, so it is a sweep.)
                calls.append(Call("sweep", args + rng.choice([[], ["--json"]])))
    # Two-dimensional sweeps near the cap, and sweeps over costly points.
    big = "1:300:1"
    calls += [
        Call("sweep", ["truncnorm", "--low", "-3:-0.01:0.01", "--high", big]),
        Call("sweep", ["selu-solve", "--input-std", "0.1:30:0.1", "--input-mean", "-1:1:0.01"]),
        Call("sweep", ["activation-moment", "gelu", "--mean", "-5:5:0.01", "--std", "0.1:3:0.1"]),
        Call("sweep", ["activation-moment", "x*tanh(log(1+exp(x)))", "--std", "0.01:5:0.01"]),
        Call("sweep", ["postnorm-decay", "--layers", "1:1000000:10"]),
        Call("sweep", ["postnorm-decay", "--layers", "999000:1000000:1"]),
        Call("sweep", ["postnorm-decay", "--layers", "1000000", "--sigma", "0.01:1:0.01"]),
        Call("sweep", ["gau-scale", "--s", "1:300:1", "--n", "1:300:1"]),
        Call("sweep", ["gau-scale", "--activation", "gelu", "--s", "1:1000:1"]),
        Call("sweep", ["init", "--fan-in", "1:100000:1", "--scheme", "he", "--activation", "gelu"]),
        Call("sweep", ["init", "--fan-in", "1:99999:1", "--fan-out", "1:99999:1", "--scheme", "xavier"]),
        Call("sweep", ["attention", "--d", "1:100000:1"]),
        Call("sweep", ["attention", "--d", "1:1000:1", "--seq-len", "1:100:1"]),
        Call("sweep", ["truncnorm", "--std", "0.001:100:0.001", "--digits", "50"]),
        Call("sweep", ["activation-moment", "tanh", "--std", "0.1:10:0.1", "--digits", "1000"]),
        Call("sweep", ["truncnorm", "--low", "-1000:-1:1", "--digits", "1000"]),
    ]
    return calls


def _expression_calls(rng: random.Random) -> list[Call]:
    calls = []
    for expression in HOSTILE_EXPRESSIONS:
        # x-x and abs(x)**0 are constants: refused (exit 2) like "1", not computed.
        expect = "ok" if expression in ("x-pi", "e-x", "pi-x", "x-e", "abs(x)**0.5001") else None
        calls.append(Call("expression", ["activation-moment", expression], expect=expect))
        calls.append(Call("expression", ["activation-moment", expression, "--json"], expect=expect))
        calls.append(Call("expression", ["activation-moment", expression, "--digits", "30", "--std", "2"]))
        calls.append(Call("expression", ["gau-scale", "--activation", expression]))
        calls.append(
            Call("expression", ["init", "--fan-in", "8", "--scheme", "he", "--activation", expression])
        )
        if rng.random() < 0.3:
            calls.append(Call("derive", ["activation-moment", expression, "--derive"]))
    return calls


def _extreme_calls(rng: random.Random) -> list[Call]:
    calls = []
    for name in ACTIVATION_NAMES + ["x*tanh(log(1+exp(x)))", "exp(-x**2)"]:
        for mean in EXTREME_MEANS:
            calls.append(Call("extreme", ["activation-moment", name, "--mean", mean], expect="error_or_ok"))
        for std in EXTREME_STDS:
            calls.append(Call("extreme", ["activation-moment", name, "--std", std], expect="error_or_ok"))
    for combo in [
        ["--input-mean", "1e309", "--input-std", "1e-320", "--target-mean", "0"],
        ["--input-std", "1e-100000"],
        ["--input-std", "1e100000"],
        ["--input-mean", "-1e100000"],
        ["--target-var", "1e-100000"],
        ["--target-var", "1e100000"],
        ["--target-mean", "1e309"],
        ["--input-mean", "1e20", "--input-std", "1e-20"],
    ]:
        calls.append(Call("extreme", ["selu-solve", *combo]))
    for combo in [
        ["--layers", "1000000", "--sigma", "1e-100000"],
        ["--layers", "1000000", "--sigma", "1e100000"],
        ["--layers", "1000000", "--sigma", "1e-100000", "--json"],
        ["--layers", "1000000", "--threshold", "1e-100000"],
        ["--layers", "1000000", "--scheme", "deepnorm", "--alpha", "1e-100000"],
        ["--layers", "1000000", "--scheme", "pre", "--sigma", "1e100000", "--format", "csv"],
    ]:
        calls.append(Call("extreme", ["postnorm-decay", *combo]))
    for combo in [
        ["--low", "-1e100000", "--high", "1e100000"],
        ["--low", "1e309", "--high", "inf"],
        ["--low", "-1e-100000", "--high", "1e-100000"],
        ["--mean", "1e100000", "--std", "1e-100000"],
        ["--target-std", "1e-100000"],
        ["--low", "1e100000", "--high", "inf", "--digits", "1000"],
    ]:
        calls.append(Call("extreme", ["truncnorm", *combo]))
    sizes = ["--s", "--n", "--d", "--e"]
    for size in sizes:
        calls.append(Call("extreme", ["gau-scale", "--simulate", size, "4096"]))
    calls.append(Call("extreme", ["gau-scale", "--simulate", *[a for s in sizes for a in (s, "4096")]]))
    calls.append(Call("extreme", ["gau-scale", "--simulate", "--trials", "1000", "--n", "1024"]))
    calls.append(Call("extreme", ["attention", "--seq-len", "100000", "--trials", "100000"]))
    calls.append(Call("extreme", ["attention", "--seq-len", "1" + "0" * 9, "--d", "1" + "0" * 9]))
    for command in COMPUTING:
        calls.append(Call("derive", _base(command) + ["--derive"]))
        calls.append(Call("derive", _base(command) + ["--derive", "--digits", "100"]))
    return calls


def _digits_calls(rng: random.Random) -> list[Call]:
    calls = []
    for command in COMPUTING:
        for value in DIGITS:
            expect = "ok" if value in ("998", "999", "1000") and command in ("gau-scale",) else None
            calls.append(Call("digits", _base(command) + ["--digits", value], expect=expect))
    calls.append(
        Call("digits", ["init", "--fan-in", "768", "--scheme", "he", "--digits", "1000"], expect="ok")
    )
    calls.append(
        Call(
            "digits",
            ["init", "--fan-in", "768", "--scheme", "he", "--activation", "gelu", "--digits", "1000"],
            expect="ok",
        )
    )
    calls.append(Call("digits", ["gau-scale", "--activation", "relu", "--digits", "1000"], expect="ok"))
    return calls


def _text_calls(rng: random.Random) -> list[Call]:
    calls = []
    text_options = [
        ("postnorm-decay", "--scheme"),
        ("init", "--scheme"),
        ("init", "--distribution"),
        ("truncnorm", "--format"),
        ("verify", "--only"),
        ("truncnorm", "--expect"),
        ("truncnorm", "--rtol"),
        ("init", "--activation"),
        ("gau-scale", "--activation"),
    ]
    for command, option in text_options:
        for value in TEXT_VALUES + ["gamma=[bold]1", "[bold]=1", "gamma=\x1b[31m1", "gamma=" + MANY]:
            args = _base(command) + [option, value]
            if option == "--rtol":
                args += ["--expect", "gamma=0.77"]
            calls.append(Call("text", args + rng.choice([[], ["--json"]])))
    for command in COMPUTING + ["activation-moment"]:
        calls.append(Call("text", _base(command) + ["--no-such-[bold]option"]))
        calls.append(Call("text", _base(command) + ["--\x1b[31m"]))
    calls.append(Call("text", ["no-such-[bold]command"]))
    calls.append(Call("text", ["\x1b[31m"]))
    return calls


def _output_calls(rng: random.Random) -> list[Call]:
    invocations = [
        ["truncnorm"],
        ["truncnorm", "--std", "0.5,1,2"],
        ["activation-moment", "gelu"],
        ["activation-moment", "x # note"],
        ["selu-solve"],
        ["postnorm-decay", "--layers", "6"],
        ["postnorm-decay", "--layers", "1000000"],
        ["gau-scale"],
        ["gau-scale", "--simulate"],
        ["init", "--fan-in", "768"],
        ["attention", "--seq-len", "64"],
        ["activations"],
        ["constants"],
        ["verify", "--only", "selu"],
        ["truncnorm", "--expect", "gamma=0.7737413"],
        ["truncnorm", "--json"],
        ["postnorm-decay", "--layers", "1000000", "--json"],
        ["postnorm-decay", "--layers", "100000", "--format", "csv"],
        ["truncnorm", "--derive"],
    ]
    calls = []
    for args in invocations:
        for env in OUTPUT_ENVS:
            calls.append(Call("output", list(args), env=env))
    return calls


def _random_calls(rng: random.Random, count: int) -> list[Call]:
    pool = HOSTILE_NUMBERS + HOSTILE_SWEEPS[:9] + ["0", "1", "2", "0.5", "-1", "100"]
    calls = []
    for _ in range(count):
        command = rng.choice(COMPUTING)
        args = _base(command)
        for option in rng.sample(NUMERIC[command], k=min(len(NUMERIC[command]), rng.randint(1, 3))):
            args += NEEDS.get((command, option), []) + [option, rng.choice(pool)]
        if rng.random() < 0.2:
            args += ["--digits", rng.choice(["5", "50", "200"])]
        if rng.random() < 0.3:
            args += rng.choice([["--json"], ["--format", "csv"], ["--expect", "x=1.000"]])
        env = rng.choice(OUTPUT_ENVS) if rng.random() < 0.1 else "plain"
        calls.append(Call("random", args, env=env))
    return calls


def all_calls(seed: int = SEED, random_count: int = 500) -> list[Call]:
    rng = random.Random(seed)
    calls = (
        _numeric_calls(rng)
        + _sweep_calls(rng)
        + _expression_calls(rng)
        + _extreme_calls(rng)
        + _digits_calls(rng)
        + _text_calls(rng)
        + _output_calls(rng)
        + _random_calls(rng, random_count)
    )
    return calls


def _environment(kind: str) -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTHONIOENCODING", None)
    env["COLUMNS"] = "100"
    env.pop("FORCE_COLOR", None)
    if kind == "ascii":
        env["PYTHONIOENCODING"] = "ascii"
    elif kind == "latin1":
        env["PYTHONIOENCODING"] = "latin-1"
    elif kind == "c_locale":
        env.update(LC_ALL="C", LANG="C", PYTHONUTF8="0", PYTHONCOERCECLOCALE="0")
    return env


def _cpu_seconds(pid: int) -> float:
    """User + system CPU time of a running process (Linux /proc; 0 elsewhere)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _cap_memory() -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def run(call: Call, executable: list[str]) -> dict:
    argv = executable + call.args
    env = _environment(call.env)
    start = time.monotonic()
    killed = False
    stdout_file = None
    read_end = None
    if call.env == "dev_full":
        stdout_file = open("/dev/full", "wb")
        stdout = stdout_file
    elif call.env in ("closed_pipe", "head"):
        stdout = subprocess.PIPE
    else:
        stdout_file = tempfile.TemporaryFile()
        stdout = stdout_file
    stderr_file = tempfile.TemporaryFile()
    proc = subprocess.Popen(
        argv,
        stdin=subprocess.DEVNULL,
        stdout=stdout,
        stderr=stderr_file,
        env=env,
        start_new_session=True,
        preexec_fn=_cap_memory,
    )
    if call.env == "closed_pipe":
        proc.stdout.close()  # nobody reads: the first write fails
    elif call.env == "head":
        read_end = proc.stdout

        def head() -> None:
            read_end.read(10)  # `| head -c 10`: read ten bytes, then close
            read_end.close()

        threading.Thread(target=head, daemon=True).start()
    # wait4 rather than wait: the child's CPU time says how slow a call is on a busy machine,
    # where the wall time also counts the other processes.
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        if time.monotonic() - start > WALL_LIMIT or _cpu_seconds(proc.pid) > CPU_LIMIT:
            killed = True
            os.killpg(proc.pid, signal.SIGKILL)
            pid, status, usage = os.wait4(proc.pid, 0)
            break
        time.sleep(0.01)
    code = proc.returncode = os.waitstatus_to_exitcode(status)
    wall = time.monotonic() - start
    stderr_file.seek(0)
    stderr = stderr_file.read().decode("utf-8", "replace")
    stderr_file.close()
    out = ""
    if stdout_file is not None and call.env != "dev_full":
        stdout_file.seek(0)
        out = stdout_file.read(200_000).decode("utf-8", "replace")
    if stdout_file is not None:
        stdout_file.close()
    return {
        "code": code,
        "killed": killed,
        "wall": round(wall, 3),
        "cpu": round(usage.ru_utime + usage.ru_stime, 3),
        "traceback": "Traceback" in stderr,
        "stderr_lines": stderr.count("\n") + (1 if stderr and not stderr.endswith("\n") else 0),
        "stderr_head": stderr[-400:] if "Traceback" in stderr else stderr[:300],
        "injected": any(m in out for m in INJECTION_MARKERS),
    }


def problems(call: Call) -> list[str]:
    """What is wrong with a finished call (empty when it kept the contract)."""
    r = call.record
    found = []
    code = r["code"]
    if r["killed"]:
        return ["killed"]
    if r["traceback"]:
        found.append("traceback")
    if r["injected"]:
        found.append("injection")
    if call.env in ("closed_pipe", "head"):
        reported = code in (2, 3) and r["stderr_lines"] == 1  # an input error still says so
        if not reported and (code not in (0, 141, -signal.SIGPIPE) or r["stderr_lines"]):
            found.append("closed_pipe")
        return found
    if call.env == "dev_full":
        if code in (0, 1) or r["stderr_lines"] != 1:
            found.append("dev_full")
        return found
    checking = "--expect" in call.args or call.args[0] == "verify"
    if code not in (0, 1, 2, 3) or (code == 1 and not checking):
        found.append(f"exit_{code}")
    if code in (2, 3) and (r["stderr_lines"] != 1 or not r["stderr_head"].startswith("momentcalc: error: ")):
        found.append("error_lines")
    if call.expect == "ok" and code != 0:
        found.append("expected_ok")
    if call.expect == "refused" and code != 2:
        found.append("expected_refused")
    if call.env in ("ascii", "latin1", "c_locale") and code not in (0, 1, 2, 3):
        found.append("encoding")
    return found


def summarize(finished: list[Call], header: str, out_path: str | None = None) -> None:
    """Print the figures and the worst offenders by problem (and write the records)."""
    by_problem: dict[str, list[Call]] = defaultdict(list)
    out = open(out_path, "w", encoding="utf-8") if out_path else None
    for call in finished:
        found = problems(call)
        for problem in found:
            by_problem[problem].append(call)
        if out:
            out.write(json.dumps({**asdict(call), "problems": found}) + "\n")
    if out:
        out.close()
    tracebacks = sum(c.record["traceback"] for c in finished)
    wrong = sum(1 for c in finished if any(p not in ("traceback", "killed") for p in problems(c)))
    slow = sum(1 for c in finished if c.record["wall"] > SLOW or c.record["killed"])
    slow_cpu = sum(1 for c in finished if c.record["cpu"] > SLOW)
    killed = sum(c.record["killed"] for c in finished)
    print(f"invocations: {len(finished)}  ({header})")
    print(f"tracebacks: {tracebacks}")
    print(f"wrong exit codes or output: {wrong}")
    print(
        f"calls over {SLOW:.0f} s: {slow} wall; over {SLOW:.0f} s of CPU: {slow_cpu}; killed (past "
        f"{CPU_LIMIT:.0f} s of CPU or {WALL_LIMIT:.0f} s wall): {killed}"
    )
    print("by class: " + ", ".join(f"{k}={v}" for k, v in sorted(Counter(c.cls for c in finished).items())))
    slowest = sorted(finished, key=lambda c: -c.record["wall"])[:25]
    by_problem["slow"] = [c for c in finished if c.record["wall"] > SLOW and not c.record["killed"]]
    print("\nslowest calls:")
    for call in slowest:
        shown = " ".join(repr(a) if (" " in a or not a.isprintable()) else a for a in call.args)
        print(
            f"  {call.record['wall']:6.1f}s wall {call.record['cpu']:6.1f}s CPU code={call.record['code']} "
            f"[{call.cls}/{call.env}] momentcalc {shown[:140]}"
        )
    for problem, bad in sorted(by_problem.items(), key=lambda kv: -len(kv[1])):
        print(f"\n{problem}: {len(bad)}")
        signatures: Counter = Counter()
        examples = {}
        for call in bad:
            last = call.record["stderr_head"].strip().splitlines()[-1:] or [""]
            key = (call.cls, last[0][:120])
            signatures[key] += 1
            examples.setdefault(key, call)
        for (cls, line), count in signatures.most_common(12):
            call = examples[(cls, line)]
            shown = " ".join(repr(a) if (" " in a or not a.isprintable()) else a for a in call.args)
            print(
                f"  {count:4d}  [{cls}/{call.env}] code={call.record['code']} {call.record['wall']}s "
                f"({call.record['cpu']}s CPU)  "
                f"momentcalc {shown[:160]}\n        {line!r}"
            )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--only", default=None, help="run only this class")
    parser.add_argument("--out", default="fuzz_cli.jsonl", help="one JSON record per call")
    parser.add_argument("--random", type=int, default=500, help="number of random combinations")
    parser.add_argument(
        "--rescore",
        default=None,
        metavar="JSONL",
        help="score an earlier run's records by the current rules (no calls made)",
    )
    parser.add_argument(
        "--replay",
        default=None,
        metavar="JSONL",
        help="run again only the calls of an earlier run that were killed or slow (wall or CPU "
        "over 5 s), keep its other records, and score the whole",
    )
    args = parser.parse_args()
    calls = all_calls(args.seed, args.random)
    if args.replay:
        expected = {(c.cls, tuple(c.args), c.env): c.expect for c in calls}
        with open(args.replay, encoding="utf-8") as records:
            old = [json.loads(line) for line in records]
        calls = [
            Call(
                r["cls"],
                r["args"],
                r["env"],
                expected.get((r["cls"], tuple(r["args"]), r["env"])),
                r["record"],
            )
            for r in old
        ]
        again = [c for c in calls if c.record["killed"] or c.record["wall"] > SLOW or c.record["cpu"] > SLOW]
        print(f"replaying {len(again)} of {len(calls)} calls", file=sys.stderr)
        executable = [sys.executable, "-m", "momentcalc"]
        with ThreadPoolExecutor(max_workers=args.jobs) as pool:
            results = list(pool.map(lambda c: run(c, executable), again))
        for call, record in zip(again, results):
            call.record = record
        summarize(
            calls,
            f"{args.replay} with its {len(again)} killed or slow calls run again, {args.jobs} jobs, "
            f"load average at the end {os.getloadavg()[0]:.1f}",
            args.out,
        )
        return 0
    if args.rescore:
        with open(args.rescore, encoding="utf-8") as records:
            old = [json.loads(line) for line in records]
        expected = {(c.cls, tuple(c.args), c.env): c.expect for c in calls}
        finished = [
            Call(
                r["cls"],
                r["args"],
                r["env"],
                expected.get((r["cls"], tuple(r["args"]), r["env"])),
                r["record"],
            )
            for r in old
        ]
        summarize(finished, f"rescored from {args.rescore}")
        return 0
    if args.only:
        calls = [c for c in calls if c.cls == args.only]
    if args.limit:
        calls = calls[: args.limit]
    executable = [sys.executable, "-m", "momentcalc"]
    started = time.monotonic()
    done = 0
    lock = threading.Lock()

    def work(call: Call) -> Call:
        nonlocal done
        call.record = run(call, executable)
        with lock:
            done += 1
            if done % 200 == 0:
                print(
                    f"  {done}/{len(calls)} calls, {time.monotonic() - started:.0f} s",
                    file=sys.stderr,
                    flush=True,
                )
        return call

    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        finished = list(pool.map(work, calls))
    elapsed = time.monotonic() - started
    try:
        load = os.getloadavg()[0]
    except OSError:
        load = float("nan")
    summarize(
        finished,
        f"seed {args.seed}, {args.jobs} jobs, {elapsed:.0f} s, load average at the end {load:.1f}",
        args.out,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
