//! ListTasks on both bindings: pages and filters (a bad one refused), artifacts left out unless
//! asked for, histories trimmed to `historyLength`, the most recently updated task first.

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
    // The task's last status is at tick 23 of 2026-01-01T00:00:00Z, a second a tick; the
    // filter is "greater than or equal to".
    assert_eq!(
        list("?statusTimestampAfter=2026-01-01T00:00:23Z").1["totalSize"],
        1
    );
    assert_eq!(
        list("?statusTimestampAfter=2026-01-01T00:00:24Z").1["totalSize"],
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

#[test]
fn list_tasks_puts_the_most_recently_updated_task_first() {
    // Two questions asked, then the first answered.
    let s = start("tests/serve/down.yaml", &[]);
    let ask = |text: &str| {
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": send_params(text)});
        let (_, _, t) = http(
            &s.addr,
            "POST",
            "/as/u/agents/asks/",
            &[],
            body.to_string().as_bytes(),
        );
        serde_json::from_str::<Value>(&t).unwrap()["result"]["task"]["id"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let (first, second) = (ask("one"), ask("two"));
    let listed = || {
        let body = json!({"jsonrpc": "2.0", "id": 3, "method": "ListTasks", "params": {}});
        let (_, _, t) = http(
            &s.addr,
            "POST",
            "/as/u/agents/asks/",
            &[],
            body.to_string().as_bytes(),
        );
        serde_json::from_str::<Value>(&t).unwrap()["result"]["tasks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["id"].as_str().unwrap().to_string())
            .collect::<Vec<String>>()
    };
    // Not in creation order: the second paused last.
    assert_eq!(listed(), [second.clone(), first.clone()]);
    let mut reply = send_params("the EU list");
    reply["message"]["taskId"] = json!(first);
    let body = json!({"jsonrpc": "2.0", "id": 2, "method": "SendMessage", "params": reply});
    http(
        &s.addr,
        "POST",
        "/as/u/agents/asks/",
        &[],
        body.to_string().as_bytes(),
    );
    assert_eq!(listed(), [first, second]);
}
