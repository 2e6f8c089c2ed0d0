#!/usr/bin/env python3
"""Peer baseline: delegations per second of the official A2A Python SDK, in process.

Measures the same common path as a2a-sim's `send_path/delegations` benchmark
(benches/engine.rs, benches/support/mod.rs) with the official SDK, a2a-sdk 1.3.0:
a client sends a new message (no task id) to an agent; the agent's executor
creates the task (submitted), moves it to working, emits one artifact with a
text part ("Acme Trading FZE: 1 possible match (score 0.83) against SDN list")
and a data part ({"matches": 1, "top_score": 0.83, "list": "SDN",
"recommendation": "manual_review"}), then completes it.

Each delegation is one call of the SDK's own server-side request handler,
DefaultRequestHandler.on_message_send (DefaultRequestHandlerV2 in 1.3.0), backed
by its InMemoryTaskStore and an AgentExecutor that uses the SDK's TaskUpdater.
No HTTP, no JSON-RPC, no network: one asyncio event loop, one thread, calls in
sequence. The clock stops once the SDK's background clean-up of the last task
has finished. The first and the last result are checked to be a completed task
with one artifact holding both parts, so the figure is of the real path. (In
1.3.0 the handler persists the task the executor enqueues first; a status update
before any Task is rejected, so the executor enqueues the submitted Task itself.)

The SDK runs as installed: its server classes open an OpenTelemetry span per
traced call whenever opentelemetry is importable, which it always is (a2a-sdk
requires google-api-core, which at its pinned 2.44.0 requires opentelemetry-api).
No tracer is configured, so the spans record nothing, but they cost time; the
SDK's own switch OTEL_INSTRUMENTATION_A2A_SDK_ENABLED=false turns them off.

It needs the pinned SDK of conformance/requirements.txt (a2a-sdk==1.3.0), which
conformance/venv.sh installs into target/conformance-venv. From the repository
root:

    target/conformance-venv/bin/python scripts/sdk_baseline.py [N]

N is the number of timed delegations (default 2000); 100 untimed ones run first
as a warm-up. Prints one line:

    a2a-sdk 1.3.0: N delegations in S s: R delegations/s
"""

import asyncio
import sys
import time
import uuid
from importlib.metadata import version

from a2a.helpers import new_data_part, new_task_from_user_message, new_text_part
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.context import ServerCallContext
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.tasks import InMemoryTaskStore, TaskUpdater
from a2a.types import (
    AgentCapabilities,
    AgentCard,
    AgentInterface,
    AgentSkill,
    Message,
    Part,
    Role,
    SendMessageRequest,
    Task,
    TaskState,
)

WARMUP = 100
TEXT = "Acme Trading FZE: 1 possible match (score 0.83) against SDN list"
DATA = {"matches": 1, "top_score": 0.83, "list": "SDN", "recommendation": "manual_review"}


class SanctionsScreener(AgentExecutor):
    """The scripted handler of the benchmark: working, one artifact, completed."""

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        # A new message: the agent creates the task, in state submitted.
        task = context.current_task or new_task_from_user_message(context.message)
        await event_queue.enqueue_event(task)
        updater = TaskUpdater(event_queue, task.id, task.context_id)
        await updater.start_work()
        await updater.add_artifact([new_text_part(TEXT), new_data_part(DATA)], name="result")
        await updater.complete()

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        raise NotImplementedError("the benchmark never cancels")


def agent_card() -> AgentCard:
    return AgentCard(
        name="sanctions-screener",
        description="Screens parties against sanctions lists",
        version="1.0.0",
        supported_interfaces=[
            AgentInterface(
                url="http://localhost/a2a/sanctions-screener",
                protocol_binding="JSONRPC",
                protocol_version="1.0",
            )
        ],
        capabilities=AgentCapabilities(streaming=False, push_notifications=False),
        default_input_modes=["text/plain"],
        default_output_modes=["text/plain", "application/json"],
        skills=[
            AgentSkill(
                id="screen",
                name="Screen a party",
                description="Screens a party against sanctions lists",
                tags=["sanctions", "kyc"],
            )
        ],
    )


def new_request() -> SendMessageRequest:
    """A new message from the caller: no task id, no context id."""
    return SendMessageRequest(
        message=Message(
            message_id=str(uuid.uuid4()),
            role=Role.ROLE_USER,
            parts=[Part(text="Screen the beneficiary")],
        )
    )


def check(result) -> None:
    """The result is a completed task with one artifact holding both parts."""
    assert isinstance(result, Task), f"expected a Task, got {type(result).__name__}"
    assert result.status.state == TaskState.TASK_STATE_COMPLETED, TaskState.Name(result.status.state)
    assert len(result.artifacts) == 1, f"{len(result.artifacts)} artifacts"
    parts = result.artifacts[0].parts
    assert len(parts) == 2, f"{len(parts)} parts"
    assert parts[0].text == TEXT, parts[0]
    data = parts[1].data.struct_value
    assert data["matches"] == 1 and data["top_score"] == 0.83, data
    assert data["list"] == "SDN" and data["recommendation"] == "manual_review", data


async def main(n: int) -> None:
    handler = DefaultRequestHandler(
        agent_executor=SanctionsScreener(),
        task_store=InMemoryTaskStore(),
        agent_card=agent_card(),
    )
    call = ServerCallContext()

    for _ in range(WARMUP):
        check(await handler.on_message_send(new_request(), call))

    start = time.perf_counter()
    first = await handler.on_message_send(new_request(), call)
    for _ in range(n - 2):
        await handler.on_message_send(new_request(), call)
    last = await handler.on_message_send(new_request(), call)
    # The SDK winds each task down (producer, consumer, registry clean-up) in
    # background asyncio tasks after on_message_send returns; inside the loop
    # that overlaps the next call, so wait for the last one's before stopping
    # the clock (closing the handler under it would also log a warning).
    await asyncio.gather(*(asyncio.all_tasks() - {asyncio.current_task()}))
    elapsed = time.perf_counter() - start

    check(first)
    check(last)
    assert first.id != last.id, "every message must create a new task"
    await handler.aclose()

    print(f"a2a-sdk {version('a2a-sdk')}: {n} delegations in {elapsed:.3f} s: {n / elapsed:.0f} delegations/s")


if __name__ == "__main__":
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    if count < 2:
        sys.exit("usage: sdk_baseline.py [N]  (N >= 2)")
    asyncio.run(main(count))
