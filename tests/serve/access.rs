//! Who reaches a task: another caller's task, or one asked of an agent that does not hold it, is
//! not found; a request without a known caller (with keys, without its token) is 401; an admission
//! denial carries every code and creates no task.

use serde_json::{Value, json};

use super::support::*;

#[test]
fn another_callers_task_is_not_found() {
    let s = start("push-notifications.yaml", &[]);
    let path = "/agents/ledger-agent/";
    let send = json!({"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": send_params("Book PMT-1")}).to_string();
    let (_, _, text) = http(&s.addr, "POST", path, &[CALLER], send.as_bytes());
    let r: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(r["result"]["task"]["id"], "task-1", "{r}");
    let get = json!({"jsonrpc": "2.0", "id": 2, "method": "GetTask", "params": {"id": "task-1"}})
        .to_string();
    let (_, _, text) = http(
        &s.addr,
        "POST",
        path,
        &[("X-A2A-Sim-Caller", "case-manager")],
        get.as_bytes(),
    );
    assert_eq!(
        serde_json::from_str::<Value>(&text).unwrap()["error"]["code"],
        -32001
    );
    let (status, _, _) = http(
        &s.addr,
        "GET",
        "/agents/ledger-agent/tasks/task-1",
        &[("X-A2A-Sim-Caller", "case-manager")],
        b"",
    );
    assert_eq!(status, 404);
    // No caller, an unknown caller: authentication errors.
    let (status, _, _) = http(&s.addr, "POST", path, &[], get.as_bytes());
    assert_eq!(status, 401);
    let (status, _, _) = http(
        &s.addr,
        "POST",
        path,
        &[("X-A2A-Sim-Caller", "mallory")],
        get.as_bytes(),
    );
    assert_eq!(status, 401);
}

#[test]
fn a_task_is_found_only_under_the_agent_that_holds_it() {
    let s = start("payment-decision.yaml", &[]);
    assert_eq!(rpc(&s, "SendMessage", send_params("Pay PMT-9")).0, 200);
    let elsewhere = "/agents/sanctions-screener";
    let (status, _, _) = http(
        &s.addr,
        "GET",
        &format!("{elsewhere}/tasks/task-1"),
        &[CALLER],
        b"",
    );
    assert_eq!(status, 404);
    let mut reply = send_params("Nordwind Logistik GmbH, Hamburg, DE");
    reply["message"]["taskId"] = json!("task-1");
    for (method, params) in [
        ("GetTask", json!({"id": "task-1"})),
        ("CancelTask", json!({"id": "task-1"})),
        ("SendMessage", reply),
    ] {
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
        let (_, _, text) = http(
            &s.addr,
            "POST",
            &format!("{elsewhere}/"),
            &[CALLER],
            body.to_string().as_bytes(),
        );
        let r: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(r["error"]["code"], -32001, "{method}: {r}");
    }
    // Untouched: still waiting for the orchestrator's answer under its own agent.
    let (_, r) = rpc(&s, "GetTask", json!({"id": "task-1"}));
    assert_eq!(r["result"]["status"]["state"], "TASK_STATE_INPUT_REQUIRED");
}

#[test]
fn keyed_scenarios_take_bearer_tokens_in_any_case_and_name_tokenless_callers() {
    let s = start("verified-callers.yaml", &[]);
    let jwt = std::fs::read_to_string(format!(
        "{}/scenarios/keys/orchestrator.jwt",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    let send = json!({"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": send_params("Pay PMT-1")}).to_string();
    let post = |headers: &[(&str, &str)]| {
        let (status, head, text) = http(
            &s.addr,
            "POST",
            &format!("{AGENT}/"),
            headers,
            send.as_bytes(),
        );
        (
            status,
            head.to_ascii_lowercase(),
            serde_json::from_str::<Value>(&text).unwrap(),
        )
    };
    let auth = format!("bearer {}", jwt.trim());
    let (status, _, r) = post(&[("Authorization", &auth)]);
    assert_eq!(status, 200, "{r}");
    assert_eq!(
        r["result"]["task"]["status"]["state"],
        "TASK_STATE_COMPLETED"
    );
    // A caller with a token must show it; naming it is not enough.
    let (status, head, r) = post(&[("X-A2A-Sim-Caller", "orchestrator")]);
    assert_eq!(status, 401, "{r}");
    assert!(head.contains("www-authenticate: bearer"), "{head}");
    assert!(!r.to_string().contains(jwt.trim()));
    // A caller without one is named, and meets the token policy as in `run`: unauthenticated.
    let (status, _, r) = post(&[("X-A2A-Sim-Caller", "anonymous")]);
    assert_eq!(status, 401, "{r}");
    assert!(
        r["error"]["message"]
            .as_str()
            .unwrap()
            .starts_with("unauthenticated"),
        "{r}"
    );
}

#[test]
fn a_denied_request_carries_every_code_and_creates_no_task() {
    let s = start("admission-denials.yaml", &[]);
    let text = std::fs::read_to_string(format!(
        "{}/scenarios/admission-denials.golden.json",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    let golden: Value = serde_json::from_str(&text).unwrap();
    // The first denied step of the file's own run names the caller, the agent and the codes.
    let denied = golden["steps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|st| st["result"]["denied"].is_array())
        .unwrap()
        .clone();
    let caller = denied["caller"].as_str().unwrap().to_string();
    let denial = golden["denials"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["step"] == denied["step"])
        .unwrap()
        .clone();
    let agent = denial["callee"].as_str().unwrap().to_string();
    let body =
        json!({"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": send_params("hi")})
            .to_string();
    let (_, _, text) = http(
        &s.addr,
        "POST",
        &format!("/agents/{agent}/"),
        &[("X-A2A-Sim-Caller", &caller)],
        body.as_bytes(),
    );
    let r: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(r["error"]["code"], -32050, "{r}");
    // The codes travel as A2A's servers send details: a google.rpc.ErrorInfo, metadata strings.
    let info = &r["error"]["data"][0];
    assert_eq!(info["@type"], "type.googleapis.com/google.rpc.ErrorInfo");
    assert_eq!(info["reason"], "ADMISSION_DENIED");
    let codes: Vec<&str> = denied["result"]["denied"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap())
        .collect();
    assert_eq!(info["metadata"]["denials"], codes.join(","));
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "ListTasks", "params": {}}).to_string();
    let (_, _, text) = http(
        &s.addr,
        "POST",
        &format!("/agents/{agent}/"),
        &[("X-A2A-Sim-Caller", &caller)],
        body.as_bytes(),
    );
    assert_eq!(
        serde_json::from_str::<Value>(&text).unwrap()["result"]["totalSize"],
        0
    );
}
