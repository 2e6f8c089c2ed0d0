//! Responses: JSON bodies, the protocol's errors in each binding, finished and live event streams.

use std::convert::Infallible;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full};
use hyper::header::{CONTENT_TYPE, HeaderValue};
use hyper::{Response, StatusCode};
use serde_json::{Value, json};

use super::failure::Failure;
use super::job::LiveStream;
use super::protocol;
use super::sse::{self, LiveBody, Streams};
use super::strict_json::RpcId;

pub(super) type Body = BoxBody<Bytes, Infallible>;

pub(super) fn response(status: u16, content_type: &'static str, body: Bytes) -> Response<Body> {
    let mut r = Response::new(Full::new(body).boxed());
    *r.status_mut() = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    r.headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static(content_type));
    r
}

pub(super) fn json_response(status: u16, v: &Value) -> Response<Body> {
    json_bytes_response(status, serde_json::to_vec(v).unwrap_or_default())
}

/// A JSON body already serialised (a JSON-RPC envelope with its id as written).
pub(super) fn json_bytes_response(status: u16, body: Vec<u8>) -> Response<Body> {
    let mut r = response(status, "application/json", Bytes::from(body));
    if status == 401 {
        // RFC 9110: a 401 names the scheme to authenticate with.
        r.headers_mut().insert(
            hyper::header::WWW_AUTHENTICATE,
            HeaderValue::from_static("Bearer realm=\"a2a-sim\""),
        );
    }
    if status == 503 {
        // An agent in an `unavailable` window: come back, as a server that is down asks.
        r.headers_mut()
            .insert(hyper::header::RETRY_AFTER, HeaderValue::from_static("1"));
    }
    r
}

/// A finished stream: every event (each serialised) at once, as `text/event-stream`.
pub(super) fn sse(events: impl IntoIterator<Item = Vec<u8>>) -> Response<Body> {
    let mut body = Vec::new();
    for e in events {
        sse::frame(&mut body, &e);
    }
    event_stream(Full::new(Bytes::from(body)).boxed())
}

/// A live stream: each event as the world records it, each serialised by `wrap` (in JSON-RPC's
/// envelope, or as it is), until the world ends it.
pub(super) fn live(
    streams: &Streams,
    stream: LiveStream,
    wrap: impl Fn(Value) -> Vec<u8> + Send + Sync + 'static,
) -> Response<Body> {
    event_stream(LiveBody::new(streams, stream, wrap).boxed())
}

/// A stream whose events happened over idle time: each is sent when its time comes (counted
/// from now), so a slow agent's stream really is slow; all at once when none waited, and what is
/// left at once when the server stops.
pub(super) fn paced(
    streams: &Streams,
    events: Vec<(Value, Duration)>,
    wrap: impl Fn(Value) -> Vec<u8> + Send + Sync + 'static,
) -> Response<Body> {
    if events.iter().all(|(_, after)| after.is_zero()) {
        return sse(events.into_iter().map(|(e, _)| wrap(e)));
    }
    live(streams, pace(streams, events), wrap)
}

/// Events that happened over idle time as a live stream: each sent when its time comes (counted
/// from now); what is left at once when the server stops.
pub(super) fn pace(streams: &Streams, events: Vec<(Value, Duration)>) -> LiveStream {
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    if events.iter().all(|(_, after)| after.is_zero()) {
        for (event, _) in events {
            let _ = tx.send(event);
        }
        return rx;
    }
    let mut closing = streams.closing.clone();
    tokio::spawn(async move {
        let start = tokio::time::Instant::now();
        for (event, after) in events {
            if !*closing.borrow() {
                tokio::select! {
                    _ = tokio::time::sleep_until(start + after) => {}
                    _ = closing.wait_for(|&c| c) => {}
                }
            }
            if tx.send(event).is_err() {
                return;
            }
        }
    });
    rx
}

pub(super) fn event_stream(body: Body) -> Response<Body> {
    let mut r = Response::new(body);
    r.headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("text/event-stream"));
    r.headers_mut()
        .insert("cache-control", HeaderValue::from_static("no-cache"));
    r
}

/// Marks a response that must not be sent: its connection is closed without an answer (a
/// `reset` fault), as a server that went away mid-request does.
#[derive(Debug, Clone, Copy)]
pub(super) struct ResetConnection;

pub(super) fn reset() -> Response<Body> {
    let mut r = response(502, "text/plain", Bytes::new());
    r.extensions_mut().insert(ResetConnection);
    r
}

pub(super) fn rest_failure(f: &Failure) -> Response<Body> {
    let (status, body) = protocol::rest_error(f);
    json_response(status, &body)
}

/// An event as it is (the HTTP+JSON binding's streams).
pub(super) fn bare(event: Value) -> Vec<u8> {
    serde_json::to_vec(&event).unwrap_or_default()
}

/// A JSON-RPC response: `{"jsonrpc":"2.0","id":ID,MEMBER:VALUE}` with the id as the request wrote
/// it (serde_json's compact form otherwise).
pub(super) fn rpc_bytes(id: &RpcId, member: &str, value: &Value) -> Vec<u8> {
    let mut out = Vec::with_capacity(64);
    out.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
    out.extend_from_slice(id.json().as_bytes());
    out.extend_from_slice(b",\"");
    out.extend_from_slice(member.as_bytes());
    out.extend_from_slice(b"\":");
    // A Value always serialises.
    let _ = serde_json::to_writer(&mut out, value);
    out.push(b'}');
    out
}

pub(super) fn rpc_failure(id: &RpcId, code: i64, message: &str) -> Vec<u8> {
    rpc_bytes(id, "error", &json!({"code": code, "message": message}))
}

/// JSON-RPC's success envelope for answers to the request `id`.
pub(super) fn envelope(id: RpcId) -> impl Fn(Value) -> Vec<u8> + Send + Sync + 'static {
    move |result| rpc_bytes(&id, "result", &result)
}

pub(super) fn not_found(message: &str) -> Response<Body> {
    json_response(
        404,
        &json!({"error": {"code": 404, "status": "NOT_FOUND", "message": message}}),
    )
}

/// 415: a body this server does not read, in the binding's error shape (JSON-RPC's before any
/// id could be read). `Accept-Encoding` says which codings would do (RFC 9110 §15.5.16).
pub(super) fn unsupported_media_type(rest: bool, why: &str) -> Response<Body> {
    let mut r = if rest {
        json_response(
            415,
            &json!({"error": {"code": 415, "status": "INVALID_ARGUMENT", "message": why}}),
        )
    } else {
        json_bytes_response(
            415,
            // A2A's ContentTypeNotSupportedError, the code the conformance suite expects.
            rpc_failure(
                &RpcId::null(),
                -32005,
                &format!("Content type not supported: {why}"),
            ),
        )
    };
    r.headers_mut().insert(
        hyper::header::ACCEPT_ENCODING,
        HeaderValue::from_static("identity"),
    );
    r
}

/// 421: a request for a host this server does not answer to.
pub(super) fn misdirected(why: &str) -> Response<Body> {
    json_response(
        421,
        &json!({"error": {"code": 421, "status": "PERMISSION_DENIED", "message": why}}),
    )
}

pub(super) fn method_not_allowed() -> Response<Body> {
    json_response(
        405,
        &json!({"error": {"code": 405, "status": "METHOD_NOT_ALLOWED", "message": "method not allowed on this path"}}),
    )
}

/// An empty answer (a JSON-RPC notification's).
pub(super) fn no_content() -> Response<Body> {
    let mut r = Response::new(Full::new(Bytes::new()).boxed());
    *r.status_mut() = StatusCode::NO_CONTENT;
    r
}
