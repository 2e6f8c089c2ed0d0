//! The two bindings an agent is served on: JSON-RPC (0.3's and 1.0's method names, a notification
//! carried out and not answered) and REST (its routes, ids in its paths, errors with the reasons
//! the SDKs map).

use serde_json::{Value, json};

use super::support::*;

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
fn rest_binding() {
    let s = start("payment-decision.yaml", &[]);
    let body = send_params("pay").to_string();
    let (status, _, text) = http(
        &s.addr,
        "POST",
        &format!("{AGENT}/message:send"),
        &[CALLER],
        body.as_bytes(),
    );
    assert_eq!(status, 200);
    let r: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(r["task"]["id"], "task-1");
    let (status, _, text) = http(
        &s.addr,
        "GET",
        &format!("{AGENT}/tasks/task-1"),
        &[CALLER],
        b"",
    );
    assert_eq!(status, 200);
    assert_eq!(
        serde_json::from_str::<Value>(&text).unwrap()["id"],
        "task-1"
    );
    let (status, _, _) = http(
        &s.addr,
        "GET",
        &format!("{AGENT}/tasks/task-9"),
        &[CALLER],
        b"",
    );
    assert_eq!(status, 404);
    let (status, _, text) = http(
        &s.addr,
        "POST",
        &format!("{AGENT}/tasks/task-1:cancel"),
        &[CALLER],
        b"{}",
    );
    assert_eq!(status, 200, "{text}");
    let (status, _, _) = http(
        &s.addr,
        "POST",
        &format!("{AGENT}/tasks/task-1:cancel"),
        &[CALLER],
        b"{}",
    );
    assert_eq!(status, 409);
    let (_, _, text) = http(
        &s.addr,
        "POST",
        &format!("{AGENT}/message:stream"),
        &[CALLER],
        body.as_bytes(),
    );
    let events = sse_events(&text);
    assert!(events[0]["task"].is_object() && events.last().unwrap()["statusUpdate"].is_object());
    let (status, _, _) = http(&s.addr, "GET", "/agents/nobody/tasks", &[CALLER], b"");
    assert_eq!(status, 404);
}

#[test]
fn rest_path_ids_are_decoded_and_outrank_the_query() {
    let s = start(SESSION, &[]);
    let task = start_task(&s);
    let other = start_task(&s);
    let configs = format!("{SCREENER}/tasks/{task}/pushNotificationConfigs");
    let body = json!({"url": "https://hooks.acme.example/x", "token": "t", "id": "my cfg"});
    assert_eq!(
        http(
            &s.addr,
            "POST",
            &configs,
            &[CALLER],
            body.to_string().as_bytes()
        )
        .0,
        200
    );
    let (status, _, text) = http(
        &s.addr,
        "GET",
        &format!("{configs}/my%20cfg"),
        &[CALLER],
        b"",
    );
    assert_eq!(status, 200, "{text}");
    assert_eq!(
        serde_json::from_str::<Value>(&text).unwrap()["id"],
        "my cfg"
    );
    let (_, _, text) = http(
        &s.addr,
        "GET",
        &format!("{SCREENER}/tasks/{task}?id={other}"),
        &[CALLER],
        b"",
    );
    assert_eq!(serde_json::from_str::<Value>(&text).unwrap()["id"], task);
    let (status, _, _) = http(
        &s.addr,
        "DELETE",
        &format!("{configs}/my%20cfg"),
        &[CALLER],
        b"",
    );
    assert_eq!(status, 200);
}

#[test]
fn rest_errors_carry_the_reason_the_sdks_map() {
    // A tick of a second: the task is still running when it is first canceled.
    let s = start(SESSION, &["--tick-ms", "1000"]);
    let (status, _, text) = http(
        &s.addr,
        "GET",
        &format!("{SCREENER}/tasks/task-9"),
        &[CALLER],
        b"",
    );
    assert_eq!(status, 404);
    let e: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(e["error"]["status"], "NOT_FOUND");
    assert_eq!(e["error"]["details"][0]["reason"], "TASK_NOT_FOUND");
    assert_eq!(e["error"]["details"][0]["domain"], "a2a-protocol.org");
    let task = start_task(&s);
    let cancel = format!("{SCREENER}/tasks/{task}:cancel");
    assert_eq!(http(&s.addr, "POST", &cancel, &[CALLER], b"").0, 200);
    let (status, _, text) = http(&s.addr, "POST", &cancel, &[CALLER], b"");
    assert_eq!(status, 409, "{text}");
    let e: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(e["error"]["details"][0]["reason"], "TASK_NOT_CANCELABLE");
    let (status, _, text) = http(
        &s.addr,
        "GET",
        &format!("{SCREENER}/extendedAgentCard"),
        &[CALLER],
        b"",
    );
    assert_eq!(status, 400, "{text}");
    assert!(text.contains("EXTENDED_AGENT_CARD_NOT_CONFIGURED"));
}
