#!/usr/bin/env python3
"""End-to-end performance checks of a2a-sim, with the targets they must meet.

    python3 scripts/bench.py            # everything (a few minutes on 2 cores)
    python3 scripts/bench.py --quick    # smaller inputs, fewer repeats
    A2A_SIM_BASELINE=/tmp/old/a2a-sim python3 scripts/bench.py   # also check against an older build

Builds the release binaries, generates seeded synthetic scenarios with `a2a-sim-gen` into
target/bench/, times whole commands (best of N wall-clock runs), and prints each figure with its
target and PASS/FAIL. Instruction counts come from valgrind's callgrind when it is installed.
Exit status 1 when a target is missed.
"""

import os
import re
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "target", "bench")
BIN = os.path.join(ROOT, "target", "release")
QUICK = "--quick" in sys.argv
REPEAT = 3 if QUICK else 5
results = []


def sh(*args, stdout=subprocess.DEVNULL, **kw):
    return subprocess.run(args, check=True, stdout=stdout, stderr=subprocess.PIPE, **kw)


def best(cmd, repeat=REPEAT):
    """Best wall-clock time of `cmd` over `repeat` runs, output discarded."""
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        sh(*cmd)
        times.append(time.perf_counter() - t)
    return min(times)


def peak_kb(cmd):
    """Peak resident memory of `cmd`, from GNU time."""
    r = subprocess.run(["/usr/bin/time", "-f", "%M", *cmd], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=True)
    return int(r.stderr.strip().splitlines()[-1])


def gen(name, *flags):
    path = os.path.join(OUT, name)
    if not os.path.exists(path):
        with open(path, "w") as f:
            sh(os.path.join(BIN, "a2a-sim-gen"), *flags, stdout=f)
    return path


def report(what, value, target, ok):
    results.append(ok)
    print(f"{'PASS' if ok else 'FAIL'}  {what}: {value}  (target: {target})", flush=True)


def with_handler_bugs(src, name, agents):
    """`src` with the handlers of its first `agents` agents ending in `working` instead of their
    terminal step: one `check` warning each."""
    path = os.path.join(OUT, name)
    if not os.path.exists(path):
        text = open(src).read()
        head, sep, steps = text.partition("\nsteps:\n")
        done = [0]

        def bug(m):
            done[0] += 1
            return "      - working" if done[0] <= agents else m.group(0)

        head = re.sub(r"      - (completed|failed|rejected)\b.*", bug, head)
        with open(path, "w") as f:
            f.write(head + sep + steps)
    return path


def sim(*args):
    return [os.path.join(BIN, "a2a-sim"), *args]


