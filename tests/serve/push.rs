//! Push notifications: configs read back, listed and deleted (both versions, both bindings, never
//! with their token), webhooks posted only where allowed and when the work is done, and a send
//! whose config would be refused.

use super::*;

#[test]
fn push_configs_are_read_back_listed_and_deleted_in_1_0() {
    let s = start(SESSION, &[]);
    let task = start_task(&s);
    let url = "https://hooks.acme.example/screening";
    let set = call(
        &s,
        "orchestrator",
        "CreateTaskPushNotificationConfig",
        json!({"taskId": task, "id": "ops", "url": url, "token": "tok-never-shown"}),
    );
    let want = json!({"id": "ops", "taskId": task, "url": url});
    assert_eq!(set["result"], want, "{set}");
    let get = call(
        &s,
        "orchestrator",
        "GetTaskPushNotificationConfig",
        json!({"taskId": task, "id": "ops"}),
    );
    assert_eq!(get["result"], want);
    let list = call(
        &s,
        "orchestrator",
        "ListTaskPushNotificationConfigs",
        json!({"taskId": task}),
    );
    assert_eq!(list["result"]["configs"], json!([want]));
    for answer in [&set, &get, &list] {
        assert!(!answer.to_string().contains("tok-never-shown"));
    }
    // Another caller's task does not exist for it; an unknown config id is a bad parameter.
    let other = call(
        &s,
        "auditor",
        "GetTaskPushNotificationConfig",
        json!({"taskId": task, "id": "ops"}),
    );
    assert_eq!(other["error"]["code"], -32001, "{other}");
    let unknown = call(
        &s,
        "orchestrator",
        "GetTaskPushNotificationConfig",
        json!({"taskId": task, "id": "nope"}),
    );
    assert_eq!(unknown["error"]["code"], -32602, "{unknown}");
    let deleted = call(
        &s,
        "orchestrator",
        "DeleteTaskPushNotificationConfig",
        json!({"taskId": task, "id": "ops"}),
    );
    assert_eq!(deleted["result"], json!({}), "{deleted}");
    let list = call(
        &s,
        "orchestrator",
        "ListTaskPushNotificationConfigs",
        json!({"taskId": task}),
    );
    assert_eq!(list["result"]["configs"], json!([]));
    let again = call(
        &s,
        "orchestrator",
        "DeleteTaskPushNotificationConfig",
        json!({"taskId": task, "id": "ops"}),
    );
    assert_eq!(again["error"]["code"], -32602, "{again}");
}

#[test]
fn push_configs_in_0_3_take_the_task_id_when_they_have_none() {
    let s = start(SESSION, &[]);
    let task = start_task(&s);
    let url = "https://hooks.acme.example/legacy";
    let set = call(
        &s,
        "orchestrator",
        "tasks/pushNotificationConfig/set",
        json!({"taskId": task, "pushNotificationConfig": {"url": url, "token": "tok-2"}}),
    );
    let want = json!({"taskId": task, "pushNotificationConfig": {"id": task, "url": url}});
    assert_eq!(set["result"], want, "{set}");
    let get = call(
        &s,
        "orchestrator",
        "tasks/pushNotificationConfig/get",
        json!({"id": task}),
    );
    assert_eq!(get["result"], want);
    let list = call(
        &s,
        "orchestrator",
        "tasks/pushNotificationConfig/list",
        json!({"id": task}),
    );
    assert_eq!(list["result"], json!([want]));
    let deleted = call(
        &s,
        "orchestrator",
        "tasks/pushNotificationConfig/delete",
        json!({"id": task, "pushNotificationConfigId": task}),
    );
    assert!(
        deleted["result"].is_null() && deleted["error"].is_null(),
        "{deleted}"
    );
    let missing_id = call(
        &s,
        "orchestrator",
        "tasks/pushNotificationConfig/delete",
        json!({"id": task}),
    );
    assert_eq!(missing_id["error"]["code"], -32602, "{missing_id}");
}

#[test]
fn push_configs_on_the_rest_binding() {
    let s = start(SESSION, &[]);
    let task = start_task(&s);
    let configs = format!("{SCREENER}/tasks/{task}/pushNotificationConfigs");
    let body = json!({"url": "https://hooks.acme.example/rest", "token": "tok-3", "id": "r"});
    let (status, _, text) = http(
        &s.addr,
        "POST",
        &configs,
        &[CALLER],
        body.to_string().as_bytes(),
    );
    assert_eq!(status, 200, "{text}");
    assert!(!text.contains("tok-3"));
    let (status, _, text) = http(&s.addr, "GET", &format!("{configs}/r"), &[CALLER], b"");
    assert_eq!(status, 200);
    assert_eq!(serde_json::from_str::<Value>(&text).unwrap()["id"], "r");
    let (_, _, text) = http(&s.addr, "GET", &configs, &[CALLER], b"");
    let list: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(list["configs"].as_array().unwrap().len(), 1, "{list}");
    let (status, _, _) = http(&s.addr, "DELETE", &format!("{configs}/r"), &[CALLER], b"");
    assert_eq!(status, 200);
    let (status, _, text) = http(&s.addr, "GET", &format!("{configs}/r"), &[CALLER], b"");
    assert_eq!(status, 400, "{text}");
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
        last["result"]["task"]["status"]["state"],
        "TASK_STATE_COMPLETED"
    );
    assert!(posts.recv_timeout(Duration::from_millis(300)).is_err());
}

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

#[test]
fn a_send_whose_push_config_would_be_refused_is_refused_and_creates_no_task() {
    let s = start(SESSION, &[]);
    let send = |config: Value| {
        let mut params = send_params("Screen Acme");
        params["configuration"] = json!({ "pushNotificationConfig": config });
        call(&s, "orchestrator", "SendMessage", params)
    };
    let r = send(json!({"url": "https://evil.example/x", "token": "t"}));
    assert_eq!(r["error"]["code"], -32602, "{r}");
    assert!(
        r["error"]["message"]
            .as_str()
            .unwrap()
            .starts_with("host_not_allowed")
    );
    let r = send(json!({"url": "https://hooks.acme.example/x"}));
    assert!(
        r["error"]["message"]
            .as_str()
            .unwrap()
            .starts_with("missing_token"),
        "{r}"
    );
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"message": send_params("x")["message"], "configuration": {"pushNotificationConfig": {"url": "https://hooks.acme.example/x", "token": "t"}}}});
    let (_, _, text) = http(
        &s.addr,
        "POST",
        "/agents/notary/",
        &[CALLER],
        body.to_string().as_bytes(),
    );
    assert_eq!(
        serde_json::from_str::<Value>(&text).unwrap()["error"]["code"],
        -32003
    );
    let (_, _, text) = http(&s.addr, "GET", &format!("{SCREENER}/tasks"), &[CALLER], b"");
    assert_eq!(
        serde_json::from_str::<Value>(&text).unwrap()["totalSize"],
        0
    );
    // An accepted one: the send goes through.
    let r = send(json!({"url": "https://hooks.acme.example/x", "token": "t"}));
    assert_eq!(r["result"]["task"]["id"], "task-1", "{r}");
}
