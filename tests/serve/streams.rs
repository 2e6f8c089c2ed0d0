//! Streams and subscriptions: a stream ends with its task, a reply continues it, a subscriber
//! follows the task to its end, and a slow agent's events arrive as it works.

use super::*;

#[test]
fn stream_ends_with_its_task_and_subscribe_to_unknown_is_a_stream() {
    let s = start("payment-decision.yaml", &[]);
    let body = json!({"jsonrpc": "2.0", "id": "s", "method": "SendStreamingMessage", "params": send_params("pay")}).to_string();
    let (status, head, text) = http(
        &s.addr,
        "POST",
        &format!("{AGENT}/"),
        &[CALLER],
        body.as_bytes(),
    );
    assert_eq!(status, 200);
    assert!(
        head.to_ascii_lowercase()
            .contains("content-type: text/event-stream"),
        "{head}"
    );
    let events = sse_events(&text);
    assert!(events.len() >= 3, "{events:?}");
    assert!(events[0]["result"]["task"].is_object());
    assert!(events.last().unwrap()["result"]["task"].is_object());
    assert!(
        events[1..events.len() - 1]
            .iter()
            .all(|e| e["result"]["task"].is_null())
    );
    assert!(events.iter().all(|e| e["id"] == "s"));
    let body = json!({"jsonrpc": "2.0", "id": 3, "method": "SubscribeToTask", "params": {"id": "task-42"}}).to_string();
    let (status, head, text) = http(
        &s.addr,
        "POST",
        &format!("{AGENT}/"),
        &[CALLER],
        body.as_bytes(),
    );
    assert_eq!(status, 200);
    assert!(head.to_ascii_lowercase().contains("text/event-stream"));
    let events = sse_events(&text);
    assert_eq!(events.len(), 1);
    assert_eq!(events[0]["error"]["code"], -32001);
    // REST form too.
    let (_, head, text) = http(
        &s.addr,
        "GET",
        &format!("{AGENT}/tasks/task-42:subscribe"),
        &[CALLER],
        b"",
    );
    assert!(head.to_ascii_lowercase().contains("text/event-stream"));
    assert_eq!(sse_events(&text)[0]["error"]["code"], 404);
}

