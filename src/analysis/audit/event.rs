//! One recorded line → one normalised event. A line is a stream event (A2A 0.3 with `kind`, or 1.0
//! wrapped as `{task|statusUpdate|artifactUpdate|message: ...}`), or a JSON-RPC response whose
//! `result` is one; an SSE capture's `data:` prefix is taken off first. The version is detected
//! per line. Only the fields the rules read are deserialised (borrowed where unescaped); the rest
//! is skipped without being built, which keeps the audit fast.

use std::borrow::Cow;

use serde::Deserialize;
use serde::de::IgnoredAny;

use crate::engine::record::TaskState;
use crate::protocol::A2aVersion;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Task,
    Status,
    Artifact,
    Message,
}

/// What the rules need of one event.
#[derive(Debug)]
pub struct Event<'a> {
    pub version: A2aVersion,
    pub kind: Kind,
    pub task: Option<Cow<'a, str>>,
    pub context: Option<Cow<'a, str>>,
    pub state: Option<TaskState>,
    pub timestamp: Option<Cow<'a, str>>,
    /// 0.3 `final`.
    pub fin: Option<bool>,
    pub artifact: Option<Cow<'a, str>>,
    pub append: bool,
}

/// What a line is, when it is not an event.
pub enum Parsed<'a> {
    Event(Event<'a>),
    /// Blank lines, SSE `event:`/`id:`/comment lines, JSON-RPC errors: nothing to audit.
    Skip,
}

#[derive(Deserialize)]
struct Top<'a> {
    // 0.3 stream events and Task
    #[serde(borrow)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow)]
    id: Option<Id<'a>>,
    #[serde(borrow, rename = "taskId")]
    task_id: Option<Cow<'a, str>>,
    #[serde(borrow, rename = "contextId")]
    context_id: Option<Cow<'a, str>>,
    #[serde(borrow)]
    status: Option<Status<'a>>,
    #[serde(rename = "final")]
    fin: Option<bool>,
    #[serde(borrow)]
    artifact: Option<Artifact<'a>>,
    append: Option<bool>,
    // 1.0 StreamResponse members
    #[serde(borrow)]
    task: Option<Box<Top<'a>>>,
    #[serde(borrow, rename = "statusUpdate")]
    status_update: Option<Box<Top<'a>>>,
    #[serde(borrow, rename = "artifactUpdate")]
    artifact_update: Option<Box<Top<'a>>>,
    #[serde(borrow)]
    message: Option<Box<Top<'a>>>,
    // JSON-RPC envelope
    jsonrpc: Option<IgnoredAny>,
    #[serde(borrow)]
    result: Option<Box<Top<'a>>>,
    error: Option<IgnoredAny>,
}

/// A task id (a string) or a JSON-RPC id (a string or a number).
#[derive(Deserialize)]
#[serde(untagged)]
enum Id<'a> {
    #[serde(borrow)]
    Str(Cow<'a, str>),
    Other(IgnoredAny),
}

#[derive(Deserialize)]
struct Status<'a> {
    #[serde(borrow)]
    state: Option<Cow<'a, str>>,
    #[serde(borrow)]
    timestamp: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
struct Artifact<'a> {
    #[serde(borrow, rename = "artifactId")]
    artifact_id: Option<Cow<'a, str>>,
}

/// Parses one line (without its newline); `Err` is the finding's message.
pub fn parse(line: &[u8]) -> Result<Parsed<'_>, String> {
    let line = trim(line);
    let line = match line.strip_prefix(b"data:") {
        Some(rest) => trim(rest),
        None if line.is_empty() => return Ok(Parsed::Skip),
        // SSE field lines other than data, and comments.
        None if line.starts_with(b":")
            || line.starts_with(b"event:")
            || line.starts_with(b"id:")
            || line.starts_with(b"retry:") =>
        {
            return Ok(Parsed::Skip);
        }
        None => line,
    };
    if line.is_empty() {
        return Ok(Parsed::Skip);
    }
    let top: Top = serde_json::from_slice(line).map_err(|e| format!("not a JSON event: {e}"))?;
    event(top, 0)
}

fn trim(b: &[u8]) -> &[u8] {
    let start = b
        .iter()
        .position(|c| !c.is_ascii_whitespace())
        .unwrap_or(b.len());
    let end = b
        .iter()
        .rposition(|c| !c.is_ascii_whitespace())
        .map_or(start, |e| e + 1);
    &b[start..end]
}

