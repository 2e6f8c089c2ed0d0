//! A raw gRPC client for the serve tests: hyper's HTTP/2, one call a connection, messages written
//! as JSON and encoded with the server's own mapping (`serve::grpc_wire`), the status and its
//! `google.rpc.ErrorInfo` read with prost.

use std::time::Duration;

use base64::Engine;
use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper_util::rt::{TokioExecutor, TokioIo};
use serde_json::{Value, json};

use super::support::*;

/// What a call came back with: the status code and message, the `ErrorInfo` of its details
/// (reason, domain, metadata) and its response messages as JSON.
#[derive(Debug)]
pub(super) struct Reply {
    pub(super) code: i32,
    pub(super) message: String,
    pub(super) info: Option<(String, String, Value)>,
    pub(super) messages: Vec<Value>,
}

#[derive(Clone, PartialEq, prost::Message)]
struct RpcStatus {
    #[prost(int32, tag = "1")]
    code: i32,
    #[prost(string, tag = "2")]
    message: String,
    #[prost(message, repeated, tag = "3")]
    details: Vec<prost_types::Any>,
}

#[derive(Clone, PartialEq, prost::Message)]
struct ErrorInfo {
    #[prost(string, tag = "1")]
    reason: String,
    #[prost(string, tag = "2")]
    domain: String,
    #[prost(btree_map = "string, string", tag = "3")]
    metadata: std::collections::BTreeMap<String, String>,
}

/// The gRPC port an agent's card names (its bare `HOST:PORT` interface).
pub(super) fn grpc_addr(s: &Server, agent: &str) -> String {
    let (_, _, card) = http(
        &s.addr,
        "GET",
        &format!("/agents/{agent}/.well-known/agent-card.json"),
        &[],
        b"",
    );
    let card: Value = serde_json::from_str(&card).unwrap();
    card["supportedInterfaces"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["protocolBinding"] == "GRPC")
        .unwrap()["url"]
        .as_str()
        .unwrap()
        .to_string()
}

/// One call of `method` with the already encoded `message` (framed here) and `metadata`.
pub(super) fn raw(addr: &str, method: &str, message: &[u8], metadata: &[(&str, &str)]) -> Reply {
    let mut body = vec![0u8];
    body.extend_from_slice(&(message.len() as u32).to_be_bytes());
    body.extend_from_slice(message);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let (head, data, trailers) = runtime.block_on(async {
        let stream = tokio::net::TcpStream::connect(addr).await.unwrap();
        let (mut send, conn) =
            hyper::client::conn::http2::handshake(TokioExecutor::new(), TokioIo::new(stream))
                .await
                .unwrap();
        tokio::spawn(conn);
        let mut req = hyper::Request::post(format!("http://{addr}/lf.a2a.v1.A2AService/{method}"))
            .header("content-type", "application/grpc")
            .header("te", "trailers");
        for (k, v) in metadata {
            req = req.header(*k, *v);
        }
        let req = req.body(Full::new(Bytes::from(body))).unwrap();
        let wait = Duration::from_secs(20);
        let response = tokio::time::timeout(wait, send.send_request(req))
            .await
            .expect("an answer in time")
            .unwrap();
        let (head, body) = response.into_parts();
        let got = tokio::time::timeout(wait, body.collect())
            .await
            .expect("the stream ends in time")
            .unwrap();
        let trailers = got.trailers().cloned().unwrap_or_default();
        (head, got.to_bytes(), trailers)
    });
    let field = |name: &str| {
        trailers
            .get(name)
            .or(head.headers.get(name))
            .map(|v| v.to_str().unwrap().to_string())
    };
    let code = field("grpc-status")
        .expect("a grpc-status")
        .parse()
        .unwrap();
    let message = field("grpc-message")
        .unwrap_or_default()
        .replace("%20", " ");
    let info = field("grpc-status-details-bin").map(|b| {
        let bytes = base64::engine::general_purpose::STANDARD_NO_PAD
            .decode(b.trim_end_matches('='))
            .unwrap();
        let status: RpcStatus = prost::Message::decode(bytes.as_slice()).unwrap();
        assert_eq!(status.code, code, "the details' code is the status's");
        let any = &status.details[0];
        assert_eq!(any.type_url, "type.googleapis.com/google.rpc.ErrorInfo");
        let info: ErrorInfo = prost::Message::decode(any.value.as_slice()).unwrap();
        (info.reason, info.domain, json!(info.metadata))
    });
    let mut messages = Vec::new();
    let mut rest = &data[..];
    let name = response_type(method);
    while rest.len() >= 5 {
        let n = u32::from_be_bytes(rest[1..5].try_into().unwrap()) as usize;
        messages.push(serve::grpc_wire::decode(name, &rest[5..5 + n]).unwrap());
        rest = &rest[5 + n..];
    }
    Reply {
        code,
        message,
        info,
        messages,
    }
}

fn response_type(method: &str) -> &'static str {
    match method {
        "SendMessage" => "lf.a2a.v1.SendMessageResponse",
        "SendStreamingMessage" | "SubscribeToTask" => "lf.a2a.v1.StreamResponse",
        "GetTask" | "CancelTask" => "lf.a2a.v1.Task",
        "ListTasks" => "lf.a2a.v1.ListTasksResponse",
        "ListTaskPushNotificationConfigs" => "lf.a2a.v1.ListTaskPushNotificationConfigsResponse",
        "DeleteTaskPushNotificationConfig" => "google.protobuf.Empty",
        "GetExtendedAgentCard" => "lf.a2a.v1.AgentCard",
        _ => "lf.a2a.v1.TaskPushNotificationConfig",
    }
}

fn request_type(method: &str) -> String {
    match method {
        "SendStreamingMessage" => "lf.a2a.v1.SendMessageRequest".into(),
        "CreateTaskPushNotificationConfig" => "lf.a2a.v1.TaskPushNotificationConfig".into(),
        m => format!("lf.a2a.v1.{m}Request"),
    }
}

/// `method` with `request` (JSON), from `caller` (the `x-a2a-sim-caller` metadata).
pub(super) fn grpc(addr: &str, caller: &str, method: &str, request: Value) -> Reply {
    let bytes = serve::grpc_wire::encode(&request_type(method), &request).unwrap();
    raw(addr, method, &bytes, &[("x-a2a-sim-caller", caller)])
}
