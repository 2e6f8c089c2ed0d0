"""`a2a-sim serve --grpc-listen` driven by the official a2a-sdk client over gRPC.

    python conformance/serve/test_serve_grpc.py BIN [SCENARIO]

The checks of test_serve.py (beside this file, whose helpers it uses), over A2A 1.0's third
binding: the server is started with `--grpc-listen 127.0.0.1:0`, the SDK's ClientFactory picks
the card's GRPC interface (a bare HOST:PORT, the agent named by the interface's `tenant`), and the
caller travels as `x-a2a-sim-caller` metadata (a grpc.aio interceptor):

- the cards list the gRPC port twice, bare first and as a grpc:// URL, with the agent's tenant;
- PMT-775: send (input-required with the screener's question), a subscription that ends after
  the paused task, the streamed reply ending with the status update that holds it, push config to
  the loopback receiver and its webhooks, get, the operator's release;
- a denied request (PERMISSION_DENIED, the denial code `scope` in the status's ErrorInfo), no
  task; another caller's task and an unknown one: TaskNotFoundError (raised by the SDK from the
  ErrorInfo detail); a call naming no caller: UNAUTHENTICATED;
- PMT-776: push configs set, read back, listed, deleted; cancel, and cancel again:
  TaskNotCancelableError.

Then SIGINT, and the session's report compared with report.grpc.golden.json (BLESS=1 rewrites it).
Exit status 1 on any failed check.
"""

from __future__ import annotations

import sys

import grpc
import httpx
from google.rpc import error_details_pb2

from a2a.client import A2ACardResolver, ClientConfig, ClientFactory
from a2a.types import a2a_pb2_grpc
from a2a.types.a2a_pb2 import SendMessageRequest
from a2a.utils.grpc_status import status_from_call

import test_serve as t
from test_serve import check, user_message

t.GOLDEN = t.HERE / "report.grpc.golden.json"
CALLER_METADATA = "x-a2a-sim-caller"


class _Caller:
    """Adds the caller's name to every call's metadata."""

    def __init__(self, caller: str) -> None:
        self.caller = caller

    def _with_caller(self, details):
        metadata = list(details.metadata or []) + [(CALLER_METADATA, self.caller)]
        return details._replace(metadata=metadata)


# grpc.aio files an interceptor under one kind only: one class a kind.
class UnaryCaller(_Caller, grpc.aio.UnaryUnaryClientInterceptor):
    async def intercept_unary_unary(self, continuation, details, request):
        return await continuation(self._with_caller(details), request)


class StreamCaller(_Caller, grpc.aio.UnaryStreamClientInterceptor):
    async def intercept_unary_stream(self, continuation, details, request):
        return await continuation(self._with_caller(details), request)


class GrpcSession(t.Session):
    """SDK clients of one caller over the card's GRPC interface (a plain and a streaming one)."""

    def __init__(self, card, caller: str | None) -> None:
        self.http = httpx.AsyncClient(timeout=t.REQUEST_TIMEOUT_S)
        self.channels: list = []
        self.urls: list[str] = []

        def channel(url: str):
            self.urls.append(url)
            interceptors = [UnaryCaller(caller), StreamCaller(caller)] if caller else []
            ch = grpc.aio.insecure_channel(url, interceptors=interceptors)
            self.channels.append(ch)
            return ch

        def make(streaming: bool):
            config = ClientConfig(
                streaming=streaming,
                supported_protocol_bindings=["GRPC"],
                use_client_preference=True,
                grpc_channel_factory=channel,
            )
            return ClientFactory(config).create(card)

        self.plain = make(False)
        self.streaming = make(True)

    async def close(self) -> None:
        for ch in self.channels:
            await ch.close()
        await self.http.aclose()


def grpc_interfaces(card) -> list:
    return [i for i in card.supported_interfaces if i.protocol_binding == "GRPC"]


