//! The `A2A-Version` header: 0.3's shapes on REST, a version not served or one that disagrees with
//! the JSON-RPC method's name refused; and beside it a task's `historyLength`, `--wall-clock`
//! timestamps and JSON-RPC batches refused.

use serde_json::{Value, json};

use super::support::*;

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
