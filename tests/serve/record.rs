//! `serve --record FILE`: the session written as a scenario that imports the served file; `test`
//! replays it, and its run records the same tasks, denials and errors as the session did.

use std::process::Command;

use serde_json::{Value, json};

use super::support::*;

#[test]
fn a_recorded_session_replays_to_the_same_tasks_and_errors() {
    let dir = crate::common::binary::scratch("serve-record");
    std::fs::copy(
        concat!(env!("CARGO_MANIFEST_DIR"), "/tests/serve/down.yaml"),
        dir.join("down.yaml"),
    )
    .unwrap();
    let (mut child, addr) = serve_in(
        &dir,
        &[
            "down.yaml",
            "--record",
            "rec.yaml",
            "--report",
            "session.json",
        ],
    );
    let post = |agent: &str, params: Value| {
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": params});
        let path = format!("/as/u/agents/{agent}/");
        http(&addr, "POST", &path, &[], body.to_string().as_bytes())
    };
    post("asks", send_params("which list?"));
    let mut reply = send_params("the EU list");
    reply["message"]["taskId"] = json!("task-1");
    post("asks", reply);
    post("down", send_params("refused"));
    post("asks", send_params("again"));
    Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(child.wait().unwrap().success());
    let recorded = std::fs::read_to_string(dir.join("rec.yaml")).unwrap();
    assert!(recorded.contains("imports: [\"down.yaml\"]"), "{recorded}");
    assert!(
        recorded.contains("- reply: {caller: \"u\", task_id: \"task-1\", text: \"the EU list\"}"),
        "{recorded}"
    );
    let test = crate::common::binary::a2a_sim_in(&dir, &["test", "rec.yaml"], None);
    assert_eq!(test.status, 0, "{}{}", test.stdout, recorded);
    let replay =
        crate::common::binary::a2a_sim_in(&dir, &["run", "--format", "json", "rec.yaml"], None);
    let replay: Value = serde_json::from_str(&replay.stdout).unwrap();
    let session: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("session.json")).unwrap()).unwrap();
    for key in ["tasks", "denials", "errors", "pushes"] {
        assert_eq!(replay[key], session[key], "{key}");
    }
}

#[test]
fn a_file_with_steps_of_its_own_cannot_be_recorded() {
    let run = crate::common::binary::a2a_sim(&[
        "serve",
        "scenarios/payment-decision.yaml",
        "--record",
        "x.yaml",
    ]);
    assert_eq!(run.status, 2, "{}", run.stderr);
    assert!(run.stderr.contains("serve a library"), "{}", run.stderr);
}
