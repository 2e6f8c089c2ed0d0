"""Tests of loan_agent.py: its pure parts (traceparent, application, decision) and the real process
against two stub agents built on the same SDK that record every request's headers.

    python3 -m unittest test_loan_agent      (from this folder, in the venv of smoke.sh)
    LOAN_AGENT_CMD="node ../real-agent-js/loan_agent.mjs" python3 -m unittest test_loan_agent.ProcessTest

LOAN_AGENT_CMD puts another implementation of the agent under the same process tests (smoke.sh
does so for the JavaScript one): it must say the same things.

`a2a-sim serve` does not record request headers, so this is where the propagation of
`traceparent` onto the agent's outgoing calls is checked. Every wait is bounded.
"""

from __future__ import annotations

import asyncio
import os
import shlex
import signal
import socket
import subprocess
import sys
import threading
import time
import unittest
from pathlib import Path

import httpx
import uvicorn
from starlette.applications import Starlette

import drive
import loan_agent as la
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
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
    Task,
    TaskState,
    TaskStatus,
)
from google.protobuf import json_format

HERE = Path(__file__).resolve().parent
TP_A = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
TP_B = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
START_TIMEOUT_S = 15


class TraceparentTest(unittest.TestCase):
    def test_a_valid_one_is_forwarded_unchanged(self):
        self.assertEqual(la.outgoing_headers({"traceparent": TP_A}, None), {"traceparent": TP_A})

    def test_header_names_are_case_insensitive(self):
        self.assertEqual(la.outgoing_headers({"TraceParent": TP_A}, None), {"traceparent": TP_A})

    def test_none_in_none_out(self):
        self.assertEqual(la.outgoing_headers({"content-type": "application/json"}, None), {})

    def test_invalid_ones_are_dropped(self):
        for bad in [
            "",
            "garbage",
            TP_A.upper(),  # hex must be lowercase
            "ff" + TP_A[2:],  # version ff is invalid
            "00-00000000000000000000000000000000-b7ad6b7169203331-01",  # all-zero trace id
            "00-0af7651916cd43dd8448eb211c80319c-0000000000000000-01",  # all-zero parent id
            TP_A + "-extra",  # version 00 has nothing after the flags
            TP_A[:-1],
        ]:
            with self.subTest(bad=bad):
                self.assertEqual(la.outgoing_headers({"traceparent": bad}, None), {})

    def test_a_future_version_may_carry_more_fields(self):
        future = "01" + TP_A[2:] + "-more"
        self.assertEqual(la.outgoing_headers({"traceparent": future}, None), {"traceparent": future})

    def test_the_caller_header_only_when_set(self):
        self.assertEqual(
            la.outgoing_headers({"traceparent": TP_A}, "loan-desk"),
            {"traceparent": TP_A, "X-A2A-Sim-Caller": "loan-desk"},
        )
        self.assertEqual(la.outgoing_headers({}, ""), {})


def message_with(data) -> Message:
    part = Part()
    json_format.ParseDict(data, part.data)
    return Message(message_id="m", role=Role.ROLE_USER, parts=[Part(text="apply"), part])


