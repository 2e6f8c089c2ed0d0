//! What comes back from a real agent, in A2A 1.0 or 0.3 JSON-RPC: its answer to a send (a Task or
//! a Message) or its stream's events, read into what the report records. Nothing in an answer is
//! trusted: every shape is checked, and what is wrong is said. (What goes to it: `call.rs`.)

use serde_json::{Map, Value};

use engine::record::TaskState;

use crate::message::canonical;

pub use super::call::{
    Endpoint, Outgoing, endpoint, push_config_request, pushed_state, send_request, skill_tags,
    task_request,
};

/// One thing the agent reported for its task, in the order the report records them.
#[derive(Debug, Clone, PartialEq)]
pub enum Reported {
    Status {
        state: TaskState,
        text: Option<String>,
        data: Option<Map<String, Value>>,
    },
    Artifact {
        name: Option<String>,
        text: Option<String>,
        data: Option<Map<String, Value>>,
    },
}

/// The agent's answer to a send: its own task and context ids (kept at the edge, never
/// reported) and what it reported, or what is wrong with the answer.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskAnswer {
    pub task_id: Option<String>,
    pub context_id: Option<String>,
    pub reported: Vec<Reported>,
}

/// A JSON-RPC answer's error, if it is one: its code (0 when missing) and message.
pub fn rpc_error(v: &Value) -> Option<(i64, &str)> {
    let err = v.get("error")?;
    let code = err.get("code").and_then(Value::as_i64).unwrap_or(0);
    Some((
        code,
        err.get("message").and_then(Value::as_str).unwrap_or(""),
    ))
}

/// Reads a JSON-RPC answer to a send. A JSON-RPC error is `Err` with its code and message.
pub fn read_send_answer(e: &Endpoint, status: u16, body: &[u8]) -> Result<TaskAnswer, String> {
    let v: Value = serde_json::from_slice(body).map_err(|err| {
        format!(
            "HTTP {status} with a body that is not JSON ({err}): {}",
            preview(body)
        )
    })?;
    if let Some((code, message)) = rpc_error(&v) {
        return Err(format!("JSON-RPC error {code}: {}", clip(message)));
    }
    let Some(result) = v.get("result") else {
        return Err(format!(
            "HTTP {status}: a JSON-RPC answer with neither `result` nor `error`"
        ));
    };
    // 1.0: {"task": T} or {"message": M}; 0.3: T or M with `kind`.
    let (task, message) = if e.v1 {
        (result.get("task"), result.get("message"))
    } else {
        match result.get("kind").and_then(Value::as_str) {
            Some("task") => (Some(result), None),
            Some("message") => (None, Some(result)),
            _ => (None, None),
        }
    };
    if let Some(m) = message {
        let (text, data) = parts_of(m.get("parts"), e.v1)?;
        return Ok(TaskAnswer {
            task_id: None,
            context_id: None,
            reported: vec![Reported::Status {
                state: TaskState::Completed,
                text,
                data,
            }],
        });
    }
    let Some(task) = task.and_then(Value::as_object) else {
        return Err("the answer is neither a Task nor a Message".into());
    };
    let mut reported = Vec::new();
    // The messages of the status updates before the last one: the SDKs move each status
    // message into `history` when the next status comes.
    for m in task
        .get("history")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        if role_of(m, e.v1) == Some("agent") {
            let (text, data) = parts_of(m.get("parts"), e.v1)?;
            reported.push(Reported::Status {
                state: TaskState::Working,
                text,
                data,
            });
        }
    }
    for a in task
        .get("artifacts")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let (text, data) = parts_of(a.get("parts"), e.v1)?;
        reported.push(Reported::Artifact {
            name: a.get("name").and_then(Value::as_str).map(str::to_string),
            text,
            data,
        });
    }
    let status = task.get("status").ok_or("its Task has no `status`")?;
    let word = status
        .get("state")
        .and_then(Value::as_str)
        .ok_or("its Task's status has no `state`")?;
    let state = state_of(word).ok_or_else(|| format!("unknown task state `{}`", clip(word)))?;
    let (text, data) = match status.get("message") {
        Some(m) if !m.is_null() => parts_of(m.get("parts"), e.v1)?,
        _ => (None, None),
    };
    reported.push(Reported::Status { state, text, data });
    let id = |k: &str| task.get(k).and_then(Value::as_str).map(str::to_string);
    Ok(TaskAnswer {
        task_id: id("id"),
        context_id: id("contextId"),
        reported,
    })
}

