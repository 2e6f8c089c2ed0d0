//! The driver's steps (behaviour.md §2): how long `send`, `stream`, `reply` and `wait` block,
//! `return_immediately`, the steps that run no scheduler, quiescence after the last step, and
//! which step an error is reported under.

use a2a_sim::engine;
use serde_json::json;

use crate::common::{
    build::{agent, run, send, send_ri, yaml},
    load, load_err,
    read::{errors, hist, step_result, texts},
    report_value,
};

#[test]
fn send_blocks_until_its_task_resolves_running_other_due_work_in_scheduler_order() {
    // b runs beside the blocking send of a; the send ends right after the turn that completed a.
    let v = run(
        &[
            agent("a", "[working, completed]"),
            agent("b", "[working, {wait: 0}, {wait: 0}, completed]"),
        ],
        &format!(
            "{}{}  - get: {{caller: user, task: b}}\n",
            send_ri("b"),
            send("a")
        ),
    );
    assert_eq!(hist(&v, 2), "2 submitted, 4 working, 5 completed");
    assert_eq!(
        step_result(&v, 2),
        &json!({"task": "task-2", "state": "completed"})
    );
    assert_eq!(
        step_result(&v, 3),
        &json!({"task": "task-1", "state": "working"}),
        "the send stopped the scheduler right after a's completing turn"
    );
    assert_eq!(hist(&v, 1), "1 submitted, 3 working, 6 completed");
}

#[test]
fn send_blocks_until_a_pause_too() {
    let v = run(
        &[agent(
            "a",
            "[working, {input_required: which?}, working, completed]",
        )],
        &send("a"),
    );
    assert_eq!(
        step_result(&v, 1),
        &json!({"task": "task-1", "state": "input-required"})
    );
    assert_eq!(hist(&v, 1), "1 submitted, 2 working, 3 input-required");
}

#[test]
fn send_return_immediately_ends_at_submitted() {
    let v = run(
        &[agent("a", "[working, completed]")],
        &format!("{}  - get: {{caller: user, task: a}}\n", send_ri("a")),
    );
    assert_eq!(
        step_result(&v, 1),
        &json!({"task": "task-1", "state": "submitted"})
    );
    // `get` runs no scheduler: the handler is still queued.
    assert_eq!(
        step_result(&v, 2),
        &json!({"task": "task-1", "state": "submitted"})
    );
    // Its handler stays queued and runs at quiescence.
    assert_eq!(hist(&v, 1), "1 submitted, 2 working, 3 completed");
}

