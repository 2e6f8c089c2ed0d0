//! The adapter layer: A2A ⇄ internal ⇄ ACP (semantics.md §7).
//!
//! The internal record is protocol-neutral. The four state tables are data, here in one place;
//! the two lossy rows of internal → ACP (and the one of ACP → internal) are declared, not accidents.
//! Text and data parts are emitted only when non-empty, so the empty task converts back to itself.

use serde_json::{Map, Value, json};
use uuid::Uuid;

use crate::engine::lifecycle::TaskState;
use crate::protocol::version::A2aVersion;
use crate::scenario::file::DataMap;

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
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InternalState {
    Submitted,
    Working,
    Awaiting,
    AwaitingAuth,
    Completed,
    Canceled,
    Failed,
    Rejected,
}

impl InternalState {
    pub fn as_str(self) -> &'static str {
        match self {
            InternalState::Submitted => "submitted",
            InternalState::Working => "working",
            InternalState::Awaiting => "awaiting",
            InternalState::AwaitingAuth => "awaiting_auth",
            InternalState::Completed => "completed",
            InternalState::Canceled => "canceled",
            InternalState::Failed => "failed",
            InternalState::Rejected => "rejected",
        }
    }

    pub fn parse(s: &str) -> Option<InternalState> {
        A2A_TO_INTERNAL
            .iter()
            .map(|&(_, i)| i)
            .find(|i| i.as_str() == s)
    }
}

/// ACP's run statuses (note `cancelled`, with two l's).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AcpStatus {
    Created,
    InProgress,
    Awaiting,
    Cancelling,
    Cancelled,
    Completed,
    Failed,
}

impl AcpStatus {
    pub const ALL: [AcpStatus; 7] = [
        AcpStatus::Created,
        AcpStatus::InProgress,
        AcpStatus::Awaiting,
        AcpStatus::Cancelling,
        AcpStatus::Cancelled,
        AcpStatus::Completed,
        AcpStatus::Failed,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            AcpStatus::Created => "created",
            AcpStatus::InProgress => "in-progress",
            AcpStatus::Awaiting => "awaiting",
            AcpStatus::Cancelling => "cancelling",
            AcpStatus::Cancelled => "cancelled",
            AcpStatus::Completed => "completed",
            AcpStatus::Failed => "failed",
        }
    }

    pub fn parse(s: &str) -> Option<AcpStatus> {
        AcpStatus::ALL.into_iter().find(|a| a.as_str() == s)
    }
}

/// A2A → internal: a bijection.
pub const A2A_TO_INTERNAL: [(TaskState, InternalState); 8] = [
    (TaskState::Submitted, InternalState::Submitted),
    (TaskState::Working, InternalState::Working),
    (TaskState::InputRequired, InternalState::Awaiting),
    (TaskState::AuthRequired, InternalState::AwaitingAuth),
    (TaskState::Completed, InternalState::Completed),
    (TaskState::Canceled, InternalState::Canceled),
    (TaskState::Failed, InternalState::Failed),
    (TaskState::Rejected, InternalState::Rejected),
];

/// internal → A2A: the inverse of [`A2A_TO_INTERNAL`].
pub const INTERNAL_TO_A2A: [(InternalState, TaskState); 8] = [
    (InternalState::Submitted, TaskState::Submitted),
    (InternalState::Working, TaskState::Working),
    (InternalState::Awaiting, TaskState::InputRequired),
    (InternalState::AwaitingAuth, TaskState::AuthRequired),
    (InternalState::Completed, TaskState::Completed),
    (InternalState::Canceled, TaskState::Canceled),
    (InternalState::Failed, TaskState::Failed),
    (InternalState::Rejected, TaskState::Rejected),
];

/// internal → ACP, with `lossy` marking the rows ACP cannot tell apart from another.
pub const INTERNAL_TO_ACP: [(InternalState, AcpStatus, Lossy); 8] = [
    (InternalState::Submitted, AcpStatus::Created, Lossy::No),
    (InternalState::Working, AcpStatus::InProgress, Lossy::No),
    (InternalState::Awaiting, AcpStatus::Awaiting, Lossy::No),
    // ACP has one "awaiting": a credential request looks like any other question.
    (InternalState::AwaitingAuth, AcpStatus::Awaiting, Lossy::Yes),
    (InternalState::Completed, AcpStatus::Completed, Lossy::No),
    (InternalState::Canceled, AcpStatus::Cancelled, Lossy::No),
    (InternalState::Failed, AcpStatus::Failed, Lossy::No),
    // ACP has no rejection: a refused task reads as a failed one.
    (InternalState::Rejected, AcpStatus::Failed, Lossy::Yes),
];

