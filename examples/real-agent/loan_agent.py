"""loan-desk: a small real A2A agent on the official Python SDK (a2a-sdk), for a2a-sim to drive.

    python3 loan_agent.py --port PORT [--host 127.0.0.1]

Serves its agent card at /.well-known/agent-card.json (A2A 1.0, JSON-RPC binding at /). A message
is a loan application: a text and a data part {"applicant": NAME, "amount": NUMBER}. For each one
it asks two agents, found by their cards under the base URLs of the environment:

    KYC_URL     the identity check: a task that ends `completed` (and whose data does not say
                `verified: false`) passes; anything else declines the application;
    CREDIT_URL  the credit score: the first data part with a numeric `score`; from 650 up the
                application is approved, below it declined.

and completes its task with one artifact `decision`: a text and a data part
{"decision": "approved" | "declined", "score": N | null}. When an agent cannot be reached or gives
no usable answer, the task fails with a message naming that agent (no decision is made up).

Optional environment:
    A2A_SIM_CALLER_HEADER  when set, every outgoing call carries `X-A2A-Sim-Caller: <value>`, the
                           header `a2a-sim serve` identifies a caller by today. Once a2a-sim serves
                           each caller under its own URL (/as/CALLER/agents/NAME/), KYC_URL and
                           CREDIT_URL carry the identity and this is not needed.
    LOAN_DESK_TIMEOUT_S    the bound on each outgoing call, card fetch included (default 10).

Tracing: the W3C `traceparent` header of the request that started a task is put, unchanged, on
every call made for that task (no OpenTelemetry: it is read from the request's headers through the
SDK's server call context). A request without a valid one gets none forwarded.

Deterministic: task and context ids are counted (`loan-N`, `loan-ctx-N`), message and artifact ids
derive from the task id, status updates carry no timestamp, and no output depends on the clock or
on randomness. SIGTERM (or Ctrl-C) shuts the server down within 5 seconds.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import logging
import os
import re
import signal
import sys
from collections.abc import Mapping
from dataclasses import dataclass

import httpx
import uvicorn
from google.protobuf import json_format
from starlette.applications import Starlette

from a2a.client import A2ACardResolver, ClientCallContext, ClientConfig, ClientFactory
from a2a.client.errors import A2AClientError, A2AClientTimeoutError, AgentCardResolutionError
from a2a.server.agent_execution import AgentExecutor, RequestContext, SimpleRequestContextBuilder
from a2a.server.events import EventQueue
from a2a.server.id_generator import IDGenerator, IDGeneratorContext
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes
from a2a.server.tasks import InMemoryTaskStore
from a2a.types.a2a_pb2 import (
    AgentCapabilities,
    AgentCard,
    AgentInterface,
    AgentSkill,
    Artifact,
    Message,
    Part,
    Role,
    SendMessageRequest,
    Task,
    TaskArtifactUpdateEvent,
    TaskState,
    TaskStatus,
    TaskStatusUpdateEvent,
)
from a2a.utils.errors import A2AError

AGENT_NAME = "loan-desk"
APPROVE_FROM = 650
CALLER_HEADER = "X-A2A-Sim-Caller"
TRACEPARENT = "traceparent"
DEFAULT_TIMEOUT_S = 10.0
SHUTDOWN_GRACE_S = 5
MAX_QUOTED = 200

log = logging.getLogger(AGENT_NAME)

# version "00"-"fe", 32-hex trace id, 16-hex parent id, 2-hex flags (W3C Trace Context, lowercase)
_TRACEPARENT_RE = re.compile(r"^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$")


def valid_traceparent(value: str | None) -> bool:
    """Whether `value` is a traceparent to propagate: well formed, not the invalid version ff,
    no all-zero ids, and nothing after the flags for version 00."""
    if not value:
        return False
    m = _TRACEPARENT_RE.match(value.strip())
    if m is None:
        return False
    version, trace_id, parent_id, _flags, rest = m.groups()
    if version == "ff" or set(trace_id) == {"0"} or set(parent_id) == {"0"}:
        return False
    return not (version == "00" and rest)


def outgoing_headers(incoming: Mapping[str, str], caller: str | None) -> dict[str, str]:
    """The headers of every call made for a task, from the headers of the request that started
    it (keys in any case) and the optional caller identity (A2A_SIM_CALLER_HEADER)."""
    headers: dict[str, str] = {}
    by_lower = {k.lower(): v for k, v in incoming.items()}
    parent = by_lower.get(TRACEPARENT)
    if valid_traceparent(parent):
        headers[TRACEPARENT] = parent.strip()
    if caller:
        headers[CALLER_HEADER] = caller
    return headers


# ---- the application and the decision ---------------------------------------------------------


@dataclass(frozen=True)
class Application:
    applicant: str
    amount: float


def plain_number(n: float) -> int | float:
    """20000.0 -> 20000 (protobuf Values hold every number as a double), 12.5 -> 12.5."""
    return int(n) if float(n).is_integer() else n


def number_text(n: float) -> str:
    return str(plain_number(n))


def data_parts(parts) -> list:
    return [json_format.MessageToDict(p.data) for p in parts if p.HasField("data")]


def text_of(parts) -> str:
    return " ".join(p.text for p in parts if p.HasField("text") and p.text)


def parse_application(message: Message | None) -> Application | str:
    """The application in a message, or what is wrong with it."""
    usage = 'a loan application needs a data part {"applicant": NAME, "amount": NUMBER}'
    if message is None:
        return usage
    for data in data_parts(message.parts):
        if not isinstance(data, dict):
            continue
        applicant, amount = data.get("applicant"), data.get("amount")
        if not isinstance(applicant, str) or not applicant.strip():
            return f"{usage}: `applicant` must be a non-empty string"
        if isinstance(amount, bool) or not isinstance(amount, (int, float)) or amount <= 0:
            return f"{usage}: `amount` must be a positive number"
        return Application(applicant.strip(), float(amount))
    return usage


@dataclass(frozen=True)
class Outcome:
    """What a called agent answered: its task's state (or None for a direct message), the data
    parts and the text of its artifacts, status message and message, in that order."""

    state: int | None
    data: list
    text: str


@dataclass(frozen=True)
class Decision:
    decision: str  # "approved" | "declined"
    score: int | float | None
    text: str


def kyc_passed(kyc: Outcome) -> bool:
    if kyc.state != TaskState.TASK_STATE_COMPLETED:
        return False
    return not any(isinstance(d, dict) and d.get("verified") is False for d in kyc.data)


def score_of(credit: Outcome) -> int | float | None:
    if credit.state not in (None, TaskState.TASK_STATE_COMPLETED):
        return None
    for d in credit.data:
        if isinstance(d, dict):
            s = d.get("score")
            if isinstance(s, (int, float)) and not isinstance(s, bool):
                return plain_number(s)
    return None


def decide(app: Application, kyc: Outcome, score: int | float | None) -> Decision:
    who = f"{app.applicant}, {number_text(app.amount)}"
    if not kyc_passed(kyc):
        why = kyc.text or "no verified identity"
        return Decision("declined", None, f"Declined: {who} (identity check failed: {why})")
    assert score is not None
    if score >= APPROVE_FROM:
        return Decision("approved", score, f"Approved: {who} (credit score {number_text(score)})")
    return Decision(
        "declined",
        score,
        f"Declined: {who} (credit score {number_text(score)}, below {APPROVE_FROM})",
    )


# ---- calling the two agents -------------------------------------------------------------------


class CallFailed(Exception):
    """A call that gave no usable answer; the message is deterministic (no ports, no ids)."""


def clip(text: str) -> str:
    """A peer's text in our messages, at most MAX_QUOTED characters."""
    return text if len(text) <= MAX_QUOTED else text[:MAX_QUOTED] + "..."


