//! `set_push_config` on a real agent's task goes to the agent, with a2a-sim's own webhook URL:
//! the webhooks the agent sends are the task's pushes in the report.

use serde_json::json;

use super::{Desk, log, report};

const ASK_PUSH_REPLY: &str = "  - send: {caller: branch, to: desk, text: \"Application: Grace\", as: grace}\n  - set_push_config: {caller: branch, task: grace, url: \"https://hooks.acme.example/a2a\", token: s3cr3t-token}\n  - reply: {caller: branch, task: grace, text: \"20000\"}\n";

fn pushing(name: &str, env: &str) -> std::path::PathBuf {
    let mut desk = Desk::mode("ask");
    desk.head = "policy:\n  push_allowed_hosts: [hooks.acme.example]\n";
    desk.steps = ASK_PUSH_REPLY;
    desk.external = desk.external.replace(
        "STUB_PID_FILE: stub.pid}",
        &format!("STUB_PID_FILE: stub.pid{env}}}"),
    );
    desk.at(name)
}

#[test]
fn the_agents_own_webhooks_are_the_tasks_pushes() {
    let dir = pushing("push-wire", "");
    let r = report(&dir, &[]);
    assert_eq!(r["errors"], json!([]), "{r:#}");
    assert_eq!(r["steps"][1]["result"]["task"], "task-1", "{r:#}");
    let pushes = r["pushes"].as_array().unwrap();
    assert_eq!(pushes.len(), 1, "{r:#}");
    assert_eq!(pushes[0]["task"], "task-1");
    assert_eq!(pushes[0]["state"], "completed");
    assert_eq!(pushes[0]["url"], "https://hooks.acme.example/a2a");
    assert_eq!(pushes[0]["token"], "[redacted]");
    // The agent was given a2a-sim's URL for the task, not the scenario's.
    let said = log(&dir, "desk");
    assert!(said.contains("/webhooks/0"), "{said}");
    assert!(!said.contains("hooks.acme.example"), "{said}");
}

#[test]
fn an_agent_that_refuses_push_configs_is_push_not_supported() {
    let dir = pushing("push-refused", ", STUB_NO_PUSH: \"1\"");
    let r = report(&dir, &[]);
    assert_eq!(r["steps"][1]["result"], json!({}), "{r:#}");
    let codes: Vec<_> = r["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["code"].clone())
        .collect();
    assert_eq!(codes, [json!("push_not_supported")], "{r:#}");
    assert_eq!(r["pushes"], json!([]), "{r:#}");
}
