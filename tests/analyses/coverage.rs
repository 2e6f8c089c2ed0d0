//! `coverage` over a corpus: edges, codes, handler steps and branches; `--fail-under`.

use crate::common::binary::{a2a_sim, a2a_sim_in, scratch};

const CORPUS: &str = r#"
policy: {max_depth: 4}
agents:
  - name: gate
    tenant: acme
    clearance: confidential
    skills: [{id: g, tags: [gate]}]
    handler:
      - working
      - when: {reply: {}, text: {contains: "yes"}}
        then: [completed]
        else: [failed]
  - name: buggy
    tenant: acme
    clearance: confidential
    skills: [{id: b, tags: [bug]}]
    handler: [completed]
callers:
  - {id: desk, tenant: acme, classification: internal}
  - {id: other, tenant: globex, classification: internal}
steps:
  - send: {caller: desk, to: gate, text: go}
  - send: {caller: desk, to: buggy, text: go}
  - send: {caller: other, to: gate, text: go}
"#;

/// A corpus of one file, in a directory of the test's own (tests run in parallel).
fn corpus(name: &str) -> std::path::PathBuf {
    let dir = scratch(name);
    std::fs::write(dir.join("one.yaml"), CORPUS).unwrap();
    dir
}

#[test]
fn counts_edges_illegal_attempts_codes_steps_and_branches() {
    let dir = corpus("coverage-counts");
    let r = a2a_sim_in(&dir, &["coverage", ".", "--format", "json"], None);
    assert_eq!(r.status, 0, "{}", r.stderr);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let e = &v["lifecycle_edges"];
    assert_eq!(e["of"], 17, "every legal edge of the table");
    // submitted -> working, working -> failed (the `when` had no reply: else), submitted -> failed
    // (the illegal completion's clean-up).
    assert_eq!(e["taken"], 3, "{e}");
    assert_eq!(e["illegal_attempted"][0]["edge"], "submitted -> completed");
    assert_eq!(v["denial_codes"]["seen"], serde_json::json!(["tenant"]));
    assert_eq!(
        v["error_codes"]["seen"],
        serde_json::json!(["illegal_transition"])
    );
    let gate = &v["agents"][0];
    assert_eq!(gate["agent"], "gate");
    assert_eq!(gate["handler_steps"]["of"], 4);
    assert_eq!(
        gate["handler_steps"]["never"],
        serde_json::json!([{"handler_step": 3, "kind": "completed"}])
    );
    assert_eq!(
        gate["branches"]["never"],
        serde_json::json!([{"handler_step": 2, "branch": "then"}])
    );
    let buggy = &v["agents"][1];
    assert_eq!(
        buggy["handler_steps"]["ran"], 1,
        "the illegal step ran: it was attempted"
    );
    let total = v["total"]["percent"].as_f64().unwrap();
    assert!(total > 0.0 && total < 100.0);
}

#[test]
fn fail_under_gates_ci() {
    let dir = corpus("coverage-fail-under");
    let r = a2a_sim_in(&dir, &["coverage", ".", "--fail-under", "99"], None);
    assert_eq!(r.status, 1, "{}", r.stdout);
    assert!(r.stderr.contains("below --fail-under 99%"), "{}", r.stderr);
    assert!(
        r.stdout
            .contains("never ran: step 3 (completed), step 2 then branch"),
        "{}",
        r.stdout
    );
    let r = a2a_sim_in(&dir, &["coverage", ".", "--fail-under", "1"], None);
    assert_eq!(r.status, 0);
}

#[test]
fn a_file_that_does_not_load_exits_2() {
    let dir = scratch("coverage-bad");
    std::fs::write(dir.join("bad.yaml"), "agents: 3\n").unwrap();
    let r = a2a_sim_in(&dir, &["coverage", "."], None);
    assert_eq!(r.status, 2);
    let r = a2a_sim(&["coverage", "no/such/dir"]);
    assert_eq!(r.status, 2);
}
