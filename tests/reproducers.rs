//! A scenario that imports a scenario: a shrunk reproducer pinned in a few lines beside the
//! original, adding `faults` and `expect` to the imported steps.

use std::path::Path;

use crate::common::binary::{a2a_sim_in, scratch};

/// A payment that completes unless its screener is down when it is asked.
const ORIGINAL: &str = r#"name: payments
agents:
  - name: payments
    tenant: acme
    clearance: confidential
    skills: [{id: pay, tags: [payments]}]
    handler:
      - working: Screening first
      - delegate: {to: screener, text: Screen, as: screen}
      - completed: Paid
  - name: screener
    tenant: acme
    clearance: confidential
    skills: [{id: screen, tags: [sanctions]}]
    handler: [working: Screening, completed: Done]
callers:
  - {id: orchestrator, tenant: acme, classification: internal}
steps:
  - send: {caller: orchestrator, to: payments, text: Pay, as: pay}
expect:
  - {task: pay, state: completed}
"#;

fn dir_with(name: &str, files: &[(&str, &str)]) -> std::path::PathBuf {
    let dir = scratch(name);
    for (file, text) in files {
        let path = dir.join(file);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    dir
}

fn report(dir: &Path, file: &str) -> serde_json::Value {
    let r = a2a_sim_in(dir, &["run", file, "--format", "json"], None);
    assert_eq!(r.status, 0, "{}", r.stderr);
    serde_json::from_str(&r.stdout).unwrap()
}

#[test]
fn a_reproducer_runs_the_imported_steps_with_its_own_faults_and_claims() {
    let repro = "imports: [payments.yaml]\nfaults:\n  - {agent: screener, unavailable: {from: 0, to: 50}}\nexpect:\n  - {task: pay, state: failed}\n";
    let dir = dir_with(
        "repro-runs",
        &[("payments.yaml", ORIGINAL), ("payments-repro.yaml", repro)],
    );
    let original = report(&dir, "payments.yaml");
    let pinned = report(&dir, "payments-repro.yaml");
    // The same steps, the imported name, and the fault that breaks the payment.
    assert_eq!(pinned["scenario"], original["scenario"]);
    assert_eq!(pinned["steps"].as_array().unwrap().len(), 1);
    assert_eq!(original["tasks"][0]["state"], "completed");
    assert_ne!(pinned["tasks"][0]["state"], "completed");
    // `test` runs it (it is no library): the imported claim breaks under the fault, and the
    // reproducer's own claim, numbered after the imported ones, holds.
    let r = a2a_sim_in(&dir, &["test", "--bless", "payments-repro.yaml"], None);
    assert_eq!(r.status, 1, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stdout.contains("payments.yaml:21:5: expectation failed: task `pay` (task-1): expected state completed, got failed"),
        "{}",
        r.stdout
    );
    assert_eq!(
        r.stdout.matches("expectation failed").count(),
        1,
        "{}",
        r.stdout
    );
    // A directory walk tests the reproducer too.
    let r = a2a_sim_in(&dir, &["test", "--bless", "."], None);
    assert!(r.stdout.contains("payments-repro.yaml"), "{}", r.stdout);
}

#[test]
fn steps_come_from_one_file_and_problems_are_located_where_they_are_written() {
    let twice = "imports: [payments.yaml]\nsteps:\n  - send: {caller: orchestrator, to: payments, text: Again}\n";
    let bad_fault =
        "imports: [payments.yaml]\nfaults:\n  - {agent: screenr, unavailable: {from: 0}}\n";
    let dir = dir_with(
        "repro-located",
        &[
            ("payments.yaml", ORIGINAL),
            ("twice.yaml", twice),
            ("bad-fault.yaml", bad_fault),
            (
                "lib.yaml",
                "expect:\n  - {task: pay, state: completed}\nagents: []\n",
            ),
            ("uses-lib.yaml", "imports: [lib.yaml, payments.yaml]\n"),
        ],
    );
    let r = a2a_sim_in(&dir, &["check", "twice.yaml"], None);
    assert_eq!(r.status, 2);
    assert!(
        r.stderr
            .contains("twice.yaml:3:3: `steps` already come from payments.yaml"),
        "{}",
        r.stderr
    );
    let r = a2a_sim_in(&dir, &["check", "bad-fault.yaml"], None);
    assert_eq!(r.status, 2);
    assert!(
        r.stderr.starts_with("bad-fault.yaml:3:") && r.stderr.contains("screenr"),
        "{}",
        r.stderr
    );
    // An imported claim that is wrong is located in the file that states it.
    let wrong = ORIGINAL.replace("state: completed}", "state: finished}");
    let dir = dir_with(
        "repro-located-claim",
        &[
            ("payments.yaml", &wrong),
            ("repro.yaml", "imports: [payments.yaml]\n"),
        ],
    );
    let r = a2a_sim_in(&dir, &["check", "repro.yaml"], None);
    assert_eq!(r.status, 2);
    assert!(r.stderr.starts_with("payments.yaml:21:"), "{}", r.stderr);
    // A library's claims still belong to the scenario that imports it.
    let dir = dir_with(
        "repro-library",
        &[
            ("payments.yaml", ORIGINAL),
            (
                "lib.yaml",
                "agents: []\nexpect:\n  - {task: pay, state: completed}\n",
            ),
            ("uses-lib.yaml", "imports: [lib.yaml, payments.yaml]\n"),
        ],
    );
    let r = a2a_sim_in(&dir, &["check", "uses-lib.yaml"], None);
    assert_eq!(r.status, 2);
    assert!(
        r.stderr
            .contains("lib.yaml:3:3: an imported file without `steps` is a library"),
        "{}",
        r.stderr
    );
}
