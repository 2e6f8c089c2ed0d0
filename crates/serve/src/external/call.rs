//! What goes to a real agent, in A2A 1.0 or 0.3 JSON-RPC: which version it speaks and where its
//! JSON-RPC endpoint is (from its card), and a SendMessage (or SendStreamingMessage) request as
//! the official clients write it.

use serde_json::{Map, Value, json};

/// Where and how to talk to a real agent, from its card.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Endpoint {
    pub url: String,
    pub v1: bool,
    pub streaming: bool,
}

/// A card's skills, each as its tags (strings only; a skill without tags has none): what
/// `discover` ranks a real agent by. A card `endpoint` accepted is a JSON object.
pub fn skill_tags(card: &[u8]) -> Vec<Vec<String>> {
    let card: Value = serde_json::from_slice(card).unwrap_or_default();
    let skills = card.get("skills").and_then(Value::as_array);
    skills
        .into_iter()
        .flatten()
        .map(|skill| {
            let tags = skill.get("tags").and_then(Value::as_array);
            tags.into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .map(String::from)
                .collect()
        })
        .collect()
}

/// Reads a card: its JSON-RPC interface (1.0 `supportedInterfaces`, or 0.3 `url` with
/// `preferredTransport` JSONRPC or an `additionalInterfaces` entry).
pub fn endpoint(card: &[u8], base: &str) -> Result<Endpoint, String> {
    let card: Value =
        serde_json::from_slice(card).map_err(|e| format!("its card is not JSON: {e}"))?;
    let Some(o) = card.as_object() else {
        return Err("its card is not a JSON object".into());
    };
    if o.get("name")
        .and_then(Value::as_str)
        .is_none_or(str::is_empty)
    {
        return Err("its card has no `name`".into());
    }
    let streaming = o
        .get("capabilities")
        .and_then(|c| c.get("streaming"))
        .and_then(Value::as_bool)
        .unwrap_or(false);
    let absolute = |u: &str| {
        url::Url::parse(base)
            .and_then(|b| b.join(u))
            .map(|u| u.to_string())
            .map_err(|e| format!("its card's interface URL `{u}` is not a URL: {e}"))
    };
    if let Some(list) = o.get("supportedInterfaces").and_then(Value::as_array) {
        for i in list {
            let binding = i.get("protocolBinding").and_then(Value::as_str);
            if let (Some("JSONRPC"), Some(u)) = (binding, i.get("url").and_then(Value::as_str)) {
                let v1 = i
                    .get("protocolVersion")
                    .and_then(Value::as_str)
                    .is_none_or(|v| !v.starts_with("0."));
                return Ok(Endpoint {
                    url: absolute(u)?,
                    v1,
                    streaming,
                });
            }
        }
        return Err("its card offers no JSONRPC interface in `supportedInterfaces` (a2a-sim drives agents over JSON-RPC)".into());
    }
    let preferred = o
        .get("preferredTransport")
        .and_then(Value::as_str)
        .unwrap_or("JSONRPC");
    if preferred.eq_ignore_ascii_case("JSONRPC")
        && let Some(u) = o.get("url").and_then(Value::as_str)
    {
        return Ok(Endpoint {
            url: absolute(u)?,
            v1: false,
            streaming,
        });
    }
    let additional = o.get("additionalInterfaces").and_then(Value::as_array);
    for i in additional.into_iter().flatten() {
        if i.get("transport").and_then(Value::as_str) == Some("JSONRPC")
            && let Some(u) = i.get("url").and_then(Value::as_str)
        {
            return Ok(Endpoint {
                url: absolute(u)?,
                v1: false,
                streaming,
            });
        }
    }
    Err("its card names no JSON-RPC endpoint (`supportedInterfaces`, or `url` with `preferredTransport: JSONRPC`)".into())
}

/// A message from a2a-sim to the agent: text and data, and the agent's own task and context ids
/// when it resumes one of its tasks.
pub struct Outgoing<'a> {
    pub message_id: String,
    pub text: &'a str,
    pub data: Option<&'a Map<String, Value>>,
    pub task_id: Option<&'a str>,
    pub context_id: Option<&'a str>,
}

/// The JSON-RPC SendMessage (1.0) or `message/send` (0.3) request, blocking; with `stream`,
/// SendStreamingMessage (`message/stream`).
pub fn send_request(e: &Endpoint, id: u64, m: &Outgoing, stream: bool) -> Vec<u8> {
    let mut message = Map::new();
    message.insert("messageId".into(), json!(m.message_id));
    let mut parts = Vec::new();
    if e.v1 {
        message.insert("role".into(), json!("ROLE_USER"));
        parts.push(json!({"text": m.text}));
        if let Some(d) = m.data {
            parts.push(json!({"data": d}));
        }
    } else {
        message.insert("kind".into(), json!("message"));
        message.insert("role".into(), json!("user"));
        parts.push(json!({"kind": "text", "text": m.text}));
        if let Some(d) = m.data {
            parts.push(json!({"kind": "data", "data": d}));
        }
    }
    message.insert("parts".into(), Value::Array(parts));
    if let Some(t) = m.task_id {
        message.insert("taskId".into(), json!(t));
    }
    if let Some(c) = m.context_id {
        message.insert("contextId".into(), json!(c));
    }
    let (method, params) = match (e.v1, stream) {
        (true, false) => (
            "SendMessage",
            json!({"message": message, "configuration": {"returnImmediately": false}}),
        ),
        (true, true) => ("SendStreamingMessage", json!({"message": message})),
        (false, false) => (
            "message/send",
            json!({"message": message, "configuration": {"blocking": true}}),
        ),
        (false, true) => ("message/stream", json!({"message": message})),
    };
    rpc(id, method, params)
}

