//! A2A requests (JSON-RPC params and HTTP+JSON bodies) into driver steps and queries, and the
//! protocol's errors in each binding's spelling.

use serde_json::{Value, json};

use super::failure::{Failure, FailureKind};
use super::job::{Answer, ListQuery, PushOp, PushQuery, Req};
use super::message::{Kind, bool_field, invalid, message_spec, str_field, typed};
use engine::scenario::Secret;
use engine::scenario::{
    AgentIx, CallerIx, ContextSpec, PushSpec, Send, SendParts, Step, Target, TaskRef,
};
use output::protocol::A2aVersion;

/// The operations both bindings offer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Send,
    Stream,
    Get,
    List,
    Cancel,
    Subscribe,
    SetPush,
    GetPush,
    ListPush,
    DeletePush,
    ExtendedCard,
}

/// A JSON-RPC method name: the operation and the version its name belongs to.
pub fn method(name: &str) -> Option<(Op, A2aVersion)> {
    use A2aVersion::*;
    Some(match name {
        "message/send" => (Op::Send, V0_3),
        "message/stream" => (Op::Stream, V0_3),
        "tasks/get" => (Op::Get, V0_3),
        "tasks/cancel" => (Op::Cancel, V0_3),
        "tasks/resubscribe" => (Op::Subscribe, V0_3),
        "tasks/pushNotificationConfig/set" => (Op::SetPush, V0_3),
        "tasks/pushNotificationConfig/get" => (Op::GetPush, V0_3),
        "tasks/pushNotificationConfig/list" => (Op::ListPush, V0_3),
        "tasks/pushNotificationConfig/delete" => (Op::DeletePush, V0_3),
        "agent/getAuthenticatedExtendedCard" => (Op::ExtendedCard, V0_3),
        "SendMessage" => (Op::Send, V1_0),
        "SendStreamingMessage" => (Op::Stream, V1_0),
        "GetTask" => (Op::Get, V1_0),
        "ListTasks" => (Op::List, V1_0),
        "CancelTask" => (Op::Cancel, V1_0),
        "SubscribeToTask" => (Op::Subscribe, V1_0),
        "CreateTaskPushNotificationConfig" => (Op::SetPush, V1_0),
        "GetTaskPushNotificationConfig" => (Op::GetPush, V1_0),
        "ListTaskPushNotificationConfigs" => (Op::ListPush, V1_0),
        "DeleteTaskPushNotificationConfig" => (Op::DeletePush, V1_0),
        "GetExtendedAgentCard" => (Op::ExtendedCard, V1_0),
        _ => return None,
    })
}

/// A push config's URL and token, and the id the client gave it (empty: none).
fn push_spec(config: &Value) -> Result<(PushSpec, String), Failure> {
    let Some(url) = str_field(config, "url")? else {
        return Err(invalid("a push notification config needs `url`"));
    };
    let token = str_field(config, "token")?.unwrap_or_default();
    let id = str_field(config, "id")?.unwrap_or_default().to_string();
    // The token is optional in A2A's types: a client's config may go without one.
    let spec = PushSpec {
        url: url.to_string(),
        token: Secret::new(token),
        token_required: false,
    };
    Ok((spec, id))
}

/// A task id from params: 1.0's `id` (GetTask, CancelTask) or 0.3's `id`; push configs name
/// `taskId`.
fn task_param(params: &Value, key: &str) -> Result<String, Failure> {
    match str_field(params, key)? {
        Some(id) => Ok(id.to_string()),
        None => Err(invalid(format!("`{key}` is required (a task id)"))),
    }
}

/// A send's `acceptedOutputModes`, when it names any, must take one the agent answers in
/// (`type/*` and `*/*` match as media ranges do).
fn accepts(config: &Value, output_modes: &[String]) -> Result<(), Failure> {
    let accepted: Vec<&str> = match config.get("acceptedOutputModes") {
        None | Some(Value::Null) => return Ok(()),
        Some(Value::Array(modes)) => modes
            .iter()
            .map(|m| m.as_str())
            .collect::<Option<_>>()
            .ok_or_else(|| invalid("`acceptedOutputModes` must be a list of media types"))?,
        Some(_) => {
            return Err(invalid(
                "`acceptedOutputModes` must be a list of media types",
            ));
        }
    };
    let matches = |range: &str, mode: &str| {
        let (range, mode) = (range.to_ascii_lowercase(), mode.to_ascii_lowercase());
        range == "*/*"
            || range == mode
            || range
                .strip_suffix("/*")
                .is_some_and(|t| mode.split('/').next() == Some(t))
    };
    if accepted.is_empty()
        || accepted
            .iter()
            .any(|a| output_modes.iter().any(|m| matches(a, m)))
    {
        return Ok(());
    }
    Err(Failure::new(
        FailureKind::ContentTypeNotSupported,
        format!(
            "the agent answers in {}; none of the accepted output modes [{}] is one of them",
            output_modes.join(", "),
            accepted.join(", ")
        ),
    ))
}

