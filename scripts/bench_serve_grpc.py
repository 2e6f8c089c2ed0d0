#!/usr/bin/env python3
"""Throughput of `a2a-sim serve --grpc-listen` (gRPC SendMessage over loopback), against the
official SDK's gRPC server.

    target/conformance-venv/bin/python scripts/bench_serve_grpc.py
    target/conformance-venv/bin/python scripts/bench_serve_grpc.py --duration 10 --concurrency 1,8,32
    target/conformance-venv/bin/python scripts/bench_serve_grpc.py --only a2a-sim

Run it from anywhere with a Python that has a2a-sdk 1.3.0 and grpcio (the pinned conformance
virtualenv: conformance/venv.sh makes it). Without --bin it uses target/release/a2a-sim (build it
first). Linux only (/proc for CPU).

What it measures. Every row is a fresh `a2a-sim serve scripts/bench-serve.yaml --listen
127.0.0.1:0 --grpc-listen 127.0.0.1:0 --tick-ms 0` (agent `echo`: working, then completed), and
one client process: grpcio's asyncio API, one channel (one HTTP/2 connection), N calls in flight
at once (--concurrency, default 1, 4 and 16), each sending the next `SendMessage` (tenant
`agents/echo`, metadata `x-a2a-sim-caller: load`) as soon as its answer is in. Every answer must
be a task in TASK_STATE_COMPLETED. --warmup seconds are not counted, then --duration seconds are.

The SDK rows: this script started again as `--serve-sdk READY`, a minimal agent on a2a-sdk 1.3.0
(DefaultRequestHandler, InMemoryTaskStore, an AgentExecutor that completes every task at once
with one text artifact) behind the SDK's GrpcHandler on a grpc.aio server, one process; the same
client and requests (no tenant: the SDK serves one agent a port).
Reported per row: requests/s, p50 and p99 latency, and the CPU of the server and of the client in
% of one core (/proc/PID/stat). The client is Python: when its CPU is near 100 % it, not the
server, is the limit, and the figure is a lower bound of what the server does.

Exit status 0; 2 when something could not be measured (the server did not start, an answer was
wrong). Every wait is bounded; the server is stopped in a `finally`.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
import json
from pathlib import Path

import grpc

from a2a.types import a2a_pb2_grpc
from a2a.types.a2a_pb2 import Message, Part, Role, SendMessageRequest, TaskState

ROOT = Path(__file__).resolve().parent.parent
TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def start(binary: str, work: Path, sdk: bool) -> tuple[subprocess.Popen, str]:
    ready = work / "ready"
    command = (
        [sys.executable, __file__, "--serve-sdk", str(ready)] if sdk else
        [binary, "serve", str(ROOT / "scripts/bench-serve.yaml"), "--listen", "127.0.0.1:0",
         "--grpc-listen", "127.0.0.1:0", "--ready-file", str(ready), "--tick-ms", "0"]
    )
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        if ready.exists() and ready.read_text().endswith("\n"):
            addr = ready.read_text().strip()
            if sdk:
                return proc, addr
            card = json.load(urllib.request.urlopen(
                f"http://{addr}/agents/echo/.well-known/agent-card.json", timeout=5))
            grpc_url = next(i["url"] for i in card["supportedInterfaces"] if i["protocolBinding"] == "GRPC")
            return proc, grpc_url
        time.sleep(0.05)
    proc.kill()
    raise SystemExit(2)


def serve_sdk(ready_file: str) -> int:
    from a2a.server.request_handlers import GrpcHandler

    from sdk_bench_agent import done_agent

    async def main() -> None:
        server = grpc.aio.server()
        port = server.add_insecure_port("127.0.0.1:0")
        _, handler = done_agent(f"127.0.0.1:{port}", "GRPC")
        a2a_pb2_grpc.add_A2AServiceServicer_to_server(GrpcHandler(handler), server)
        await server.start()
        tmp = ready_file + ".tmp"
        Path(tmp).write_text(f"127.0.0.1:{port}\n")
        os.replace(tmp, ready_file)
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        await stop.wait()
        await server.stop(1)

    asyncio.run(main())
    return 0


async def drive(url: str, concurrency: int, warmup: float, duration: float, tenant: str) -> tuple[int, list[float], float]:
    metadata = (("x-a2a-sim-caller", "load"),)
    counter = iter(range(1 << 62))
    latencies: list[float] = []
    done = 0
    async with grpc.aio.insecure_channel(url) as channel:
        stub = a2a_pb2_grpc.A2AServiceStub(channel)
        start = time.monotonic()
        measure_from = start + warmup
        end = measure_from + duration

        async def worker() -> None:
            nonlocal done
            while True:
                sent = time.monotonic()
                if sent >= end:
                    return
                request = SendMessageRequest(
                    tenant=tenant,
                    message=Message(message_id=f"b-{next(counter)}", role=Role.ROLE_USER,
                                    parts=[Part(text="ping")]),
                )
                answer = await stub.SendMessage(request, metadata=metadata, timeout=10)
                if answer.task.status.state != TaskState.TASK_STATE_COMPLETED:
                    print(f"a wrong answer: {answer}", file=sys.stderr)
                    raise SystemExit(2)
                got = time.monotonic()
                if sent >= measure_from and got <= end:
                    done += 1
                    latencies.append(got - sent)

        await asyncio.gather(*(worker() for _ in range(concurrency)))
    return done, latencies, duration


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--bin", default=str(ROOT / "target/release/a2a-sim"))
    p.add_argument("--concurrency", default="1,4,16")
    p.add_argument("--warmup", type=float, default=1.0)
    p.add_argument("--duration", type=float, default=5.0)
    p.add_argument("--only", choices=["a2a-sim", "a2a-sdk"])
    p.add_argument("--serve-sdk", metavar="READY", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.serve_sdk:
        return serve_sdk(args.serve_sdk)
    print("| server | calls in flight | requests/s | p50 | p99 | server CPU | client CPU |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    servers = [s for s in ("a2a-sim", "a2a-sdk") if args.only in (None, s)]
    for label, n in [(s, int(c)) for s in servers for c in args.concurrency.split(",")]:
        sdk = label == "a2a-sdk"
        work = Path(tempfile.mkdtemp(prefix="a2a-bench-grpc."))
        proc, url = start(args.bin, work, sdk)
        try:
            t0 = time.monotonic()
            s0, c0 = cpu_seconds(proc.pid), time.process_time()
            # CPU is over the whole row (warm-up too): the share, not the sum, is what counts.
            tenant = "" if sdk else "agents/echo"
            done, lat, window = asyncio.run(drive(url, n, args.warmup, args.duration, tenant))
            wall = time.monotonic() - t0
            s1, c1 = cpu_seconds(proc.pid), time.process_time()
        finally:
            proc.send_signal(signal.SIGINT)
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        lat.sort()
        pct = lambda q: lat[min(len(lat) - 1, int(q * len(lat)))] * 1000 if lat else float("nan")  # noqa: E731
        print(f"| {label} | {n} | **{done / window:,.0f}** | {pct(0.5):.2f} ms | {pct(0.99):.2f} ms "
              f"| {100 * (s1 - s0) / wall:.0f} % | {100 * (c1 - c0) / wall:.0f} % |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
