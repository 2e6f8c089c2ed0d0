"""The official a2a-python SDK server (the pinned a2a-sdk of conformance/requirements.txt) as the
TCK's system under test, on JSON-RPC, HTTP+JSON and gRPC (the SDK's GrpcHandler on a grpc.aio
server, a port of its own chosen by the system): what `conformance/tck/run.sh --sdk` runs the suite
against, so that each expected failure of `a2a-sim serve` can be checked to be one the
SDK's own server has too.

Its agent does what the TCK's own SUT does (the TCK's sut/a2a-python, generated from its
Gherkin scenarios) for the messageId prefixes the MUST-level tests send; it is written here for
the a2a-sdk the repository pins, whose server API the TCK's copy predates.

    python conformance/tck/sdk_sut.py --port 9999 --ready-file FILE
"""

from __future__ import annotations

import argparse
import asyncio

import grpc
import httpx
import uvicorn
from google.protobuf import json_format
from google.protobuf.struct_pb2 import Value
from starlette.applications import Starlette

from a2a.helpers.proto_helpers import new_task_from_user_message
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler, GrpcHandler
from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes
from a2a.server.routes.rest_routes import create_rest_routes
from a2a.server.tasks import InMemoryTaskStore
from a2a.server.tasks.base_push_notification_sender import BasePushNotificationSender
from a2a.server.tasks.inmemory_push_notification_config_store import (
    InMemoryPushNotificationConfigStore,
)
from a2a.server.tasks.task_updater import TaskUpdater
from a2a.types import a2a_pb2_grpc
from a2a.types.a2a_pb2 import AgentCapabilities, AgentCard, AgentInterface, AgentSkill, Part
from a2a.utils.errors import A2AError

REST = "/rest"


class TckExecutor(AgentExecutor):
    """The TCK's SUT behaviour, picked by the message's messageId prefix."""

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        if context.task_id is None or context.context_id is None:
            return
        mid = context.message.message_id if context.message else ""
        if mid.startswith("tck-message-response"):
            await event_queue.enqueue_event(
                TaskUpdater(event_queue, context.task_id, context.context_id).new_agent_message(
                    [Part(text="Direct message response")]
                )
            )
            return
        # This SDK wants the task itself enqueued before its first status update.
        if context.current_task is None and context.message is not None:
            task = new_task_from_user_message(context.message)
            task.id, task.context_id = context.task_id, context.context_id
            await event_queue.enqueue_event(task)
        up = TaskUpdater(event_queue, context.task_id, context.context_id)
        text = lambda t: [Part(text=t)]  # noqa: E731
        file_part = Part(raw=b"tck", media_type="text/plain", filename="output.txt")
        if mid.startswith("tck-stream-artifact-chunked"):
            await up.start_work()
            await up.add_artifact(parts=text("chunk-1 "), append=True)
            await up.add_artifact(parts=text("chunk-2"), append=True, last_chunk=True)
            await up.complete()
        elif mid.startswith("test-resubscribe-message-id"):
            await up.start_work()
            await asyncio.sleep(4)
            await up.complete()
        elif mid.startswith(("tck-stream-001", "tck-stream-003", "tck-stream-ordering-001")):
            await up.start_work()
            await up.add_artifact(parts=text("Stream hello from TCK"))
            await up.complete()
        elif mid.startswith("tck-stream-artifact-text"):
            await up.start_work()
            await up.add_artifact(parts=text("Streamed text content"))
            await up.complete()
        elif mid.startswith("tck-stream-artifact-file"):
            await up.start_work()
            await up.add_artifact(parts=[file_part])
            await up.complete()
        elif mid.startswith("tck-stream-002"):
            await up.complete()
        elif mid.startswith("tck-artifact-file-url"):
            await up.add_artifact(
                parts=[
                    Part(
                        url="https://example.com/output.txt",
                        media_type="text/plain",
                        filename="output.txt",
                    )
                ]
            )
            await up.complete()
        elif mid.startswith("tck-artifact-file"):
            await up.add_artifact(parts=[file_part])
            await up.complete()
        elif mid.startswith("tck-artifact-text"):
            await up.add_artifact(parts=text("Generated text content"))
            await up.complete()
        elif mid.startswith("tck-artifact-data"):
            data = json_format.Parse('{"key": "value", "count": 42}', Value())
            await up.add_artifact(parts=[Part(data=data)])
            await up.complete()
        elif mid.startswith("tck-input-required"):
            await up.requires_input()
        elif mid.startswith("tck-reject-task"):
            raise A2AError("rejected")
        else:
            await up.complete(up.new_agent_message(text("Hello from TCK")))

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        if context.task_id and context.context_id:
            await TaskUpdater(event_queue, context.task_id, context.context_id).cancel()


def card(base: str, grpc_addr: str) -> AgentCard:
    return AgentCard(
        name="a2a-python SDK server for the TCK",
        description="The official SDK server, the reference the TCK's findings are checked on",
        version="1.0.0",
        supported_interfaces=[
            AgentInterface(url=base, protocol_binding="JSONRPC", protocol_version="1.0"),
            AgentInterface(url=base + REST, protocol_binding="HTTP+JSON", protocol_version="1.0"),
            AgentInterface(url=grpc_addr, protocol_binding="GRPC", protocol_version="1.0"),
        ],
        capabilities=AgentCapabilities(streaming=True, push_notifications=True),
        default_input_modes=["text"],
        default_output_modes=["text"],
        skills=[AgentSkill(id="tck", name="TCK", description="TCK messages", tags=["tck"])],
    )


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--ready-file", required=True)
    args = parser.parse_args()
    grpc_server = grpc.aio.server()
    grpc_port = grpc_server.add_insecure_port("127.0.0.1:0")
    agent_card = card(f"http://127.0.0.1:{args.port}", f"127.0.0.1:{grpc_port}")
    configs = InMemoryPushNotificationConfigStore()
    async with httpx.AsyncClient() as client:
        handler = DefaultRequestHandler(
            agent_executor=TckExecutor(),
            task_store=InMemoryTaskStore(),
            agent_card=agent_card,
            push_config_store=configs,
            push_sender=BasePushNotificationSender(client, configs),
            validate_input_modes=True,
        )
        routes = (
            create_agent_card_routes(agent_card)
            + create_jsonrpc_routes(handler, rpc_url="/")
            + create_rest_routes(handler, path_prefix=REST)
        )
        config = uvicorn.Config(
            Starlette(routes=routes), host="127.0.0.1", port=args.port, log_level="warning"
        )
        server = uvicorn.Server(config)
        a2a_pb2_grpc.add_A2AServiceServicer_to_server(GrpcHandler(handler), grpc_server)
        await grpc_server.start()
        serving = asyncio.create_task(server.serve())
        while not server.started:
            await asyncio.sleep(0.05)
        with open(args.ready_file, "w") as f:
            f.write(f"127.0.0.1:{args.port}\n")
        await serving


if __name__ == "__main__":
    asyncio.run(main())
