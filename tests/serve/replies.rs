//! A caller's reply to its input-required task: it continues the task, answered as a stream when
//! sent on one, and with `--relay-children` that stream carries the child tasks' events too.

use serde_json::{Value, json};

use super::support::*;

/// A reply to payment-decision's input-required task-1, as a stream, on a server started with
/// `flags`: its events' results.
fn streamed_reply(flags: &[&str]) -> Vec<Value> {
    let s = start("payment-decision.yaml", flags);
    let (_, r) = rpc(&s, "SendMessage", send_params("pay 100"));
    assert_eq!(
        r["result"]["task"]["status"]["state"],
        "TASK_STATE_INPUT_REQUIRED"
    );
    let mut params = send_params("ACME GmbH, Germany");
    params["message"]["taskId"] = json!("task-1");
    let body =
        json!({"jsonrpc": "2.0", "id": 9, "method": "SendStreamingMessage", "params": params})
            .to_string();
    let (_, head, text) = http(
        &s.addr,
        "POST",
        &format!("{AGENT}/"),
        &[CALLER],
        body.as_bytes(),
    );
    assert!(
        head.to_ascii_lowercase().contains("text/event-stream"),
        "{head}"
    );
    sse_events(&text)
        .into_iter()
        .map(|e| e["result"].clone())
        .collect()
}

#[test]
fn a_reply_continues_the_task_and_on_a_stream_answers_as_a_stream() {
    let events = streamed_reply(&[]);
    // The task as it stood, its own transitions, and the status update the reply left it in,
    // last (nothing follows it); the stream carries its own task only.
    assert_eq!(events[0]["task"]["id"], "task-1");
    let last = &events[events.len() - 1]["statusUpdate"];
    assert_eq!(last["taskId"], "task-1");
    assert_ne!(last["status"]["state"], "TASK_STATE_INPUT_REQUIRED");
    assert!(
        events
            .iter()
            .any(|e| e["statusUpdate"]["taskId"] == "task-1"
                && e["statusUpdate"]["status"]["state"] == "TASK_STATE_WORKING"),
        "the reply's own working: {events:?}"
    );
    assert!(
        events.iter().all(|e| {
            let inner = e.as_object().unwrap().values().next().unwrap();
            inner["taskId"] == "task-1" || inner["id"] == "task-1"
        }),
        "a child task's event was relayed: {events:?}"
    );
}

#[test]
fn relay_children_adds_the_child_tasks_events_to_a_stream() {
    let events = streamed_reply(&["--relay-children"]);
    // The screener's events are relayed (its artifact carries the recommendation); the stream
    // still ends at its own task's last status update.
    assert_eq!(events[0]["task"]["id"], "task-1");
    let last = &events[events.len() - 1]["statusUpdate"];
    assert_eq!(last["taskId"], "task-1");
    assert_ne!(last["status"]["state"], "TASK_STATE_INPUT_REQUIRED");
    let working = events
        .iter()
        .position(|e| {
            e["statusUpdate"]["taskId"] == "task-1"
                && e["statusUpdate"]["status"]["state"] == "TASK_STATE_WORKING"
        })
        .expect("the reply's own working");
    let artifact = events
        .iter()
        .position(|e| e["artifactUpdate"]["taskId"] == "task-2")
        .expect("the screener's artifact, relayed");
    assert!(working < artifact, "{events:?}");
    assert_eq!(
        events[artifact]["artifactUpdate"]["artifact"]["parts"][1]["data"]["recommendation"],
        "clear"
    );
    // Only the stream's own task appears as a Task.
    assert!(
        events
            .iter()
            .filter_map(|e| e.get("task"))
            .all(|t| t["id"] == "task-1")
    );
}
