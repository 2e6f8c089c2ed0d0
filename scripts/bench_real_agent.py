#!/usr/bin/env python3
"""What a2a-sim costs a real agent it drives: per-call latency over loopback, and whole runs.

    python3 scripts/bench_real_agent.py                  # everything (about 1.5 minutes on 2 cores)
    python3 scripts/bench_real_agent.py --quick          # fewer calls, 10 explore runs
    python3 scripts/bench_real_agent.py --bin PATH       # another a2a-sim build
    python3 scripts/bench_real_agent.py --calls 5000 --explore-runs 0   # latency only

Python 3 standard library only. Without --bin it uses target/release/a2a-sim (`cargo build
--release` first when it is missing). The end-to-end figures need the Python agent's virtualenv,
target/real-agent-venv (examples/real-agent/smoke.sh creates it; --venv DIR names another); it is
put first on PATH, since loan-desk-agent.yaml starts the agent as `python3 loan_agent.py`. Without
it those rows are skipped, saying so.

What it measures, on this machine:

 1. Per call (the requirement: "a2a-sim adds at most 1 ms per call over loopback on top of the
    agent's own time"). `a2a-sim serve examples/real-agent/loan.yaml --tick-ms 0` serves the
    scripted kyc and credit agents exactly as `a2a-sim run`/`test`/`explore` serve them to a real
    agent. One client (http.client, one keep-alive HTTP/1.1 connection, TCP_NODELAY) sends the
    JSON-RPC `SendMessage` loan-desk sends to kyc (under /as/loan-desk/agents/kyc/), --warmup times
    unmeasured and then --calls times, each timed from before the request is written to after the
    whole response is read; likewise the GET of kyc's agent card, which loan_agent.py fetches
    before every call. Reported: median / p90 / p99 / max in ms.

    The round trip is the figure, and it is an upper bound on what a2a-sim adds: a real agent
    spends its own time building the request and reading the answer (here, the client's), and
    everything between (reading the request, JSON parsing, admission, running kyc's handler to its
    end, rendering the task, the loopback both ways) is a2a-sim's. A Python HTTP server would not
    be a fair zero to subtract: it is slower than a2a-sim itself. For scale the script also gives
    the CPU time a2a-sim's process used per call (from /proc, Linux only) and the client's own.
    Check: median and p90 of SendMessage below 1 ms, else exit status 1.

 2. A real agent's own time, for comparison: loan_agent.py (official Python a2a-sdk) started
    against the same server, sent --apps loan applications with the same client; each makes 4
    calls to a2a-sim (the card and SendMessage of kyc, then of credit).

 3. End to end, wall clock: `a2a-sim test examples/real-agent/loan-desk.yaml` (start the Python
    agent, 3 applications, 5 calls to the scripted agents, stop it, compare with the golden file),
    best and median of --test-repeats; the agent's start-up alone (process start until its card
    answers) and shutdown (SIGTERM until it exits), as many times; and `a2a-sim explore --runs N --jobs J` on the same file
    once (every run starts the agent anew, and runs twice: explore checks that a run repeats
    byte for byte).

Exit status: 0; 1 when the per-call target is missed; 2 when something could not be measured
(the message says what). Progress goes to stderr, the table to stdout.

Every wait is bounded; every process started here is stopped in a `finally` (SIGTERM, then
SIGKILL), the commands of part 3 in a process group of their own so that no agent outlives them.
"""

import argparse
import http.client
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLE = os.path.join(ROOT, "examples", "real-agent")
LIMIT_MS = 1.0

KYC_BODY = json.dumps(
    {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "SendMessage",
        "params": {
            "message": {
                "messageId": "m1",
                "role": "ROLE_USER",
                "parts": [
                    {"text": "KYC check: Grace Hopper"},
                    {"data": {"applicant": "Grace Hopper"}},
                ],
            }
        },
    },
    separators=(",", ":"),
).encode()

LOAN_BODY = json.dumps(
    {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "SendMessage",
        "params": {
            "message": {
                "messageId": "m1",
                "role": "ROLE_USER",
                "parts": [
                    {"text": "Loan application: Grace Hopper, 20000"},
                    {"data": {"applicant": "Grace Hopper", "amount": 20000}},
                ],
            }
        },
    },
    separators=(",", ":"),
).encode()


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def fail(msg):
    log(f"bench_real_agent: {msg}")
    sys.exit(2)  # not 1: that says a target was missed