/// Reads a JSON-RPC answer that is a Task itself (GetTask, CancelTask): as a send's answer.
pub fn read_task_answer(e: &Endpoint, status: u16, body: &[u8]) -> Result<TaskAnswer, String> {
    if !e.v1 {
        return read_send_answer(e, status, body);
    }
    // 1.0 gives the Task bare; a send's answer wraps it as `{"task": …}`.
    match serde_json::from_slice::<Value>(body) {
        Ok(mut v) if v.get("result").is_some_and(|r| r.get("task").is_none()) => {
            let task = v["result"].take();
            v["result"] = serde_json::json!({ "task": task });
            read_send_answer(e, status, v.to_string().as_bytes())
        }
        _ => read_send_answer(e, status, body),
    }
}

/// Reads a stream's answer (`text/event-stream`): each event's JSON-RPC result in order — the
/// Task, status updates, artifact updates or a Message — into what the report records.
pub fn read_stream_answer(e: &Endpoint, status: u16, body: &[u8]) -> Result<TaskAnswer, String> {
    let text = std::str::from_utf8(body).map_err(|_| "a stream that is not UTF-8".to_string())?;
    if status != 200 || !text.trim_start().starts_with("data:") {
        // Not a stream: a JSON-RPC error (or garbage) answered at once.
        return read_send_answer(e, status, body);
    }
    let mut answer = TaskAnswer {
        task_id: None,
        context_id: None,
        reported: Vec::new(),
    };
    // Lines end in LF, CRLF or CR (the SSE format allows each).
    let text = text.replace("\r\n", "\n").replace('\r', "\n");
    for event in text.split("\n\n") {
        let data: String = event
            .lines()
            .filter_map(|l| l.strip_prefix("data:"))
            .map(str::trim_start)
            .collect::<Vec<_>>()
            .join("\n");
        if data.is_empty() {
            continue;
        }
        let v: Value = serde_json::from_str(&data)
            .map_err(|err| format!("a stream event that is not JSON ({err}): {}", clip(&data)))?;
        if let Some((code, message)) = rpc_error(&v) {
            return Err(format!(
                "JSON-RPC error {code} on its stream: {}",
                clip(message)
            ));
        }
        let Some(result) = v.get("result") else {
            return Err("a stream event with neither `result` nor `error`".into());
        };
        stream_event(e, result, &mut answer)?;
    }
    if answer.reported.is_empty() {
        return Err("a stream with no event".into());
    }
    Ok(answer)
}