#[test]
fn a_reply_continues_the_task_and_on_a_stream_answers_as_a_stream() {
    let s = start("payment-decision.yaml", &[]);
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
    let events: Vec<Value> = sse_events(&text)
        .into_iter()
        .map(|e| e["result"].clone())
        .collect();
    // The task as it stood, its own transitions, the screener's events relayed (its artifact
    // carries the recommendation), and the task as the reply left it, last.
    assert_eq!(events[0]["task"]["id"], "task-1");
    let last = &events[events.len() - 1]["task"];
    assert_eq!(last["id"], "task-1");
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
    assert_eq!(completed, events.len() - 2, "{events:?}");
    let last = &events[events.len() - 1]["task"];
    assert_eq!(last["status"]["state"], "TASK_STATE_COMPLETED");
    assert_eq!(last["artifacts"].as_array().unwrap().len(), 1);
    // An ended task has nothing to subscribe to; a task of another caller does not exist.
    let r = call(&s, "orchestrator", "SubscribeToTask", json!({"id": task}));
    assert_eq!(r["events"][0]["error"]["code"], -32004, "{r}");
    let r = call(&s, "auditor", "SubscribeToTask", json!({"id": task}));
    assert_eq!(r["events"][0]["error"]["code"], -32001, "{r}");
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
fn a_subscriber_sees_a_reply_arrive_with_one_task_first_and_one_last() {
    let s = start("payment-decision.yaml", &[]);
    assert_eq!(rpc(&s, "SendMessage", send_params("Pay PMT-10")).0, 200);
    let body =
        json!({"jsonrpc": "2.0", "id": 1, "method": "SubscribeToTask", "params": {"id": "task-1"}});
    let reader = in_background(&s, &format!("{AGENT}/"), body);
    let mut reply = send_params("Nordwind Logistik GmbH, Hamburg, DE");
    reply["message"]["taskId"] = json!("task-1");
    assert_eq!(rpc(&s, "SendMessage", reply).0, 200);
    let events: Vec<Value> = sse_events(&reader.join().unwrap())
        .into_iter()
        .map(|e| e["result"].clone())
        .collect();
    let tasks: Vec<&Value> = events.iter().filter_map(|e| e.get("task")).collect();
    assert_eq!(tasks.len(), 2, "{events:?}");
    assert_eq!(tasks[0]["status"]["state"], "TASK_STATE_INPUT_REQUIRED");
    assert_eq!(tasks[1]["status"]["state"], "TASK_STATE_COMPLETED");
    assert!(events.last().unwrap().get("task").is_some());
    assert!(
        events
            .iter()
            .any(|e| e["statusUpdate"]["status"]["state"] == "TASK_STATE_WORKING")
    );
}

#[test]
fn a_stream_from_a_slow_agent_arrives_as_the_agent_works() {
    // 20 ticks of 200 ms: the artifact comes 4 s after `working`.
    let s = start(SESSION, &["--tick-ms", "200"]);
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "SendStreamingMessage", "params": send_params("Screen Acme")}).to_string();
    let mut conn = TcpStream::connect(&s.addr).unwrap();
    let head = format!(
        "POST {SCREENER}/ HTTP/1.1\r\nHost: x\r\nConnection: close\r\nX-A2A-Sim-Caller: orchestrator\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    conn.write_all(head.as_bytes()).unwrap();
    conn.write_all(body.as_bytes()).unwrap();
    let mut got = Vec::new();
    let mut chunk = [0u8; 8192];
    // Read until `working` is in.
    conn.set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    while !String::from_utf8_lossy(&got).contains("TASK_STATE_WORKING") {
        let n = conn.read(&mut chunk).unwrap();
        assert!(n > 0, "the stream ended before `working`");
        got.extend_from_slice(&chunk[..n]);
    }
    // The rest is seconds away: half a second later it has not come.
    conn.set_read_timeout(Some(Duration::from_millis(500)))
        .unwrap();
    let early = conn.read(&mut chunk);
    assert!(
        early.is_err(),
        "an event came before the agent's wait was over: {:?}",
        early.map(|n| String::from_utf8_lossy(&chunk[..n]).into_owned())
    );
    conn.set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    let _ = conn.read_to_end(&mut got);
    let text = String::from_utf8_lossy(&got);
    assert!(text.contains("screening-result"), "{text}");
    assert!(text.contains("TASK_STATE_COMPLETED"), "{text}");
}

#[test]
fn an_agents_message_on_a_stream_is_a_status_update_carrying_it() {
    // SDK clients stop reading a stream at a Message: mid-task messages travel as status updates.
    let s = start(SESSION, &[]);
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "SendStreamingMessage", "params": send_params("Check ACME")}).to_string();
    let (_, _, text) = http(
        &s.addr,
        "POST",
        "/agents/notary/",
        &[CALLER],
        body.as_bytes(),
    );
    let events: Vec<Value> = sse_events(&text)
        .into_iter()
        .map(|e| e["result"].clone())
        .collect();
    assert!(
        events.iter().all(|e| e.get("message").is_none()),
        "{events:?}"
    );
    let carried = events
        .iter()
        .find(|e| {
            e["statusUpdate"]["status"]["message"]["parts"][0]["text"]
                == "The register answered; comparing directors"
        })
        .expect("the message, in a status update");
    assert_eq!(
        carried["statusUpdate"]["status"]["state"],
        "TASK_STATE_WORKING"
    );
    assert_eq!(
        events.last().unwrap()["task"]["status"]["state"],
        "TASK_STATE_COMPLETED"
    );
}