def main():
    os.makedirs(OUT, exist_ok=True)
    sh("cargo", "build", "--release", "--quiet", "--bins", "--examples", cwd=ROOT)
    print(f"machine: {os.cpu_count()} cores; best of {REPEAT} runs\n", flush=True)

    # 1. Core throughput: the common delegation path, engine only, one thread.
    n = 100_000
    out = sh(os.path.join(BIN, "examples", "delegations"), str(n), str(REPEAT * 4), stdout=subprocess.PIPE, text=True).stdout
    first, rate = (float(x) for x in re.findall(r"([0-9.]+) delegations/s", out))
    report(f"core throughput, {n:,} delegations a run, one thread", f"{rate:,.0f} delegations/s (first run, on fresh memory: {first:,.0f}/s)",
           ">= 2,000,000/s", rate >= 2_000_000)
    if shutil.which("valgrind"):
        counts = []
        for k in (10_000, 20_000):
            r = subprocess.run(
                ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", "--toggle-collect=a2a_sim_engine::world::drive",
                 os.path.join(BIN, "examples", "delegations"), str(k)],
                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=True)
            counts.append(int(re.search(r"Collected : (\d+)", r.stderr).group(1)))
        per = (counts[1] - counts[0]) / 10_000
        print(f"info  instructions per delegation (callgrind, world::drive only: the steps and the scheduler): {per:,.0f}", flush=True)

    # 2. End to end: run --format json costs at most 2x check on 100,000 steps over 200 agents.
    steps = 20_000 if QUICK else 100_000
    big = gen(f"gen-{steps}.yaml", "--seed", "1", "--agents", "200", "--steps", str(steps))
    check = best(sim("check", big))
    run = best(sim("run", "--format", "json", big))
    report(f"run/check on {steps:,} steps, 200 agents", f"{run:.3f}s / {check:.3f}s = {run / check:.2f}x", "<= 2x", run <= 2 * check)
    mb = os.path.getsize(big) / 1e6
    report(f"check throughput on {steps:,} steps ({mb:.1f} MB of YAML)", f"{mb / check:.1f} MB/s", ">= 50 MB/s", mb / check >= 50)

    # 2c. check keeps its throughput however many findings a file has: the same
    # file with a handler bug in many agents (each handler loses its terminal step), every warning
    # located and printed.
    buggy = with_handler_bugs(big, f"gen-{steps}-warnings.yaml", 150)
    r = subprocess.run(sim("check", buggy), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    warnings = r.stderr.count(": warning")
    warned = best(sim("check", buggy))
    mb = os.path.getsize(buggy) / 1e6
    report(f"check throughput on {steps:,} steps with {warnings} warnings ({mb:.1f} MB of YAML)", f"{mb / warned:.1f} MB/s",
           ">= 50 MB/s", mb / warned >= 50 and warnings >= 100)

    # Where run --format json spends its instructions after the YAML is read: building the engine's
    # scenario, the engine, the report (callgrind on 10,000 steps; info, not a target).
    if shutil.which("valgrind"):
        f = gen("gen-10000.yaml", "--seed", "1", "--agents", "200", "--steps", "10000")
        parts = {}
        for name, fn in (("all", None), ("loader", "a2a_sim_scenario::loader::Loader::scenario"),
                         ("engine", "a2a_sim_engine::world::drive"), ("report", "a2a_sim_output::report::json::write*")):
            toggle = [f"--toggle-collect={fn}"] if fn else []
            r = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *toggle, *sim("run", "--format", "json", f)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=True)
            parts[name] = int(re.search(r"Collected : (\d+)", r.stderr).group(1))
        print("info  instructions of run --format json on 10,000 steps (callgrind): "
              + ", ".join(f"{k} {v / 1e6:,.0f}M" for k, v in parts.items()), flush=True)

    # 2a. Against the naive reference model (scripts/baseline_model.py: PyYAML's C loader, dicts,
    # json.dump) on the same file: run --format json takes at most 1/100 of its time. The model
    # takes tens of seconds, so it runs once (--quick: on the smaller file, once as well).
    model = os.path.join(ROOT, "scripts", "baseline_model.py")
    t = time.perf_counter()
    sh(sys.executable, model, big)
    slow = time.perf_counter() - t
    report(f"run --format json against the Python reference model on {steps:,} steps", f"{run:.3f}s vs {slow:.1f}s = 1/{slow / run:.0f}",
           "<= 1/100", run * 100 <= slow)

    # 2b. check's laundering finder and look-alike ids cost at most 1.5x the check of
    # before: with A2A_SIM_BASELINE=path/to/an/older/a2a-sim, both on the same 200-agent files.
    baseline = os.environ.get("A2A_SIM_BASELINE")
    if baseline:
        for n in (1_000, steps):
            f = gen(f"gen-{n}.yaml", "--seed", "1", "--agents", "200", "--steps", str(n))
            before = best([baseline, "check", f], REPEAT * 2)
            after = best(sim("check", f), REPEAT * 2)
            report(f"check on {n:,} steps, 200 agents, against the baseline", f"{after:.3f}s / {before:.3f}s = {after / before:.2f}x",
                   "<= 1.5x", after <= 1.5 * before)

    # 3. Linear histories: 10x the status changes of one task costs at most 12x, end to end.
    h = 2_000 if QUICK else 10_000
    small = gen(f"history-{h}.yaml", "--seed", "1", "--history", str(h))
    large = gen(f"history-{h * 10}.yaml", "--seed", "1", "--history", str(h * 10))
    t1 = best(sim("run", "--format", "json", small))
    t10 = best(sim("run", "--format", "json", large))
    report(f"history {h:,} -> {h * 10:,} status changes", f"{t1:.3f}s -> {t10:.3f}s = {t10 / t1:.1f}x", "<= 12x", t10 <= 12 * t1)

    # 5. Corpora: 1,000 scenarios of about 50 steps, --jobs 2 against --jobs 1.
    files = 300 if QUICK else 1_000
    corpus = os.path.join(OUT, f"corpus-{files}")
    if not os.path.isdir(corpus):
        os.makedirs(corpus)
        for i in range(files):
            with open(os.path.join(corpus, f"s{i:04}.yaml"), "w") as f:
                sh(os.path.join(BIN, "a2a-sim-gen"), "--seed", str(i + 1), "--agents", "20", "--steps", "50", stdout=f)
    for cmd in (["run", "--format", "json"], ["check"]):
        one = best(sim(*cmd, "--jobs", "1", corpus) if cmd[0] == "run" else sim(*cmd, corpus, "--jobs", "1"))
        two = best(sim(*cmd, "--jobs", "2", corpus) if cmd[0] == "run" else sim(*cmd, corpus, "--jobs", "2"))
        report(f"{cmd[0]} over {files:,} scenarios, 1 -> 2 jobs", f"{one:.3f}s -> {two:.3f}s = {one / two:.2f}x faster",
               ">= 1.7x", one / two >= 1.7)

    # 6. Memory: peak RSS grows linearly with the scenario (half, full and double the steps), and
    # stays within 64 MiB on the 100,000-step file.
    half = gen(f"gen-{steps // 2}.yaml", "--seed", "1", "--agents", "200", "--steps", str(steps // 2))
    double = gen(f"gen-{steps * 2}.yaml", "--seed", "1", "--agents", "200", "--steps", str(steps * 2))
    m_half = peak_kb(sim("run", "--format", "json", half))
    m_full = peak_kb(sim("run", "--format", "json", big))
    m_double = peak_kb(sim("run", "--format", "json", double))
    per_100k = m_full / steps * 100_000 / 1024
    report(f"peak memory, {steps // 2:,} -> {steps:,} -> {steps * 2:,} steps",
           f"{m_half / 1024:.0f} MiB -> {m_full / 1024:.0f} MiB -> {m_double / 1024:.0f} MiB ({m_full / m_half:.2f}x, {m_double / m_full:.2f}x); {per_100k:.0f} MiB per 100,000 steps",
           "about 2x each (linear)", m_full / m_half <= 2.3 and m_double / m_full <= 2.3)
    if not QUICK:
        report(f"peak memory of run --format json on {steps:,} steps", f"{m_full / 1024:.0f} MiB", "<= 64 MiB", m_full <= 64 * 1024)
    # check's peak, for comparison: loading and check's walks alone (run skips the walks).
    c_half, c_full, c_double = (peak_kb(sim("check", f)) for f in (half, big, double))
    print(f"info  peak memory of check, {steps // 2:,} -> {steps:,} -> {steps * 2:,} steps: "
          f"{c_half / 1024:.0f} MiB -> {c_full / 1024:.0f} MiB -> {c_double / 1024:.0f} MiB", flush=True)

    # The peer, for scale (not a target): the official A2A Python SDK on the same path.
    venv_python = os.path.join(ROOT, "target", "conformance-venv", "bin", "python")
    if os.path.exists(venv_python):
        out = subprocess.run([venv_python, os.path.join(ROOT, "scripts", "sdk_baseline.py"), "2000"],
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True).stdout.strip()
        print(f"info  peer: {out}", flush=True)

    print(f"\n{sum(results)} passed, {len(results) - sum(results)} failed")
    print("discovery (4.) and the engine benches: cargo bench --bench engine")
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