/// ACP → internal.
pub const ACP_TO_INTERNAL: [(AcpStatus, InternalState, Lossy); 7] = [
    (AcpStatus::Created, InternalState::Submitted, Lossy::No),
    (AcpStatus::InProgress, InternalState::Working, Lossy::No),
    (AcpStatus::Awaiting, InternalState::Awaiting, Lossy::No),
    // A cancel in flight is still running.
    (AcpStatus::Cancelling, InternalState::Working, Lossy::Yes),
    (AcpStatus::Cancelled, InternalState::Canceled, Lossy::No),
    (AcpStatus::Completed, InternalState::Completed, Lossy::No),
    (AcpStatus::Failed, InternalState::Failed, Lossy::No),
];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lossy {
    No,
    Yes,
}

pub fn a2a_to_internal_state(s: TaskState) -> InternalState {
    A2A_TO_INTERNAL
        .iter()
        .find(|r| r.0 == s)
        .map_or(InternalState::Failed, |r| r.1)
}

pub fn internal_to_a2a_state(s: InternalState) -> TaskState {
    INTERNAL_TO_A2A
        .iter()
        .find(|r| r.0 == s)
        .map_or(TaskState::Failed, |r| r.1)
}

pub fn internal_to_acp_status(s: InternalState) -> AcpStatus {
    INTERNAL_TO_ACP
        .iter()
        .find(|r| r.0 == s)
        .map_or(AcpStatus::Failed, |r| r.1)
}

pub fn acp_to_internal_state(s: AcpStatus) -> InternalState {
    ACP_TO_INTERNAL
        .iter()
        .find(|r| r.0 == s)
        .map_or(InternalState::Failed, |r| r.1)
}

/// The namespace of the UUIDv5 ids of ACP runs and sessions:
/// UUIDv5(URL namespace, "https://a2a-sim.example/acp").
pub const ACP_NAMESPACE: Uuid = Uuid::from_u128(0x7a49712a_1d82_5d29_b7e1_1db2e3fa6a4c);

/// The name of the ACP output part that carries the A2A identity.
pub const IDENTITY_PART: &str = "a2a-task";

/// The metadata key under which A2A tasks carry what A2A has no field for.
pub const METADATA_KEY: &str = "a2a-sim";

/// ACP's agent name pattern: `^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`, 1–63 characters.
pub fn is_acp_agent_name(name: &str) -> bool {
    let b = name.as_bytes();
    let ok = |c: &u8| c.is_ascii_lowercase() || c.is_ascii_digit();
    (1..=63).contains(&b.len())
        && ok(&b[0])
        && ok(&b[b.len() - 1])
        && b.iter().all(|c| ok(c) || *c == b'-')
}

/// A document that cannot be converted; the message names the field or rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConvertError(pub String);

impl std::fmt::Display for ConvertError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ConvertError {}

fn err<T>(msg: impl Into<String>) -> Result<T, ConvertError> {
    Err(ConvertError(msg.into()))
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
    Ok(InternalTask {
        task_id,
        context_id,
        agent,
        state: a2a_to_internal_state(state),
        output_text,
        structured,
        delegation_chain,
    })
}

fn req_str(obj: &Map<String, Value>, key: &str, prefix: &str) -> Result<String, ConvertError> {
    match obj.get(key) {
        Some(Value::String(s)) => Ok(s.clone()),
        Some(_) => err(format!("field `{prefix}{key}` must be a string")),
        None => err(format!("required field `{prefix}{key}` is missing")),
    }
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
    task.insert(
        "status".into(),
        json!({"state": version.state(internal_to_a2a_state(t.state))}),
    );
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

/// Timestamps of a run, when the source has them (the simulator's clock does).
#[derive(Debug, Clone, Default)]
pub struct RunTimes {
    pub created_at: Option<String>,
    pub finished_at: Option<String>,
}

impl InternalState {
    pub fn is_terminal(self) -> bool {
        matches!(
            self,
            InternalState::Completed
                | InternalState::Canceled
                | InternalState::Failed
                | InternalState::Rejected
        )
    }
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
        created_at: Some(
            created.unwrap_or_else(|| crate::engine::scenario::DEFAULT_EPOCH.to_string()),
        ),
        finished_at: finished,
    }
}

/// internal → ACP Run. ACP has no metadata slot and its ids are UUIDs, so the A2A identity
/// travels in one output part named [`IDENTITY_PART`].
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
    run.insert("await_request".into(), Value::Null);
    run.insert("output".into(), json!([message]));
    run.insert("error".into(), Value::Null);
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
    Ok(InternalTask {
        task_id,
        context_id,
        agent: Some(agent),
        state: acp_to_internal_state(status),
        output_text,
        structured,
        delegation_chain,
    })
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
    if let Some(text) = &t.output_text {
        m.insert("output_text".into(), json!(text));
    }
    if let Some(s) = &t.structured {
        m.insert("structured".into(), Value::Object(s.clone()));
    }
    m.insert("delegation_chain".into(), json!(t.delegation_chain));
    Value::Object(m)
}