def http_error_of(e: BaseException) -> str | None:
    """For a call the peer answered with an HTTP error status: the message of the protocol error
    in its body (JSON-RPC or HTTP+JSON: `{"error": {"message": ...}}`), else `HTTP <status>`."""
    seen = 0
    cause: BaseException | None = e
    while cause is not None and seen < 8:
        if isinstance(cause, httpx.HTTPStatusError):
            try:
                message = cause.response.json()["error"]["message"]
            except Exception:  # noqa: BLE001 (any other body: the status says it)
                message = None
            if isinstance(message, str) and message:
                return message
            return f"HTTP {cause.response.status_code}"
        cause, seen = cause.__cause__ or cause.__context__, seen + 1
    return None


def describe_failure(agent: str, e: BaseException, timeout: float) -> str:
    if isinstance(e, (asyncio.TimeoutError, A2AClientTimeoutError)):
        return f"{agent} gave no answer within {number_text(timeout)} s"
    if isinstance(e, AgentCardResolutionError):
        return f"{agent}'s agent card could not be read"
    if isinstance(e, A2AClientError):
        answered = http_error_of(e)
        if answered:
            return f"{agent} answered with an error: {clip(answered)}"
        return f"{agent} could not be reached"
    if isinstance(e, A2AError):
        return f"{agent} answered with an error: {clip(getattr(e, 'message', '') or type(e).__name__)}"
    return f"{agent} gave an answer that could not be used ({type(e).__name__})"