async def raw_call(url: str, tenant: str, metadata: list, text: str):
    """A SendMessage with the generated stub alone: the status as it is on the wire."""
    async with grpc.aio.insecure_channel(url) as ch:
        stub = a2a_pb2_grpc.A2AServiceStub(ch)
        try:
            await stub.SendMessage(
                SendMessageRequest(message=user_message(text), tenant=tenant),
                metadata=metadata, timeout=t.REQUEST_TIMEOUT_S,
            )
        except grpc.aio.AioRpcError as e:
            return e
    return None


def error_infos(e) -> list:
    status = status_from_call(e)
    infos = []
    for detail in status.details if status is not None else []:
        info = error_details_pb2.ErrorInfo()
        if detail.Unpack(info):
            infos.append(info)
    return infos


async def refusals(s, screener, auditor, screener_card) -> None:
    """`test_serve.refusals` over gRPC: the denial and a missing caller as statuses."""
    tag = "grpc"

    async def denied_on_wire(_err) -> None:
        iface = grpc_interfaces(screener_card)[0]
        e = await raw_call(iface.url, iface.tenant, [(CALLER_METADATA, "orchestrator")], "Screen ACME directly")
        infos = error_infos(e) if e is not None else []
        check(
            e is not None and e.code() == grpc.StatusCode.PERMISSION_DENIED,
            f"{tag} denied send (raw): PERMISSION_DENIED",
            e,
        )
        check(
            any(i.domain == "a2a-protocol.org" and "scope" in i.metadata.get("denials", "").split(",") for i in infos),
            f"{tag} denied send: the status's ErrorInfo names the denial code `scope`",
            [str(i) for i in infos],
        )

    async def after_other_caller(_task_id) -> None:
        iface = grpc_interfaces(s.card)[0]
        e = await raw_call(iface.url, iface.tenant, [], "Pay PMT-000: nobody sent this")
        check(
            e is not None and e.code() == grpc.StatusCode.UNAUTHENTICATED,
            f"{tag} no caller metadata: UNAUTHENTICATED",
            e,
        )

    await t.refusals(tag, s, screener, auditor, denied_on_wire, after_other_caller)


async def drive(server: t.Server, receiver: t.Receiver) -> None:
    cards = {}
    async with httpx.AsyncClient(timeout=t.REQUEST_TIMEOUT_S) as http:
        for agent in ("payments-agent", "sanctions-screener"):
            card = await A2ACardResolver(http, f"{server.base}/agents/{agent}").get_agent_card()
            cards[agent] = card
            ifaces = grpc_interfaces(card)
            urls = [i.url for i in ifaces]
            port_ok = len(urls) == 2 and urls[0].startswith("127.0.0.1:") and urls[1] == f"grpc://{urls[0]}"
            check(port_ok, f"card {agent}: its GRPC interfaces, bare HOST:PORT first, then grpc://", urls)
            check(
                all(i.tenant == f"agents/{agent}" and i.protocol_version == "1.0" for i in ifaces),
                f"card {agent}: its GRPC interfaces name the agent as their tenant",
                [(i.tenant, i.protocol_version) for i in ifaces],
            )
    pay, screener = cards["payments-agent"], cards["sanctions-screener"]
    s = GrpcSession(pay, "orchestrator")
    s.card = pay
    s_screener = GrpcSession(screener, "orchestrator")
    s_auditor = GrpcSession(pay, "auditor")
    try:
        await t.payment(
            "grpc", s, "Pay PMT-775: EUR 48,000", "Acme Trading FZE, Dubai, AE",
            "manual_review", receiver,
        )
        check(
            bool(s.urls) and all(":" in u and "://" not in u for u in s.urls),
            "grpc: the SDK dialled the card's bare HOST:PORT",
            s.urls,
        )
        await refusals(s, s_screener, s_auditor, screener)
        await t.cancel("grpc", s, "Pay PMT-776: EUR 700", receiver)
    finally:
        for x in (s, s_screener, s_auditor):
            await x.close()


def main() -> int:
    extra = ("--grpc-listen", "127.0.0.1:0")
    return t.run_session(__doc__, drive, "serve gRPC conformance", "a2a-serve-grpc-test.", extra)

if __name__ == "__main__":
    sys.exit(main())