# ---------------------------------------------------------------- processes


def stop(proc, grace=5.0, group=False):
    """SIGTERM (SIGINT for serve, which writes no report here either way), then SIGKILL."""
    if proc is None or proc.poll() is not None:
        return
    try:
        if group:
            os.killpg(proc.pid, signal.SIGTERM)
        else:
            proc.terminate()
        proc.wait(timeout=grace)
    except (subprocess.TimeoutExpired, ProcessLookupError):
        pass
    if proc.poll() is None:
        try:
            if group:
                os.killpg(proc.pid, signal.SIGKILL)
            else:
                proc.kill()
        except ProcessLookupError:
            pass
        proc.wait(timeout=10)


def run_timed(cmd, timeout, env=None):
    """Runs CMD from the repository's root in a process group of its own; (seconds, rc, out, err).
    Past `timeout` the whole group (a2a-sim and the agents it started) is stopped."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        cmd,
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        stop(proc, group=True)
        raise RuntimeError(f"`{' '.join(cmd)}` took longer than {timeout} s")
    finally:
        stop(proc, group=True)
    took = time.perf_counter() - t0
    # a2a-sim stops the agents it started; should one have outlived it, it is in the group still
    # (a group's id is not reused while a member lives)
    try:
        os.killpg(proc.pid, signal.SIGKILL)
        log(f"NOTE: a process of `{' '.join(cmd)}` outlived it (killed)")
    except (ProcessLookupError, PermissionError):
        pass
    return took, proc.returncode, out, err


def wait_for(pred, timeout, what, proc=None):
    deadline = time.monotonic() + timeout
    while True:
        got = pred()
        if got:
            return got
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"{what}: the process exited ({proc.returncode})")
        if time.monotonic() > deadline:
            raise RuntimeError(f"{what}: not within {timeout} s")
        time.sleep(0.01)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def card_answers(port):
    def check():
        try:
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=1)
            c.request("GET", "/.well-known/agent-card.json")
            ok = c.getresponse().status == 200
            c.close()
            return ok
        except OSError:
            return False

    return check


class Serve:
    """`a2a-sim serve examples/real-agent/loan.yaml` on a free port, stopped on exit."""

    def __init__(self, binary, tmp):
        self.binary, self.tmp = binary, tmp
        self.proc = None

    def __enter__(self):
        ready = os.path.join(self.tmp, "serve.ready")
        if os.path.exists(ready):
            os.remove(ready)  # a previous server's address
        self.err = open(os.path.join(self.tmp, "serve.err"), "wb")
        self.proc = subprocess.Popen(
            [
                self.binary, "serve", os.path.join(EXAMPLE, "loan.yaml"),
                "--listen", "127.0.0.1:0", "--ready-file", ready, "--tick-ms", "0",
                "--idle-exit", "300",  # a bound should this script die without its finally
            ],
            stdout=subprocess.DEVNULL,
            stderr=self.err,
        )

        def addr():
            try:
                with open(ready) as f:
                    line = f.readline().strip()
                return line if line.endswith(tuple("0123456789")) else None
            except OSError:
                return None

        try:
            self.addr = wait_for(addr, 10, "a2a-sim serve getting ready", self.proc)
        except BaseException:
            self.__exit__()
            raise
        host, port = self.addr.rsplit(":", 1)
        self.host, self.port = host, int(port)
        return self

    def __exit__(self, *exc):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                pass
        stop(self.proc)
        self.err.close()

    def cpu_seconds(self):
        """CPU time (user + system) of the server process and all its threads; None off Linux."""
        pid = self.proc.pid
        try:
            # schedstat: nanoseconds on the CPU, per thread (finer than stat's clock ticks)
            total = 0
            for tid in os.listdir(f"/proc/{pid}/task"):
                with open(f"/proc/{pid}/task/{tid}/schedstat") as f:
                    total += int(f.read().split()[0])
            return total / 1e9
        except (OSError, ValueError, IndexError):
            pass
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        except (OSError, ValueError, IndexError):
            return None


# ---------------------------------------------------------------- measuring


def pct(sorted_xs, p):
    """The p-th percentile, nearest rank."""
    k = max(0, min(len(sorted_xs) - 1, int(round(p / 100 * len(sorted_xs) + 0.5)) - 1))
    return sorted_xs[k]


def summary(ms):
    xs = sorted(ms)
    return {
        "n": len(xs),
        "median": statistics.median(xs),
        "p90": pct(xs, 90),
        "p99": pct(xs, 99),
        "max": xs[-1],
    }


def timed_calls(host, port, method, path, body, n, warmup, check):
    """`n` requests on one keep-alive connection after `warmup` unmeasured ones; the round trips
    in ms, and how many times http.client had to open a connection (1 when kept alive)."""
    conn = http.client.HTTPConnection(host, port, timeout=10)
    conn.connect()
    conn.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock = conn.sock
    opened = 1
    # what an A2A 1.0 client sends (the a2a-sdk server refuses a request without the version)
    headers = {"A2A-Version": "1.0"}
    if body:
        headers["Content-Type"] = "application/json"
    out = []
    first = None
    try:
        for i in range(warmup + n):
            t0 = time.perf_counter_ns()
            conn.request(method, path, body=body, headers=headers)
            resp = conn.getresponse()
            data = resp.read()
            t1 = time.perf_counter_ns()
            if resp.status != 200:
                raise RuntimeError(f"{method} {path}: HTTP {resp.status}: {data[:300]!r}")
            if conn.sock is not sock:  # http.client reconnected: the server closed the connection
                opened += 1
                sock = conn.sock
                if sock is not None:
                    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            if first is None:
                first = data
                check(data)
            if i >= warmup:
                out.append((t1 - t0) / 1e6)
    finally:
        conn.close()
    return out, opened, first


def check_kyc(data):
    doc = json.loads(data)
    state = doc.get("result", {}).get("task", {}).get("status", {}).get("state")
    if state != "TASK_STATE_COMPLETED":
        raise RuntimeError(f"kyc did not complete the task: {data[:300]!r}")


def check_card(data):
    if "name" not in json.loads(data):
        raise RuntimeError(f"not an agent card: {data[:300]!r}")


def check_loan(data):
    doc = json.loads(data)
    task = doc.get("result", {}).get("task", {})
    if task.get("status", {}).get("state") != "TASK_STATE_COMPLETED":
        raise RuntimeError(f"loan-desk did not complete the application: {data[:400]!r}")


def per_call(binary, tmp, calls, warmup):
    rows = {}
    with Serve(binary, tmp) as s:
        prefix = "/as/loan-desk/agents/kyc/"
        cpu0 = s.cpu_seconds()
        c0 = time.process_time()
        ms, opened, _ = timed_calls(s.host, s.port, "POST", prefix, KYC_BODY, calls, warmup, check_kyc)
        client_cpu = time.process_time() - c0
        cpu1 = s.cpu_seconds()
        r = summary(ms)
        r["connections"] = opened
        r["server_cpu"] = None if cpu0 is None else (cpu1 - cpu0) / (calls + warmup) * 1e3
        r["client_cpu"] = client_cpu / (calls + warmup) * 1e3
        half = len(ms) // 2
        r["median_first_half"] = statistics.median(ms[:half])
        r["median_second_half"] = statistics.median(ms[half:])
        rows["send"] = r
        ms, opened, _ = timed_calls(
            s.host, s.port, "GET", prefix + ".well-known/agent-card.json", None, calls, warmup,
            check_card,
        )
        r = summary(ms)
        r["connections"] = opened
        rows["card"] = r
    return rows


def agent_env(venv):
    env = dict(os.environ)
    env["PATH"] = os.path.join(venv, "bin") + os.pathsep + env.get("PATH", "")
    env["PYTHONDONTWRITEBYTECODE"] = "1"  # leave no __pycache__ in the example folder
    return env


def start_agent(serve, env, tmp):
    port = free_port()
    env = dict(env)
    base = f"http://{serve.addr}/as/loan-desk/agents/"
    env["KYC_URL"], env["CREDIT_URL"] = base + "kyc/", base + "credit/"
    log_f = open(os.path.join(tmp, "agent.err"), "ab")
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        ["python3", "loan_agent.py", "--port", str(port)],
        cwd=EXAMPLE, env=env, stdout=subprocess.DEVNULL, stderr=log_f,
    )
    log_f.close()
    try:
        wait_for(card_answers(port), 30, "loan_agent.py serving its card", proc)
    except BaseException:
        stop(proc)
        raise
    return proc, port, time.perf_counter() - t0


def timed_stop(proc):
    """Seconds from SIGTERM to the agent's exit (as a2a-sim stops it)."""
    t0 = time.perf_counter()
    stop(proc, grace=10)
    return time.perf_counter() - t0


