//! The JSON-RPC 2.0 binding: the envelope's checks, the method's operation, the answer (a
//! stream's events each in an envelope of its own).

use hyper::Response;
use serde_json::{Value, json};

use super::failure::{Failure, FailureKind};
use super::job::Answer;
use super::protocol::{self, Op};
use super::responses::*;
use super::state::{State, ask};
use super::stream_events::as_stream_event;
use super::strict_json::{self, RpcId};
use output::protocol::A2aVersion;

pub(super) async fn json_rpc(
    state: &State,
    body: &[u8],
    caller: Result<usize, Failure>,
    agent: usize,
    header: Result<A2aVersion, Failure>,
) -> Response<Body> {
    let refuse = |id: &RpcId, code: i64, message: &str| {
        json_bytes_response(200, rpc_failure(id, code, message))
    };
    let doc: Value = match serde_json::from_slice(body) {
        Ok(v) => v,
        Err(e) => return refuse(&RpcId::null(), -32700, &format!("Parse error: {e}")),
    };
    if doc.is_array() {
        return refuse(
            &RpcId::null(),
            -32600,
            "Invalid Request: batch requests are not supported; send one request at a time",
        );
    }
    let given = strict_json::rpc_id(body, &doc);
    if let Some(r) = strict_json::repeated_key(body) {
        // An id given twice is no id: the answer names none.
        let id = given.ok().flatten().unwrap_or_else(RpcId::null);
        return match r.top_level {
            true => refuse(
                &id,
                -32600,
                &format!(
                    "Invalid Request: `{}` appears twice; send each member once",
                    r.key
                ),
            ),
            false => refuse(
                &id,
                -32602,
                &format!("Invalid params: `{}` appears twice in one object", r.key),
            ),
        };
    }
    let Ok(given) = given else {
        return refuse(
            &RpcId::null(),
            -32600,
            "Invalid Request: `id` must be a string, a number or null",
        );
    };
    let id = given.clone().unwrap_or_else(RpcId::null);
    if doc.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return refuse(&id, -32600, "Invalid Request: `jsonrpc` must be \"2.0\"");
    }
    let Some(name) = doc.get("method").and_then(Value::as_str) else {
        return refuse(&id, -32600, "Invalid Request: `method` must be a string");
    };
    let Some((op, v)) = protocol::method(name) else {
        return refuse(&id, -32601, &format!("Method not found: `{name}`"));
    };
    let stream = matches!(op, Op::Stream | Op::Subscribe);
    let fail = |f: &Failure| {
        let e = rpc_bytes(&id, "error", &protocol::rpc_error(f));
        if let FailureKind::HttpError(status) = f.kind {
            json_bytes_response(status, e)
        } else if f.kind == FailureKind::Reset {
            reset()
        } else if f.kind == FailureKind::Unauthenticated {
            json_bytes_response(401, e)
        } else if f.kind == FailureKind::Unavailable {
            // A down agent is a down server to a client: 503 with Retry-After, streamed or not.
            json_bytes_response(503, e)
        } else {
            json_bytes_response(200, e)
        }
    };
    // The version asked for (none is 0.3) must be one this server speaks and the method's own.
    match header {
        Err(f) => return fail(&f),
        Ok(h) if h != v => {
            return fail(&Failure::new(
                FailureKind::VersionNotSupported,
                format!(
                    "`{name}` is an A2A {} method and this request asks for A2A {} (a request without `A2A-Version` is 0.3): send `A2A-Version: {}`",
                    v.name(),
                    h.name(),
                    v.name()
                ),
            ));
        }
        Ok(_) => {}
    }
    let caller = match caller {
        Ok(c) => c,
        Err(f) => return fail(&f),
    };
    let params = doc.get("params").cloned().unwrap_or(json!({}));
    let params = match v {
        A2aVersion::V1_0 => super::binding::json_names(params),
        A2aVersion::V0_3 => params,
    };
    let req = match protocol::request(op, v, &params, caller, agent, &state.output_modes[agent]) {
        Ok(r) => r,
        Err(f) => return fail(&f),
    };
    let answer = ask(state, req).await;
    // A notification (no `id`) is carried out and, as JSON-RPC has it, not answered.
    if given.is_none() {
        return no_content();
    }
    let ok = envelope(id.clone());
    match answer {
        Answer::Task(t) if stream => sse([ok(as_stream_event(t, v))]),
        Answer::Events(events) if stream => paced(&state.streams, events, envelope(id)),
        Answer::Live(events) => live(&state.streams, events, envelope(id)),
        answer => match protocol::unary_value(op, v, &params, answer) {
            Ok(value) => json_bytes_response(200, ok(value)),
            Err(f) => fail(&f),
        },
    }
}