/// One stream event's result, added to `answer`.
fn stream_event(e: &Endpoint, result: &Value, answer: &mut TaskAnswer) -> Result<(), String> {
    let (kind, body) = if e.v1 {
        ["task", "message", "statusUpdate", "artifactUpdate"]
            .into_iter()
            .find_map(|k| result.get(k).map(|b| (k, b)))
            .ok_or("a stream event that is none of task, message, statusUpdate, artifactUpdate")?
    } else {
        let kind = match result.get("kind").and_then(Value::as_str) {
            Some("task") => "task",
            Some("message") => "message",
            Some("status-update") => "statusUpdate",
            Some("artifact-update") => "artifactUpdate",
            _ => return Err("a stream event of no known `kind`".into()),
        };
        (kind, result)
    };
    let id = |k: &str| body.get(k).and_then(Value::as_str).map(str::to_string);
    match kind {
        "task" => {
            answer.task_id = id("id").or(answer.task_id.take());
            answer.context_id = id("contextId").or(answer.context_id.take());
            let state = body
                .get("status")
                .and_then(|s| s.get("state"))
                .and_then(Value::as_str)
                .ok_or("its Task has no `status.state`")?;
            let state =
                state_of(state).ok_or_else(|| format!("unknown task state `{}`", clip(state)))?;
            answer.reported.push(Reported::Status {
                state,
                text: None,
                data: None,
            });
        }
        "message" => {
            let (text, data) = parts_of(body.get("parts"), e.v1)?;
            answer.reported.push(Reported::Status {
                state: TaskState::Completed,
                text,
                data,
            });
        }
        "statusUpdate" => {
            answer.task_id = id("taskId").or(answer.task_id.take());
            answer.context_id = id("contextId").or(answer.context_id.take());
            let status = body
                .get("status")
                .ok_or("a status update without `status`")?;
            let word = status
                .get("state")
                .and_then(Value::as_str)
                .ok_or("a status update without `status.state`")?;
            let state =
                state_of(word).ok_or_else(|| format!("unknown task state `{}`", clip(word)))?;
            let (text, data) = match status.get("message") {
                Some(m) if !m.is_null() => parts_of(m.get("parts"), e.v1)?,
                _ => (None, None),
            };
            answer.reported.push(Reported::Status { state, text, data });
        }
        _ => {
            let a = body
                .get("artifact")
                .ok_or("an artifact update without `artifact`")?;
            let (text, data) = parts_of(a.get("parts"), e.v1)?;
            answer.reported.push(Reported::Artifact {
                name: a.get("name").and_then(Value::as_str).map(str::to_string),
                text,
                data,
            });
        }
    }
    Ok(())
}

fn role_of(m: &Value, v1: bool) -> Option<&'static str> {
    match m.get("role").and_then(Value::as_str)? {
        "ROLE_AGENT" if v1 => Some("agent"),
        "agent" if !v1 => Some("agent"),
        "ROLE_USER" | "user" => Some("user"),
        _ => None,
    }
}

/// A state in 1.0 (`TASK_STATE_COMPLETED`) or 0.3 (`completed`) spelling.
pub fn state_of(word: &str) -> Option<TaskState> {
    let plain = word
        .strip_prefix("TASK_STATE_")
        .map(|w| w.to_ascii_lowercase().replace('_', "-"));
    TaskState::from_a2a(plain.as_deref().unwrap_or(word))
}

/// A message's or artifact's text and data, as the report records them.
type Content = (Option<String>, Option<Map<String, Value>>);

/// The text parts joined with a space, and the first data part that is an object: what a
/// report's message holds. Numbers are JSON numbers as the scenario writes them (a protobuf
/// Struct's `20000.0` is `20000`).
fn parts_of(parts: Option<&Value>, v1: bool) -> Result<Content, String> {
    let Some(parts) = parts else {
        return Ok((None, None));
    };
    let Some(parts) = parts.as_array() else {
        return Err("`parts` is not a list".into());
    };
    let mut texts = Vec::new();
    let mut data = None;
    for p in parts {
        let kind = if v1 {
            None
        } else {
            p.get("kind").and_then(Value::as_str)
        };
        if let Some(t) = p.get("text").and_then(Value::as_str)
            && kind.is_none_or(|k| k == "text")
        {
            texts.push(t.to_string());
        } else if let Some(d) = p.get("data")
            && kind.is_none_or(|k| k == "data")
            && data.is_none()
            && let Value::Object(o) = canonical(d.clone())
        {
            data = Some(o);
        }
    }
    let text = (!texts.is_empty()).then(|| texts.join(" "));
    Ok((text, data))
}

fn clip(s: &str) -> String {
    let mut out: String = s.chars().take(200).collect();
    if out.len() < s.len() {
        out.push('…');
    }
    out
}

