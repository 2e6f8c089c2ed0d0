import asyncio
from pathlib import Path

import httpx
from a2a.client import A2ACardResolver, ClientConfig, ClientFactory
from a2a.types.a2a_pb2 import Message, Part, Role, SendMessageRequest, TaskState

SCENARIO = Path(__file__).parent / "data" / "desk.yaml"


def test_the_desk_quotes(a2a_sim_serve):
    server = a2a_sim_serve(SCENARIO)

    async def ask() -> int:
        # the caller is named by a header (or, where serve has /as/CALLER/, by agent_url's caller=)
        async with httpx.AsyncClient(headers=server.headers("orchestrator")) as http:
            card = await A2ACardResolver(http, server.agent_url("quote-desk")).get_agent_card()
            client = ClientFactory(ClientConfig(httpx_client=http, streaming=False)).create(card)
            text = [Part(text="Quote PMT-1")]
            message = Message(message_id="m-1", role=Role.ROLE_USER, parts=text)
            [event] = [e async for e in client.send_message(SendMessageRequest(message=message))]
            return event.task.status.state

    assert asyncio.run(ask()) == TaskState.TASK_STATE_COMPLETED
    report = server.stop()  # the session as `a2a-sim run` reports a run: requests as steps
    assert [step["op"] for step in report["steps"]] == ["send"]


def test_the_goldens(a2a_sim_test):
    a2a_sim_test(SCENARIO)  # fails with the diff when the report differs from desk.golden.json