#[test]
fn send_return_immediately_sets_the_push_config_first() {
    let y = r#"
policy: {push_allowed_hosts: [hooks.example]}
agents:
  - {name: a, tenant: t, clearance: public, capabilities: {push_notifications: true}, skills: [{id: a, tags: [a]}], handler: [working, completed]}
callers:
  - {id: user, tenant: t, classification: public}
steps:
  - send: {caller: user, to: a, text: go, return_immediately: true, push: {url: "https://hooks.example/x", token: tok}}
"#;
    let v = report_value(y);
    assert_eq!(step_result(&v, 1)["state"], "submitted");
    let pushed: Vec<(u64, &str)> = v["pushes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["tick"].as_u64().unwrap(), p["state"].as_str().unwrap()))
        .collect();
    assert_eq!(pushed, [(2, "working"), (3, "completed")]);
}

#[test]
fn return_immediately_on_stream_is_a_load_error() {
    let y = yaml(
        &[agent("a", "[working, completed]")],
        "  - stream: {caller: user, to: a, text: go, return_immediately: true}\n",
    );
    let err = load_err(&y);
    assert!(err.contains("return_immediately"), "{err}");
}

#[test]
fn a_non_blocking_sends_call_ends_when_the_task_is_created() {
    use a2a_sim::engine::record::EventKind;
    let text = yaml(
        &[agent("a", "[working, {message: note}, completed]")],
        &send_ri("a"),
    );
    let s = load(&text);
    let w = engine::run(&s);
    assert_eq!(w.tasks[0].state.as_str(), "completed");
    // The send's response is the submitted task: its call holds the opening and closing
    // snapshots only; what the handler did later is in the task, not in that response.
    let events: Vec<_> = w.call_events(0).map(|e| w.event_kind(e)).collect();
    assert_eq!(events.len(), 2, "{events:?}");
    assert!(
        events
            .iter()
            .all(|k| matches!(k, EventKind::Task { history: 1, .. }))
    );
}

#[test]
fn stream_blocks_like_send_and_ends_at_the_escalated_pause() {
    let v = run(
        &[
            agent(
                "p",
                "[working, {delegate: {to: q, text: x, on_pause: escalate}}, completed]",
            ),
            agent("q", "[working, {input_required: hm}, working, completed]"),
        ],
        "  - stream: {caller: user, to: p, text: go}\n",
    );
    let r = step_result(&v, 1);
    assert_eq!(r["state"], "input-required");
    let events: Vec<(String, String)> = r["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["event"].as_str().unwrap().to_string(),
                e["state"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let want = [
        ("task", "submitted"),
        ("status", "working"),
        ("status", "input-required"),
        ("task", "input-required"),
    ]
    .map(|(a, b)| (a.to_string(), b.to_string()));
    assert_eq!(events, want);
    assert_eq!(r["events"][2]["tick"], 6);
    assert_eq!(r["events"][2]["message"], "hm");
}

#[test]
fn driver_wait_queues_at_clock_plus_n_and_reports_the_clock_then() {
    let v = run(
        &[agent("a", "[working, completed]")],
        &format!("{}  - wait: 4\n  - wait: 0\n", send("a")),
    );
    assert_eq!(
        v["steps"][1],
        json!({"step": 2, "op": "wait", "result": {"tick": 7}})
    );
    assert_eq!(
        v["steps"][2],
        json!({"step": 3, "op": "wait", "result": {"tick": 7}})
    );
}

#[test]
fn driver_wait_runs_earlier_queued_due_work_first_and_stops_at_its_own_turn() {
    // a's continuation at 4 is queued after the driver wait (also at 4): the wait ends first.
    let v = run(
        &[agent("a", "[working, {wait: 2}, completed]")],
        &format!(
            "{}  - wait: 3\n  - get: {{caller: user, task: a}}\n",
            send_ri("a")
        ),
    );
    assert_eq!(step_result(&v, 2), &json!({"tick": 4}));
    assert_eq!(step_result(&v, 3)["state"], "working");
    assert_eq!(hist(&v, 1), "1 submitted, 2 working, 5 completed");
    // Queued earlier and due: runs before the wait ends.
    let v = run(
        &[agent("a", "[working, {wait: 1}, completed]")],
        &format!(
            "{}  - wait: 3\n  - get: {{caller: user, task: a}}\n",
            send_ri("a")
        ),
    );
    assert_eq!(hist(&v, 1), "1 submitted, 2 working, 4 completed");
    assert_eq!(step_result(&v, 2), &json!({"tick": 4}));
    assert_eq!(step_result(&v, 3)["state"], "completed");
}

#[test]
fn wait_task_runs_until_the_task_resolves() {
    let v = run(
        &[agent("a", "[working, {wait: 5}, completed]")],
        &format!("{}  - wait: {{task: a}}\n", send_ri("a")),
    );
    assert_eq!(
        v["steps"][1],
        json!({"step": 2, "op": "wait", "result": {"tick": 8}})
    );
}

#[test]
fn wait_task_on_a_resolved_task_ends_at_once() {
    let v = run(
        &[
            agent("a", "[working, completed]"),
            agent("b", "[working, completed]"),
        ],
        &format!(
            "{}{}  - wait: {{task: a}}\n  - get: {{caller: user, task: b}}\n",
            send("a"),
            send_ri("b")
        ),
    );
    assert_eq!(step_result(&v, 3), &json!({"tick": 4}));
    assert_eq!(step_result(&v, 4)["state"], "submitted");
}

#[test]
fn reply_blocks_until_the_next_pause_or_terminal_state_not_an_artifact_or_message() {
    let v = run(
        &[agent(
            "a",
            "[working, input_required, {artifact: {text: x}}, {message: m}, working, {wait: 3}, {input_required: again}, working, completed]",
        )],
        &format!(
            "{}  - reply: {{caller: user, task: a, text: r1}}\n  - reply: {{caller: user, task: a, text: r2}}\n",
            send("a")
        ),
    );
    assert_eq!(
        step_result(&v, 2),
        &json!({"task": "task-1", "state": "input-required"})
    );
    assert_eq!(
        step_result(&v, 3),
        &json!({"task": "task-1", "state": "completed"})
    );
    assert_eq!(
        hist(&v, 1),
        "1 submitted, 2 working, 3 input-required, 4 working, 8 input-required, 9 working, 10 completed"
    );
}

#[test]
fn a_reply_to_a_running_task_is_task_not_awaiting() {
    let v = run(
        &[agent("a", "[working, input_required, completed]")],
        &format!(
            "{}  - reply: {{caller: user, task: a, text: early}}\n  - get: {{caller: user, task: a}}\n",
            send_ri("a")
        ),
    );
    assert_eq!(errors(&v), [(2, "task_not_awaiting".to_string())]);
    // Changes nothing: no message joins, no handler runs.
    assert_eq!(step_result(&v, 3)["state"], "submitted");
    assert_eq!(texts(&v, 1), ["go"]);
    assert_eq!(hist(&v, 1), "1 submitted, 2 working, 3 input-required");
}

#[test]
fn cancel_acts_at_the_current_clock_and_runs_no_scheduler() {
    let v = run(
        &[agent("a", "[working, completed]")],
        &format!("{}  - cancel: {{caller: user, task: a}}\n", send_ri("a")),
    );
    assert_eq!(hist(&v, 1), "1 submitted, 2 canceled");
    assert_eq!(step_result(&v, 2)["state"], "canceled");
}

#[test]
fn set_push_config_runs_no_scheduler() {
    let y = r#"
policy: {push_allowed_hosts: [hooks.example]}
agents:
  - {name: a, tenant: t, clearance: public, capabilities: {push_notifications: true}, skills: [{id: a, tags: [a]}], handler: [working, completed]}
callers:
  - {id: user, tenant: t, classification: public}
steps:
  - send: {caller: user, to: a, text: go, as: a, return_immediately: true}
  - set_push_config: {caller: user, task: a, url: "https://hooks.example/x", token: tok}
  - get: {caller: user, task: a}
"#;
    let v = report_value(y);
    assert_eq!(step_result(&v, 3)["state"], "submitted");
    // Set before the handler ran: both of its changes are pushed.
    assert_eq!(v["pushes"].as_array().unwrap().len(), 2);
}

#[test]
fn quiescence_runs_everything_after_the_last_step() {
    let v = run(
        &[
            agent("p", "[working, {delegate: {to: q, text: x}}, completed]"),
            agent("q", "[working, {wait: 10}, completed]"),
        ],
        &send_ri("p"),
    );
    assert_eq!(hist(&v, 1), "1 submitted, 2 working, 16 completed");
    assert_eq!(hist(&v, 2), "3 submitted, 4 working, 15 completed");
}

#[test]
fn dropped_timers_never_move_the_clock() {
    let v = run(
        &[
            agent(
                "p",
                "[working, {delegate: {to: q, text: x, timeout: 100}}, completed]",
            ),
            agent("q", "[working, completed]"),
        ],
        &format!("{}  - wait: 0\n{}", send("p"), send("q")),
    );
    assert_eq!(hist(&v, 1), "1 submitted, 2 working, 6 completed");
    assert_eq!(step_result(&v, 2), &json!({"tick": 6}));
    assert_eq!(hist(&v, 3), "7 submitted, 8 working, 9 completed");
}

#[test]
fn queued_continuations_of_a_terminal_task_are_dropped() {
    let v = run(
        &[agent("a", "[working, {wait: 50}, completed]")],
        &format!(
            "{}  - wait: 0\n  - cancel: {{caller: user, task: a}}\n  - wait: 0\n",
            send_ri("a")
        ),
    );
    assert_eq!(step_result(&v, 2), &json!({"tick": 2}));
    assert_eq!(step_result(&v, 4), &json!({"tick": 3}));
    assert_eq!(hist(&v, 1), "1 submitted, 2 working, 3 canceled");
    assert!(errors(&v).is_empty());
}

#[test]
fn errors_of_non_blocking_work_go_under_the_driver_step_running_then() {
    // a's handler bug (submitted -> completed) happens in step 2's scheduler run.
    let v = run(
        &[
            agent("a", "[completed]"),
            agent("b", "[working, completed]"),
        ],
        &format!("{}  - wait: 0\n{}", send_ri("a"), send("b")),
    );
    assert_eq!(errors(&v), [(2, "illegal_transition".to_string())]);
    // In a blocking send of another task.
    let v = run(
        &[
            agent("a", "[completed]"),
            agent("b", "[working, completed]"),
        ],
        &format!("{}{}", send_ri("a"), send("b")),
    );
    assert_eq!(errors(&v), [(2, "illegal_transition".to_string())]);
}

#[test]
fn errors_at_quiescence_go_under_the_last_steps_number() {
    let v = run(
        &[agent("a", "[completed]")],
        &format!(
            "{}  - get: {{caller: user, task: a}}\n  - get: {{caller: user, task: a}}\n",
            send_ri("a")
        ),
    );
    assert_eq!(errors(&v), [(3, "illegal_transition".to_string())]);
}

#[test]
fn a_stream_to_a_non_streaming_agent_is_refused() {
    let v = crate::common::report_value("\
agents:
  - {name: plain, tenant: t, clearance: public, capabilities: {streaming: false}, skills: [{id: p, tags: [x]}], handler: [working, completed]}
callers:
  - {id: c, tenant: t, classification: public}
  - {id: other, tenant: elsewhere, classification: public}
steps:
  - stream: {caller: c, to: plain, text: go}
  - send: {caller: c, to: plain, text: go}
  - stream: {caller: other, to: plain, text: go}
");
    assert_eq!(v["steps"][0]["result"], serde_json::json!({}));
    assert_eq!(v["errors"][0]["code"], "streaming_not_supported");
    assert_eq!(v["errors"][0]["step"], 1);
    assert_eq!(
        v["tasks"].as_array().unwrap().len(),
        1,
        "send is unaffected, no ids drawn"
    );
    assert_eq!(v["tasks"][0]["id"], "task-1");
    // Before admission: the other tenant gets the capability refusal, not a denial.
    assert_eq!(v["errors"][1]["code"], "streaming_not_supported");
    assert_eq!(v["denials"], serde_json::json!([]));
}
