//! Subscriptions to a task: one follows the task until it ends (0.3's resubscription marking its
//! last status final), an ended task or another caller's has none, and one to an input-required
//! task gets the task and ends.

use serde_json::{Value, json};

use super::support::*;

#[test]
fn a_subscription_follows_the_task_until_it_ends() {
    let s = start(SESSION, &["--tick-ms", "10"]);
    let task = start_task(&s);
    let r = call(&s, "orchestrator", "SubscribeToTask", json!({"id": task}));
    let events: Vec<Value> = r["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["result"].clone())
        .collect();
    assert_eq!(events[0]["task"]["id"], task, "{events:?}");
    let artifact = events
        .iter()
        .position(|e| e["artifactUpdate"]["artifact"]["name"] == "screening-result")
        .expect("the artifact, as it was made");
    let completed = events
        .iter()
        .position(|e| e["statusUpdate"]["status"]["state"] == "TASK_STATE_COMPLETED")
        .expect("the completion");
    assert!(artifact < completed);
    // The completion ends the stream: nothing follows it.
    assert_eq!(completed, events.len() - 1, "{events:?}");
    assert_eq!(
        events
            .iter()
            .filter(|e| e.get("artifactUpdate").is_some())
            .count(),
        1
    );
    // An ended task has nothing to subscribe to; a task of another caller does not exist.
    let r = call(&s, "orchestrator", "SubscribeToTask", json!({"id": task}));
    // The error is the answer itself, not an event of a stream (as the SDK server answers).
    assert_eq!(r["error"]["code"], -32004, "{r}");
    let r = call(&s, "auditor", "SubscribeToTask", json!({"id": task}));
    assert_eq!(r["error"]["code"], -32001, "{r}");
}

#[test]
fn a_0_3_resubscription_marks_its_last_status_final() {
    let s = start(SESSION, &["--tick-ms", "10"]);
    let task = start_task(&s);
    let r = call(&s, "orchestrator", "tasks/resubscribe", json!({"id": task}));
    let events: Vec<Value> = r["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["result"].clone())
        .collect();
    assert_eq!(events[0]["kind"], "task");
    let updates: Vec<&Value> = events
        .iter()
        .filter(|e| e["kind"] == "status-update")
        .collect();
    let finals: Vec<bool> = updates.iter().map(|e| e["final"] == true).collect();
    assert_eq!(finals.last(), Some(&true), "{events:?}");
    assert!(finals[..finals.len() - 1].iter().all(|f| !f));
    assert_eq!(events.last().unwrap()["status"]["state"], "completed");
}

#[test]
fn a_subscriber_to_an_input_required_task_gets_it_and_its_stream_ends() {
    // As the official servers do: an interrupted task waits on its caller, so a subscription
    // gets the task as it stands and ends; the caller's reply is what moves it on.
    let s = start("payment-decision.yaml", &[]);
    assert_eq!(rpc(&s, "SendMessage", send_params("Pay PMT-10")).0, 200);
    let body =
        json!({"jsonrpc": "2.0", "id": 1, "method": "SubscribeToTask", "params": {"id": "task-1"}});
    let events: Vec<Value> = sse_events(
        &in_background(&s, &format!("{AGENT}/"), body)
            .join()
            .unwrap(),
    )
    .into_iter()
    .map(|e| e["result"].clone())
    .collect();
    assert_eq!(events.len(), 1, "{events:?}");
    assert_eq!(
        events[0]["task"]["status"]["state"],
        "TASK_STATE_INPUT_REQUIRED"
    );
    let mut reply = send_params("Nordwind Logistik GmbH, Hamburg, DE");
    reply["message"]["taskId"] = json!("task-1");
    let (status, r) = rpc(&s, "SendMessage", reply);
    assert_eq!(status, 200);
    assert_eq!(
        r["result"]["task"]["status"]["state"], "TASK_STATE_COMPLETED",
        "{r}"
    );
}