/// Builds the world request for `op` with JSON-RPC-shaped params (the REST binding passes its
/// body, with path ids merged in).
pub fn request(
    op: Op,
    v: A2aVersion,
    params: &Value,
    caller: CallerIx,
    agent: AgentIx,
    output_modes: &[String],
) -> Result<Req, Failure> {
    if !params.is_object() {
        return Err(invalid("`params` must be an object"));
    }
    // Every 1.0 request may name its tenant; a send may carry metadata.
    typed(
        params,
        "",
        &[("tenant", Kind::Text), ("metadata", Kind::Object)],
    )?;
    let (step, push_id) = match op {
        Op::Send | Op::Stream => {
            let message = params
                .get("message")
                .ok_or_else(|| invalid("`params.message` is required"))?;
            let spec = message_spec(message)?;
            let config = params.get("configuration").unwrap_or(&Value::Null);
            if !config.is_null() && !config.is_object() {
                return Err(invalid("`configuration` must be an object"));
            }
            history_length(config)?;
            accepts(config, output_modes)?;
            let return_immediately = bool_field(config, "returnImmediately")?.unwrap_or(false)
                || bool_field(config, "blocking")? == Some(false);
            let (push, push_id) = match config
                .get("pushNotificationConfig")
                .or_else(|| config.get("taskPushNotificationConfig"))
            {
                Some(Value::Null) | None => (None, String::new()),
                Some(c) if c.is_object() => {
                    let (spec, id) = push_spec(c)?;
                    (Some(spec), id)
                }
                Some(_) => return Err(invalid("`pushNotificationConfig` must be an object")),
            };
            let step = if let Some(task) = str_field(message, "taskId")? {
                Step::Reply {
                    caller,
                    task: TaskRef::Id(task.into()),
                    message: spec,
                }
            } else {
                let context = match str_field(message, "contextId")? {
                    Some(c) => ContextSpec::Literal(c.into()),
                    None => ContextSpec::Fresh,
                };
                Step::Send(Send::from(SendParts {
                    stream: op == Op::Stream,
                    caller,
                    to: Target::Agent(agent),
                    message: spec,
                    alias: None,
                    push,
                    context,
                    return_immediately: return_immediately && op == Op::Send,
                }))
            };
            (step, push_id)
        }
        Op::Get => (
            {
                history_length(params)?;
                Step::Get {
                    caller,
                    task: TaskRef::Id(task_param(params, "id")?.into()),
                }
            },
            String::new(),
        ),
        Op::Cancel => (
            Step::Cancel {
                caller,
                task: TaskRef::Id(task_param(params, "id")?.into()),
            },
            String::new(),
        ),
        Op::Subscribe => {
            return Ok(Req::Subscribe {
                caller,
                agent,
                task: task_param(params, "id")?,
                version: v,
            });
        }
        Op::SetPush => {
            // 0.3: {taskId, pushNotificationConfig: {url, token, id}}; 1.0: flat {taskId, url, token, id}.
            let task = task_param(params, "taskId")?;
            let config = match params.get("pushNotificationConfig") {
                Some(c) => c,
                None => params,
            };
            let (push, id) = push_spec(config)?;
            let step = Step::SetPushConfig {
                caller,
                task: TaskRef::Id(task.into()),
                agent: Some(agent),
                push: Box::new(push),
            };
            (step, id)
        }
        Op::List => return list_query(params, caller, agent).map(|q| Req::List(q, v)),
        Op::GetPush | Op::ListPush | Op::DeletePush => {
            return push_query(op, v, params, caller, agent).map(Req::PushConfig);
        }
        Op::ExtendedCard => {
            return Err(Failure::new(
                FailureKind::ExtendedCardNotConfigured,
                "the scenario's agents have no extended agent card",
            ));
        }
    };
    let message_id = params
        .get("message")
        .and_then(|m| m.get("messageId"))
        .and_then(Value::as_str)
        .map(str::to_string);
    Ok(Req::Step {
        step: Box::new(step),
        agent,
        version: v,
        stream: op == Op::Stream,
        push_id,
        message_id,
    })
}

