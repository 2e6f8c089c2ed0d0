#!/usr/bin/env python3
"""Throughput of `a2a-sim serve` (JSON-RPC SendMessage over loopback) against the SDK's server.

    target/real-agent-venv/bin/python scripts/bench_serve_throughput.py
    target/real-agent-venv/bin/python scripts/bench_serve_throughput.py --duration 10 \
        --concurrency 1,4,16,64
    target/real-agent-venv/bin/python scripts/bench_serve_throughput.py --only a2a-sim  # no SDK

Run it from anywhere with the Python of target/real-agent-venv (the official a2a-sdk 1.3.0,
uvicorn, starlette; examples/real-agent/smoke.sh creates it); without the SDK only --only a2a-sim
works. Without --bin it uses target/release/a2a-sim (`cargo build --release` first when missing).
Linux only (epoll, /proc).

What it measures, on this machine. Every row is a fresh server, driven for --warmup seconds
unmeasured and then --duration seconds measured, by N concurrent keep-alive HTTP/1.1 connections
(--concurrency, default 1, 4 and 16). Each connection sends its next request as soon as the
previous answer is read (a closed loop: N requests in flight at most). Every request is a JSON-RPC
2.0 `SendMessage` (A2A 1.0, header `A2A-Version: 1.0`), every answer is checked.

 1. a2a-sim, payment-decision (the gated rows): `a2a-sim serve scenarios/payment-decision.yaml
    --listen 127.0.0.1:0 --ready-file F --tick-ms 0`, requests to /agents/payments-agent/ as the
    scenario caller (header `X-A2A-Sim-Caller: orchestrator`). No agent of that scenario completes
    a task on one message: the sanctions screener needs the scope `sanctions:screen`, which only
    the payments agent holds (the orchestrator is refused, `admission denied: scope`), and it asks
    for the beneficiary (input-required) before it screens. So each connection plays the
    scenario's PMT-772 path over and over, two SendMessages per payment:
      a. a new payment order -> the payments agent delegates to the screener, whose question is
         escalated: the answer must be the payments agent's task in TASK_STATE_INPUT_REQUIRED;
      b. the reply "Nordwind Logistik GmbH, Hamburg, DE" to that task -> it travels down to the
         screener, which screens clear, and the payment is released: the answer must be the task
         TASK_STATE_COMPLETED with the artifact `payment-release` ({"released": true}).
    Both are counted as requests; payments/s is half of requests/s.
 2. a2a-sim, trivial handler: `a2a-sim serve scripts/bench-serve.yaml` (the file of
    scripts/bench-serve.sh: agent `echo` goes working, then completed), one SendMessage per task,
    caller `load`. The same work per request as the SDK rows, for a like-for-like comparison.
 3. a2a-sdk: the official Python SDK's server on the same machine: this script started again as
    `--serve-sdk`, a minimal A2A 1.0 agent (DefaultRequestHandler, InMemoryTaskStore, an
    AgentExecutor that enqueues the submitted task and at once adds one text artifact and
    completes it, the card routes and the JSON-RPC routes at `/` on Starlette) under uvicorn, one
    process, as installed (uvicorn picks uvloop/httptools only if they are installed; the SDK's
    OpenTelemetry spans are on, as installed); access log off. One SendMessage per task, which
    must come back TASK_STATE_COMPLETED with the artifact.

The client is one thread, one epoll loop over the N raw sockets (TCP_NODELAY), each request a
small JSON body and a fixed header template (a counter makes each messageId unique), written with
one send; answers framed by Content-Length and
checked by a byte search for the expected state (plus a full JSON parse and check of the first,
every 500th and the last answer of each connection). Latency is from just before a request is
written until its whole answer has been read. Reported per row: requests/s (answers completed in
the measured window / its length), p50 and p99 latency, and CPU over the window in % of one core:
the server process (all its threads, /proc/PID/stat), the client (this process), and `other`: the
rest of the machine (/proc/stat busy time minus both), which shows whether other work shared the
cores. The load average is printed before and after.

Exit status: 0; 1 when a2a-sim's best requests/s on payment-decision (and on the trivial handler,
when measured) is below --target (5,000); 2 when something could not be measured (a server did
not start, an answer was wrong, a connection stalled: the message says what). Progress goes to
stderr, the table to stdout.

Every wait is bounded (server start 15 s, no answer at all for --stall seconds, drain 10 s); every
server started here is stopped in a `finally` (SIGINT/SIGTERM, then SIGKILL after 10 s).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import select
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from sdk_bench_agent import TEXT as SDK_TEXT  # what the SDK's agent answers

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_BIN = ROOT / "target" / "release" / "a2a-sim"
PAYMENT_SCENARIO = ROOT / "scenarios" / "payment-decision.yaml"
TRIVIAL_SCENARIO = ROOT / "scripts" / "bench-serve.yaml"
START_TIMEOUT_S = 15.0
STOP_TIMEOUT_S = 10.0
DRAIN_TIMEOUT_S = 10.0
FULL_CHECK_EVERY = 500


class BenchError(Exception):
    """Something could not be measured (exit status 2)."""


def log(msg: str) -> None:
    print(f"bench-serve-throughput: {msg}", file=sys.stderr, flush=True)


# ---- workloads: the requests one connection sends and the checks of the answers ----------------


def send_message_body(text: str, message_id: str, task_id: str | None = None) -> bytes:
    message: dict = {"messageId": message_id, "role": "ROLE_USER", "parts": [{"text": text}]}
    if task_id is not None:
        message["taskId"] = task_id
    return json.dumps(
        {"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"message": message}},
        separators=(",", ":"),
    ).encode()


def request_bytes(path: str, headers: str, body: bytes) -> bytes:
    return (
        f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        f"A2A-Version: 1.0\r\n{headers}Content-Length: {len(body)}\r\n\r\n"
    ).encode() + body


STATE_RE = re.compile(rb'"state":\s*"(TASK_STATE_[A-Z_]+)"')
TASK_ID_RE = re.compile(rb'"task":\s*\{\s*"id":\s*"([^"]+)"')


def answer_task(body: bytes) -> dict:
    """The task of a JSON-RPC SendMessage answer (full parse), else BenchError."""
    try:
        doc = json.loads(body)
    except ValueError as e:
        raise BenchError(f"an answer is not JSON ({e}): {body[:300]!r}") from e
    if "error" in doc:
        raise BenchError(f"a JSON-RPC error: {json.dumps(doc['error'])[:300]}")
    task = (doc.get("result") or {}).get("task")
    if not isinstance(task, dict):
        raise BenchError(f"the answer is not a task: {body[:300]!r}")
    return task


def artifact_texts(task: dict) -> list[str]:
    return [p.get("text", "") for a in task.get("artifacts", []) for p in a.get("parts", [])]


class Workload:
    """What one connection sends: `first()` the first request, `next(conn, body, full)` checks an
    answer and gives the next request. `full` asks for the full parse as well."""

    label = ""
    path = ""
    headers = ""

    def first(self, conn: "Conn") -> bytes:
        raise NotImplementedError

    def next(self, conn: "Conn", body: bytes, full: bool) -> bytes:
        raise NotImplementedError

    def state_of(self, body: bytes) -> bytes:
        m = STATE_RE.search(body)
        if m is None:
            raise BenchError(f"{self.label}: an answer without a task state: {body[:300]!r}")
        return m.group(1)


class OneShot(Workload):
    """A new task per request, which must come back completed."""

    def __init__(self, label: str, path: str, headers: str, text: str, artifact: str | None):
        self.label, self.path, self.headers = label, path, headers
        self.text, self.artifact = text, artifact
        self.counter = 0

    def first(self, conn: "Conn") -> bytes:
        self.counter += 1
        return request_bytes(
            self.path, self.headers, send_message_body(self.text, f"m-{self.counter}")
        )

    def next(self, conn: "Conn", body: bytes, full: bool) -> bytes:
        state = self.state_of(body)
        if state != b"TASK_STATE_COMPLETED":
            raise BenchError(
                f"{self.label}: a task ended {state.decode()}, not completed: {body[:300]!r}"
            )
        if full:
            task = answer_task(body)
            if task["status"]["state"] != "TASK_STATE_COMPLETED":
                raise BenchError(f"{self.label}: not completed: {body[:300]!r}")
            if self.artifact is not None and self.artifact not in artifact_texts(task):
                raise BenchError(f"{self.label}: no artifact {self.artifact!r}: {body[:300]!r}")
        return self.first(conn)


class PaymentReleased(Workload):
    """scenarios/payment-decision.yaml's PMT-772 path: a new payment (input-required, the
    screener's question escalated), then the beneficiary (completed, released)."""

    label = "a2a-sim payment-decision"
    path = "/agents/payments-agent/"
    headers = "X-A2A-Sim-Caller: orchestrator\r\n"
    BENEFICIARY = "Nordwind Logistik GmbH, Hamburg, DE"

    def __init__(self) -> None:
        self.counter = 0

    def first(self, conn: "Conn") -> bytes:
        self.counter += 1
        conn.phase = 0
        return request_bytes(
            self.path,
            self.headers,
            send_message_body(f"Pay PMT-{self.counter}: EUR 9,500", f"m-{self.counter}"),
        )

    def next(self, conn: "Conn", body: bytes, full: bool) -> bytes:
        state = self.state_of(body)
        if conn.phase == 0:
            if state != b"TASK_STATE_INPUT_REQUIRED":
                raise BenchError(
                    f"{self.label}: a new payment is {state.decode()}, not "
                    f"input-required: {body[:300]!r}"
                )
            m = TASK_ID_RE.search(body)
            if m is None:
                raise BenchError(f"{self.label}: no task id in {body[:300]!r}")
            task_id = m.group(1).decode()
            if full:
                task = answer_task(body)
                if task["id"] != task_id or task["status"]["state"] != "TASK_STATE_INPUT_REQUIRED":
                    raise BenchError(
                        f"{self.label}: the first answer is not as expected: {body[:300]!r}"
                    )
                question = task["status"].get("message", {}).get("parts", [{}])[0].get("text", "")
                if "Which beneficiary" not in question:
                    raise BenchError(f"{self.label}: not the screener's question: {question!r}")
            self.counter += 1
            conn.phase = 1
            return request_bytes(
                self.path,
                self.headers,
                send_message_body(self.BENEFICIARY, f"m-{self.counter}", task_id),
            )
        if state != b"TASK_STATE_COMPLETED" or b'"released":true' not in body:
            raise BenchError(f"{self.label}: a payment was not released: {body[:400]!r}")
        if full:
            task = answer_task(body)
            released = [
                p.get("data")
                for a in task.get("artifacts", [])
                if a.get("name") == "payment-release"
                for p in a.get("parts", [])
                if "data" in p
            ]
            if task["status"]["state"] != "TASK_STATE_COMPLETED" or released != [
                {"released": True, "review": "none"}
            ]:
                raise BenchError(
                    f"{self.label}: the payment's task is not as expected: {body[:400]!r}"
                )
        return self.first(conn)