class ApplicationAndDecisionTest(unittest.TestCase):
    def test_an_application(self):
        app = la.parse_application(message_with({"applicant": " Grace Hopper ", "amount": 20000}))
        self.assertEqual(app, la.Application("Grace Hopper", 20000.0))

    def test_what_is_wrong_with_a_bad_one(self):
        self.assertIn("data part", la.parse_application(None))
        self.assertIn("applicant", la.parse_application(message_with({"amount": 1})))
        self.assertIn("amount", la.parse_application(message_with({"applicant": "A", "amount": 0})))
        self.assertIn("amount", la.parse_application(message_with({"applicant": "A", "amount": True})))
        self.assertIn("amount", la.parse_application(message_with({"applicant": "A", "amount": "9"})))

    def test_the_decision(self):
        app = la.Application("Grace Hopper", 20000.0)
        ok = la.Outcome(TaskState.TASK_STATE_COMPLETED, [{"verified": True}], "verified")
        self.assertEqual(la.decide(app, ok, 650).decision, "approved")
        self.assertEqual(la.decide(app, ok, 649.5).decision, "declined")
        d = la.decide(app, ok, 712)
        self.assertEqual((d.score, d.text), (712, "Approved: Grace Hopper, 20000 (credit score 712)"))
        for kyc in [
            la.Outcome(TaskState.TASK_STATE_FAILED, [], "Identity not verified"),
            la.Outcome(TaskState.TASK_STATE_COMPLETED, [{"verified": False}], "watch list"),
            la.Outcome(TaskState.TASK_STATE_INPUT_REQUIRED, [], "which passport?"),
            la.Outcome(None, [], "a message, not a task"),
        ]:
            with self.subTest(kyc=kyc):
                d = la.decide(app, kyc, None)
                self.assertEqual((d.decision, d.score), ("declined", None))
                self.assertIn("identity check failed", d.text)

    def test_the_score_is_read_from_the_data(self):
        done = TaskState.TASK_STATE_COMPLETED
        self.assertEqual(la.score_of(la.Outcome(done, [{"x": 1}, {"score": 712.0}], "")), 712)
        self.assertIsNone(la.score_of(la.Outcome(done, [{"score": "712"}], "")))
        self.assertIsNone(la.score_of(la.Outcome(done, [{"score": True}], "")))
        self.assertIsNone(la.score_of(la.Outcome(TaskState.TASK_STATE_FAILED, [{"score": 712}], "")))


class FailureTest(unittest.TestCase):
    @staticmethod
    def refused(status: int, **body) -> Exception:
        """An A2AClientError raised from an HTTP error, as the SDK's transports raise it."""
        request = httpx.Request("POST", "http://127.0.0.1:9/agents/kyc/")
        response = httpx.Response(status, request=request, **body)
        try:
            try:
                response.raise_for_status()
            except httpx.HTTPStatusError as e:
                raise la.A2AClientError(f"HTTP Error {status}: {e}") from e
        except la.A2AClientError as e:
            return e

    def test_an_http_error_names_the_protocol_error_of_its_body(self):
        e = self.refused(401, json={"jsonrpc": "2.0", "id": 1,
                                    "error": {"code": -32600, "message": "no caller"}})
        self.assertEqual(la.describe_failure("kyc", e, 10), "kyc answered with an error: no caller")

    def test_else_its_status(self):
        e = self.refused(503, text="<html>down</html>")
        self.assertEqual(la.describe_failure("kyc", e, 10), "kyc answered with an error: HTTP 503")

    def test_a_long_message_is_clipped(self):
        e = self.refused(400, json={"error": {"message": "x" * 300}})
        self.assertEqual(la.describe_failure("kyc", e, 10),
                         "kyc answered with an error: " + "x" * 200 + "...")

    def test_no_answer_at_all(self):
        self.assertEqual(la.describe_failure("kyc", la.A2AClientError("refused"), 10),
                         "kyc could not be reached")
        self.assertEqual(la.describe_failure("kyc", asyncio.TimeoutError(), 2.5),
                         "kyc gave no answer within 2.5 s")


# ---- the process against stub agents ------------------------------------------------------------


class Stub(AgentExecutor):
    """kyc or credit: completes with the data loan.yaml's scripted agent gives, after `delay_s`."""

    def __init__(self, role: str, delay_s: float = 0.0):
        self.role, self.delay_s = role, delay_s

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        await asyncio.sleep(self.delay_s)
        applicant = la.data_parts(context.message.parts)[0]["applicant"]
        if self.role == "kyc":
            data = {"verified": applicant != "Mallory Shell"}
        else:
            data = {"score": 590 if applicant == "Ned Overdrawn" else 712}
        part = Part()
        json_format.ParseDict(data, part.data)
        state = TaskState.TASK_STATE_COMPLETED if data.get("verified", True) else TaskState.TASK_STATE_FAILED
        await event_queue.enqueue_event(
            Task(
                id=context.task_id,
                context_id=context.context_id,
                status=TaskStatus(state=state),
                artifacts=[Artifact(artifact_id="a", name=self.role, parts=[part])],
                history=[context.message],
            )
        )

    async def cancel(self, context, event_queue) -> None:
        pass


