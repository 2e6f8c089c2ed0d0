//! `a2a-sim convert`: a task round-trips from A2A through ACP, deterministically, and a task ACP
//! cannot take is refused.

use std::path::Path;

use crate::common::binary::{a2a_sim, a2a_sim_in};

use super::TRACED;

#[test]
fn convert_round_trips_through_acp() {
    let tasks = a2a_sim(&["run", "--format", "a2a", TRACED]);
    let list: serde_json::Value = serde_json::from_str(&tasks.stdout).unwrap();
    let task = list[0].to_string();
    let acp = a2a_sim_in(
        Path::new(env!("CARGO_MANIFEST_DIR")),
        &["convert", "--from", "a2a", "--to", "acp"],
        Some(&task),
    );
    assert_eq!(acp.status, 0, "{}", acp.stderr);
    let internal_a = a2a_sim_in(
        Path::new("."),
        &["convert", "--from", "a2a", "--to", "internal", "-"],
        Some(&task),
    );
    let internal_b = a2a_sim_in(
        Path::new("."),
        &["convert", "--from", "acp", "--to", "internal"],
        Some(&acp.stdout),
    );
    assert_eq!(internal_a.stdout, internal_b.stdout);
    assert!(
        internal_a
            .stdout
            .contains("\"recommendation\": \"manual_review\"")
    );
    // ACP requires created_at: taken from the task's status timestamp, deterministically.
    let run: serde_json::Value = serde_json::from_str(&acp.stdout).unwrap();
    assert_eq!(run["created_at"], "2026-01-01T00:00:03Z");
    assert_eq!(run["finished_at"], "2026-01-01T00:00:03Z");
    let bad = a2a_sim_in(
        Path::new("."),
        &["convert", "--from", "a2a", "--to", "acp"],
        Some("{\"id\": \"x\", \"status\": {\"state\": \"working\"}}"),
    );
    assert_eq!(bad.status, 2);
    assert!(bad.stderr.contains("agent_name"), "{}", bad.stderr);
}
