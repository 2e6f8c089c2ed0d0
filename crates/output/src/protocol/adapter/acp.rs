//! ACP Runs ⇄ the internal record.

use serde_json::{Map, Value, json};
use uuid::Uuid;

use super::fields::{ConvertError, err, req_str};
use super::{
    AcpStatus, InternalState, InternalTask, Outputs, acp_to_internal_state, internal_to_acp_status,
};

/// The namespace of the UUIDv5 ids of ACP runs and sessions:
/// UUIDv5(URL namespace, `"https://a2a-sim.example/acp"`).
pub const ACP_NAMESPACE: Uuid = Uuid::from_u128(0x7a49712a_1d82_5d29_b7e1_1db2e3fa6a4c);

/// The name of the ACP output part that carries the A2A identity.
pub const IDENTITY_PART: &str = "a2a-task";

/// ACP's agent name pattern: `^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`, 1–63 characters.
pub fn is_acp_agent_name(name: &str) -> bool {
    let b = name.as_bytes();
    let ok = |c: &u8| c.is_ascii_lowercase() || c.is_ascii_digit();
    (1..=63).contains(&b.len())
        && ok(&b[0])
        && ok(&b[b.len() - 1])
        && b.iter().all(|c| ok(c) || *c == b'-')
}

/// Timestamps of a run, when the source has them (the simulator's clock does).
#[derive(Debug, Clone, Default)]
pub struct RunTimes {
    pub created_at: Option<String>,
    pub finished_at: Option<String>,
}

/// The times an ACP Run needs (`created_at` is required), taken from the document being
/// converted: an ACP Run's own, or an A2A task's `status.timestamp`. A source with none gets the
/// default clock epoch — never the wall clock, so conversion stays deterministic.
pub fn source_times(doc: &Value, from_acp: bool, state: InternalState) -> RunTimes {
    let text = |v: Option<&Value>| v.and_then(Value::as_str).map(str::to_string);
    let (created, finished) = if from_acp {
        (text(doc.get("created_at")), text(doc.get("finished_at")))
    } else {
        let at = text(doc.get("status").and_then(|s| s.get("timestamp")));
        (at.clone(), at.filter(|_| state.is_terminal()))
    };
    RunTimes {
        created_at: Some(created.unwrap_or_else(|| engine::scenario::DEFAULT_EPOCH.to_string())),
        finished_at: finished,
    }
}

/// The ACP rule for `agent_name`: present, and of ACP's pattern.
pub fn acp_agent_name(agent: Option<&str>) -> Result<&str, ConvertError> {
    let Some(agent) = agent else {
        return err(
            "ACP rule: a Run needs `agent_name`, and this task has no agent (a foreign A2A task without a2a-sim metadata)",
        );
    };
    if !is_acp_agent_name(agent) {
        return err(format!(
            "ACP rule: `agent_name` must match ^[a-z0-9]([-a-z0-9]*[a-z0-9])?$ (1-63 characters); `{agent}` does not"
        ));
    }
    Ok(agent)
}

/// internal → ACP Run. ACP has no metadata slot and its ids are UUIDs, so the A2A identity
/// travels in one output part named [`IDENTITY_PART`].
pub fn internal_to_acp(t: &InternalTask, times: &RunTimes) -> Result<Value, ConvertError> {
    let agent = acp_agent_name(t.agent.as_deref())?;
    let mut parts = Vec::new();
    if let Some(text) = t.output_text.as_deref().filter(|s| !s.is_empty()) {
        parts.push(
            json!({"content_type": "text/plain", "content": text, "content_encoding": "plain"}),
        );
    }
    if let Some(data) = t.structured.as_ref().filter(|d| !d.is_empty()) {
        let content = serde_json::to_string(data).unwrap_or_default();
        parts.push(json!({"content_type": "application/json", "content": content, "content_encoding": "plain"}));
    }
    let identity = json!({"taskId": t.task_id, "contextId": t.context_id, "delegationChain": t.delegation_chain});
    parts.push(json!({
        "name": IDENTITY_PART,
        "content_type": "application/json",
        "content": identity.to_string(),
        "content_encoding": "plain",
    }));
    let mut message = Map::new();
    message.insert("role".into(), json!(format!("agent/{agent}")));
    message.insert("parts".into(), Value::Array(parts));
    if let Some(c) = &times.created_at {
        message.insert("created_at".into(), json!(c));
    }
    if let Some(f) = &times.finished_at {
        message.insert("completed_at".into(), json!(f));
    }
    let mut run = Map::new();
    run.insert("run_id".into(), json!(uuid_for(&t.task_id)));
    run.insert("agent_name".into(), json!(agent));
    run.insert("session_id".into(), json!(uuid_for(&t.context_id)));
    run.insert(
        "status".into(),
        json!(internal_to_acp_status(t.state).as_str()),
    );
    // ACP's slots for why a run failed and what an awaiting run asks.
    let status = internal_to_acp_status(t.state);
    let said = t.status_message.as_deref().filter(|m| !m.is_empty());
    let await_request = match (status, said) {
        (AcpStatus::Awaiting, Some(q)) => json!({
            "type": "message",
            "message": {
                "role": format!("agent/{agent}"),
                "parts": [{"content_type": "text/plain", "content": q, "content_encoding": "plain"}],
            },
        }),
        _ => Value::Null,
    };
    let error = match (status, said) {
        (AcpStatus::Failed, Some(m)) => json!({"code": "server_error", "message": m}),
        _ => Value::Null,
    };
    run.insert("await_request".into(), await_request);
    run.insert("output".into(), json!([message]));
    run.insert("error".into(), error);
    if let Some(c) = &times.created_at {
        run.insert("created_at".into(), json!(c));
    }
    run.insert(
        "finished_at".into(),
        times.finished_at.as_ref().map_or(Value::Null, |f| json!(f)),
    );
    Ok(Value::Object(run))
}