/// Get, list or delete a task's push config. 1.0 names the task `taskId` and the config `id`;
/// 0.3 names the task `id` and the config `pushNotificationConfigId`.
fn push_query(
    op: Op,
    v: A2aVersion,
    params: &Value,
    caller: CallerIx,
    agent: AgentIx,
) -> Result<PushQuery, Failure> {
    let (task, id) = match v {
        A2aVersion::V1_0 => (task_param(params, "taskId")?, str_field(params, "id")?),
        A2aVersion::V0_3 => (
            task_param(params, "id")?,
            str_field(params, "pushNotificationConfigId")?,
        ),
    };
    let id = id.map(str::to_string);
    if op == Op::DeletePush && id.is_none() {
        return Err(invalid("deleting a push notification config needs its id"));
    }
    Ok(PushQuery {
        op: match op {
            Op::GetPush => PushOp::Get,
            Op::ListPush => PushOp::List,
            _ => PushOp::Delete,
        },
        caller,
        agent,
        task,
        id,
        version: v,
    })
}

fn list_query(params: &Value, caller: CallerIx, agent: AgentIx) -> Result<ListQuery, Failure> {
    let page_size = match params.get("pageSize") {
        None | Some(Value::Null) => 50,
        Some(v) => match v
            .as_u64()
            .or_else(|| v.as_str().and_then(|s| s.parse().ok()))
        {
            Some(n @ 1..=100) => n as usize,
            _ => return Err(invalid("`pageSize` must be an integer from 1 to 100")),
        },
    };
    let offset = match str_field(params, "pageToken")? {
        None | Some("") => 0,
        Some(t) => t
            .parse()
            .map_err(|_| invalid(format!("`pageToken` `{t}` is not one this server gave")))?,
    };
    let status = match str_field(params, "status")? {
        None | Some("") | Some("TASK_STATE_UNSPECIFIED") => None,
        Some(s) => Some(
            A2aVersion::parse_state(s)
                .ok_or_else(|| invalid(format!("`status` `{s}` is not a task state")))?,
        ),
    };
    let include_artifacts = match params.get("includeArtifacts") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(Value::String(s)) if s == "true" || s == "false" => s == "true",
        Some(_) => return Err(invalid("`includeArtifacts` must be a boolean")),
    };
    let status_after = match str_field(params, "statusTimestampAfter")? {
        None | Some("") => None,
        Some(t) => Some(engine::parse_rfc3339(t).ok_or_else(|| {
            invalid(format!(
                "`statusTimestampAfter` `{t}` is not an RFC 3339 timestamp"
            ))
        })?),
    };
    Ok(ListQuery {
        caller,
        agent,
        context_id: str_field(params, "contextId")?.map(str::to_string),
        status,
        status_after,
        history_length: history_length(params)?,
        include_artifacts,
        page_size,
        offset,
    })
}

/// A `historyLength` (of GetTask, ListTasks, or a send's configuration): absent, or a whole
/// number (a string of one on the REST binding's query).
fn history_length(o: &Value) -> Result<Option<usize>, Failure> {
    match o.get("historyLength") {
        None | Some(Value::Null) => Ok(None),
        // An `int32` in the proto: what does not fit is no historyLength.
        Some(v) => v
            .as_u64()
            .or_else(|| v.as_str().and_then(|s| s.parse().ok()))
            .filter(|&n| n <= i32::MAX as u64)
            .map(|n| Some(n as usize))
            .ok_or_else(|| {
                invalid(format!(
                    "`historyLength` must be a whole number from 0 to {}",
                    i32::MAX
                ))
            }),
    }
}

/// The `historyLength` an answer honours: GetTask's own, a send's in its configuration.
pub fn answer_history(op: Op, params: &Value) -> Option<usize> {
    let holder = match op {
        Op::Send | Op::Stream => params.get("configuration")?,
        _ => params,
    };
    history_length(holder).ok().flatten()
}

/// Only the newest `n` messages of a task's history (all of them for `None`).
/// The value a request answered once (not streamed) responds with, whatever the binding: a task
/// (its history trimmed as asked; a 1.0 `SendMessage` wraps it as `{task}`), the last of the
/// events, or the value. `Err`: the failure (a live stream is none of these: a binding answers
/// it as a stream first).
pub fn unary_value(
    op: Op,
    version: A2aVersion,
    params: &Value,
    answer: Answer,
) -> Result<Value, Failure> {
    match answer {
        Answer::Task(t) => {
            let t = trim_history(t, answer_history(op, params));
            Ok(match op {
                Op::Send if version == A2aVersion::V1_0 => json!({ "task": t }),
                _ => t,
            })
        }
        Answer::Events(mut events) => Ok(events.pop().map(|(e, _)| e).unwrap_or_default()),
        Answer::Value(v) => Ok(v),
        Answer::Error(f) => Err(f),
        Answer::Live(_) => Err(Failure::new(
            FailureKind::Internal,
            "a stream answered a request answered once",
        )),
    }
}

