"""The official SDK's side of the serve benchmarks (bench_serve_throughput.py over JSON-RPC,
bench_serve_grpc.py over gRPC): an agent on a2a-sdk 1.3.0 whose executor completes every task at
once with one text artifact, behind DefaultRequestHandler and an InMemoryTaskStore. Imported
from the scripts' own folder; needs the conformance virtualenv's a2a-sdk.
"""

TEXT = "done"


def done_agent(url: str, binding: str):
    """The agent card (one interface: `url` over `binding`, "JSONRPC" or "GRPC") and the request
    handler that serves it."""
    from a2a.helpers import new_task_from_user_message, new_text_part
    from a2a.server.agent_execution import AgentExecutor, RequestContext
    from a2a.server.events import EventQueue
    from a2a.server.request_handlers import DefaultRequestHandler
    from a2a.server.tasks import InMemoryTaskStore, TaskUpdater
    from a2a.types import AgentCapabilities, AgentCard, AgentInterface, AgentSkill

    class Done(AgentExecutor):
        """Completes every task at once, with one text artifact."""

        async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
            task = context.current_task or new_task_from_user_message(context.message)
            await event_queue.enqueue_event(task)
            updater = TaskUpdater(event_queue, task.id, task.context_id)
            await updater.add_artifact([new_text_part(TEXT)], name="result")
            await updater.complete()

        async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
            raise NotImplementedError("the benchmark never cancels")

    card = AgentCard(
        name="done",
        description="Completes every task at once",
        version="1.0.0",
        supported_interfaces=[
            AgentInterface(url=url, protocol_binding=binding, protocol_version="1.0")
        ],
        capabilities=AgentCapabilities(streaming=False, push_notifications=False),
        default_input_modes=["text/plain"],
        default_output_modes=["text/plain"],
        skills=[
            AgentSkill(id="done", name="Done", description="Completes at once", tags=["bench"])
        ],
    )
    handler = DefaultRequestHandler(
        agent_executor=Done(), task_store=InMemoryTaskStore(), agent_card=card
    )
    return card, handler
