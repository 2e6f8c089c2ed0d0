"""`a2a-sim serve` driven from outside by the official a2a-sdk client.

    python conformance/serve/test_serve.py BIN [SCENARIO]

Starts `BIN serve SCENARIO` (default conformance/serve/payment-serve.yaml) on a free port, waits
for its --ready-file, and talks to it with a2a-sdk's own client (ClientFactory / BaseClient over
the JSON-RPC and the HTTP+JSON transports), parsing every answer with the SDK's types:

- the cards (A2ACardResolver), their interfaces naming the served address;
- PMT-771 over JSON-RPC: send (the screener's question escalated), a streamed reply (SSE: events
  in order, the payment's own task only, ending with the status update that holds it),
  a push config pointing at the loopback receiver below, get, the operator's release;
- PMT-772 over HTTP+JSON: the same path, the screener says `clear`, the payment is released at once;
- a denied request (orchestrator -> sanctions-screener lacks `sanctions:screen`): a protocol error
  naming the denial code, no task; another caller's task: TaskNotFound; cancel (and cancel again:
  TaskNotCancelable) on both bindings;
- the webhook receiver: a tiny HTTP server here that records every POST, checked for the token
  header and an A2A push payload (a StreamResponse) for the configured task.

Then SIGINT, and the report the server writes (--report) is compared with report.golden.json
beside this file after the two ports are replaced by placeholders (BLESS=1 rewrites the golden).
Exit status 1 on any failed check (each is printed with what was expected and what came), 0 when
all pass. Every wait is bounded (under 60 s in all); a passing run takes a few seconds.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx
from google.protobuf import json_format

from a2a.client import A2ACardResolver, ClientConfig, ClientFactory
from a2a.compat.v0_3.types import Task as LegacyTask
from a2a.types.a2a_pb2 import (
    CancelTaskRequest,
    DeleteTaskPushNotificationConfigRequest,
    GetTaskPushNotificationConfigRequest,
    GetTaskRequest,
    ListTaskPushNotificationConfigsRequest,
    ListTasksRequest,
    Message,
    Part,
    Role,
    SendMessageRequest,
    StreamResponse,
    SubscribeToTaskRequest,
    TaskPushNotificationConfig,
    TaskState,
)
from a2a.utils.errors import A2AError, TaskNotCancelableError, TaskNotFoundError

HERE = Path(__file__).resolve().parent
GOLDEN = HERE / "report.golden.json"
CALLER_HEADER = "X-A2A-Sim-Caller"
TOKEN_HEADER = "X-A2A-Notification-Token"
PUSH_TOKEN = "serve-test-push-token"
READY_TIMEOUT_S = 10
REQUEST_TIMEOUT_S = 10
PUSH_WAIT_S = 5
SESSION_TIMEOUT_S = 35  # with the ready wait and the 10 s shutdown wait: under 60 s in all

failures: list[str] = []


def check(ok: bool, what: str, detail: object = "") -> bool:
    """Records one check: printed as PASS or FAIL (with the detail), failures counted."""
    if ok:
        print(f"PASS {what}")
    else:
        failures.append(what)
        print(f"FAIL {what}" + (f": {detail}" if detail != "" else ""))
    return ok


def state_name(state: int) -> str:
    return TaskState.Name(state)


def text_of(message: Message) -> str:
    return " ".join(p.text for p in message.parts if p.text)


def data_of(parts) -> list[dict]:
    return [json_format.MessageToDict(p.data) for p in parts if p.HasField("data")]


# ---- the webhook receiver ---------------------------------------------------------------------


class Receiver:
    """A loopback HTTP server recording every POST (path, headers, body) in arrival order."""

    def __init__(self) -> None:
        self.posts: list[dict] = []
        self.deleted_paths: list[str] = []
        self.lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server's name)
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length)
                with receiver.lock:
                    receiver.posts.append(
                        {"path": self.path, "headers": {k.lower(): v for k, v in self.headers.items()}, "body": body}
                    )
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args) -> None:  # quiet
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def wait_for(self, pred, timeout: float) -> list[dict]:
        deadline = time.monotonic() + timeout
        while True:
            with self.lock:
                got = [p for p in self.posts if pred(p)]
            if got and pred_done(got):
                return got
            if time.monotonic() > deadline:
                return got
            time.sleep(0.05)

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def push_event(post: dict) -> StreamResponse | None:
    try:
        return json_format.Parse(post["body"], StreamResponse(), ignore_unknown_fields=True)
    except Exception:  # noqa: BLE001 (reported by the caller)
        return None


def event_state(ev: StreamResponse) -> int | None:
    if ev.HasField("task"):
        return ev.task.status.state
    if ev.HasField("status_update"):
        return ev.status_update.status.state
    return None


def event_task_id(ev: StreamResponse) -> str:
    if ev.HasField("task"):
        return ev.task.id
    if ev.HasField("status_update"):
        return ev.status_update.task_id
    if ev.HasField("artifact_update"):
        return ev.artifact_update.task_id
    return ev.message.task_id


# The states a stream ends at: terminal, or interrupted (the task waits on its caller).
ENDS_A_STREAM = {
    TaskState.TASK_STATE_COMPLETED,
    TaskState.TASK_STATE_FAILED,
    TaskState.TASK_STATE_CANCELED,
    TaskState.TASK_STATE_REJECTED,
    TaskState.TASK_STATE_INPUT_REQUIRED,
    TaskState.TASK_STATE_AUTH_REQUIRED,
}


def pred_done(posts: list[dict]) -> bool:
    """The push sequence for a task is complete once a terminal state arrived."""
    for p in posts:
        ev = push_event(p)
        if ev is not None and event_state(ev) == TaskState.TASK_STATE_COMPLETED:
            return True
    return False


# ---- the server -------------------------------------------------------------------------------


class Server:
    def __init__(self, bin_path: str, scenario: str, work: Path, extra: tuple[str, ...] = ()) -> None:
        self.ready = work / "ready"
        self.report = work / "report.json"
        self.stderr_path = work / "serve.stderr"
        self.cmd = [
            bin_path, "serve", scenario,
            "--listen", "127.0.0.1:0",
            "--ready-file", str(self.ready),
            "--report", str(self.report),
            "--allow-loopback-push",
            "--tick-ms", "1",
            "--idle-exit", "30",  # a safety net: the test stops it with SIGINT long before
            *extra,
        ]
        self.stderr = open(self.stderr_path, "wb")
        self.proc = subprocess.Popen(self.cmd, stdout=subprocess.DEVNULL, stderr=self.stderr)
        deadline = time.monotonic() + READY_TIMEOUT_S
        self.addr = None
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                break
            if self.ready.exists():
                text = self.ready.read_text()
                if text.endswith("\n"):
                    self.addr = text.strip()
                    break
            time.sleep(0.05)
        if self.addr is None:
            self.stop()
            raise SystemExit(
                f"serve did not write its ready file within {READY_TIMEOUT_S} s "
                f"(exit status {self.proc.returncode}); command: {' '.join(self.cmd)}\n"
                f"stderr: {self.stderr_path.read_text(errors='replace')}"
            )
        self.base = f"http://{self.addr}"
        self.port = self.addr.rsplit(":", 1)[1]

    def stop(self) -> int | None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
                check(False, "serve exits within 10 s of SIGINT", "killed")
        self.stderr.close()
        return self.proc.returncode


# ---- the SDK clients --------------------------------------------------------------------------


_message_ids = iter(range(1, 1_000_000))


def user_message(text: str, task_id: str = "", data: dict | None = None) -> Message:
    """A user message with a counted id (`client-msg-N`): ids may reach the report, which must
    be the same on every run."""
    parts = [Part(text=text)]
    if data is not None:
        part = Part()
        json_format.ParseDict(data, part.data)
        parts.append(part)
    return Message(message_id=f"client-msg-{next(_message_ids)}", role=Role.ROLE_USER, parts=parts, task_id=task_id)


class Session:
    """SDK clients of one caller on one binding (a plain one and a streaming one)."""

    def __init__(self, card, binding: str, caller: str) -> None:
        self.http = httpx.AsyncClient(
            headers={CALLER_HEADER: caller}, timeout=REQUEST_TIMEOUT_S
        )

        def make(streaming: bool):
            config = ClientConfig(
                streaming=streaming,
                httpx_client=self.http,
                supported_protocol_bindings=[binding],
                use_client_preference=True,
            )
            return ClientFactory(config).create(card)

        self.plain = make(False)
        self.streaming = make(True)

    async def send(self, message: Message):
        events = [ev async for ev in self.plain.send_message(SendMessageRequest(message=message))]
        return events

    async def stream(self, message: Message) -> list[StreamResponse]:
        return [
            ev async for ev in self.streaming.send_message(SendMessageRequest(message=message))
        ]

    async def close(self) -> None:
        await self.http.aclose()


async def _collect(stream) -> list[StreamResponse]:
    return [ev async for ev in stream]


def single_task(events, what: str):
    if not check(
        len(events) == 1 and events[0].HasField("task"),
        f"{what}: the answer is one Task",
        [json_format.MessageToDict(e) for e in events],
    ):
        return None
    return events[0].task


async def expect_error(coro, cls, what: str):
    try:
        got = await coro
    except cls as e:
        check(True, what)
        return e
    except Exception as e:  # noqa: BLE001
        check(False, what, f"{type(e).__name__}: {e}")
        return e
    check(False, what, f"no error; answer: {got}")
    return None


def check_stream(events: list[StreamResponse], task_id: str, what: str) -> None:
    """Events of one stream: at least one, every timestamp non-decreasing, and last (as the
    official servers end a stream) the status update that leaves the task terminal or
    interrupted."""
    check(bool(events), f"{what}: the stream has events")
    if not events:
        return
    stamps = []
    for ev in events:
        status = None
        if ev.HasField("task"):
            status = ev.task.status
        elif ev.HasField("status_update"):
            status = ev.status_update.status
        if status is not None and status.HasField("timestamp"):
            stamps.append(status.timestamp.ToDatetime())
    check(stamps == sorted(stamps), f"{what}: status timestamps in order", stamps)
    last = events[-1]
    check(
        last.HasField("status_update")
        and last.status_update.task_id == task_id
        and last.status_update.status.state in ENDS_A_STREAM,
        f"{what}: the final event is the status update that ends or pauses {task_id}",
        json_format.MessageToDict(last),
    )


def find_recommendation(events: list[StreamResponse]) -> tuple[int, str | None]:
    """Index and value of the first artifact update carrying data.recommendation."""
    for i, ev in enumerate(events):
        if ev.HasField("artifact_update"):
            for d in data_of(ev.artifact_update.artifact.parts):
                if isinstance(d, dict) and "recommendation" in d:
                    return i, d["recommendation"]
    return -1, None


def first_status(events, task_id: str, state: int, text: str) -> int:
    for i, ev in enumerate(events):
        st = None
        if ev.HasField("status_update") and ev.status_update.task_id == task_id:
            st = ev.status_update.status
        elif ev.HasField("task") and ev.task.id == task_id:
            st = ev.task.status
        if st is not None and st.state == state and text in text_of(st.message):
            return i
    return -1


# ---- the session ------------------------------------------------------------------------------


async def drive(server: Server, receiver: Receiver) -> None:
    base = server.base
    cards = {}
    async with httpx.AsyncClient(timeout=REQUEST_TIMEOUT_S) as http:
        for agent in ("payments-agent", "sanctions-screener"):
            resolver = A2ACardResolver(http, f"{base}/agents/{agent}")
            try:
                card = await resolver.get_agent_card()
            except Exception as e:  # noqa: BLE001
                check(False, f"card {agent}: fetched and parsed by the SDK", f"{type(e).__name__}: {e}")
                continue
            cards[agent] = card
            check(card.name == agent, f"card {agent}: its name", card.name)
            want = f"{base}/agents/{agent}"
            bindings = {i.protocol_binding: i.url for i in card.supported_interfaces}
            for binding in ("JSONRPC", "HTTP+JSON"):
                url = bindings.get(binding, "")
                check(
                    url.rstrip("/") == want,
                    f"card {agent}: its {binding} interface is the served address",
                    f"want {want}, interfaces {bindings}",
                )
    if len(cards) < 2:
        raise SystemExit("the cards could not be fetched: nothing else can be checked")
    pay, screener = cards["payments-agent"], cards["sanctions-screener"]

    # ---- JSON-RPC: PMT-771, Acme Trading FZE: held for review, then released ----
    rpc = Session(pay, "JSONRPC", "orchestrator")
    rpc_screener = Session(screener, "JSONRPC", "orchestrator")
    rpc_auditor = Session(pay, "JSONRPC", "auditor")
    rest = Session(pay, "HTTP+JSON", "orchestrator")
    rest_screener = Session(screener, "HTTP+JSON", "orchestrator")
    rest_auditor = Session(pay, "HTTP+JSON", "auditor")
    try:
        await payment(
            "jsonrpc", rpc, "Pay PMT-771: EUR 48,000", "Acme Trading FZE, Dubai, AE",
            "manual_review", receiver,
        )
        await http_refusals("jsonrpc", rpc, rpc_screener, rpc_auditor, server)
        await cancel("jsonrpc", rpc, "Pay PMT-773: EUR 1,200", receiver)
        await payment(
            "rest", rest, "Pay PMT-772: EUR 9,500", "Nordwind Logistik GmbH, Hamburg, DE",
            "clear", None,
        )
        await http_refusals("rest", rest, rest_screener, rest_auditor, server)
        await cancel("rest", rest, "Pay PMT-774: EUR 300", receiver)
    finally:
        for s in (rpc, rpc_screener, rpc_auditor, rest, rest_screener, rest_auditor):
            await s.close()


async def payment(tag, s: Session, order, beneficiary, recommendation, receiver) -> None:
    what = f"{tag} {order.split(':')[0]}"
    task = single_task(await s.send(user_message(order)), f"{what} send")
    if task is None:
        return
    s.last_task_id = task.id
    check(
        task.status.state == TaskState.TASK_STATE_INPUT_REQUIRED
        and "Which beneficiary" in text_of(task.status.message),
        f"{what} send: input-required with the screener's escalated question",
        f"{state_name(task.status.state)} {text_of(task.status.message)!r}",
    )

    if receiver is not None:
        cfg = TaskPushNotificationConfig(
            task_id=task.id, url=receiver.url(f"/hooks/{task.id}"), token=PUSH_TOKEN
        )
        try:
            got = await s.plain.create_task_push_notification_config(cfg)
            check(
                got.task_id == task.id and got.url == cfg.url,
                f"{what} push config: accepted for the loopback receiver",
                json_format.MessageToDict(got),
            )
        except Exception as e:  # noqa: BLE001
            check(False, f"{what} push config: accepted for the loopback receiver", f"{type(e).__name__}: {e}")

    # a subscription to the paused payment: as the official servers answer it, the task as it
    # stands, and the stream ends (an interrupted task waits on its caller, not on the server)
    subscription = s.streaming.subscribe(SubscribeToTaskRequest(id=task.id))
    first = None
    try:
        first = await asyncio.wait_for(subscription.__anext__(), REQUEST_TIMEOUT_S)
    except Exception as e:  # noqa: BLE001
        check(False, f"{what} subscribe: the task as it stands comes first", f"{type(e).__name__}: {e}")
    if first is not None:
        check(
            first.HasField("task") and first.task.id == task.id,
            f"{what} subscribe: the task as it stands comes first",
            json_format.MessageToDict(first),
        )

    # the streamed reply: the screener's recommendation, then the payments agent's decision
    try:
        events = await s.stream(user_message(beneficiary, task_id=task.id))
    except Exception as e:  # noqa: BLE001
        check(False, f"{what} stream: the reply streamed over SSE", f"{type(e).__name__}: {e}")
        events = []
    if first is not None:
        try:
            followed = await asyncio.wait_for(_collect(subscription), REQUEST_TIMEOUT_S)
        except Exception as e:  # noqa: BLE001
            followed = []
            check(False, f"{what} subscribe: the stream ends", f"{type(e).__name__}: {e}")
        check(
            followed == [],
            f"{what} subscribe: an interrupted task's stream ends after the task",
            [json_format.MessageToDict(e) for e in followed],
        )
    check_stream(events, task.id, f"{what} stream")
    if recommendation == "manual_review":
        decided_at = first_status(
            events, task.id, TaskState.TASK_STATE_INPUT_REQUIRED, "Held for manual review"
        )
        decision = "held for manual review"
    else:
        decided_at = first_status(events, task.id, TaskState.TASK_STATE_COMPLETED, "")
        decision = "released at once"
    check(
        decided_at >= 0,
        f"{what} stream: the payment's decision ({decision}) is in the stream",
        [json_format.MessageToDict(e) for e in events][:3],
    )
    working_at = first_status(events, task.id, TaskState.TASK_STATE_WORKING, "")
    check(
        0 <= working_at < decided_at,
        f"{what} stream: the reply's transitions are streamed (working, then the decision)",
        f"{len(events)} event(s): "
        + ", ".join(e.WhichOneof("payload") or "?" for e in events),
    )
    # a stream carries its own task only: the screener's task (a child) is not relayed
    rec_at, rec = find_recommendation(events)
    others = {event_task_id(e) for e in events} - {task.id}
    check(
        rec is None and not others,
        f"{what} stream: the payment's own task only, no child task's event",
        f"recommendation {rec!r} at event {rec_at}; other tasks {sorted(others)}",
    )

    got = await s.plain.get_task(GetTaskRequest(id=task.id))
    want_state = (
        TaskState.TASK_STATE_INPUT_REQUIRED
        if recommendation == "manual_review"
        else TaskState.TASK_STATE_COMPLETED
    )
    check(
        got.id == task.id and got.status.state == want_state,
        f"{what} get: {state_name(want_state)}",
        state_name(got.status.state),
    )

    if recommendation == "manual_review":
        final = single_task(
            await s.send(
                user_message(
                    "Reviewed: a different entity of the same name; release",
                    task_id=task.id,
                    data={"decision": "release"},
                )
            ),
            f"{what} release",
        )
        review = "manual"
    else:
        final = got
        review = "none"
    if final is not None:
        artifact_data = [d for a in final.artifacts for d in data_of(a.parts)]
        check(
            final.status.state == TaskState.TASK_STATE_COMPLETED
            and {"released": True, "review": review} in artifact_data,
            f"{what}: completed, released (review: {review})",
            f"{state_name(final.status.state)} {artifact_data}",
        )

    if receiver is not None:
        posts = receiver.wait_for(lambda p: p["path"] == f"/hooks/{task.id}", PUSH_WAIT_S)
        if not check(bool(posts), f"{what} webhooks: the receiver got POSTs", receiver.posts):
            return
        tokens = {p["headers"].get(TOKEN_HEADER.lower()) for p in posts}  # names are case-blind
        check(
            tokens == {PUSH_TOKEN},
            f"{what} webhooks: every POST carries the token in {TOKEN_HEADER}",
            f"{len([t for t in tokens if t != PUSH_TOKEN])} of the token values differ",
        )
        evs = [push_event(p) for p in posts]
        check(
            all(e is not None for e in evs),
            f"{what} webhooks: every body is an A2A StreamResponse",
            [p["body"][:200] for p, e in zip(posts, evs) if e is None],
        )
        ids = {
            (e.task.id if e.HasField("task") else e.status_update.task_id
             if e.HasField("status_update") else e.artifact_update.task_id)
            for e in evs if e is not None
        }
        check(ids == {task.id}, f"{what} webhooks: about the configured task only", ids)
        states = [event_state(e) for e in evs if e is not None and event_state(e) is not None]
        check(
            bool(states) and states[-1] == TaskState.TASK_STATE_COMPLETED,
            f"{what} webhooks: the last state is completed",
            [state_name(x) for x in states],
        )


async def refusals(tag, s, screener, auditor, denied_on_wire, after_other_caller) -> None:
    """What every binding refuses, checked through the SDK client; the binding's own checks come
    in as `denied_on_wire(err)` (the denial as the wire carries it, given the SDK's error) and
    `after_other_caller(task_id)` (a request without a caller, and the like)."""
    # denied: the orchestrator lacks sanctions:screen, which the screener requires
    err = await expect_error(
        screener.send(user_message("Screen ACME directly")),
        A2AError,
        f"{tag} denied send: a protocol error (the SDK raises an A2AError)",
    )
    await denied_on_wire(err)
    try:
        listed = await screener.plain.list_tasks(ListTasksRequest())
        check(
            len(listed.tasks) == 0,
            f"{tag} denied send: no task was created (ListTasks on the screener is empty)",
            [t.id for t in listed.tasks],
        )
    except Exception as e:  # noqa: BLE001
        check(False, f"{tag} denied send: ListTasks answers", f"{type(e).__name__}: {e}")
    # another caller's task reads as a task that does not exist
    task_id = getattr(s, "last_task_id", None)
    if task_id:
        await expect_error(
            auditor.plain.get_task(GetTaskRequest(id=task_id)),
            TaskNotFoundError,
            f"{tag} another caller's task: TaskNotFound",
        )
    await after_other_caller(task_id)
    await expect_error(
        s.plain.get_task(GetTaskRequest(id="no-such-task")),
        TaskNotFoundError,
        f"{tag} unknown task: TaskNotFound",
    )


async def http_refusals(tag, s: Session, screener: Session, auditor: Session, server: Server) -> None:
    """`refusals` over JSON-RPC or HTTP+JSON."""

    async def denied_on_wire(err) -> None:
        # the denial codes on the wire (the SDK keeps `data` only in google.rpc.ErrorInfo form)
        raw = await raw_denied(tag, screener, server)
        text = f"{err} {getattr(err, 'data', None)!r} {raw}"
        check("scope" in text, f"{tag} denied send: the error names the denial code `scope`", text)

    async def after_other_caller(task_id) -> None:
        if task_id and tag == "jsonrpc":
            await legacy_get(s, server, task_id)
        await no_caller(tag, s, server)

    await refusals(tag, s, screener, auditor, denied_on_wire, after_other_caller)


async def raw_denied(tag: str, screener: Session, server: Server) -> str:
    """The denied request once more without the SDK: its error as it is on the wire."""
    url = f"{server.base}/agents/sanctions-screener"
    msg = json_format.MessageToDict(user_message("Screen ACME directly"))
    if tag == "jsonrpc":
        body = {"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"message": msg}}
        r = await screener.http.post(url + "/", json=body)
        try:
            doc = r.json()
        except ValueError:
            doc = None
        ok = isinstance(doc, dict) and "result" not in doc and isinstance(doc.get("error"), dict)
        check(ok, f"{tag} denied send (raw): a JSON-RPC error object, no result", r.text[:500])
        return json.dumps(doc.get("error")) if ok else r.text
    r = await screener.http.post(url + "/message:send", json={"message": msg})
    check(400 <= r.status_code < 500, f"{tag} denied send (raw): an HTTP 4xx", f"{r.status_code} {r.text[:500]}")
    return r.text


async def legacy_get(s: Session, server: Server, task_id: str) -> None:
    """A2A 0.3's `tasks/get` on the same endpoint, its result parsed by the SDK's 0.3 types."""
    body = {"jsonrpc": "2.0", "id": 2, "method": "tasks/get", "params": {"id": task_id}}
    # not s.http: the SDK gave it `A2A-Version: 1.0`, which a 0.3 method would contradict
    headers = {CALLER_HEADER: "orchestrator", "A2A-Version": "0.3"}
    async with httpx.AsyncClient(timeout=REQUEST_TIMEOUT_S, headers=headers) as legacy:
        r = await legacy.post(f"{server.base}/agents/payments-agent/", json=body)
    try:
        result = r.json()["result"]
        task = LegacyTask.model_validate(result)
        check(task.id == task_id, "jsonrpc 0.3 tasks/get: a 0.3 Task on the same endpoint", task.id)
    except Exception as e:  # noqa: BLE001
        check(False, "jsonrpc 0.3 tasks/get: a 0.3 Task on the same endpoint", f"{type(e).__name__}: {e}; {r.text[:300]}")


async def no_caller(tag: str, s: Session, server: Server) -> None:
    """A request naming no caller: the protocol's authentication error, no result."""
    url = f"{server.base}/agents/payments-agent"
    msg = json_format.MessageToDict(user_message("Pay PMT-000: nobody sent this"))
    headers = {"A2A-Version": "1.0"}
    async with httpx.AsyncClient(timeout=REQUEST_TIMEOUT_S, headers=headers) as anonymous:
        if tag == "jsonrpc":
            body = {"jsonrpc": "2.0", "id": 3, "method": "SendMessage", "params": {"message": msg}}
            r = await anonymous.post(url + "/", json=body)
            try:
                doc = r.json()
            except ValueError:
                doc = None
            ok = r.status_code == 401 or (
                isinstance(doc, dict) and "error" in doc and "result" not in doc
            )
        else:
            r = await anonymous.post(url + "/message:send", json={"message": msg})
            ok = r.status_code == 401
    check(ok, f"{tag} no caller header: an authentication error", f"{r.status_code} {r.text[:300]}")


async def cancel(tag, s: Session, order: str, receiver: Receiver) -> None:
    what = f"{tag} {order.split(':')[0]}"
    task = single_task(await s.send(user_message(order)), f"{what} send")
    if task is None:
        return
    await push_config_reads(what, s, task.id, receiver)
    try:
        got = await s.plain.cancel_task(CancelTaskRequest(id=task.id))
        check(
            got.id == task.id and got.status.state == TaskState.TASK_STATE_CANCELED,
            f"{what} cancel: canceled",
            state_name(got.status.state),
        )
    except Exception as e:  # noqa: BLE001
        check(False, f"{what} cancel: canceled", f"{type(e).__name__}: {e}")
    await expect_error(
        s.plain.cancel_task(CancelTaskRequest(id=task.id)),
        TaskNotCancelableError,
        f"{what} cancel again: TaskNotCancelable",
    )


async def push_config_reads(what: str, s: Session, task_id: str, receiver: Receiver) -> None:
    """A config set, read back, listed and deleted with the SDK's own calls; once deleted, the
    task's later changes (its cancel) push nothing."""
    path = f"/hooks/{task_id}-deleted"
    cfg = TaskPushNotificationConfig(task_id=task_id, id="ops", url=receiver.url(path), token=PUSH_TOKEN)
    try:
        await s.plain.create_task_push_notification_config(cfg)
        got = await s.plain.get_task_push_notification_config(
            GetTaskPushNotificationConfigRequest(task_id=task_id, id="ops")
        )
        check(
            got.id == "ops" and got.task_id == task_id and got.url == cfg.url and not got.token,
            f"{what} push config: read back (no token)",
            json_format.MessageToDict(got),
        )
        listed = await s.plain.list_task_push_notification_configs(
            ListTaskPushNotificationConfigsRequest(task_id=task_id)
        )
        check(
            [c.id for c in listed.configs] == ["ops"],
            f"{what} push config: listed",
            json_format.MessageToDict(listed),
        )
        await s.plain.delete_task_push_notification_config(
            DeleteTaskPushNotificationConfigRequest(task_id=task_id, id="ops")
        )
        listed = await s.plain.list_task_push_notification_configs(
            ListTaskPushNotificationConfigsRequest(task_id=task_id)
        )
        check(len(listed.configs) == 0, f"{what} push config: deleted", json_format.MessageToDict(listed))
    except Exception as e:  # noqa: BLE001
        check(False, f"{what} push config: set, read, listed, deleted", f"{type(e).__name__}: {e}")
    receiver.deleted_paths.append(path)


def check_deleted_configs(receiver: Receiver) -> None:
    got = [p["path"] for p in receiver.posts if p["path"] in receiver.deleted_paths]
    check(not got, "a deleted push config is never POSTed to", got)


# ---- the report -------------------------------------------------------------------------------


def normalise(report: str, server: Server, receiver: Receiver) -> str:
    """The session's report with the two free ports (served, receiver) replaced by names."""
    return (
        report.replace(f"127.0.0.1:{server.port}", "127.0.0.1:SERVE_PORT")
        .replace(f"localhost:{server.port}", "localhost:SERVE_PORT")
        .replace(f"127.0.0.1:{receiver.port}", "127.0.0.1:RECEIVER_PORT")
    )


def compare_report(server: Server, receiver: Receiver, status: int | None) -> None:
    check(status == 0, "serve exits 0 on SIGINT", f"exit status {status}")
    if not check(server.report.exists(), "serve wrote its --report on shutdown"):
        return
    text = server.report.read_text()
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        check(False, "the report is JSON", e)
        return
    pushes = doc.get("pushes", []) if isinstance(doc, dict) else []
    check(
        len(pushes) == len(receiver.posts),
        "the report's pushes are the POSTs the receiver got",
        f"{len(pushes)} in the report, {len(receiver.posts)} received",
    )
    check(PUSH_TOKEN not in text, "the report does not print the push token in clear")
    got = normalise(text, server, receiver)
    if os.environ.get("BLESS") == "1":
        GOLDEN.write_text(got)
        print(f"BLESSED {GOLDEN.relative_to(HERE.parent.parent)}")
        return
    if not GOLDEN.exists():
        check(False, "the report matches the golden", f"{GOLDEN} is missing: run with BLESS=1")
        return
    want = GOLDEN.read_text()
    if got != want:
        out = server.report.with_name("report.normalised.json")
        out.write_text(got)
        diff = subprocess.run(
            ["diff", "-u", str(GOLDEN), str(out)], capture_output=True, text=True
        ).stdout
        check(False, "the report matches the golden", f"(BLESS=1 to accept)\n{diff[:4000]}")
    else:
        check(True, "the report matches the golden")


def run_session(doc: str, drive, label: str, prefix: str, extra_args: tuple[str, ...] = ()) -> int:
    """Starts serve (with `extra_args`) and the webhook receiver, runs `drive(server, receiver)`
    within the session's bound, stops serve and compares its report: 1 on any failed check
    (`label` names the suite in the last line), 2 on bad arguments (`doc`'s usage printed)."""
    if len(sys.argv) not in (2, 3):
        print(doc.split("\n\n")[1], file=sys.stderr)
        return 2
    bin_path = sys.argv[1]
    scenario = sys.argv[2] if len(sys.argv) == 3 else str(HERE / "payment-serve.yaml")
    work = Path(tempfile.mkdtemp(prefix=prefix))
    receiver = Receiver()
    server = Server(bin_path, scenario, work, extra_args)
    print(f"serve: listening on {server.addr}; receiver on 127.0.0.1:{receiver.port}; files in {work}")
    status = None
    try:
        asyncio.run(asyncio.wait_for(drive(server, receiver), timeout=SESSION_TIMEOUT_S))
    except SystemExit as e:
        check(False, "the session", e)
    except Exception as e:  # noqa: BLE001
        check(False, "the session ran to its end", f"{type(e).__name__}: {e}\n{traceback.format_exc()}")
    finally:
        status = server.stop()
        receiver.close()
    check_deleted_configs(receiver)
    compare_report(server, receiver, status)
    if failures:
        print(f"\n{label}: {len(failures)} check(s) failed; serve's stderr and report in {work}")
        stderr = server.stderr_path.read_text(errors="replace").strip()
        if stderr:
            print("serve stderr (last 2000 characters):\n" + stderr[-2000:])
        return 1
    print(f"\n{label}: all checks passed")
    return 0


def main() -> int:
    return run_session(__doc__, drive, "serve conformance", "a2a-serve-test.")

if __name__ == "__main__":
    sys.exit(main())
