//! The protocol formats through the binary: `convert` takes what `run --format a2a` prints and
//! names a foreign task's agent, ACP runs carry `error` and `await_request` and round-trip, and
//! `a2a-stream --jsonrpc` wraps each event in an envelope with its request id.

use std::path::Path;

use crate::common::binary::{a2a_sim, a2a_sim_in, scratch, write};

#[test]
fn convert_takes_what_run_prints_and_names_a_foreign_agent() {
    let tasks = a2a_sim(&["run", "--format", "a2a", "scenarios/traced-delegation.yaml"]).stdout;
    let r = a2a_sim_in(
        Path::new(env!("CARGO_MANIFEST_DIR")),
        &["convert", "--from", "a2a", "--to", "acp"],
        Some(&tasks),
    );
    assert_eq!(r.status, 0, "{}", r.stderr);
    let runs: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let n = serde_json::from_str::<serde_json::Value>(&tasks)
        .unwrap()
        .as_array()
        .unwrap()
        .len();
    assert_eq!(runs.as_array().unwrap().len(), n);
    let foreign = r#"{"id": "t1", "contextId": "c1", "status": {"state": "TASK_STATE_COMPLETED"}}"#;
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let r = a2a_sim_in(
        root,
        &["convert", "--from", "a2a", "--to", "acp"],
        Some(foreign),
    );
    assert_eq!(r.status, 2);
    let r = a2a_sim_in(
        root,
        &[
            "convert", "--from", "a2a", "--to", "acp", "--agent", "screener",
        ],
        Some(foreign),
    );
    assert_eq!(r.status, 0, "{}", r.stderr);
    assert!(
        r.stdout.contains("\"agent_name\": \"screener\""),
        "{}",
        r.stdout
    );
}

#[test]
fn acp_carries_error_and_await_request_and_they_round_trip() {
    let dir = scratch("ed-acp");
    write(&dir, "s.yaml", "\
agents:
  - {name: failer, tenant: t, clearance: public, skills: [{id: f, tags: [x]}], handler: [working, {failed: list unavailable}]}
  - {name: asker, tenant: t, clearance: public, skills: [{id: a, tags: [y]}], handler: [working, {input_required: Which list?}, completed]}
callers:
  - {id: c, tenant: t, classification: public}
steps:
  - send: {caller: c, to: failer, text: go}
  - send: {caller: c, to: asker, text: go}
");
    let r = a2a_sim_in(&dir, &["run", "--format", "acp", "s.yaml"], None);
    assert_eq!(r.status, 0, "{}", r.stderr);
    let runs: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(
        runs[0]["error"],
        serde_json::json!({"code": "server_error", "message": "list unavailable"})
    );
    assert_eq!(runs[0]["await_request"], serde_json::Value::Null);
    assert_eq!(
        runs[1]["await_request"]["message"]["parts"][0]["content"],
        "Which list?"
    );
    assert_eq!(runs[1]["error"], serde_json::Value::Null);
    for (run, want) in [(&runs[0], "list unavailable"), (&runs[1], "Which list?")] {
        let back = a2a_sim_in(
            &dir,
            &["convert", "--from", "acp", "--to", "internal"],
            Some(&run.to_string()),
        );
        let v: serde_json::Value = serde_json::from_str(&back.stdout).unwrap();
        assert_eq!(v["status_message"], want, "{}", back.stdout);
        let a2a = a2a_sim_in(
            &dir,
            &["convert", "--from", "acp", "--to", "a2a"],
            Some(&run.to_string()),
        );
        let again = a2a_sim_in(
            &dir,
            &["convert", "--from", "a2a", "--to", "acp"],
            Some(&a2a.stdout),
        );
        let again: serde_json::Value = serde_json::from_str(&again.stdout).unwrap();
        assert_eq!(again["error"], run["error"]);
        assert_eq!(again["await_request"], run["await_request"]);
    }
}

#[test]
fn a2a_stream_in_jsonrpc_envelopes_with_request_ids() {
    let bare = a2a_sim(&[
        "run",
        "--format",
        "a2a-stream",
        "scenarios/nested-delegation.yaml",
    ]);
    for v in ["1.0", "0.3"] {
        let r = a2a_sim(&[
            "run",
            "--format",
            "a2a-stream",
            "--jsonrpc",
            "--a2a-version",
            v,
            "scenarios/nested-delegation.yaml",
        ]);
        assert_eq!(r.status, 0, "{}", r.stderr);
        let bare_v = a2a_sim(&[
            "run",
            "--format",
            "a2a-stream",
            "--a2a-version",
            v,
            "scenarios/nested-delegation.yaml",
        ]);
        let mut ids = std::collections::BTreeSet::new();
        for (line, bare_line) in r.stdout.lines().zip(bare_v.stdout.lines()) {
            let e: serde_json::Value = serde_json::from_str(line).unwrap();
            assert_eq!(e["jsonrpc"], "2.0");
            assert_eq!(
                e["result"],
                serde_json::from_str::<serde_json::Value>(bare_line).unwrap()
            );
            ids.insert(e["id"].as_str().unwrap().to_string());
        }
        assert!(ids.contains("req-1") && ids.contains("req-2"), "{ids:?}");
    }
    assert!(!bare.stdout.contains("jsonrpc"));
    let r = a2a_sim(&[
        "run",
        "--format",
        "json",
        "--jsonrpc",
        "scenarios/nested-delegation.yaml",
    ]);
    assert_eq!(r.status, 2);
    assert!(r.stderr.contains("--jsonrpc"), "{}", r.stderr);
}