def real_agent(binary, tmp, env, apps, repeats):
    """The Python agent's start-up and shutdown (`repeats` of each) and its time per
    application."""
    startups, stops = [], []
    with Serve(binary, tmp) as s:
        for _ in range(repeats - 1):
            proc, _, took = start_agent(s, env, tmp)
            startups.append(took)
            stops.append(timed_stop(proc))
        proc, port, took = start_agent(s, env, tmp)
        startups.append(took)
        try:
            cpu0 = s.cpu_seconds()
            ms, _, _ = timed_calls("127.0.0.1", port, "POST", "/", LOAN_BODY, apps, 10, check_loan)
            cpu1 = s.cpu_seconds()
        finally:
            stops.append(timed_stop(proc))
    r = summary(ms)
    r["server_cpu"] = None if cpu0 is None else (cpu1 - cpu0) / (apps + 10) * 1e3
    return r, startups, stops


def end_to_end(binary, env, repeats, runs, jobs):
    out = {}
    test = [binary, "test", "examples/real-agent/loan-desk.yaml"]
    times = []
    for _ in range(repeats):
        took, rc, o, e = run_timed(test, 120, env)
        if rc != 0:
            raise RuntimeError(f"`{' '.join(test)}` exited {rc}:\n{o}{e}")
        times.append(took)
    out["test"] = times
    if runs > 0:
        cmd = [binary, "explore", "--runs", str(runs), "--jobs", str(jobs),
               "examples/real-agent/loan-desk.yaml"]
        log(f"  explore --runs {runs} --jobs {jobs} (about {runs * 0.85 / 60:.1f} min on 2 cores) ...")
        took, rc, o, e = run_timed(cmd, max(300, runs * 10), env)
        last = (o.strip().splitlines() or [""])[-1]
        out["explore"] = (took, rc, last)
    return out