class Recorder:
    """ASGI middleware keeping (method, path, lowercase headers) of every HTTP request."""

    def __init__(self, app):
        self.app, self.seen, self.lock = app, [], threading.Lock()

    async def __call__(self, scope, receive, send):
        if scope["type"] == "http":
            with self.lock:
                self.seen.append(
                    (scope["method"], scope["path"],
                     {k.decode().lower(): v.decode() for k, v in scope["headers"]})
                )
        await self.app(scope, receive, send)

    def requests(self):
        with self.lock:
            return list(self.seen)


class StubServer:
    def __init__(self, role: str, delay_s: float = 0.0):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}/"
        card = AgentCard(
            name=role, description=role, version="1.0.0",
            supported_interfaces=[AgentInterface(url=self.url, protocol_binding="JSONRPC",
                                                 protocol_version="1.0")],
            capabilities=AgentCapabilities(streaming=False),
            default_input_modes=["application/json"],
            default_output_modes=["application/json"],
            skills=[AgentSkill(id=role, name=role, description=role, tags=[role])],
        )
        handler = DefaultRequestHandler(
            agent_executor=Stub(role, delay_s), task_store=InMemoryTaskStore(), agent_card=card
        )
        app = Starlette(routes=create_agent_card_routes(card) + create_jsonrpc_routes(handler, "/"))
        self.recorder = Recorder(app)
        self.server = uvicorn.Server(
            uvicorn.Config(self.recorder, log_level="warning", timeout_graceful_shutdown=1)
        )
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.sock]},
                                       daemon=True)
        self.thread.start()
        deadline = time.monotonic() + START_TIMEOUT_S
        while not self.server.started:
            if time.monotonic() > deadline:
                raise RuntimeError(f"stub {role} did not start")
            time.sleep(0.02)

    def stop(self):
        self.server.should_exit = True
        self.thread.join(timeout=10)
        self.sock.close()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# Every agent process started here, so that a SIGTERM to the test run (smoke.sh's cleanup, or a
# `timeout`) stops them too rather than leaving them listening.
_started: list[subprocess.Popen] = []


def _stop_started_and_exit(signum, _frame):
    for proc in _started:
        if proc.poll() is None:
            proc.kill()
    os._exit(128 + signum)


signal.signal(signal.SIGTERM, _stop_started_and_exit)


def agent_command() -> list[str]:
    custom = os.environ.get("LOAN_AGENT_CMD")
    return shlex.split(custom) if custom else [sys.executable, str(HERE / "loan_agent.py")]


