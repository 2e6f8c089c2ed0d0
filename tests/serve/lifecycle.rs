//! How a session starts and ends: bad setup flags stop it before it listens; it ends on
//! `--exit-after`, SIGTERM or `--idle-exit` (not while a stream is open) with its report written,
//! and streams still open at shutdown get the rest of their events at once.

use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::support::*;

#[test]
fn bad_setup_flags_stop_serve_before_it_listens() {
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_a2a-sim"))
            .arg("serve")
            .arg(format!("{}/{SESSION}", env!("CARGO_MANIFEST_DIR")))
            .args(["--listen", "127.0.0.1:0"])
            .args(args)
            .output()
            .unwrap()
    };
    let out = run(&["--advertise-host", "a b/\"x"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--advertise-host"));
    let out = run(&["--report", "/nonexistent-dir/r.json"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot write the report"));
}

#[test]
fn root_agent_and_report_on_exit_after() {
    let mut s = start(
        "payment-decision.yaml",
        &[
            "--root-agent",
            "payments-agent",
            "--report",
            "report.json",
            "--exit-after",
            "3",
        ],
    );
    let (status, _, _) = http(&s.addr, "GET", "/.well-known/agent-card.json", &[], b"");
    assert_eq!(status, 200);
    let body =
        json!({"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": send_params("pay")})
            .to_string();
    let (_, _, text) = http(&s.addr, "POST", "/", &[CALLER], body.as_bytes());
    assert!(text.contains("task-1"), "{text}");
    let get = json!({"jsonrpc": "2.0", "id": 2, "method": "GetTask", "params": {"id": "task-1"}})
        .to_string();
    http(
        &s.addr,
        "POST",
        &format!("{AGENT}/"),
        &[CALLER],
        get.as_bytes(),
    );
    let deadline = Instant::now() + Duration::from_secs(20);
    let status = loop {
        if let Some(st) = s.child.try_wait().unwrap() {
            break st;
        }
        assert!(
            Instant::now() < deadline,
            "the server did not exit after 3 requests"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(status.success());
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(s.dir.join("report.json")).unwrap()).unwrap();
    let steps = report["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 2);
    assert_eq!(steps[0]["op"], "send");
    assert_eq!(steps[1]["op"], "get");
    assert_eq!(steps[1]["result"]["task"], "task-1");
}

#[test]
fn report_on_sigterm_and_idle_exit() {
    let mut s = start("payment-decision.yaml", &["--report", "r.json"]);
    rpc(&s, "SendMessage", send_params("pay"));
    terminate(&s);
    let status = s.child.wait().unwrap();
    assert!(status.success(), "{status:?}");
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(s.dir.join("r.json")).unwrap()).unwrap();
    assert_eq!(report["steps"].as_array().unwrap().len(), 1);
    let mut s = start(
        "payment-decision.yaml",
        &["--report", "r.json", "--idle-exit", "0.3"],
    );
    let deadline = Instant::now() + Duration::from_secs(20);
    while s.child.try_wait().unwrap().is_none() {
        assert!(
            Instant::now() < deadline,
            "--idle-exit did not stop the server"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(s.dir.join("r.json").exists());
}

#[test]
fn an_open_stream_keeps_the_server_from_idling_out() {
    // 20 ticks of 100 ms: the stream stays open 2 s, twice the idle limit.
    let mut s = start(SESSION, &["--tick-ms", "100", "--idle-exit", "1"]);
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "SendStreamingMessage", "params": send_params("Screen Acme")});
    let reader = in_background(&s, &format!("{SCREENER}/"), body);
    let text = reader.join().unwrap();
    let events = sse_events(&text);
    assert_eq!(
        events.last().unwrap()["result"]["statusUpdate"]["status"]["state"],
        "TASK_STATE_COMPLETED"
    );
    // It idles out afterwards, a whole idle second after the stream ended (stopped mid-stream,
    // it would have sent the rest at once and been gone within moments of it).
    let ended = Instant::now();
    let deadline = ended + Duration::from_secs(20);
    while s.child.try_wait().unwrap().is_none() {
        assert!(
            Instant::now() < deadline,
            "--idle-exit did not stop the server"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(
        ended.elapsed() >= Duration::from_millis(500),
        "{:?}",
        ended.elapsed()
    );
}

#[test]
fn shutdown_ends_a_live_subscription_with_the_status_its_task_ends_in() {
    // A tick of a second: the task would take 20 s; SIGTERM ends the session first.
    let mut s = start(SESSION, &["--tick-ms", "1000", "--report", "r.json"]);
    let task = start_task(&s);
    let body =
        json!({"jsonrpc": "2.0", "id": 1, "method": "SubscribeToTask", "params": {"id": task}});
    let reader = in_background(&s, &format!("{SCREENER}/"), body);
    terminate(&s);
    let text = reader.join().unwrap();
    let events = sse_events(&text);
    let last = &events.last().unwrap()["result"]["statusUpdate"];
    // Stopping runs what was scheduled to its end, as `run` does after its last step.
    assert_eq!(
        last["status"]["state"], "TASK_STATE_COMPLETED",
        "{events:?}"
    );
    assert!(s.child.wait().unwrap().success());
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(s.dir.join("r.json")).unwrap()).unwrap();
    assert_eq!(report["tasks"][0]["state"], "completed");
}

#[test]
fn shutdown_sends_the_rest_of_a_paced_stream_at_once() {
    // 20 ticks of a second: the stream's result is 20 s away when SIGTERM comes.
    let mut s = start(SESSION, &["--tick-ms", "1000"]);
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "SendStreamingMessage", "params": send_params("Screen Acme")});
    let reader = in_background(&s, &format!("{SCREENER}/"), body);
    terminate(&s);
    let text = reader.join().unwrap();
    let events = sse_events(&text);
    let last = &events.last().unwrap()["result"]["statusUpdate"];
    assert_eq!(
        last["status"]["state"], "TASK_STATE_COMPLETED",
        "{events:?}"
    );
    assert!(s.child.wait().unwrap().success());
}