# ---------------------------------------------------------------- main


def find_binary(arg):
    if arg:
        b = os.path.abspath(arg)
        if not os.access(b, os.X_OK):
            fail(f"{arg}: not an executable")
        return b
    target = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
    b = os.path.join(target, "release", "a2a-sim")
    if not os.access(b, os.X_OK):
        log("building the release binary (cargo build --release) ...")
        try:
            subprocess.run(["cargo", "build", "--release", "--quiet"], cwd=ROOT, check=True,
                           timeout=1800)
        except (subprocess.CalledProcessError, subprocess.TimeoutExpired, OSError) as e:
            fail(f"cargo build --release failed: {e}")
    return b


def fmt(x):
    return f"{x:.3f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", help="the a2a-sim binary (default target/release/a2a-sim)")
    ap.add_argument("--venv", default=os.path.join(ROOT, "target", "real-agent-venv"),
                    help="the virtualenv with the agent's pins (default target/real-agent-venv)")
    ap.add_argument("--calls", type=int, help="measured calls (default 2000)")
    ap.add_argument("--warmup", type=int, help="unmeasured calls first (default 200)")
    ap.add_argument("--apps", type=int, help="applications sent to the Python agent (default 100)")
    ap.add_argument("--test-repeats", type=int, help="runs of `a2a-sim test` (default 5)")
    ap.add_argument("--explore-runs", type=int,
                    help="`explore --runs` (default 100; 0 leaves explore out)")
    ap.add_argument("--jobs", type=int, default=2, help="`explore --jobs` (default 2)")
    ap.add_argument("--quick", action="store_true",
                    help="defaults of 500 calls, 30 applications, 3 test runs, 10 explore runs")
    a = ap.parse_args()
    defaults = (500, 50, 30, 3, 10) if a.quick else (2000, 200, 100, 5, 100)
    for name, value in zip(("calls", "warmup", "apps", "test_repeats", "explore_runs"), defaults):
        if getattr(a, name) is None:
            setattr(a, name, value)
    if a.calls < 10 or a.test_repeats < 1:
        fail("--calls must be at least 10, --test-repeats at least 1")

    binary = find_binary(a.bin)
    have_venv = os.access(os.path.join(a.venv, "bin", "python3"), os.X_OK)
    env = agent_env(a.venv)
    tmp = tempfile.mkdtemp(prefix="bench-real-agent-")
    try:
        log(f"per call: {a.warmup} + {a.calls} calls to kyc, then to its card ...")
        calls = per_call(binary, tmp, a.calls, a.warmup)
        agent = startups = stops = e2e = None
        if have_venv:
            log(f"the Python agent: start-up x{a.test_repeats}, {a.apps} applications ...")
            agent, startups, stops = real_agent(binary, tmp, env, a.apps, a.test_repeats)
            log(f"end to end: test x{a.test_repeats} ...")
            e2e = end_to_end(binary, env, a.test_repeats, a.explore_runs, a.jobs)
        else:
            log(f"no virtualenv at {a.venv} (examples/real-agent/smoke.sh makes it): "
                "the Python agent's rows are skipped")
    except RuntimeError as e:
        tail = ""
        for name in ("serve.err", "agent.err"):
            try:
                with open(os.path.join(tmp, name), errors="replace") as f:
                    text = f.read()[-2000:]
                if text.strip():
                    tail += f"\n--- the end of {name}:\n{text}"
            except OSError:
                pass
        fail(f"{e}{tail}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    cpu = os.cpu_count()
    try:
        load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        load = "?"
    print(f"a2a-sim real-agent benchmark — {binary}")
    print(f"machine: {cpu} cores, load average {load}")
    print()
    s, c = calls["send"], calls["card"]
    print(f"1. per call over loopback, one keep-alive connection ({s['n']} calls after "
          f"{a.warmup} warm-up; ms)")
    print(f"   {'request':<46} {'median':>7} {'p90':>7} {'p99':>7} {'max':>7}")
    for name, r in (("SendMessage to kyc (/as/loan-desk/agents/kyc/)", s),
                    ("GET kyc's agent card", c)):
        print(f"   {name:<46} {fmt(r['median']):>7} {fmt(r['p90']):>7} {fmt(r['p99']):>7} "
              f"{fmt(r['max']):>7}")
    if s["server_cpu"] is not None:
        print(f"   a2a-sim's CPU time per SendMessage: {fmt(s['server_cpu'])} ms; "
              f"the client's own: {fmt(s['client_cpu'])} ms")
    print(f"   median of the first / second half: {fmt(s['median_first_half'])} / "
          f"{fmt(s['median_second_half'])} ms (the server holds every task it made)")
    if s["connections"] != 1 or c["connections"] != 1:
        print(f"   NOTE: the server closed the connection: {s['connections']} / "
              f"{c['connections']} connections opened")
    ok = s["median"] < LIMIT_MS and s["p90"] < LIMIT_MS
    verdict = "PASS" if ok else "FAIL"
    print(f"   a2a-sim's time per call a real agent makes: {fmt(s['median'])} ms median, "
          f"{fmt(s['p90'])} ms p90 (target < {LIMIT_MS:g} ms): {verdict}")
    print()
    if agent is not None:
        print(f"2. the Python agent (loan_agent.py, a2a-sdk) against the same server, "
              f"{agent['n']} applications, 4 calls to a2a-sim each (ms)")
        print(f"   time per application: {fmt(agent['median'])} median, {fmt(agent['p90'])} p90, "
              f"{fmt(agent['p99'])} p99")
        ours = 2 * s["median"] + 2 * c["median"]
        print(f"   of which a2a-sim's 4 round trips (2 cards + 2 SendMessage, medians of 1.): "
              f"{fmt(ours)} ms, {ours / agent['median'] * 100:.1f} %")
        if agent["server_cpu"] is not None:
            print(f"   a2a-sim's CPU time per application: {fmt(agent['server_cpu'])} ms")
        print()
        print("3. end to end, wall clock (s)")
        t = e2e["test"]
        print(f"   a2a-sim test examples/real-agent/loan-desk.yaml     best {min(t):.3f}, "
              f"median {statistics.median(t):.3f} of {len(t)}")
        print(f"   the agent's start-up (process to card answering)  best {min(startups):.3f}, "
              f"median {statistics.median(startups):.3f} of {len(startups)}")
        print(f"   the agent's shutdown (SIGTERM to exit)            best {min(stops):.3f}, "
              f"median {statistics.median(stops):.3f} of {len(stops)}")
        if "explore" in e2e:
            took, rc, last = e2e["explore"]
            print(f"   a2a-sim explore --runs {a.explore_runs} --jobs {a.jobs} loan-desk.yaml"
                  f"   {took:.1f} ({took / a.explore_runs:.2f} per run; exit {rc}: {last})")
    else:
        print("2./3. skipped: no virtualenv for the Python agent")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
