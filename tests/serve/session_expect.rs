//! A served file's `expect` entries are checked against the session when it ends, printed as
//! `test` prints them (each failure located in the file), exit 1 when one fails.

use std::process::Command;

use serde_json::json;

use super::support::*;

/// Serves `yaml` (written to a scratch folder), sends one message to `asks` as `u`, stops the
/// server with SIGTERM; its exit status and what it printed.
fn session(name: &str, yaml: &str) -> (i32, String) {
    let dir = crate::common::binary::scratch(&format!("session-expect-{name}"));
    crate::common::binary::write(&dir, "s.yaml", yaml);
    let (child, addr) = serve_in(&dir, &["s.yaml"]);
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": send_params("which?")});
    http(
        &addr,
        "POST",
        "/as/u/agents/asks/",
        &[],
        body.to_string().as_bytes(),
    );
    Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

const LIBRARY: &str = "agents:
  - {name: asks, tenant: acme, clearance: internal, skills: [{id: a, tags: [a]}], handler: [working, {input_required: Which list?}, completed]}
callers:
  - {id: u, tenant: acme, classification: public}
expect:
  - {received: asks, from: u, text: {contains: which}}
";

#[test]
fn a_session_that_meets_its_expect_says_so_and_exits_0() {
    let yaml = format!("{LIBRARY}  - {{received: asks, count: 1}}\n  - {{errors: 0}}\n");
    let (status, out) = session("met", &yaml);
    assert_eq!(status, 0, "{out}");
    assert_eq!(
        out,
        "ok     s.yaml (the session meets its 3 expect entries)\n"
    );
}

#[test]
fn a_session_that_does_not_is_located_like_test_and_exits_1() {
    let yaml = format!("{LIBRARY}  - {{received: asks, count: 2}}\n");
    let (status, out) = session("unmet", &yaml);
    assert_eq!(status, 1, "{out}");
    assert_eq!(
        out,
        "FAILED s.yaml (the session's expect)\n  s.yaml:7:5: expectation failed: `asks` received: expected 2 tasks, got 1\n"
    );
}