class Peers:
    """The two agents loan-desk calls, over one shared HTTP client."""

    def __init__(self, kyc_url: str, credit_url: str, caller: str | None, timeout: float):
        self.urls = {"kyc": kyc_url, "credit": credit_url}
        self.caller = caller
        self.timeout = timeout
        self.http = httpx.AsyncClient(timeout=timeout)

    async def close(self) -> None:
        await self.http.aclose()

    async def call(self, agent: str, message: Message, incoming: Mapping[str, str]) -> Outcome:
        """Resolves the agent's card and sends it `message` (a blocking send), every step
        carrying the task's headers; bounded by the timeout as a whole."""
        headers = outgoing_headers(incoming, self.caller)
        try:
            return await asyncio.wait_for(self._call(agent, message, headers), self.timeout)
        except CallFailed:
            raise
        except Exception as e:  # noqa: BLE001 (every failure becomes a recorded outcome)
            log.warning("call to %s failed: %s: %s", agent, type(e).__name__, e)
            raise CallFailed(describe_failure(agent, e, self.timeout)) from e

    async def _call(self, agent: str, message: Message, headers: dict[str, str]) -> Outcome:
        resolver = A2ACardResolver(self.http, self.urls[agent])
        card = await resolver.get_agent_card(http_kwargs={"headers": headers})
        config = ClientConfig(
            streaming=False,
            httpx_client=self.http,
            supported_protocol_bindings=["JSONRPC", "HTTP+JSON"],
        )
        client = ClientFactory(config).create(card)
        context = ClientCallContext(service_parameters=dict(headers), timeout=self.timeout)
        try:
            events = [
                ev
                async for ev in client.send_message(
                    SendMessageRequest(message=message), context=context
                )
            ]
        finally:
            await client.close()
        if not events:
            raise CallFailed(f"{agent} answered nothing")
        last = events[-1]
        if last.HasField("task"):
            task = last.task
            data, texts = [], []
            for artifact in task.artifacts:
                data += data_parts(artifact.parts)
                texts.append(text_of(artifact.parts))
            status_parts = task.status.message.parts
            data += data_parts(status_parts)
            texts.append(text_of(status_parts))
            return Outcome(task.status.state, data, " ".join(t for t in texts if t))
        if last.HasField("message"):
            parts = last.message.parts
            return Outcome(None, data_parts(parts), text_of(parts))
        raise CallFailed(f"{agent} answered neither a task nor a message")


def data_part(value) -> Part:
    part = Part()
    json_format.ParseDict(value, part.data)
    return part


def request_message(task_id: str, step: str, text: str, data: dict) -> Message:
    return Message(
        message_id=f"{task_id}-{step}", role=Role.ROLE_USER, parts=[Part(text=text), data_part(data)]
    )


# ---- the executor -----------------------------------------------------------------------------


class CountingIds(IDGenerator):
    """`PREFIX-1`, `PREFIX-2`, ...: ids that are the same on every run."""

    def __init__(self, prefix: str):
        self.prefix = prefix
        self.counter = itertools.count(1)

    def generate(self, context: IDGeneratorContext) -> str:
        return f"{self.prefix}-{next(self.counter)}"


class LoanDesk(AgentExecutor):
    def __init__(self, peers: Peers):
        self.peers = peers

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        task_id, context_id = context.task_id or "", context.context_id or ""
        steps = itertools.count(1)

        async def status(state: int, text: str | None = None) -> None:
            st = TaskStatus(state=state)
            if text:
                st.message.CopyFrom(
                    Message(
                        message_id=f"{task_id}-status-{next(steps)}",
                        role=Role.ROLE_AGENT,
                        task_id=task_id,
                        context_id=context_id,
                        parts=[Part(text=text)],
                    )
                )
            await event_queue.enqueue_event(
                TaskStatusUpdateEvent(task_id=task_id, context_id=context_id, status=st)
            )

        history = [context.message] if context.message is not None else []
        await event_queue.enqueue_event(
            Task(
                id=task_id,
                context_id=context_id,
                status=TaskStatus(state=TaskState.TASK_STATE_SUBMITTED),
                history=history,
            )
        )
        app = parse_application(context.message)
        if isinstance(app, str):
            await status(TaskState.TASK_STATE_REJECTED, app[0].upper() + app[1:])
            return
        incoming = context.call_context.state.get("headers", {})
        amount = number_text(app.amount)
        try:
            await status(TaskState.TASK_STATE_WORKING, f"Checking the identity of {app.applicant}")
            kyc = await self.peers.call(
                "kyc",
                request_message(task_id, "kyc", f"KYC check: {app.applicant}",
                                {"applicant": app.applicant}),
                incoming,
            )
            score = None
            if kyc_passed(kyc):
                await status(TaskState.TASK_STATE_WORKING, f"Scoring {app.applicant} for {amount}")
                credit = await self.peers.call(
                    "credit",
                    request_message(task_id, "credit", f"Credit score: {app.applicant}, {amount}",
                                    {"applicant": app.applicant, "amount": plain_number(app.amount)}),
                    incoming,
                )
                score = score_of(credit)
                if score is None:
                    raise CallFailed("credit gave no numeric `score` in a completed task")
        except CallFailed as e:
            await status(TaskState.TASK_STATE_FAILED, f"No decision for {app.applicant}: {e}")
            return
        decision = decide(app, kyc, score)
        data = data_part({"decision": decision.decision, "score": decision.score})
        await event_queue.enqueue_event(
            TaskArtifactUpdateEvent(
                task_id=task_id,
                context_id=context_id,
                artifact=Artifact(
                    artifact_id=f"{task_id}-decision",
                    name="decision",
                    parts=[Part(text=decision.text), data],
                ),
            )
        )
        await status(TaskState.TASK_STATE_COMPLETED, decision.text)

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        await event_queue.enqueue_event(
            TaskStatusUpdateEvent(
                task_id=context.task_id or "",
                context_id=context.context_id or "",
                status=TaskStatus(state=TaskState.TASK_STATE_CANCELED),
            )
        )


