//! Push configs as the engine sets them: the order of set_push_config's refusals, a config given
//! with a send, and a config on a task that has already finished.

use crate::common::*;
use a2a_sim::engine;

#[test]
fn set_push_config_refusals_come_in_order() {
    let yaml = r#"
policy: {push_allowed_hosts: ["hooks.acme.example", "*.hooks.example"]}
agents:
  - {name: pusher, tenant: acme, clearance: restricted, capabilities: {push_notifications: true}, skills: [{id: p, tags: [x]}], handler: [working, input_required, working, completed]}
  - {name: silent, tenant: acme, clearance: restricted, skills: [{id: q, tags: [x]}], handler: [working, input_required, working, completed]}
callers:
  - {id: c, tenant: acme, classification: public}
steps:
  - send: {caller: c, to: pusher, text: go, as: p}
  - send: {caller: c, to: silent, text: go, as: q}
  - set_push_config: {caller: c, task_id: task-77, agent: silent, url: "http://bad", token: ""}
  - set_push_config: {caller: c, task: q, url: "https://hooks.acme.example/", token: t}
  - set_push_config: {caller: c, task_id: task-77, agent: pusher, url: "http://bad", token: ""}
  - set_push_config: {caller: c, task: q, agent: pusher, url: "https://hooks.acme.example/", token: t}
  - set_push_config: {caller: c, task: p, url: "http://hooks.acme.example/", token: ""}
  - set_push_config: {caller: c, task: p, url: "https://hooks.example/", token: t}
  - set_push_config: {caller: c, task: p, url: "https://a.b.hooks.example/", token: ""}
  - set_push_config: {caller: c, task: p, url: "https://a.b.hooks.example/", token: ~}
  - set_push_config: {caller: c, task: p, url: "https://a.b.hooks.example/", token: tok}
  - reply: {caller: c, task: p, text: done}
"#;
    let s = load(yaml);
    let w = engine::run(&s);
    assert_eq!(
        error_codes(&w),
        [
            "push_not_supported",
            "push_not_supported",
            "task_not_found",
            "task_not_found",
            "host_not_allowed",
            "host_not_allowed",
            "missing_token",
            "missing_token",
        ]
    );
    let pushed: Vec<(&str, &str)> = w
        .pushes
        .iter()
        .map(|p| (w.push_urls[p.url].as_str(), p.state.as_str()))
        .collect();
    assert_eq!(
        pushed,
        [
            ("https://a.b.hooks.example/", "working"),
            ("https://a.b.hooks.example/", "completed")
        ]
    );
}

#[test]
fn a_push_given_with_a_send_is_set_after_submitted() {
    let s = load(&one_agent(
        "[working, completed]",
        r#"
  - send: {caller: orchestrator, to: screener, text: go, push: {url: "https://hooks.acme.example/a2a", token: t}}
  - send: {caller: orchestrator, to: screener, text: go, push: {url: "https://evil.test/", token: t}}
"#,
    ));
    let w = engine::run(&s);
    let states: Vec<(usize, &str)> = w
        .pushes
        .iter()
        .map(|p| (p.task, p.state.as_str()))
        .collect();
    assert_eq!(states, [(0, "working"), (0, "completed")]);
    assert_eq!(error_codes(&w), ["host_not_allowed"]);
    assert_eq!(
        w.tasks[1].state.as_str(),
        "completed",
        "a refused push config does not stop the task"
    );
}

#[test]
fn a_config_on_a_terminal_task_is_accepted_and_never_fires() {
    let s = load(&one_agent(
        "[working, completed]",
        r#"
  - send: {caller: orchestrator, to: screener, text: go, as: t}
  - set_push_config: {caller: orchestrator, task: t, url: "https://hooks.acme.example/a2a", token: t}
  - cancel: {caller: orchestrator, task: t}
"#,
    ));
    let w = engine::run(&s);
    assert_eq!(error_codes(&w), ["task_not_cancelable"]);
    assert!(w.pushes.is_empty());
    assert!(w.tasks[0].push().is_some());
}
