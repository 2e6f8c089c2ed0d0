"""a2a_sim.serve driven by the official a2a-sdk client, over JSON-RPC and HTTP+JSON, through the
plugin's a2a_sim_serve fixture; and the server's lifecycle: ready, stopped, reported, bounded."""

from __future__ import annotations

import asyncio
import json
import os
import stat
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import httpx
import pytest
from a2a.client import A2ACardResolver, ClientConfig, ClientFactory
from a2a.types.a2a_pb2 import GetTaskRequest, Message, Part, Role, SendMessageRequest, TaskState
from a2a.utils.errors import A2AError, TaskNotFoundError
from google.protobuf import json_format

import a2a_sim

DATA = Path(__file__).resolve().parent / "data"
TIMEOUT_S = 10


def message(n: int, text: str) -> Message:
    return Message(message_id=f"client-msg-{n}", role=Role.ROLE_USER, parts=[Part(text=text)])


async def sdk_session(server: a2a_sim.Server, binding: str) -> None:
    """Cards, a send, a stream, a get, a denial and another caller's task, with the SDK."""
    async with httpx.AsyncClient(headers=server.headers("orchestrator"), timeout=TIMEOUT_S) as http:
        card = await A2ACardResolver(http, server.agent_url("quote-desk")).get_agent_card()
        assert card.name == "quote-desk"
        interfaces = {i.protocol_binding: i.url for i in card.supported_interfaces}
        assert interfaces[binding].startswith(server.agent_url("quote-desk").rstrip("/"))

        def client(streaming: bool):
            config = ClientConfig(
                streaming=streaming,
                httpx_client=http,
                supported_protocol_bindings=[binding],
                use_client_preference=True,
            )
            return ClientFactory(config).create(card)

        plain, streaming = client(False), client(True)
        [answer] = [
            ev
            async for ev in plain.send_message(
                SendMessageRequest(message=message(1, "Quote PMT-1"))
            )
        ]
        task = answer.task
        assert task.status.state == TaskState.TASK_STATE_COMPLETED
        [artifact] = task.artifacts
        assert artifact.name == "quote"
        assert artifact.parts[0].text == "EUR 100 quoted"
        assert json_format.MessageToDict(artifact.parts[1].data) == {
            "price": 100,
            "currency": "EUR",
        }

        events = [
            ev
            async for ev in streaming.send_message(
                SendMessageRequest(message=message(2, "Quote PMT-2"))
            )
        ]
        states = [ev.status_update.status.state for ev in events if ev.HasField("status_update")]
        assert TaskState.TASK_STATE_WORKING in states
        # As official A2A servers end a stream: with the status update that completes the task.
        assert events[-1].HasField("status_update")
        assert events[-1].status_update.status.state == TaskState.TASK_STATE_COMPLETED

        got = await plain.get_task(GetTaskRequest(id=task.id))
        assert (got.id, got.status.state) == (task.id, TaskState.TASK_STATE_COMPLETED)

    # the guest lacks the vault's scope: a protocol error, no task
    async with httpx.AsyncClient(headers=server.headers("guest"), timeout=TIMEOUT_S) as http:
        vault = await A2ACardResolver(http, server.agent_url("vault")).get_agent_card()
        config = ClientConfig(
            streaming=False,
            httpx_client=http,
            supported_protocol_bindings=[binding],
            use_client_preference=True,
        )
        guest = ClientFactory(config).create(vault)
        with pytest.raises(A2AError):
            [
                ev
                async for ev in guest.send_message(SendMessageRequest(message=message(3, "Read 7")))
            ]
        # the orchestrator's task is not the guest's to see
        desk = ClientFactory(config).create(card)
        with pytest.raises(TaskNotFoundError):
            await desk.get_task(GetTaskRequest(id=task.id))


@pytest.mark.parametrize("binding", ["JSONRPC", "HTTP+JSON"])
def test_the_official_client_against_served_agents(a2a_sim_serve, binding: str) -> None:
    server = a2a_sim_serve(DATA / "desk.yaml", tick_ms=1)
    assert server.running and server.url == f"http://127.0.0.1:{server.port}"
    asyncio.run(sdk_session(server, binding))
    report = server.stop()
    assert not server.running and server.returncode == 0
    # the session's report: the requests that reached the world, as steps
    assert [(s["op"], s["caller"]) for s in report["steps"]] == [
        ("send", "orchestrator"),
        ("stream", "orchestrator"),
        ("get", "orchestrator"),
        ("send", "guest"),
        ("get", "guest"),
    ]
    assert report["denials"][0]["codes"] == ["scope"]
    assert server.stop() is report  # stopping again hands back the same report