fn event(top: Top<'_>, depth: u8) -> Result<Parsed<'_>, String> {
    if top.jsonrpc.is_some() || top.result.is_some() || top.error.is_some() {
        if depth > 0 {
            return Err("a JSON-RPC envelope inside a result".into());
        }
        return match (top.result, top.error) {
            (Some(r), None) => event(*r, 1),
            (None, Some(_)) => Ok(Parsed::Skip),
            (Some(_), Some(_)) => Err("a JSON-RPC response with both `result` and `error`".into()),
            (None, None) => Err("a JSON-RPC response with neither `result` nor `error`".into()),
        };
    }
    let wrapped = [
        (top.task.is_some(), Kind::Task),
        (top.status_update.is_some(), Kind::Status),
        (top.artifact_update.is_some(), Kind::Artifact),
        (top.message.is_some(), Kind::Message),
    ];
    let members = wrapped.iter().filter(|w| w.0).count();
    if let Some(kind) = &top.kind {
        if members > 0 {
            return Err("both a 0.3 `kind` and a 1.0 StreamResponse member".into());
        }
        let kind = match kind.as_ref() {
            "task" => Kind::Task,
            "status-update" => Kind::Status,
            "artifact-update" => Kind::Artifact,
            "message" => Kind::Message,
            other => return Err(format!("unknown 0.3 event kind `{other}`")),
        };
        return fields(top, kind, A2aVersion::V0_3).map(Parsed::Event);
    }
    if members != 1 {
        return Err(if members == 0 {
            "neither a 0.3 event (`kind`) nor a 1.0 StreamResponse (`task`, `statusUpdate`, `artifactUpdate`, `message`)".into()
        } else {
            "a 1.0 StreamResponse has exactly one member".into()
        });
    }
    let kind = wrapped
        .iter()
        .find(|w| w.0)
        .map(|w| w.1)
        .unwrap_or(Kind::Message);
    let inner = top
        .task
        .or(top.status_update)
        .or(top.artifact_update)
        .or(top.message);
    match inner {
        Some(inner) => {
            if inner.kind.is_some() {
                return Err("a 1.0 StreamResponse member carries a 0.3 `kind`".into());
            }
            fields(*inner, kind, A2aVersion::V1_0).map(Parsed::Event)
        }
        None => Err("an empty StreamResponse".into()),
    }
}

fn fields(top: Top<'_>, kind: Kind, version: A2aVersion) -> Result<Event<'_>, String> {
    let task = match kind {
        Kind::Task => match top.id {
            Some(Id::Str(s)) => Some(s),
            Some(Id::Other(_)) => return Err("a Task `id` must be a string".into()),
            None => return Err("a Task without `id`".into()),
        },
        _ => top.task_id,
    };
    if matches!(kind, Kind::Status | Kind::Artifact) && task.is_none() {
        return Err("an update without `taskId`".into());
    }
    let (state, timestamp) = match top.status {
        Some(st) => {
            let state = match st.state {
                Some(s) => Some(state(&s, version)?),
                None => return Err("a status without `state`".into()),
            };
            (state, st.timestamp)
        }
        None if matches!(kind, Kind::Task | Kind::Status) => {
            return Err("a task or status update without `status`".into());
        }
        None => (None, None),
    };
    if version == A2aVersion::V0_3 && kind == Kind::Status && top.fin.is_none() {
        return Err("a 0.3 status-update without `final`".into());
    }
    let artifact = match (kind, top.artifact) {
        (Kind::Artifact, Some(a)) => match a.artifact_id {
            Some(id) => Some(id),
            None => return Err("an artifact without `artifactId`".into()),
        },
        (Kind::Artifact, None) => return Err("an artifact update without `artifact`".into()),
        _ => None,
    };
    Ok(Event {
        version,
        kind,
        task,
        context: top.context_id,
        state,
        timestamp,
        fin: top.fin,
        artifact,
        append: top.append.unwrap_or(false),
    })
}

fn state(s: &str, version: A2aVersion) -> Result<TaskState, String> {
    let found = TaskState::ALL.into_iter().find(|&t| version.state(t) == s);
    found.ok_or_else(|| match A2aVersion::parse_state(s) {
        Some(_) => format!(
            "state `{s}` is not spelled as A2A {} spells it",
            name(version)
        ),
        None => format!("unknown task state `{s}`"),
    })
}

pub fn name(v: A2aVersion) -> &'static str {
    match v {
        A2aVersion::V1_0 => "1.0",
        A2aVersion::V0_3 => "0.3",
    }
}
