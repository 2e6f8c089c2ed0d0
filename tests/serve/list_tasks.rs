//! ListTasks on both bindings: pages and filters (a bad one refused), artifacts left out unless
//! asked for, histories trimmed to `historyLength`.

use serde_json::{Value, json};

use super::support::*;

#[test]
fn list_tasks_pages_and_refuses_a_bad_filter() {
    let s = start("payment-decision.yaml", &[]);
    for _ in 0..3 {
        rpc(&s, "SendMessage", send_params("pay"));
    }
    let (_, r) = rpc(&s, "ListTasks", json!({"pageSize": 2}));
    assert_eq!(r["result"]["tasks"].as_array().unwrap().len(), 2);
    assert_eq!(r["result"]["totalSize"], 3);
    assert_eq!(r["result"]["nextPageToken"], "2");
    let (_, r) = rpc(&s, "ListTasks", json!({"pageSize": 2, "pageToken": "2"}));
    assert_eq!(r["result"]["tasks"].as_array().unwrap().len(), 1);
    assert_eq!(r["result"]["nextPageToken"], "");
    let (_, r) = rpc(&s, "ListTasks", json!({"status": "TASK_STATE_BOGUS"}));
    assert_eq!(r["error"]["code"], -32602);
    let (_, r) = rpc(&s, "ListTasks", json!({"pageSize": 0}));
    assert_eq!(r["error"]["code"], -32602);
    let (status, _, text) = http(
        &s.addr,
        "GET",
        &format!("{AGENT}/tasks?pageSize=1"),
        &[CALLER],
        b"",
    );
    assert_eq!(status, 200);
    assert_eq!(
        serde_json::from_str::<Value>(&text).unwrap()["tasks"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
}

#[test]
fn list_tasks_leaves_artifacts_out_unless_asked_and_trims_histories() {
    let s = start(SESSION, &[]);
    start_task(&s);
    let list = |query: &str| {
        let (status, _, text) = http(
            &s.addr,
            "GET",
            &format!("{SCREENER}/tasks{query}"),
            &[CALLER],
            b"",
        );
        (status, serde_json::from_str::<Value>(&text).unwrap())
    };
    let (_, plain) = list("");
    assert!(plain["tasks"][0].get("artifacts").is_none(), "{plain}");
    let (_, full) = list("?includeArtifacts=true&historyLength=1");
    assert_eq!(full["tasks"][0]["artifacts"].as_array().unwrap().len(), 1);
    assert_eq!(full["tasks"][0]["history"].as_array().unwrap().len(), 1);
    // The task's last status is at tick 23 of 2026-01-01T00:00:00Z, a second a tick.
    assert_eq!(
        list("?statusTimestampAfter=2026-01-01T00:00:22Z").1["totalSize"],
        1
    );
    assert_eq!(
        list("?statusTimestampAfter=2026-01-01T00:00:23Z").1["totalSize"],
        0
    );
    assert_eq!(list("?statusTimestampAfter=yesterday").0, 400);
    assert_eq!(list("?historyLength=-1").0, 400);
    let (_, r) = (
        0,
        call(
            &s,
            "orchestrator",
            "GetTask",
            json!({"id": "task-1", "historyLength": -3}),
        ),
    );
    assert_eq!(r["error"]["code"], -32602, "{r}");
    let mut params = send_params("Screen Nordwind");
    params["configuration"] = json!({"historyLength": 0});
    let r = call(&s, "orchestrator", "SendMessage", params);
    assert_eq!(r["result"]["task"]["history"], json!([]), "{r}");
}
