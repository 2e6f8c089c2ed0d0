//! The HTTP+JSON binding: its routes (the proto's `google.api.http` paths under an agent) and
//! a request's answer, ids from the path, filters from the query.

use bytes::Bytes;
use hyper::{Method, Response};
use serde_json::{Value, json};

use super::failure::{Failure, FailureKind};
use super::job::Answer;
use super::protocol::{self, Op};
use super::request::url_decode;
use super::responses::*;
use super::state::{State, ask};
use super::stream_events::as_stream_event;
use super::strict_json;
use output::protocol::A2aVersion;

/// A REST route: its operation, the task id and the push config id of its path.
pub(super) type Route = (Op, Option<String>, Option<String>);

/// Why a path under an agent has no route.
pub(super) enum NoRoute {
    /// No route has the path (what was asked for, for the message).
    NotFound(String),
    /// The path's routes take other methods.
    MethodNotAllowed,
}

impl NoRoute {
    pub(super) fn response(&self) -> Response<Body> {
        match self {
            NoRoute::NotFound(what) => not_found(&format!("no route {what}")),
            NoRoute::MethodNotAllowed => method_not_allowed(),
        }
    }
}

/// The route of `method` on `rest` (the path under the agent): `None` for JSON-RPC (a POST to
/// the agent's root).
pub(super) fn route(method: &Method, rest: &str) -> Result<Option<Route>, NoRoute> {
    Ok(match (method, rest) {
        (&Method::POST, "" | "/") => None,
        (&Method::POST, "/message:send") => Some((Op::Send, None, None)),
        (&Method::POST, "/message:stream") => Some((Op::Stream, None, None)),
        (&Method::GET, "/tasks") => Some((Op::List, None, None)),
        (&Method::GET, "/extendedAgentCard") => Some((Op::ExtendedCard, None, None)),
        (m, r) if r.starts_with("/tasks/") => {
            let tail = &r["/tasks/".len()..];
            let parts: Vec<&str> = tail.split('/').collect();
            match (m, parts.as_slice()) {
                (&Method::POST, [id]) if id.ends_with(":cancel") => Some((
                    Op::Cancel,
                    Some(id.trim_end_matches(":cancel").into()),
                    None,
                )),
                (&Method::GET | &Method::POST, [id]) if id.ends_with(":subscribe") => Some((
                    Op::Subscribe,
                    Some(id.trim_end_matches(":subscribe").into()),
                    None,
                )),
                (&Method::GET, [id]) => Some((Op::Get, Some(id.to_string()), None)),
                (&Method::POST, [id, "pushNotificationConfigs"]) => {
                    Some((Op::SetPush, Some(id.to_string()), None))
                }
                (&Method::GET, [id, "pushNotificationConfigs"]) => {
                    Some((Op::ListPush, Some(id.to_string()), None))
                }
                (&Method::GET, [id, "pushNotificationConfigs", c]) => {
                    Some((Op::GetPush, Some(id.to_string()), Some(c.to_string())))
                }
                (&Method::DELETE, [id, "pushNotificationConfigs", c]) => {
                    Some((Op::DeletePush, Some(id.to_string()), Some(c.to_string())))
                }
                _ => return Err(NoRoute::NotFound(format!("{m} {r}"))),
            }
        }
        (_, "" | "/" | "/message:send" | "/message:stream" | "/tasks") => {
            return Err(NoRoute::MethodNotAllowed);
        }
        (m, r) => return Err(NoRoute::NotFound(format!("{m} {r}"))),
    })
}

/// What a REST request asks besides its body: its query, the tenant of its path, and the
/// version its `A2A-Version` negotiated.
pub(super) struct Asked {
    pub query: Option<String>,
    pub tenant: Option<String>,
    pub version: Result<A2aVersion, Failure>,
}

/// The answer to a request on the HTTP+JSON binding.
pub(super) async fn answer(
    state: &State,
    (op, task, config): Route,
    body: &Bytes,
    asked: Asked,
    caller: Result<usize, Failure>,
    agent: usize,
) -> Response<Body> {
    let Asked {
        query,
        tenant,
        version,
    } = asked;
    // The version first, as the official SDK server checks it before anything else.
    let version = match version {
        Ok(v) => v,
        Err(f) => return rest_failure(&f),
    };
    let caller = match caller {
        Ok(c) => c,
        Err(f) => return rest_failure(&f),
    };
    let mut params = if body.is_empty() {
        json!({})
    } else {
        match serde_json::from_slice::<Value>(body) {
            Ok(v) => v,
            Err(e) => {
                return rest_failure(&Failure::new(
                    FailureKind::InvalidParams,
                    format!("the body is not JSON: {e}"),
                ));
            }
        }
    };
    if let Some(r) = strict_json::repeated_key(body) {
        return rest_failure(&Failure::new(
            FailureKind::InvalidParams,
            format!("`{}` appears twice in one object of the body", r.key),
        ));
    }
    // The query first: the ids of the path are the ones that count.
    if let (Some(q), Some(o)) = (query, params.as_object_mut()) {
        for (k, v) in super::request::query_pairs(&q) {
            if super::binding::is_version_param(k) {
                continue;
            }
            o.insert(url_decode(k, true), json!(url_decode(v, true)));
        }
    }
    if let (Some(id), Some(o)) = (task, params.as_object_mut()) {
        // Push configs name their task `taskId` (the config is `id`); others `id`.
        let push = matches!(
            op,
            Op::SetPush | Op::GetPush | Op::ListPush | Op::DeletePush
        );
        let key = if push { "taskId" } else { "id" };
        o.insert(key.into(), json!(url_decode(&id, false)));
    }
    if let (Some(c), Some(o)) = (config, params.as_object_mut()) {
        o.insert("id".into(), json!(url_decode(&c, false)));
    }
    let params = match version {
        A2aVersion::V1_0 => super::binding::json_names(params),
        A2aVersion::V0_3 => params,
    };
    if let Err(f) = super::binding::check_tenant(tenant.as_deref(), &params) {
        return rest_failure(&f);
    }
    let req = match protocol::request(
        op,
        version,
        &params,
        caller,
        agent,
        &state.output_modes[agent],
    ) {
        Ok(r) => r,
        Err(f) => return rest_failure(&f),
    };
    let stream = matches!(op, Op::Stream | Op::Subscribe);
    match ask(state, req).await {
        // A reply on a stream (`message.taskId`): the task it left, as the stream's one event.
        Answer::Task(t) if stream => sse([bare(as_stream_event(t, version))]),
        Answer::Events(events) if stream => paced(&state.streams, events, bare),
        Answer::Live(events) => live(&state.streams, events, bare),
        answer => match protocol::unary_value(op, version, &params, answer) {
            Ok(value) => a2a_json(&value),
            Err(f) if f.kind == FailureKind::Reset => reset(),
            // A stream that fails before its first event is no stream: the error is a plain
            // response with its HTTP status, as the official SDK server answers it.
            Err(f) => rest_failure(&f),
        },
    }
}

/// A successful HTTP+JSON answer: labelled `application/a2a+json`, the binding's media type (an
/// error keeps `application/json`, as the official SDK server sends it).
fn a2a_json(v: &Value) -> Response<Body> {
    let mut r = json_response(200, v);
    r.headers_mut().insert(
        hyper::header::CONTENT_TYPE,
        hyper::header::HeaderValue::from_static("application/a2a+json"),
    );
    r
}