# ---- the client: one thread, one epoll loop over raw keep-alive sockets ------------------------

CONTENT_LENGTH_RE = re.compile(rb"\r\ncontent-length:[ \t]*(\d+)", re.IGNORECASE)


@dataclass
class Conn:
    sock: socket.socket
    buf: bytearray = field(default_factory=bytearray)
    sent_at: float = 0.0
    phase: int = 0
    answers: int = 0
    done: bool = False


@dataclass
class Result:
    requests: int
    seconds: float
    latencies: list[float]
    client_cpu_s: float
    server_cpu_s: float
    machine_busy_s: float
    server_rss_mb: float

    @property
    def rps(self) -> float:
        return self.requests / self.seconds

    def pct(self, q: float) -> float:
        """Nearest-rank percentile, in ms."""
        if not self.latencies:
            return float("nan")
        s = sorted(self.latencies)
        k = max(0, min(len(s) - 1, int(round(q / 100 * len(s) + 0.5)) - 1))
        return s[k] * 1000


def proc_cpu_s(pid: int) -> float:
    """utime + stime of a process (all its threads), in seconds."""
    with open(f"/proc/{pid}/stat", "rb") as f:
        fields = f.read().rsplit(b")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def proc_rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def machine_busy_s() -> float:
    """CPU seconds all cores spent not idle (nor in iowait) since boot."""
    with open("/proc/stat") as f:
        vals = [int(v) for v in f.readline().split()[1:]]
    # user nice system idle iowait irq softirq steal (guest is already in user)
    busy = sum(vals[:8]) - vals[3] - vals[4]
    return busy / os.sysconf("SC_CLK_TCK")


def read_answer(conn: Conn) -> bytes | None:
    """One whole answer's body off the connection's buffer, or None when it is not all there."""
    buf = conn.buf
    head_end = buf.find(b"\r\n\r\n")
    if head_end < 0:
        return None
    head = bytes(buf[:head_end])
    if not head.startswith(b"HTTP/1.1 200 "):
        raise BenchError(f"an answer is not HTTP/1.1 200: {bytes(buf[:400])!r}")
    m = CONTENT_LENGTH_RE.search(head)
    if m is None:
        raise BenchError(f"an answer has no Content-Length (chunked?): {head!r}")
    if b"\r\nconnection: close" in head.lower():
        raise BenchError(f"the server closes the connection (no keep-alive): {head!r}")
    end = head_end + 4 + int(m.group(1))
    if len(buf) < end:
        return None
    body = bytes(buf[head_end + 4 : end])
    del buf[:end]
    return body


def drive(
    addr: tuple[str, int],
    workload: Workload,
    n: int,
    warmup: float,
    duration: float,
    stall: float,
    server_pid: int,
) -> Result:
    conns: dict[int, Conn] = {}
    ep = select.epoll()
    try:
        for _ in range(n):
            s = socket.create_connection(addr, timeout=5)
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            s.settimeout(None)  # blocking: recv is only called when epoll says it will not block
            conns[s.fileno()] = Conn(s)
            ep.register(s.fileno(), select.EPOLLIN)
        perf = time.perf_counter
        t0 = perf()
        t_start, t_end = t0 + warmup, t0 + warmup + duration
        start_marks: tuple[float, float, float, float] | None = None
        end_marks: tuple[float, float, float, float] | None = None

        def marks() -> tuple[float, float, float, float]:
            return perf(), time.process_time(), proc_cpu_s(server_pid), machine_busy_s()

        latencies: list[float] = []
        for c in conns.values():
            c.sent_at = perf()
            c.sock.sendall(workload.first(c))
        active = n
        last_answer = perf()
        while active:
            events = ep.poll(0.2)
            now = perf()
            if start_marks is None and now >= t_start:
                start_marks = marks()
            if end_marks is None and now >= t_end:
                end_marks = marks()
            if not events:
                if now - last_answer > stall:
                    raise BenchError(f"no answer for {stall:.0f} s ({active} requests in flight)")
                if now > t_end + DRAIN_TIMEOUT_S:
                    raise BenchError(
                        f"{active} answers still missing {DRAIN_TIMEOUT_S:.0f} s after the end"
                    )
                continue
            for fd, _ev in events:
                c = conns[fd]
                data = c.sock.recv(65536)
                if not data:
                    raise BenchError("the server closed a connection")
                c.buf += data
                while not c.done:
                    body = read_answer(c)
                    if body is None:
                        break
                    done_at = perf()
                    last_answer = done_at
                    c.answers += 1
                    in_window = t_start <= done_at < t_end
                    if in_window:
                        latencies.append(done_at - c.sent_at)
                    ending = done_at >= t_end
                    full = c.answers == 1 or c.answers % FULL_CHECK_EVERY == 0 or ending
                    nxt = workload.next(c, body, full)
                    if ending:
                        c.done = True
                        active -= 1
                        ep.unregister(fd)
                    else:
                        c.sent_at = perf()
                        c.sock.sendall(nxt)
        # (the loop wakes at least every 0.2 s, so both marks are taken close to their times)
        w0, c0, s0, m0 = start_marks or marks()
        w1, c1, s1, m1 = end_marks or marks()
        return Result(
            requests=len(latencies),
            seconds=duration,
            latencies=latencies,
            client_cpu_s=(c1 - c0) * duration / max(w1 - w0, 1e-9),
            server_cpu_s=(s1 - s0) * duration / max(w1 - w0, 1e-9),
            machine_busy_s=(m1 - m0) * duration / max(w1 - w0, 1e-9),
            server_rss_mb=proc_rss_mb(server_pid),
        )
    finally:
        ep.close()
        for c in conns.values():
            c.sock.close()


# ---- the servers -------------------------------------------------------------------------------


def wait_ready(proc: subprocess.Popen, ready: Path, stderr: Path, what: str) -> tuple[str, int]:
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if ready.exists():
            text = ready.read_text().strip()
            if text:
                host, _, port = text.splitlines()[0].rpartition(":")
                return host, int(port)
        if proc.poll() is not None:
            raise BenchError(
                f"{what} exited ({proc.returncode}) before it was ready: "
                f"{stderr.read_text()[-2000:]}"
            )
        time.sleep(0.02)
    raise BenchError(f"{what} wrote no ready file within {START_TIMEOUT_S:.0f} s")


def stop(proc: subprocess.Popen, sig: int) -> None:
    if proc.poll() is not None:
        return
    try:
        proc.send_signal(sig)
        proc.wait(STOP_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        log(f"pid {proc.pid} did not stop within {STOP_TIMEOUT_S:.0f} s: SIGKILL")
        proc.kill()
        proc.wait(STOP_TIMEOUT_S)


@dataclass
class Server:
    name: str
    argv: list[str]
    stop_signal: int
    workload: callable  # () -> Workload
    gated: bool


def measure(server: Server, n: int, args: argparse.Namespace, tmp: Path) -> Result:
    run_dir = Path(tempfile.mkdtemp(dir=tmp))
    ready, stderr_path = run_dir / "ready", run_dir / "stderr"
    argv = [a.replace("{READY}", str(ready)) for a in server.argv]
    with open(stderr_path, "wb") as err:
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=err, stderr=err, cwd=ROOT)
    try:
        addr = wait_ready(proc, ready, stderr_path, server.name)
        return drive(addr, server.workload(), n, args.warmup, args.duration, args.stall, proc.pid)
    finally:
        stop(proc, server.stop_signal)


# ---- the SDK server (this script with --serve-sdk) ---------------------------------------------


def serve_sdk(ready_file: str) -> int:
    import asyncio

    import uvicorn
    from starlette.applications import Starlette

    from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes

    from sdk_bench_agent import done_agent

    # proto IPPROTO_TCP, as the sockets asyncio's create_server(host, port) makes: asyncio sets
    # TCP_NODELAY only on connections of such a socket. With proto 0 (socket.socket's default)
    # Nagle holds the body uvicorn writes after the head until the client's delayed ACK (~40 ms).
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(2048)
    port = sock.getsockname()[1]
    card, handler = done_agent(f"http://127.0.0.1:{port}/", "JSONRPC")
    app = Starlette(
        routes=create_agent_card_routes(card) + create_jsonrpc_routes(handler, rpc_url="/")
    )
    server = uvicorn.Server(
        uvicorn.Config(app, log_level="warning", access_log=False, timeout_graceful_shutdown=5)
    )

    async def main() -> None:
        serving = asyncio.create_task(server.serve(sockets=[sock]))
        while not server.started and not serving.done():
            await asyncio.sleep(0.01)
        if server.started:
            tmp = ready_file + ".tmp"
            with open(tmp, "w") as f:
                f.write(f"127.0.0.1:{port}\n")
            os.replace(tmp, ready_file)
        await serving

    # uvicorn handles SIGINT/SIGTERM while it serves, then raises the signal again: ignore that
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: None)
    asyncio.run(main())
    return 0


