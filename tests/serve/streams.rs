//! Streamed answers: a stream ends at the status that ends or pauses its task, its events arrive
//! as the agent works, an agent's message travels in a status update, and a subscription to a
//! task that is not there is a stream carrying the error.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use serde_json::{Value, json};

use super::support::*;

#[test]
fn a_stream_ends_at_the_status_that_ends_or_pauses_its_task_and_subscribe_to_unknown_is_an_error() {
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
    // As the official servers end theirs: at the status update that pauses (or ends) the task.
    let last = &events.last().unwrap()["result"]["statusUpdate"];
    assert_eq!(
        last["status"]["state"], "TASK_STATE_INPUT_REQUIRED",
        "{events:?}"
    );
    assert!(events[1..].iter().all(|e| e["result"]["task"].is_null()));
    assert!(events.iter().all(|e| e["id"] == "s"));
    let body = json!({"jsonrpc": "2.0", "id": 3, "method": "SubscribeToTask", "params": {"id": "task-42"}}).to_string();
    let (status, head, text) = http(
        &s.addr,
        "POST",
        &format!("{AGENT}/"),
        &[CALLER],
        body.as_bytes(),
    );
    // A stream that fails before its first event is no stream: a plain JSON-RPC error, as
    // the official SDK server answers it.
    assert_eq!(status, 200);
    assert!(
        head.to_ascii_lowercase().contains("application/json"),
        "{head}"
    );
    assert_eq!(
        serde_json::from_str::<Value>(&text).unwrap()["error"]["code"],
        -32001
    );
    // REST form too: the error's HTTP status.
    let (status, head, text) = http(
        &s.addr,
        "GET",
        &format!("{AGENT}/tasks/task-42:subscribe"),
        &[CALLER],
        b"",
    );
    assert_eq!(status, 404);
    assert!(
        head.to_ascii_lowercase().contains("application/json"),
        "{head}"
    );
    assert_eq!(
        serde_json::from_str::<Value>(&text).unwrap()["error"]["code"],
        404
    );
}

#[test]
fn a_stream_from_a_slow_agent_arrives_as_the_agent_works() {
    // 20 ticks of 200 ms: the artifact comes 4 s after `working`.
    let s = start(SESSION, &["--tick-ms", "200"]);
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "SendStreamingMessage", "params": send_params("Screen Acme")}).to_string();
    let mut conn = TcpStream::connect(&s.addr).unwrap();
    let head = format!(
        "POST {SCREENER}/ HTTP/1.1\r\nHost: {}\r\nConnection: close\r\nX-A2A-Sim-Caller: orchestrator\r\nA2A-Version: 1.0\r\nContent-Length: {}\r\n\r\n",
        s.addr,
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
        events.last().unwrap()["statusUpdate"]["status"]["state"],
        "TASK_STATE_COMPLETED"
    );
}