/// A JSON-RPC GetTask (1.0; 0.3 `tasks/get`) or, with `cancel`, CancelTask (`tasks/cancel`) of
/// the agent's own task id.
pub fn task_request(e: &Endpoint, id: u64, task_id: &str, cancel: bool) -> Vec<u8> {
    let method = match (e.v1, cancel) {
        (true, false) => "GetTask",
        (true, true) => "CancelTask",
        (false, false) => "tasks/get",
        (false, true) => "tasks/cancel",
    };
    rpc(id, method, json!({"id": task_id}))
}

/// A JSON-RPC request's bytes.
fn rpc(id: u64, method: &str, params: Value) -> Vec<u8> {
    serde_json::to_vec(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
        .unwrap_or_default()
}

/// A push config for the agent's task `task_id` (1.0 `CreateTaskPushNotificationConfig`, 0.3
/// `tasks/pushNotificationConfig/set`): its webhooks go to `url`, with `token`.
pub fn push_config_request(
    e: &Endpoint,
    id: u64,
    task_id: &str,
    url: &str,
    token: &str,
) -> Vec<u8> {
    let (method, params) = match e.v1 {
        true => (
            "CreateTaskPushNotificationConfig",
            json!({"taskId": task_id, "url": url, "token": token}),
        ),
        false => (
            "tasks/pushNotificationConfig/set",
            json!({"taskId": task_id, "pushNotificationConfig": {"url": url, "token": token}}),
        ),
    };
    rpc(id, method, params)
}

/// The state a webhook reports: a 1.0 `StreamResponse` (`task` or `statusUpdate`) or a 0.3
/// Task (or status update event) as the body.
pub fn pushed_state(body: &Value) -> Option<&str> {
    let status = body
        .get("statusUpdate")
        .or_else(|| body.get("task"))
        .unwrap_or(body)
        .get("status")?;
    status.get("state")?.as_str()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_1_0_card_names_its_jsonrpc_interface() {
        let card = br#"{"name":"x","capabilities":{"streaming":true},"supportedInterfaces":[
            {"url":"http://h:1/rest","protocolBinding":"HTTP+JSON","protocolVersion":"1.0"},
            {"url":"http://h:1/","protocolBinding":"JSONRPC","protocolVersion":"1.0"}]}"#;
        let e = endpoint(card, "http://h:1/").unwrap();
        assert_eq!(
            (e.url.as_str(), e.v1, e.streaming),
            ("http://h:1/", true, true)
        );
        let no_jsonrpc =
            br#"{"name":"x","supportedInterfaces":[{"url":"u","protocolBinding":"GRPC"}]}"#;
        assert!(
            endpoint(no_jsonrpc, "http://h:1/")
                .unwrap_err()
                .contains("JSONRPC")
        );
        assert!(endpoint(b"[1]", "http://h/").is_err());
        assert!(endpoint(b"{}", "http://h/").unwrap_err().contains("name"));
    }

    #[test]
    fn a_0_3_card_takes_its_url() {
        let card = br#"{"name":"x","url":"/rpc","protocolVersion":"0.3.0"}"#;
        let e = endpoint(card, "http://h:2/").unwrap();
        assert_eq!((e.url.as_str(), e.v1), ("http://h:2/rpc", false));
    }

    #[test]
    fn a_webhook_says_its_state_in_either_version() {
        let v1 =
            json!({"statusUpdate": {"taskId": "t", "status": {"state": "TASK_STATE_COMPLETED"}}});
        assert_eq!(pushed_state(&v1), Some("TASK_STATE_COMPLETED"));
        let task = json!({"task": {"id": "t", "status": {"state": "TASK_STATE_FAILED"}}});
        assert_eq!(pushed_state(&task), Some("TASK_STATE_FAILED"));
        let v03 = json!({"id": "t", "kind": "task", "status": {"state": "completed"}});
        assert_eq!(pushed_state(&v03), Some("completed"));
        assert_eq!(pushed_state(&json!({"hello": 1})), None);
    }

    #[test]
    fn a_push_config_is_asked_as_each_version_names_it() {
        let e = Endpoint {
            url: "u".into(),
            v1: true,
            streaming: false,
        };
        let body: Value =
            serde_json::from_slice(&push_config_request(&e, 3, "t1", "http://h/w", "k")).unwrap();
        assert_eq!(body["method"], "CreateTaskPushNotificationConfig");
        assert_eq!(
            body["params"],
            json!({"taskId": "t1", "url": "http://h/w", "token": "k"})
        );
        let e = Endpoint { v1: false, ..e };
        let body: Value =
            serde_json::from_slice(&push_config_request(&e, 3, "t1", "http://h/w", "k")).unwrap();
        assert_eq!(body["method"], "tasks/pushNotificationConfig/set");
        assert_eq!(
            body["params"]["pushNotificationConfig"]["url"],
            "http://h/w"
        );
    }
}