pub fn trim_history(mut task: Value, n: Option<usize>) -> Value {
    if let (Some(n), Some(Value::Array(h))) = (n, task.get_mut("history")) {
        let n = n.min(h.len());
        h.drain(..h.len() - n);
    }
    task
}

/// How each binding spells a failure: the JSON-RPC code, the HTTP status and google.rpc status
/// name of the REST binding, and the `ErrorInfo` reason (A2A's reasons where A2A names one).
pub fn codes(kind: FailureKind) -> (i64, u16, &'static str, &'static str) {
    match kind {
        FailureKind::TaskNotFound => (-32001, 404, "NOT_FOUND", "TASK_NOT_FOUND"),
        FailureKind::TaskNotCancelable => {
            (-32002, 409, "FAILED_PRECONDITION", "TASK_NOT_CANCELABLE")
        }
        FailureKind::PushNotSupported => (
            -32003,
            400,
            "FAILED_PRECONDITION",
            "PUSH_NOTIFICATION_NOT_SUPPORTED",
        ),
        FailureKind::Unsupported => (-32004, 400, "FAILED_PRECONDITION", "UNSUPPORTED_OPERATION"),
        FailureKind::ExtendedCardNotConfigured => (
            -32007,
            400,
            "FAILED_PRECONDITION",
            "EXTENDED_AGENT_CARD_NOT_CONFIGURED",
        ),
        FailureKind::ContentTypeNotSupported => (
            -32005,
            415,
            "INVALID_ARGUMENT",
            "CONTENT_TYPE_NOT_SUPPORTED",
        ),
        FailureKind::InvalidParams => (-32602, 400, "INVALID_ARGUMENT", "INVALID_PARAMS"),
        FailureKind::Unauthenticated => (-32600, 401, "UNAUTHENTICATED", "UNAUTHENTICATED"),
        FailureKind::Denied => (-32050, 403, "PERMISSION_DENIED", "ADMISSION_DENIED"),
        FailureKind::Unavailable => (-32603, 503, "UNAVAILABLE", "AGENT_UNAVAILABLE"),
        FailureKind::HttpError(status) => (-32603, status, "UNAVAILABLE", "AGENT_HTTP_ERROR"),
        // Never sent: the connection closes without an answer.
        FailureKind::Reset => (-32603, 503, "UNAVAILABLE", "AGENT_RESET"),
        FailureKind::VersionNotSupported => {
            (-32009, 400, "FAILED_PRECONDITION", "VERSION_NOT_SUPPORTED")
        }
        FailureKind::Internal => (-32603, 500, "INTERNAL", "INTERNAL_ERROR"),
    }
}

/// The typed details of a failure, as A2A's servers send them: one `google.rpc.ErrorInfo` with
/// the reason, and the denial codes (comma-separated: ErrorInfo's metadata holds strings).
fn details(f: &Failure) -> Value {
    let (reason, metadata) = error_info(f);
    let metadata: serde_json::Map<String, Value> =
        metadata.into_iter().map(|(k, v)| (k, json!(v))).collect();
    json!([{
        "@type": "type.googleapis.com/google.rpc.ErrorInfo",
        "reason": reason,
        "domain": ERROR_DOMAIN,
        "metadata": metadata,
    }])
}

/// The domain of the `ErrorInfo` of A2A's errors.
pub(crate) const ERROR_DOMAIN: &str = "a2a-protocol.org";

/// A failure's `google.rpc.ErrorInfo`, whatever the binding: its reason, and its metadata (the
/// denial codes, comma-separated: ErrorInfo's metadata holds strings).
pub(crate) fn error_info(f: &Failure) -> (&'static str, Vec<(String, String)>) {
    let (_, _, _, reason) = codes(f.kind);
    let mut metadata = Vec::new();
    if !f.denials.is_empty() {
        metadata.push(("denials".to_string(), f.denials.join(",")));
    }
    (reason, metadata)
}

/// The JSON-RPC error object of a failure: `data` is the typed details the SDKs read.
pub fn rpc_error(f: &Failure) -> Value {
    let (code, _, _, _) = codes(f.kind);
    json!({"code": code, "message": f.message, "data": details(f)})
}

/// The HTTP+JSON error body of a failure (google.rpc.Status: code, status, message, details)
/// and its HTTP status.
pub fn rest_error(f: &Failure) -> (u16, Value) {
    let (_, status, name, _) = codes(f.kind);
    let e = json!({"code": status, "status": name, "message": f.message, "details": details(f)});
    (status, json!({ "error": e }))
}
