//! A2A Tasks (1.0 and 0.3) ⇄ the internal record.

use serde_json::{Map, Value, json};

use crate::protocol::A2aVersion;
use engine::scenario::DataMap;

use super::fields::{ConvertError, err, req_str};
use super::{InternalTask, Outputs, a2a_to_internal_state, internal_to_a2a_state};

/// The metadata key under which A2A tasks carry what A2A has no field for.
pub const METADATA_KEY: &str = "a2a-sim";

/// Reads one A2A Task, 1.0 or 0.3 (detected by its state spelling and `kind`).
pub fn a2a_to_internal(doc: &Value) -> Result<InternalTask, ConvertError> {
    let obj = doc
        .as_object()
        .ok_or_else(|| ConvertError("an A2A Task is a JSON object".into()))?;
    if let Some(kind) = obj.get("kind")
        && kind != "task"
    {
        return err(format!(
            "field `kind` is {kind}, expected \"task\" (an A2A Task)"
        ));
    }
    let task_id = req_str(obj, "id", "")?;
    let context_id = match obj.get("contextId") {
        None => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(_) => return err("field `contextId` must be a string"),
    };
    let status = obj
        .get("status")
        .and_then(Value::as_object)
        .ok_or_else(|| ConvertError("field `status` must be an object".into()))?;
    let state_text = req_str(status, "state", "status.")?;
    let state = A2aVersion::parse_state(&state_text).ok_or_else(|| {
        ConvertError(format!(
            "field `status.state`: `{state_text}` is not an A2A task state"
        ))
    })?;
    let mut outputs = Outputs::default();
    if let Some(artifacts) = obj.get("artifacts") {
        let list = artifacts
            .as_array()
            .ok_or_else(|| ConvertError("field `artifacts` must be a list".into()))?;
        for (i, a) in list.iter().enumerate() {
            let parts = a.get("parts").and_then(Value::as_array).ok_or_else(|| {
                ConvertError(format!("field `artifacts[{i}].parts` must be a list"))
            })?;
            for (j, p) in parts.iter().enumerate() {
                let at = format!("artifacts[{i}].parts[{j}]");
                if let Some(t) = p.get("text") {
                    outputs.text(t.as_str().ok_or_else(|| {
                        ConvertError(format!("field `{at}.text` must be a string"))
                    })?);
                } else if let Some(d) = p.get("data") {
                    match d {
                        Value::Object(m) => outputs.data(m),
                        _ => {
                            return err(format!(
                                "field `{at}.data`: a2a-sim reads data parts that are JSON objects"
                            ));
                        }
                    }
                }
            }
        }
    }
    let (output_text, structured) = outputs.finish();
    let ours = obj.get("metadata").and_then(|m| m.get(METADATA_KEY));
    let agent = ours
        .and_then(|m| m.get("agent"))
        .and_then(Value::as_str)
        .map(str::to_string);
    let delegation_chain = match ours.and_then(|m| m.get("delegationChain")) {
        None => Vec::new(),
        Some(Value::Array(a)) => a
            .iter()
            .map(|h| h.as_str().map(str::to_string))
            .collect::<Option<Vec<_>>>()
            .ok_or_else(|| {
                ConvertError(format!(
                    "field `metadata.{METADATA_KEY}.delegationChain` must be a list of strings"
                ))
            })?,
        Some(_) => {
            return err(format!(
                "field `metadata.{METADATA_KEY}.delegationChain` must be a list of strings"
            ));
        }
    };
    let state = a2a_to_internal_state(state);
    // The status message's text parts, for the states whose message the record keeps.
    let status_message = status
        .get("message")
        .and_then(|m| m.get("parts"))
        .and_then(Value::as_array)
        .map(|parts| {
            parts
                .iter()
                .filter_map(|p| p.get("text").and_then(Value::as_str))
                .collect::<Vec<_>>()
                .join("\n\n")
        })
        .filter(|t| !t.is_empty() && super::internal::keeps_status_message(state));
    Ok(InternalTask {
        task_id,
        context_id,
        agent,
        state,
        output_text,
        structured,
        delegation_chain,
        status_message,
    })
}

/// The A2A parts of an output: a text part only for text, a data part only for data.
pub fn parts(version: A2aVersion, text: Option<&str>, data: Option<&DataMap>) -> Vec<Value> {
    let mut parts = Vec::new();
    if let Some(t) = text.filter(|t| !t.is_empty()) {
        parts.push(match version {
            A2aVersion::V1_0 => json!({"text": t}),
            A2aVersion::V0_3 => json!({"kind": "text", "text": t}),
        });
    }
    if let Some(d) = data.filter(|d| !d.is_empty()) {
        parts.push(match version {
            A2aVersion::V1_0 => json!({"data": d, "mediaType": "application/json"}),
            A2aVersion::V0_3 => json!({"kind": "data", "data": d}),
        });
    }
    parts
}

/// Our metadata object: the fields A2A has no slot for.
pub fn metadata(agent: Option<&str>, chain: &[String], extra: Map<String, Value>) -> Value {
    let mut ours = Map::new();
    if let Some(a) = agent {
        ours.insert("agent".into(), json!(a));
    }
    ours.insert("delegationChain".into(), json!(chain));
    ours.extend(extra);
    json!({ METADATA_KEY: ours })
}

/// internal → A2A Task. Outputs go into one artifact, `output`.
pub fn internal_to_a2a(t: &InternalTask, version: A2aVersion) -> Value {
    let mut task = Map::new();
    if version == A2aVersion::V0_3 {
        task.insert("kind".into(), json!("task"));
    }
    task.insert("id".into(), json!(t.task_id));
    // 0.3 requires a context id; 1.0 may omit an unknown one.
    if !t.context_id.is_empty() || version == A2aVersion::V0_3 {
        task.insert("contextId".into(), json!(t.context_id));
    }
    let mut status = json!({"state": version.state(internal_to_a2a_state(t.state))});
    if let Some(text) = &t.status_message {
        // The record keeps only the text: the message gets a fixed id.
        let mut m = Map::new();
        if version == A2aVersion::V0_3 {
            m.insert("kind".into(), json!("message"));
        }
        m.insert("messageId".into(), json!("status-message"));
        m.insert("role".into(), json!(version.role(false)));
        m.insert(
            "parts".into(),
            Value::Array(parts(version, Some(text), None)),
        );
        status["message"] = Value::Object(m);
    }
    task.insert("status".into(), status);
    let parts = parts(version, t.output_text.as_deref(), t.structured.as_ref());
    if !parts.is_empty() {
        task.insert(
            "artifacts".into(),
            json!([{"artifactId": "output", "parts": parts}]),
        );
    }
    task.insert(
        "metadata".into(),
        metadata(t.agent.as_deref(), &t.delegation_chain, Map::new()),
    );
    Value::Object(task)
}