# ---- main --------------------------------------------------------------------------------------


def load_text() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f}, {five:.2f}, {fifteen:.2f}"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument(
        "--bin", type=Path, default=None, help="the a2a-sim binary (default target/release/a2a-sim)"
    )
    p.add_argument(
        "--concurrency", default="1,4,16", help="connections, comma-separated (default 1,4,16)"
    )
    p.add_argument(
        "--duration", type=float, default=5.0, help="measured seconds per row (default 5)"
    )
    p.add_argument("--warmup", type=float, default=1.0, help="unmeasured seconds first (default 1)")
    p.add_argument(
        "--stall", type=float, default=10.0, help="fail after this long without an answer"
    )
    p.add_argument("--target", type=float, default=5000.0, help="a2a-sim's requests/s target")
    p.add_argument("--only", choices=["a2a-sim", "sdk"], help="measure one side only")
    p.add_argument(
        "--no-trivial", action="store_true", help="skip the a2a-sim trivial-handler rows"
    )
    p.add_argument("--serve-sdk", metavar="READY_FILE", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.serve_sdk:
        return serve_sdk(args.serve_sdk)
    try:
        levels = [int(x) for x in args.concurrency.split(",") if x.strip()]
    except ValueError:
        p.error("--concurrency: give numbers, e.g. 1,4,16")
    if not levels or min(levels) < 1 or args.duration <= 0 or args.warmup < 0:
        p.error("give connections >= 1, --duration > 0, --warmup >= 0")

    binary = args.bin or DEFAULT_BIN
    if args.only != "sdk" and args.bin is None and not binary.exists():
        log("target/release/a2a-sim is missing: cargo build --release")
        subprocess.run(
            ["cargo", "build", "--release", "--quiet"], cwd=ROOT, check=True, timeout=1800
        )
    sim_argv = [
        str(binary),
        "serve",
        "{SCENARIO}",
        "--listen",
        "127.0.0.1:0",
        "--ready-file",
        "{READY}",
        "--tick-ms",
        "0",
    ]
    servers: list[Server] = []
    if args.only != "sdk":
        servers.append(
            Server(
                "a2a-sim payment-decision",
                [a.replace("{SCENARIO}", str(PAYMENT_SCENARIO)) for a in sim_argv],
                signal.SIGINT,
                PaymentReleased,
                gated=True,
            )
        )
        if not args.no_trivial:
            servers.append(
                Server(
                    "a2a-sim trivial handler",
                    [a.replace("{SCENARIO}", str(TRIVIAL_SCENARIO)) for a in sim_argv],
                    signal.SIGINT,
                    lambda: OneShot(
                        "a2a-sim trivial handler",
                        "/agents/echo/",
                        "X-A2A-Sim-Caller: load\r\n",
                        "ping",
                        None,
                    ),
                    gated=True,
                )
            )
    if args.only != "a2a-sim":
        servers.append(
            Server(
                "a2a-sdk + uvicorn",
                [sys.executable, str(Path(__file__).resolve()), "--serve-sdk", "{READY}"],
                signal.SIGTERM,
                lambda: OneShot(
                    "a2a-sdk + uvicorn",
                    "/",
                    "X-A2A-Sim-Caller: orchestrator\r\n",
                    "Screen the beneficiary",
                    SDK_TEXT,
                ),
                gated=False,
            )
        )

    versions = []
    try:
        from importlib.metadata import version

        for pkg in ("a2a-sdk", "uvicorn", "starlette", "uvloop", "httptools"):
            try:
                versions.append(f"{pkg} {version(pkg)}")
            except Exception:  # noqa: BLE001
                versions.append(f"{pkg} not installed")
    except ImportError:
        pass
    log(f"{os.cpu_count()} CPUs; load average before: {load_text()}")
    log(f"a2a-sim: {binary}; {', '.join(versions)}")
    log(f"{args.warmup:g} s warm-up + {args.duration:g} s measured per row, a fresh server per row")

    rows: list[tuple[Server, int, Result]] = []
    with tempfile.TemporaryDirectory(prefix="a2a-bench-tput.") as tmp:
        try:
            for server in servers:
                for n in levels:
                    log(f"{server.name}, {n} connection(s)...")
                    r = measure(server, n, args, Path(tmp))
                    rows.append((server, n, r))
                    log(
                        f"  {r.rps:,.0f} requests/s, p50 {r.pct(50):.2f} ms, p99 {r.pct(99):.2f} ms"
                    )
        except BenchError as e:
            log(f"error: {e}")
            return 2
    load_after = load_text()

    secs = args.duration
    print()
    print(
        f"{'server':<26} {'conns':>5} {'requests/s':>11} {'p50 ms':>8} {'p99 ms':>8} "
        f"{'server CPU':>10} {'client CPU':>10} {'other CPU':>9} {'server RSS':>10}"
    )
    for server, n, r in rows:
        other = max(0.0, r.machine_busy_s - r.server_cpu_s - r.client_cpu_s)
        print(
            f"{server.name:<26} {n:>5} {r.rps:>11,.0f} {r.pct(50):>8.2f} {r.pct(99):>8.2f} "
            f"{100 * r.server_cpu_s / secs:>9.0f}% {100 * r.client_cpu_s / secs:>9.0f}% "
            f"{100 * other / secs:>8.0f}% {r.server_rss_mb:>7.0f} MB"
        )
    print(
        "(CPU in % of one core over the measured window; server RSS at the end of the row; "
        "payment-decision: 2 requests per payment)"
    )
    print(f"{os.cpu_count()} CPUs; load average after: {load_after}")

    status = 0
    for server in servers:
        if not server.gated:
            continue
        best = max(r.rps for s, _, r in rows if s is server)
        ok = best >= args.target
        print(
            f"{server.name}: best {best:,.0f} requests/s: "
            f"{'meets' if ok else 'BELOW'} the target of {args.target:,.0f}"
        )
        if not ok:
            status = 1
    sdk = [r.rps for s, _, r in rows if not s.gated]
    for name in ("a2a-sim trivial handler", "a2a-sim payment-decision"):
        sim = [r.rps for s, _, r in rows if s.name == name]
        if sdk and sim:
            print(f"{name} best / a2a-sdk best: {max(sim) / max(sdk):,.0f} x")
    return status


if __name__ == "__main__":
    sys.exit(main())