/// UUIDv5 of an A2A id in [`ACP_NAMESPACE`].
pub fn uuid_for(id: &str) -> String {
    Uuid::new_v5(&ACP_NAMESPACE, id.as_bytes()).to_string()
}

/// Reads one ACP Run. Identity comes from the `a2a-task` part when there is one; a foreign run
/// keeps its UUIDs as ids and has an empty chain.
pub fn acp_to_internal(doc: &Value) -> Result<InternalTask, ConvertError> {
    let obj = doc
        .as_object()
        .ok_or_else(|| ConvertError("an ACP Run is a JSON object".into()))?;
    let agent = req_str(obj, "agent_name", "")?;
    let run_id = req_str(obj, "run_id", "")?;
    let session_id = match obj.get("session_id") {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(_) => return err("field `session_id` must be a string or null"),
    };
    let status_text = req_str(obj, "status", "")?;
    let status = AcpStatus::parse(&status_text).ok_or_else(|| {
        ConvertError(format!(
            "field `status`: `{status_text}` is not an ACP run status"
        ))
    })?;
    let mut outputs = Outputs::default();
    let mut identity: Option<Value> = None;
    let output = match obj.get("output") {
        None => &Vec::new(),
        Some(Value::Array(a)) => a,
        Some(_) => return err("field `output` must be a list of messages"),
    };
    let empty = Vec::new();
    for (i, m) in output.iter().enumerate() {
        let parts = match m.get("parts") {
            Some(Value::Array(p)) => p,
            None => &empty,
            Some(_) => return err(format!("field `output[{i}].parts` must be a list")),
        };
        for (j, p) in parts.iter().enumerate() {
            let at = format!("output[{i}].parts[{j}]");
            let content_type = p
                .get("content_type")
                .and_then(Value::as_str)
                .unwrap_or("text/plain");
            let content = match p.get("content") {
                None | Some(Value::Null) => continue,
                Some(Value::String(s)) => s.as_str(),
                Some(_) => return err(format!("field `{at}.content` must be a string")),
            };
            if p.get("content_encoding").and_then(Value::as_str) == Some("base64") {
                continue;
            }
            let name = p.get("name").and_then(Value::as_str);
            if name == Some(IDENTITY_PART) {
                identity = Some(serde_json::from_str(content).map_err(|e| {
                    ConvertError(format!(
                        "field `{at}.content` ({IDENTITY_PART}) is not JSON: {e}"
                    ))
                })?);
            } else if content_type.starts_with("application/json") {
                match serde_json::from_str::<Value>(content) {
                    Ok(Value::Object(m)) => outputs.data(&m),
                    _ => {
                        return err(format!(
                            "field `{at}.content`: an application/json part must hold a JSON object"
                        ));
                    }
                }
            } else if content_type.starts_with("text/") {
                outputs.text(content);
            }
        }
    }
    let (output_text, structured) = outputs.finish();
    let (task_id, context_id, delegation_chain) = match identity {
        Some(id) => {
            let s = |k: &str| id.get(k).and_then(Value::as_str).map(str::to_string);
            let chain = id
                .get("delegationChain")
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(|h| h.as_str().map(str::to_string))
                        .collect()
                })
                .unwrap_or_default();
            (
                s("taskId").unwrap_or(run_id),
                s("contextId").unwrap_or(session_id),
                chain,
            )
        }
        None => (run_id, session_id, Vec::new()),
    };
    let state = acp_to_internal_state(status);
    let status_message = match status {
        AcpStatus::Failed => obj
            .get("error")
            .and_then(|e| e.get("message"))
            .and_then(Value::as_str)
            .map(str::to_string),
        AcpStatus::Awaiting => obj
            .get("await_request")
            .and_then(|a| a.get("message"))
            .and_then(|m| m.get("parts"))
            .and_then(Value::as_array)
            .map(|parts| {
                parts
                    .iter()
                    .filter_map(|p| p.get("content").and_then(Value::as_str))
                    .collect::<Vec<_>>()
                    .join("\n\n")
            }),
        _ => None,
    }
    .filter(|m| !m.is_empty());
    Ok(InternalTask {
        task_id,
        context_id,
        agent: Some(agent),
        state,
        output_text,
        structured,
        delegation_chain,
        status_message,
    })
}
