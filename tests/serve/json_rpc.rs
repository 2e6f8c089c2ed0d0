//! The JSON-RPC binding: send, get and cancel in both protocol versions, the version header, the
//! protocol's errors, notifications, batches, content types and what a message must carry.

use super::*;

#[test]
fn jsonrpc_send_get_cancel_in_both_versions() {
    let s = start("payment-decision.yaml", &[]);
    let (status, r) = rpc(&s, "SendMessage", send_params("pay 100"));
    assert_eq!(status, 200);
    assert_eq!(r["id"], 7);
    let task = &r["result"]["task"];
    assert_eq!(task["id"], "task-1");
    assert_eq!(task["status"]["state"], "TASK_STATE_INPUT_REQUIRED");
    // 0.3 names answer on the same endpoint, in 0.3's shapes.
    let (_, r) = rpc(&s, "tasks/get", json!({"id": "task-1"}));
    assert_eq!(r["result"]["kind"], "task");
    assert_eq!(r["result"]["status"]["state"], "input-required");
    let (_, r) = rpc(&s, "CancelTask", json!({"id": "task-1"}));
    assert_eq!(r["result"]["status"]["state"], "TASK_STATE_CANCELED");
    let (_, r) = rpc(&s, "tasks/cancel", json!({"id": "task-1"}));
    assert_eq!(r["error"]["code"], -32002);
    let (_, r) = rpc(&s, "GetTask", json!({"id": "task-99"}));
    assert_eq!(r["error"]["code"], -32001);
}

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
fn version_header_history_length_and_wall_clock() {
    let s = start("payment-decision.yaml", &[]);
    let body = send_params("pay").to_string();
    let (_, _, text) = http(
        &s.addr,
        "POST",
        &format!("{AGENT}/message:send"),
        &[CALLER],
        body.as_bytes(),
    );
    let scenario_ts =
        serde_json::from_str::<Value>(&text).unwrap()["task"]["status"]["timestamp"].clone();
    let (_, _, text) = http(
        &s.addr,
        "GET",
        &format!("{AGENT}/tasks/task-1"),
        &[CALLER, ("A2A-Version", "0.3")],
        b"",
    );
    let t: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(t["kind"], "task");
    assert_eq!(t["status"]["state"], "input-required");
    let (status, _, text) = http(
        &s.addr,
        "GET",
        &format!("{AGENT}/tasks/task-1"),
        &[CALLER, ("A2A-Version", "9.9")],
        b"",
    );
    assert_eq!(status, 400);
    assert_eq!(
        serde_json::from_str::<Value>(&text).unwrap()["error"]["details"][0]["reason"],
        "VERSION_NOT_SUPPORTED"
    );
    let (_, r) = rpc(&s, "GetTask", json!({"id": "task-1", "historyLength": 1}));
    assert_eq!(r["result"]["history"].as_array().unwrap().len(), 1);
    // --wall-clock: the same request stamped from the session's start, not the file's epoch.
    let w = start("payment-decision.yaml", &["--wall-clock"]);
    let (_, _, text) = http(
        &w.addr,
        "POST",
        &format!("{AGENT}/message:send"),
        &[CALLER],
        body.as_bytes(),
    );
    let wall_ts =
        serde_json::from_str::<Value>(&text).unwrap()["task"]["status"]["timestamp"].clone();
    assert!(wall_ts.is_string());
    assert_ne!(wall_ts, scenario_ts);
}

#[test]
fn the_version_header_is_honoured_on_json_rpc_and_batches_are_refused() {
    let s = start("payment-decision.yaml", &[]);
    let post = |version: &str, body: Value| {
        let (_, _, text) = http(
            &s.addr,
            "POST",
            &format!("{AGENT}/"),
            &[CALLER, ("A2A-Version", version)],
            body.to_string().as_bytes(),
        );
        serde_json::from_str::<Value>(&text).unwrap()
    };
    let get = |method: &str| json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": {"id": "task-1"}});
    for (version, method) in [("2.0", "GetTask"), ("0.3", "GetTask"), ("1.0", "tasks/get")] {
        let r = post(version, get(method));
        assert_eq!(r["error"]["code"], -32009, "{version} {method}: {r}");
        assert_eq!(r["error"]["data"][0]["reason"], "VERSION_NOT_SUPPORTED");
    }
    // A version that agrees with the method is just that: the task is not found.
    assert_eq!(post("1.0", get("GetTask"))["error"]["code"], -32001);
    assert_eq!(post("0.3", get("tasks/get"))["error"]["code"], -32001);
    let (_, _, text) = http(&s.addr, "POST", &format!("{AGENT}/"), &[CALLER], b"[]");
    let r: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(r["error"]["code"], -32600);
    assert!(
        r["error"]["message"].as_str().unwrap().contains("batch"),
        "{r}"
    );
}

#[test]
fn a_notification_is_carried_out_and_not_answered() {
    let s = start(SESSION, &[]);
    let body =
        json!({"jsonrpc": "2.0", "method": "SendMessage", "params": send_params("Screen Acme")});
    let (status, _, text) = http(
        &s.addr,
        "POST",
        &format!("{SCREENER}/"),
        &[CALLER],
        body.to_string().as_bytes(),
    );
    assert_eq!((status, text.as_str()), (204, ""));
    let r = call(&s, "orchestrator", "GetTask", json!({"id": "task-1"}));
    assert_eq!(r["result"]["id"], "task-1", "{r}");
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
