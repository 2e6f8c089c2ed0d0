//! Requests read as the protocol types them (issue 26, item 12): one answer for a task that is
//! not there however it is not there, JSON-RPC ids echoed as written, no key twice, every field
//! of its type.

use super::*;

const SESSION: &str = "tests/serve/session.yaml";

/// A raw JSON-RPC body POSTed as `caller` to `agent`; the answer's text.
fn post(s: &Server, agent: &str, caller: &str, body: &str) -> (u16, String) {
    let (status, _, text) = http(
        &s.addr,
        "POST",
        &format!("/agents/{agent}/"),
        &[("X-A2A-Sim-Caller", caller)],
        body.as_bytes(),
    );
    (status, text)
}

fn error_of(text: &str) -> Value {
    serde_json::from_str::<Value>(text).unwrap()["error"].clone()
}

#[test]
fn a_task_not_there_is_not_found_in_one_message_however_it_is_not_there() {
    let s = start(SESSION, &[]);
    let send = json!({"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": send_params("Screen")});
    let (_, text) = post(&s, "screener", "orchestrator", &send.to_string());
    assert!(text.contains("\"task-1\""), "{text}");
    let get = |agent: &str, caller: &str, id: &str| {
        let body = json!({"jsonrpc": "2.0", "id": 2, "method": "GetTask", "params": {"id": id}});
        let e = error_of(&post(&s, agent, caller, &body.to_string()).1);
        assert_eq!(e["code"], -32001, "{e}");
        e["message"].as_str().unwrap().replace(id, "ID")
    };
    let unknown = get("screener", "orchestrator", "task-99");
    assert_eq!(
        get("screener", "auditor", "task-1"),
        unknown,
        "another caller's"
    );
    assert_eq!(
        get("notary", "orchestrator", "task-1"),
        unknown,
        "another agent's"
    );
    assert_eq!(unknown, "task_not_found: task `ID` not found");
}

#[test]
fn json_rpc_ids_come_back_as_written() {
    let s = start(SESSION, &[]);
    for id in [
        "123456789012345678901234567890",
        "1.50",
        "-0",
        "\"a\\u0041\"",
        "1e2",
    ] {
        let body = format!(
            r#"{{"jsonrpc": "2.0", "id": {id}, "method": "GetTask", "params": {{"id": "task-9"}}}}"#
        );
        let (_, text) = post(&s, "screener", "orchestrator", &body);
        assert!(
            text.starts_with(&format!(r#"{{"jsonrpc":"2.0","id":{id},"error":"#)),
            "{text}"
        );
        let body = format!(r#"{{"jsonrpc": "2.0", "id": {id}, "method": "Nope"}}"#);
        let (_, text) = post(&s, "screener", "orchestrator", &body);
        assert!(text.contains(&format!(r#""id":{id},"#)), "{text}");
    }
    // Each event of a stream carries it too.
    let params = send_params("Screen");
    let body = format!(
        r#"{{"jsonrpc": "2.0", "id": 123456789012345678901234567890, "method": "SendStreamingMessage", "params": {params}}}"#
    );
    let (_, text) = post(&s, "notary", "orchestrator", &body);
    let frames: Vec<&str> = text.split("\n\n").filter(|f| !f.is_empty()).collect();
    assert!(frames.len() >= 3, "{text}");
    for f in frames {
        assert!(
            f.starts_with(
                r#"data: {"jsonrpc":"2.0","id":123456789012345678901234567890,"result":"#
            ),
            "{f}"
        );
    }
}

#[test]
fn a_key_twice_is_refused() {
    let s = start(SESSION, &[]);
    let params = send_params("Screen");
    let envelope = format!(
        r#"{{"jsonrpc": "2.0", "id": 4, "method": "GetTask", "method": "SendMessage", "params": {params}}}"#
    );
    let e = error_of(&post(&s, "screener", "orchestrator", &envelope).1);
    assert_eq!(e["code"], -32600, "{e}");
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .contains("`method` appears twice"),
        "{e}"
    );
    let inner = r#"{"jsonrpc": "2.0", "id": 5, "method": "SendMessage", "params": {"message": {"messageId": "m", "role": "ROLE_USER", "parts": [{"text": "a"}], "taskId": "task-1", "taskId": null}}}"#;
    let e = error_of(&post(&s, "screener", "orchestrator", inner).1);
    assert_eq!(e["code"], -32602, "{e}");
    let (status, _, text) = http(
        &s.addr,
        "POST",
        "/agents/screener/message:send",
        &[CALLER],
        br#"{"message": {"messageId": "m", "role": "ROLE_USER", "parts": [{"text": "a", "text": "b"}]}}"#,
    );
    assert_eq!(status, 400, "{text}");
    // Nothing was sent: no task was created.
    let get = json!({"jsonrpc": "2.0", "id": 6, "method": "GetTask", "params": {"id": "task-1"}});
    assert_eq!(
        error_of(&post(&s, "screener", "orchestrator", &get.to_string()).1)["code"],
        -32001
    );
}

#[test]
fn fields_of_the_wrong_type_are_refused() {
    let s = start(SESSION, &[]);
    let message = |extra: Value| {
        let mut m = json!({"messageId": "m", "role": "ROLE_USER", "parts": [{"text": "a"}]});
        for (k, v) in extra.as_object().unwrap() {
            m[k] = v.clone();
        }
        m
    };
    let refused = [
        json!({"message": message(json!({"metadata": "x"}))}),
        json!({"message": message(json!({"metadata": [1]}))}),
        json!({"message": message(json!({"extensions": "urn:x"}))}),
        json!({"message": message(json!({"extensions": [1]}))}),
        json!({"message": message(json!({"referenceTaskIds": "task-1"}))}),
        json!({"message": message(json!({"referenceTaskIds": [null]}))}),
        json!({"message": message(json!({"messageId": ""}))}),
        json!({"message": message(json!({"parts": [{}]}))}),
        json!({"message": message(json!({"parts": [{"text": "a"}, {"metadata": {}}]}))}),
        json!({"message": message(json!({"parts": [{"text": "a", "data": {}}]}))}),
        json!({"message": message(json!({"parts": [{"text": "a", "metadata": 3}]}))}),
        json!({"message": message(json!({})), "tenant": 5}),
        json!({"message": message(json!({})), "metadata": "x"}),
        json!({"message": message(json!({})), "configuration": {"historyLength": 2147483648u64}}),
    ];
    for params in refused {
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": params});
        let e = error_of(&post(&s, "notary", "orchestrator", &body.to_string()).1);
        assert_eq!(e["code"], -32602, "{params}: {e}");
    }
    let get = json!({"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": {"id": "task-1", "historyLength": 4294967296u64}});
    assert_eq!(
        error_of(&post(&s, "notary", "orchestrator", &get.to_string()).1)["code"],
        -32602
    );
    // The same fields of the right types are taken.
    let taken = json!({
        "message": message(json!({"metadata": {"k": 1}, "extensions": ["urn:x"], "referenceTaskIds": [],
            "parts": [{"text": "a", "metadata": {}, "mediaType": "text/plain"}]})),
        "tenant": "acme",
        "metadata": {},
        "configuration": {"historyLength": 2147483647},
    });
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": taken});
    let (_, text) = post(&s, "notary", "orchestrator", &body.to_string());
    assert!(text.contains("TASK_STATE_COMPLETED"), "{text}");
}