fn preview(body: &[u8]) -> String {
    clip(&String::from_utf8_lossy(body))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn v1() -> Endpoint {
        Endpoint {
            url: "http://127.0.0.1:1/".into(),
            v1: true,
            streaming: false,
        }
    }

    #[test]
    fn data_is_canonical_whole_numbers_as_integers_and_keys_in_order() {
        let v = canonical(json!({"b": [1.5, 2.0], "a": 20000.0}));
        assert_eq!(v, json!({"a": 20000, "b": [1.5, 2]}));
        // Keys in order, whatever order they came in.
        assert_eq!(v.to_string(), r#"{"a":20000,"b":[1.5,2]}"#);
    }

    #[test]
    fn a_task_answer_reads_history_artifacts_and_status_in_order() {
        let body = br#"{"jsonrpc":"2.0","id":1,"result":{"task":{"id":"t-9","contextId":"c-9",
            "status":{"state":"TASK_STATE_COMPLETED","message":{"role":"ROLE_AGENT","parts":[{"text":"done"}]}},
            "history":[{"role":"ROLE_USER","parts":[{"text":"hi"}]},{"role":"ROLE_AGENT","parts":[{"text":"working"}]}],
            "artifacts":[{"name":"d","parts":[{"text":"a"},{"data":{"score":712.0}}]}]}}}"#;
        let a = read_send_answer(&v1(), 200, body).unwrap();
        assert_eq!(a.task_id.as_deref(), Some("t-9"));
        assert_eq!(a.reported.len(), 3);
        assert!(
            matches!(&a.reported[0], Reported::Status { state: TaskState::Working, text: Some(t), .. } if t == "working")
        );
        assert!(
            matches!(&a.reported[1], Reported::Artifact { data: Some(d), .. } if d["score"] == json!(712))
        );
        assert!(matches!(
            &a.reported[2],
            Reported::Status {
                state: TaskState::Completed,
                ..
            }
        ));
    }

    #[test]
    fn a_stream_is_read_event_by_event_in_order() {
        let body = concat!(
            "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"task\":{\"id\":\"t\",\"status\":{\"state\":\"TASK_STATE_SUBMITTED\"}}}}\n\n",
            "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"statusUpdate\":{\"taskId\":\"t\",\"status\":{\"state\":\"TASK_STATE_WORKING\",\"message\":{\"parts\":[{\"text\":\"on it\"}]}}}}}\n\n",
            "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"artifactUpdate\":{\"taskId\":\"t\",\"artifact\":{\"name\":\"a\",\"parts\":[{\"data\":{\"n\":1.0}}]}}}}\n\n",
            "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"statusUpdate\":{\"taskId\":\"t\",\"status\":{\"state\":\"TASK_STATE_COMPLETED\"}}}}\n\n",
        );
        let a = read_stream_answer(&v1(), 200, body.as_bytes()).unwrap();
        assert_eq!(a.task_id.as_deref(), Some("t"));
        let states: Vec<_> = a
            .reported
            .iter()
            .map(|r| match r {
                Reported::Status { state, .. } => state.as_str(),
                Reported::Artifact { .. } => "artifact",
            })
            .collect();
        assert_eq!(states, ["submitted", "working", "artifact", "completed"]);
        assert!(read_stream_answer(&v1(), 200, b"data: {oops}\n\n").is_err());
        // CRLF line ends, as many servers send them.
        let crlf = body.replace("\n", "\r\n");
        assert_eq!(read_stream_answer(&v1(), 200, crlf.as_bytes()).unwrap(), a);
    }

    #[test]
    fn garbage_and_errors_are_said() {
        assert!(
            read_send_answer(&v1(), 200, b"<html>")
                .unwrap_err()
                .contains("not JSON")
        );
        let err = br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"bad"}}"#;
        assert_eq!(
            read_send_answer(&v1(), 200, err).unwrap_err(),
            "JSON-RPC error -32602: bad"
        );
        let odd =
            br#"{"jsonrpc":"2.0","id":1,"result":{"task":{"status":{"state":"TASK_STATE_NOPE"}}}}"#;
        assert!(
            read_send_answer(&v1(), 200, odd)
                .unwrap_err()
                .contains("unknown task state")
        );
    }
}
