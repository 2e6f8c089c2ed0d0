//! What a request must be to be carried out: well-formed JSON-RPC (else the error code that says
//! why, or 413 past `--max-body`), a message in the client's role with a part, from one caller,
//! in content types the agent handles.

use serde_json::{Value, json};

use super::support::*;

#[test]
fn protocol_errors() {
    let s = start("payment-decision.yaml", &["--max-body", "1000"]);
    let post = |body: &[u8]| {
        let (status, _, text) = http(&s.addr, "POST", &format!("{AGENT}/"), &[CALLER], body);
        (
            status,
            serde_json::from_str::<Value>(&text).unwrap_or(Value::Null),
        )
    };
    assert_eq!(post(b"{not json").1["error"]["code"], -32700);
    assert_eq!(post(b"[1,2]").1["error"]["code"], -32600);
    assert_eq!(
        post(br#"{"jsonrpc":"2.0","id":1}"#).1["error"]["code"],
        -32600
    );
    assert_eq!(
        post(br#"{"jsonrpc":"2.0","id":1,"method":"tasks/frobnicate"}"#).1["error"]["code"],
        -32601
    );
    assert_eq!(post(br#"{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":1,"role":"ROLE_USER","parts":[]}}}"#).1["error"]["code"], -32602);
    assert_eq!(
        post(br#"{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":[]}"#).1["error"]["code"],
        -32602
    );
    assert_eq!(
        post(br#"{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":5}}"#).1["error"]["code"],
        -32602
    );
    assert_eq!(post(br#"{"jsonrpc":"2.0","id":1,"method":"tasks/pushNotificationConfig/get","params":{"id":"task-1"}}"#).1["error"]["code"], -32001);
    assert_eq!(
        post(br#"{"jsonrpc":"2.0","id":1,"method":"GetExtendedAgentCard"}"#).1["error"]["code"],
        -32007
    );
    let big = vec![b' '; 5000];
    assert_eq!(post(&big).0, 413);
    // The server is still up.
    assert_eq!(rpc(&s, "SendMessage", send_params("pay")).0, 200);
}

#[test]
fn a_message_needs_the_clients_role_and_a_part_and_a_request_one_caller() {
    let s = start(SESSION, &[]);
    let message = |role: &str, parts: Value| json!({"message": {"messageId": "m", "role": role, "parts": parts}});
    for params in [
        message("banana", json!([{"text": "x"}])),
        message("ROLE_AGENT", json!([{"text": "x"}])),
        message("ROLE_USER", json!([])),
    ] {
        let r = call(&s, "orchestrator", "SendMessage", params.clone());
        assert_eq!(r["error"]["code"], -32602, "{params}: {r}");
    }
    let r = call(
        &s,
        "orchestrator",
        "message/send",
        message("user", json!([{"kind": "text", "text": "x"}])),
    );
    assert!(r["result"]["id"].is_string(), "{r}");
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": {"id": "task-1"}});
    let (status, _, _) = http(
        &s.addr,
        "POST",
        &format!("{SCREENER}/"),
        &[CALLER, ("X-A2A-Sim-Caller", "auditor")],
        body.to_string().as_bytes(),
    );
    assert_eq!(status, 401);
}

#[test]
fn content_types_the_agents_do_not_handle_are_refused() {
    let s = start(SESSION, &[]);
    let send = |config: Value, extra_part: Option<Value>| {
        let mut params = send_params("Screen Acme");
        params["configuration"] = config;
        if let Some(p) = extra_part {
            params["message"]["parts"].as_array_mut().unwrap().push(p);
        }
        call(&s, "orchestrator", "SendMessage", params)
    };
    let r = send(json!({"acceptedOutputModes": ["image/png"]}), None);
    assert_eq!(r["error"]["code"], -32005, "{r}");
    assert_eq!(
        r["error"]["data"][0]["reason"],
        "CONTENT_TYPE_NOT_SUPPORTED"
    );
    for ok in [
        json!(["TEXT/*"]),
        json!(["*/*"]),
        json!(["application/json"]),
        json!([]),
    ] {
        let r = send(json!({ "acceptedOutputModes": ok }), None);
        assert!(r["result"]["task"].is_object(), "{ok}: {r}");
    }
    let r = send(
        json!({}),
        Some(json!({"url": "https://x.example/a.pdf", "mediaType": "application/pdf"})),
    );
    assert_eq!(r["error"]["code"], -32005, "{r}");
    let body =
        json!({"message": {"messageId": "m", "role": "ROLE_USER", "parts": [{"raw": "AAAA"}]}});
    let (status, _, _) = http(
        &s.addr,
        "POST",
        &format!("{SCREENER}/message:send"),
        &[CALLER],
        body.to_string().as_bytes(),
    );
    assert_eq!(status, 415);
}

#[test]
fn a_clients_message_id_comes_back_as_sent_and_the_servers_own_are_msg_n() {
    let s = start("payment-decision.yaml", &[]);
    let mut params = send_params("pay");
    params["message"]["messageId"] = json!("client-7f3a");
    let (_, r) = rpc(&s, "SendMessage", params);
    let task = &r["result"]["task"];
    let history = task["history"].as_array().unwrap();
    assert_eq!(history[0]["messageId"], "client-7f3a", "{r}");
    // Messages the server wrote keep ids of its own.
    assert!(
        history[1..]
            .iter()
            .all(|m| m["messageId"].as_str().unwrap().starts_with("msg-")),
        "{r}"
    );
    let id = task["id"].as_str().unwrap();
    let (_, got) = rpc(&s, "GetTask", json!({"id": id}));
    assert_eq!(
        got["result"]["history"][0]["messageId"], "client-7f3a",
        "{got}"
    );
}
