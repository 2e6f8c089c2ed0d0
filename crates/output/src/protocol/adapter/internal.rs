//! The protocol-neutral task record, what every conversion goes through.

use serde_json::{Map, Value, json};

use engine::scenario::DataMap;

use super::InternalState;

/// The protocol-neutral task.
#[derive(Debug, Clone, PartialEq)]
pub struct InternalTask {
    pub task_id: String,
    pub context_id: String,
    pub agent: Option<String>,
    pub state: InternalState,
    /// Absent, or a non-empty string.
    pub output_text: Option<String>,
    /// Absent, or a non-empty object.
    pub structured: Option<DataMap>,
    pub delegation_chain: Vec<String>,
    /// The status message of a failed, rejected or awaiting task: what ACP's `error` and
    /// `await_request` carry. Absent, or a non-empty string.
    pub status_message: Option<String>,
}

/// Whether a state keeps its status message in the record (ACP has a slot for it).
pub fn keeps_status_message(state: InternalState) -> bool {
    matches!(
        state,
        InternalState::Failed
            | InternalState::Rejected
            | InternalState::Awaiting
            | InternalState::AwaitingAuth
    )
}
/// Collects an artifact's parts into the internal record's two outputs: text parts joined by a
/// blank line, data parts shallow-merged in order.
#[derive(Debug, Default)]
pub struct Outputs {
    texts: Vec<String>,
    data: DataMap,
}

impl Outputs {
    pub fn text(&mut self, t: &str) {
        if !t.is_empty() {
            self.texts.push(t.to_string());
        }
    }
    pub fn data(&mut self, d: &DataMap) {
        for (k, v) in d {
            self.data.insert(k.clone(), v.clone());
        }
    }
    pub fn finish(self) -> (Option<String>, Option<DataMap>) {
        let text = (!self.texts.is_empty()).then(|| self.texts.join("\n\n"));
        let data = (!self.data.is_empty()).then_some(self.data);
        (text, data)
    }
}

/// The internal record as JSON (`convert --to internal`); absent values are omitted.
pub fn internal_to_json(t: &InternalTask) -> Value {
    let mut m = Map::new();
    m.insert("task_id".into(), json!(t.task_id));
    m.insert("context_id".into(), json!(t.context_id));
    if let Some(a) = &t.agent {
        m.insert("agent".into(), json!(a));
    }
    m.insert("state".into(), json!(t.state.as_str()));
    if let Some(sm) = &t.status_message {
        m.insert("status_message".into(), json!(sm));
    }
    if let Some(text) = &t.output_text {
        m.insert("output_text".into(), json!(text));
    }
    if let Some(s) = &t.structured {
        m.insert("structured".into(), Value::Object(s.clone()));
    }
    m.insert("delegation_chain".into(), json!(t.delegation_chain));
    Value::Object(m)
}