class Agent:
    """The agent as a process (loan_agent.py, or LOAN_AGENT_CMD), waited for until its card
    answers."""

    def __init__(self, kyc_url: str, credit_url: str, **env: str):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/"
        self.proc = subprocess.Popen(
            [*agent_command(), "--port", str(self.port)],
            env={**os.environ, "KYC_URL": kyc_url, "CREDIT_URL": credit_url, **env},
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        )
        _started.append(self.proc)
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError(f"the agent exited: {self.proc.stderr.read().decode()}")
            try:
                if httpx.get(self.url + ".well-known/agent-card.json", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError("the agent did not serve its card in time")
            time.sleep(0.05)

    def apply(self, applicant: str, amount: int, headers: dict[str, str]) -> Task:
        msg = drive.application(applicant, amount, f"test-{applicant}")
        return asyncio.run(asyncio.wait_for(drive.send(self.url, msg, headers), 30))

    def stop(self) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc.stderr.close()
        return self.proc.returncode


def status_text(task: Task) -> str:
    return la.text_of(task.status.message.parts)


class ProcessTest(unittest.TestCase):
    def setUp(self):
        self.stubs = []
        self.agents = []

    def tearDown(self):
        for a in self.agents:
            a.stop()
        for s in self.stubs:
            s.stop()

    def stub(self, role, delay_s=0.0):
        s = StubServer(role, delay_s)
        self.stubs.append(s)
        return s

    def agent(self, kyc_url, credit_url, **env):
        a = Agent(kyc_url, credit_url, **env)
        self.agents.append(a)
        return a

    def test_each_task_forwards_the_traceparent_that_started_it(self):
        kyc, credit = self.stub("kyc"), self.stub("credit")
        agent = self.agent(kyc.url, credit.url, A2A_SIM_CALLER_HEADER="loan-desk")
        grace = agent.apply("Grace Hopper", 20000, {"traceparent": TP_A})
        ned = agent.apply("Ned Overdrawn", 15000, {"traceparent": TP_B})
        bare = agent.apply("Ada Lovelace", 5000, {})
        self.assertEqual(drive.decision_of(grace), {"decision": "approved", "score": 712})
        self.assertEqual(drive.decision_of(ned), {"decision": "declined", "score": 590})
        self.assertEqual(drive.decision_of(bare), {"decision": "approved", "score": 712})
        for stub in (kyc, credit):
            seen = stub.recorder.requests()
            # per application: the card, then the message; in the order the tasks came
            self.assertEqual(
                [(m, p) for m, p, _ in seen],
                [("GET", "/.well-known/agent-card.json"), ("POST", "/")] * 3,
                stub.url,
            )
            self.assertEqual([h.get("traceparent") for _, _, h in seen],
                             [TP_A, TP_A, TP_B, TP_B, None, None])
            self.assertEqual({h.get("x-a2a-sim-caller") for _, _, h in seen}, {"loan-desk"})

    def test_no_caller_header_unless_asked(self):
        kyc, credit = self.stub("kyc"), self.stub("credit")
        agent = self.agent(kyc.url, credit.url)
        agent.apply("Grace Hopper", 20000, {"traceparent": TP_A})
        self.assertTrue(all("x-a2a-sim-caller" not in h for _, _, h in kyc.recorder.requests()))

    def test_a_failed_identity_check_declines_without_a_credit_call(self):
        kyc, credit = self.stub("kyc"), self.stub("credit")
        agent = self.agent(kyc.url, credit.url)
        task = agent.apply("Mallory Shell", 90000, {})
        self.assertEqual(drive.decision_of(task), {"decision": "declined", "score": None})
        self.assertEqual(credit.recorder.requests(), [])

    def test_an_unreachable_agent_fails_the_task_naming_it(self):
        kyc = self.stub("kyc")
        agent = self.agent(kyc.url, f"http://127.0.0.1:{free_port()}/")
        task = agent.apply("Grace Hopper", 20000, {})
        self.assertEqual(task.status.state, TaskState.TASK_STATE_FAILED)
        self.assertEqual(status_text(task),
                         "No decision for Grace Hopper: credit's agent card could not be read")

    def test_a_slow_agent_is_bounded_by_the_timeout(self):
        kyc, credit = self.stub("kyc"), self.stub("credit", delay_s=5)
        agent = self.agent(kyc.url, credit.url, LOAN_DESK_TIMEOUT_S="1")
        started = time.monotonic()
        task = agent.apply("Grace Hopper", 20000, {})
        self.assertLess(time.monotonic() - started, 4)
        self.assertEqual(task.status.state, TaskState.TASK_STATE_FAILED)
        self.assertEqual(status_text(task),
                         "No decision for Grace Hopper: credit gave no answer within 1 s")

    def test_sigterm_stops_it_promptly_with_status_0(self):
        kyc, credit = self.stub("kyc"), self.stub("credit")
        agent = self.agent(kyc.url, credit.url)
        started = time.monotonic()
        self.assertEqual(agent.stop(), 0)
        self.assertLess(time.monotonic() - started, 6)


if __name__ == "__main__":
    unittest.main()
