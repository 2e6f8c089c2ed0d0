//! Push notification configs: set, read back, listed and deleted in 1.0, in 0.3 and on the REST
//! binding, never with their token; a send whose config would be refused is refused whole.

use serde_json::{Value, json};

use super::support::*;

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
    // Deleting it again is no error: it is gone either way (as the official SDK server has it).
    assert_eq!(again["result"], json!({}), "{again}");
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
    // Without a token too: A2A's types make it optional.
    let r = send(json!({"url": "https://hooks.acme.example/x"}));
    assert_eq!(r["result"]["task"]["id"], "task-2", "{r}");
}

#[test]
fn a_client_push_config_without_a_token_is_valid() {
    // A2A's types make the token optional; a scenario's own configs still need one.
    let s = start(SESSION, &[]);
    let task = start_task(&s);
    let url = "https://hooks.acme.example/screening";
    let set = call(
        &s,
        "orchestrator",
        "CreateTaskPushNotificationConfig",
        json!({"taskId": task, "id": "bare", "url": url}),
    );
    assert_eq!(
        set["result"],
        json!({"id": "bare", "taskId": task, "url": url}),
        "{set}"
    );
}
