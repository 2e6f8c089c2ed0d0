"""Sends loan applications to a loan-desk agent with the official a2a-sdk client and checks the
decisions (used by smoke.sh for the Python and the JavaScript agent alike).

    python3 drive.py AGENT_BASE_URL
    python3 drive.py --serve-report REPORT.json

The three applications of loan.yaml: Grace Hopper approved (score 712), Ned Overdrawn declined
by score (590), Mallory Shell declined by the identity check. Each request carries its own W3C
`traceparent`. With --serve-report: the report `a2a-sim serve loan.yaml` wrote after those three
applications shows what the agent sent: the calls, in order, each as `loan-desk`, with the
applicant (and amount) as data. Prints one PASS/FAIL line a check and a closing
`N passed, N failed`; exit 1 on any failure. Every wait is bounded (REQUEST_TIMEOUT_S a request).
"""

from __future__ import annotations

import asyncio
import json
import sys
from dataclasses import dataclass

import httpx
from google.protobuf import json_format

from a2a.client import A2ACardResolver, ClientCallContext, ClientConfig, ClientFactory
from a2a.types.a2a_pb2 import Message, Part, Role, SendMessageRequest, Task, TaskState

REQUEST_TIMEOUT_S = 20.0


@dataclass(frozen=True)
class Case:
    applicant: str
    amount: int
    decision: str
    score: int | None
    traceparent: str


CASES = [
    Case("Grace Hopper", 20000, "approved", 712,
         "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"),
    Case("Ned Overdrawn", 15000, "declined", 590,
         "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"),
    Case("Mallory Shell", 90000, "declined", None,
         "00-5e0c8a1f2b3d4c6e8f9a0b1c2d3e4f50-1a2b3c4d5e6f7a8b-00"),
]


def application(applicant: str, amount: int, message_id: str) -> Message:
    data = Part()
    json_format.ParseDict({"applicant": applicant, "amount": amount}, data.data)
    return Message(
        message_id=message_id,
        role=Role.ROLE_USER,
        parts=[Part(text=f"Loan application: {applicant}, {amount}"), data],
    )


def decision_of(task: Task) -> dict | None:
    """The data part of the `decision` artifact, numbers that are whole given as ints."""
    for artifact in task.artifacts:
        if artifact.name != "decision":
            continue
        for p in artifact.parts:
            if p.HasField("data"):
                d = json_format.MessageToDict(p.data)
                if isinstance(d.get("score"), float) and d["score"].is_integer():
                    d["score"] = int(d["score"])
                return d
    return None


async def send(base_url: str, message: Message, headers: dict[str, str]) -> Task:
    """One blocking send to the agent at base_url (its card resolved by the SDK); the Task."""
    async with httpx.AsyncClient(timeout=REQUEST_TIMEOUT_S) as http:
        card = await A2ACardResolver(http, base_url).get_agent_card()
        client = ClientFactory(ClientConfig(streaming=False, httpx_client=http)).create(card)
        context = ClientCallContext(service_parameters=headers, timeout=REQUEST_TIMEOUT_S)
        events = [
            ev async for ev in client.send_message(SendMessageRequest(message=message), context=context)
        ]
        await client.close()
    if len(events) != 1 or not events[0].HasField("task"):
        raise AssertionError(f"expected one Task, got {[json_format.MessageToDict(e) for e in events]}")
    return events[0].task


async def drive(base_url: str) -> tuple[int, int]:
    passed = failed = 0

    def check(ok: bool, what: str, detail: object = "") -> None:
        nonlocal passed, failed
        if ok:
            passed += 1
            print(f"PASS {what}")
        else:
            failed += 1
            print(f"FAIL {what}: {detail}")

    for i, case in enumerate(CASES, 1):
        what = f"{case.applicant}"
        try:
            task = await asyncio.wait_for(
                send(base_url, application(case.applicant, case.amount, f"drive-{i}"),
                     {"traceparent": case.traceparent}),
                REQUEST_TIMEOUT_S + 5,
            )
        except Exception as e:  # noqa: BLE001 (a check that fails, with what happened)
            check(False, f"{what}: the agent answers with a task", f"{type(e).__name__}: {e}")
            continue
        check(task.status.state == TaskState.TASK_STATE_COMPLETED,
              f"{what}: the task completed", TaskState.Name(task.status.state)
              + " " + json_format.MessageToJson(task.status.message))
        got = decision_of(task)
        want = {"decision": case.decision, "score": case.score}
        check(got == want, f"{what}: {case.decision} (score {case.score})", f"got {got}")
    return passed, failed


# (agent, state, first message's data) of each task the three applications create, in order
SENT = [
    ("kyc", "completed", {"applicant": "Grace Hopper"}),
    ("credit", "completed", {"applicant": "Grace Hopper", "amount": 20000}),
    ("kyc", "completed", {"applicant": "Ned Overdrawn"}),
    ("credit", "completed", {"applicant": "Ned Overdrawn", "amount": 15000}),
    ("kyc", "failed", {"applicant": "Mallory Shell"}),
]


def check_serve_report(path: str) -> tuple[int, int]:
    """What the agent sent, as the serve report recorded it (numbers compared as values: the
    Python SDK sends 20000 as 20000.0)."""
    report = json.loads(open(path, encoding="utf-8").read())
    tasks = report.get("tasks", [])
    got = [(t.get("agent"), t.get("state"), (t.get("messages") or [{}])[0].get("data")) for t in tasks]
    checks = [
        (got == SENT, "serve: the calls the agent made, in order, with their data", got),
        ({t.get("caller") for t in tasks} == {"loan-desk"}, "serve: every call as loan-desk",
         sorted({str(t.get("caller")) for t in tasks})),
        (not report.get("denials") and not report.get("errors"), "serve: no denial, no error",
         {"denials": report.get("denials"), "errors": report.get("errors")}),
    ]
    for ok, what, detail in checks:
        print(f"PASS {what}" if ok else f"FAIL {what}: {detail}")
    passed = sum(1 for ok, _, _ in checks if ok)
    return passed, len(checks) - passed


def main() -> int:
    args = sys.argv[1:]
    if len(args) == 2 and args[0] == "--serve-report":
        passed, failed = check_serve_report(args[1])
    elif len(args) == 1 and not args[0].startswith("-"):
        passed, failed = asyncio.run(drive(args[0]))
    else:
        print("usage: drive.py AGENT_BASE_URL | drive.py --serve-report REPORT.json", file=sys.stderr)
        return 2
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 and passed > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
