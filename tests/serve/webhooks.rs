//! Webhooks as a receiver gets them: posted with their token, to a loopback receiver only with
//! `--allow-loopback-push`, none for an agent that cannot push or after the config is deleted, and
//! each when the agent's work has come that far.

use std::time::Duration;

use serde_json::{Value, json};

use super::support::*;

#[test]
fn webhooks_are_posted_to_a_loopback_receiver_only_when_allowed() {
    let (hook, posts) = receiver();
    let s = start("push-notifications.yaml", &["--allow-loopback-push"]);
    let path = "/agents/sanctions-screener/";
    let url = format!("http://{hook}/hook");
    let r = send_with_push(&s, path, "Screen PMT-1", &url, "tok-1");
    assert_eq!(r["result"]["task"]["id"], "task-1", "{r}");
    let first = posts
        .recv_timeout(Duration::from_secs(10))
        .expect("no webhook arrived");
    let lower = first.to_ascii_lowercase();
    assert!(lower.starts_with("post /hook http/1.1"), "{first}");
    assert!(lower.contains("x-a2a-notification-token: tok-1"), "{first}");
    let body: Value = serde_json::from_str(first.split_once("\r\n\r\n").unwrap().1).unwrap();
    assert_eq!(body["statusUpdate"]["taskId"], "task-1");
    // Without the flag the loopback URL is refused by the allow-list, and nothing is posted.
    let (hook2, posts2) = receiver();
    let s2 = start("push-notifications.yaml", &[]);
    let set = json!({"jsonrpc": "2.0", "id": 2, "method": "CreateTaskPushNotificationConfig", "params": {"taskId": "task-1", "url": format!("http://{hook2}/hook"), "token": "t"}}).to_string();
    let send = json!({"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": send_params("Screen")}).to_string();
    http(&s2.addr, "POST", path, &[CALLER], send.as_bytes());
    let (_, _, text) = http(&s2.addr, "POST", path, &[CALLER], set.as_bytes());
    assert_eq!(
        serde_json::from_str::<Value>(&text).unwrap()["error"]["code"],
        -32602,
        "{text}"
    );
    assert!(posts2.recv_timeout(Duration::from_millis(300)).is_err());
    // An agent without push capability: PushNotificationNotSupported, for reads too (capability
    // first, so no task id is revealed).
    let get = json!({"jsonrpc": "2.0", "id": 3, "method": "GetTaskPushNotificationConfig", "params": {"taskId": "task-1", "id": "x"}}).to_string();
    for body in [&set, &get] {
        let (_, _, text) = http(
            &s2.addr,
            "POST",
            "/agents/ledger-agent/",
            &[CALLER],
            body.as_bytes(),
        );
        assert_eq!(
            serde_json::from_str::<Value>(&text).unwrap()["error"]["code"],
            -32003,
            "{text}"
        );
    }
}

#[test]
fn a_deleted_config_pushes_nothing_more() {
    let (hook, posts) = receiver();
    // 20 ticks of 25 ms: the task is still running while its config is set and deleted.
    let s = start(SESSION, &["--allow-loopback-push", "--tick-ms", "25"]);
    let task = start_task(&s);
    let set = call(
        &s,
        "orchestrator",
        "CreateTaskPushNotificationConfig",
        json!({"taskId": task, "url": format!("http://{hook}/hook"), "token": "tok-4"}),
    );
    assert_eq!(set["result"]["id"], task, "{set}");
    let deleted = call(
        &s,
        "orchestrator",
        "DeleteTaskPushNotificationConfig",
        json!({"taskId": task, "id": task}),
    );
    assert_eq!(deleted["result"], json!({}));
    let done = call(&s, "orchestrator", "SubscribeToTask", json!({"id": task}));
    let last = done["events"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(
        last["result"]["statusUpdate"]["status"]["state"],
        "TASK_STATE_COMPLETED"
    );
    assert!(posts.recv_timeout(Duration::from_millis(300)).is_err());
}

#[test]
fn a_slow_agents_webhooks_come_when_its_work_is_done() {
    let (hook, posts) = receiver();
    // 20 ticks of 100 ms between the screener's `working` and its `completed`.
    let s = start(SESSION, &["--allow-loopback-push", "--tick-ms", "100"]);
    let mut params = send_params("Screen Acme");
    params["configuration"] =
        json!({"pushNotificationConfig": {"url": format!("http://{hook}/hook"), "token": "tok-5"}});
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": params});
    let reader = in_background(&s, &format!("{SCREENER}/"), body);
    let working = posts
        .recv_timeout(Duration::from_secs(10))
        .expect("`working`");
    assert!(working.contains("TASK_STATE_WORKING"), "{working}");
    assert!(
        posts.recv_timeout(Duration::from_millis(1000)).is_err(),
        "`completed` was pushed before the agent's wait was over"
    );
    let completed = posts
        .recv_timeout(Duration::from_secs(10))
        .expect("`completed`");
    assert!(completed.contains("TASK_STATE_COMPLETED"), "{completed}");
    reader.join().unwrap();
}
