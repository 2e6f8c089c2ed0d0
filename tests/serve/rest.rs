//! The REST binding: its routes, the typed errors the SDKs map, and task ids in the path.

use super::*;

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
    assert!(events[0]["task"].is_object() && events.last().unwrap()["task"].is_object());
    let (status, _, _) = http(&s.addr, "GET", "/agents/nobody/tasks", &[CALLER], b"");
    assert_eq!(status, 404);
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