# ---- the server -------------------------------------------------------------------------------


def agent_card(host: str, port: int) -> AgentCard:
    return AgentCard(
        name=AGENT_NAME,
        description="Decides loan applications on an identity check and a credit score",
        version="1.0.0",
        supported_interfaces=[
            AgentInterface(
                url=f"http://{host}:{port}/", protocol_binding="JSONRPC", protocol_version="1.0"
            )
        ],
        capabilities=AgentCapabilities(streaming=True, push_notifications=False),
        default_input_modes=["text/plain", "application/json"],
        default_output_modes=["text/plain", "application/json"],
        skills=[
            AgentSkill(
                id="loan-decision",
                name="Loan decision",
                description='Send {"applicant": NAME, "amount": NUMBER} as a data part',
                tags=["loans", "credit", "kyc"],
            )
        ],
    )


def build_app(card: AgentCard, peers: Peers) -> Starlette:
    store = InMemoryTaskStore()
    handler = DefaultRequestHandler(
        agent_executor=LoanDesk(peers),
        task_store=store,
        agent_card=card,
        request_context_builder=SimpleRequestContextBuilder(
            task_store=store,
            task_id_generator=CountingIds("loan"),
            context_id_generator=CountingIds("loan-ctx"),
        ),
    )
    routes = create_agent_card_routes(card) + create_jsonrpc_routes(handler, rpc_url="/")
    return Starlette(routes=routes)


def env_timeout() -> float:
    raw = os.environ.get("LOAN_DESK_TIMEOUT_S", "")
    if not raw:
        return DEFAULT_TIMEOUT_S
    try:
        value = float(raw)
    except ValueError:
        value = -1
    if not 0 < value <= 300:
        print(f"loan-desk: LOAN_DESK_TIMEOUT_S={raw!r}: give seconds in (0, 300]", file=sys.stderr)
        raise SystemExit(2)
    return value


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="loan-desk, a real A2A agent (a2a-sdk)")
    parser.add_argument("--port", type=int, required=True, help="the TCP port to listen on")
    parser.add_argument("--host", default="127.0.0.1", help="the address (default 127.0.0.1)")
    args = parser.parse_args(argv)
    if not 1 <= args.port <= 65535:
        parser.error(f"--port {args.port}: give a port in 1..65535")
    missing = [n for n in ("KYC_URL", "CREDIT_URL") if not os.environ.get(n)]
    if missing:
        parser.error(f"set {' and '.join(missing)} to the base URL of that agent")
    logging.basicConfig(level=logging.WARNING, format="loan-desk: %(message)s", stream=sys.stderr)
    timeout = env_timeout()

    async def serve() -> None:
        peers = Peers(
            os.environ["KYC_URL"],
            os.environ["CREDIT_URL"],
            os.environ.get("A2A_SIM_CALLER_HEADER") or None,
            timeout,
        )
        config = uvicorn.Config(
            build_app(agent_card(args.host, args.port), peers),
            host=args.host,
            port=args.port,
            log_level="warning",
            timeout_graceful_shutdown=SHUTDOWN_GRACE_S,
        )
        try:
            # uvicorn catches SIGTERM and SIGINT while it serves (a graceful shutdown, bounded by
            # timeout_graceful_shutdown), then raises the signal again for the handlers it found
            await uvicorn.Server(config).serve()
        finally:
            await peers.close()

    # ... which are these: the signal has done its work, so the process ends with status 0
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: None)
    asyncio.run(serve())
    return 0


if __name__ == "__main__":
    sys.exit(main())