def test_the_context_manager_stops_the_server_and_keeps_the_report(tmp_path: Path) -> None:
    kept = tmp_path / "session.json"
    with a2a_sim.serve(DATA / "desk.yaml", report=kept) as server:
        card = json.load(urllib.request.urlopen(server.card_url("vault"), timeout=TIMEOUT_S))
        assert card["name"] == "vault"
        process = server.process
    assert process.poll() == 0
    assert server.report == json.loads(kept.read_text())
    assert server.report["steps"] == []  # reading a card is no step


def test_a_server_that_stops_by_itself(tmp_path: Path) -> None:
    server = a2a_sim.serve(DATA / "desk.yaml", exit_after=1)
    urllib.request.urlopen(server.card_url("quote-desk"), timeout=TIMEOUT_S).read()
    deadline = time.monotonic() + TIMEOUT_S
    while server.running and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not server.running
    assert server.stop()["scenario"].startswith("quote desk")


def test_agent_urls() -> None:
    with a2a_sim.serve(DATA / "desk.yaml") as server:
        assert server.agent_url("quote-desk") == f"{server.url}/agents/quote-desk/"
        assert server.agent_url("quote-desk", caller="guest") == (
            f"{server.url}/as/guest/agents/quote-desk/"
        )
        assert server.agent_url("a b", caller="x/y") == f"{server.url}/as/x%2Fy/agents/a%20b/"
        assert server.card_url("vault").endswith("/agents/vault/.well-known/agent-card.json")
        assert server.headers("guest") == {"X-A2A-Sim-Caller": "guest"}


def test_the_per_caller_prefix_where_serve_has_it() -> None:
    """``agent_url(name, caller)`` names the caller by path (the `/as/CALLER/` prefix of
    `serve`); an a2a-sim without that prefix answers 404 there, and this test says so rather
    than pass."""
    with a2a_sim.serve(DATA / "desk.yaml") as server:
        try:
            urllib.request.urlopen(server.card_url("quote-desk", caller="guest"), timeout=TIMEOUT_S)
        except urllib.error.HTTPError as e:
            if e.code != 404:
                raise
            pytest.skip("this a2a-sim's serve has no /as/CALLER/ prefix yet")
        body = json.dumps(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "SendMessage",
                "params": {
                    "message": {"messageId": "m-1", "role": "ROLE_USER", "parts": [{"text": "7"}]}
                },
            }
        ).encode()
        request = urllib.request.Request(
            server.agent_url("vault", caller="guest"),
            data=body,
            # A 1.0 method: a request without `A2A-Version` speaks 0.3.
            headers={"Content-Type": "application/json", "A2A-Version": "1.0"},
        )
        answer = json.load(urllib.request.urlopen(request, timeout=TIMEOUT_S))
        assert answer["error"]["code"] == -32050  # the guest, named by the path, is denied


def test_a_scenario_that_does_not_load_is_a_located_error() -> None:
    with pytest.raises(a2a_sim.ScenarioError) as raised:
        a2a_sim.serve(DATA / "bad.yaml")
    [problem] = raised.value.errors
    assert (problem.line, problem.column) == (6, 5)


@pytest.mark.skipif(sys.platform == "win32", reason="a shell script stands in for the binary")
def test_the_wait_for_the_ready_file_is_bounded(tmp_path: Path, monkeypatch) -> None:
    silent = tmp_path / "silent-a2a-sim"
    pid_file = tmp_path / "pid"
    silent.write_text(f"#!/bin/sh\necho $$ > {pid_file}\nexec sleep 60\n")
    silent.chmod(silent.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("A2A_SIM_BINARY", str(silent))
    started = time.monotonic()
    with pytest.raises(a2a_sim.A2aSimError, match="did not write its ready file within 0.5 s"):
        a2a_sim.serve(DATA / "desk.yaml", ready_timeout=0.5)
    assert time.monotonic() - started < 5
    # it was stopped (and reaped): no such process is left
    with pytest.raises(ProcessLookupError):
        os.kill(int(pid_file.read_text()), 0)
