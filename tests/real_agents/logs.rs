//! Where a real agent's output goes, and how a run names it: `--agent-logs DIR`, or a temporary
//! folder that is removed after a run in which nothing went wrong with the agents, and kept —
//! and named at the end of the table report — when one exited, timed out or broke the protocol.

use std::path::Path;

use super::{Desk, a2a_sim_logged};
use crate::common::binary::a2a_sim_in;

/// The path the table's "real agents' logs" section gives for `agent`, if it has one.
fn named_log(table: &str, agent: &str) -> Option<String> {
    let (_, section) = table.split_once("\nreal agents' logs\n")?;
    section
        .lines()
        .find_map(|l| l.trim().strip_prefix(&format!("{agent}: ")))
        .map(String::from)
}

#[test]
fn the_table_names_each_agents_log_in_the_folder_given() {
    let dir = Desk::mode("ok").at("logs-named");
    let run = a2a_sim_logged(&dir, &["run", "./desk.yaml"]);
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert_eq!(
        named_log(&run.stdout, "desk").as_deref(),
        Some("logs/desk.log"),
        "{}",
        run.stdout
    );
    // The JSON report stays the same bytes wherever the logs are.
    let json = a2a_sim_logged(&dir, &["run", "./desk.yaml", "--format", "json"]);
    assert!(!json.stdout.contains("desk.log"), "{}", json.stdout);
}

#[test]
fn a_run_whose_agent_died_keeps_its_temporary_log_folder_and_names_the_log() {
    let dir = Desk::mode("die").at("logs-kept");
    let run = a2a_sim_in(&dir, &["run", "./desk.yaml"], None);
    assert_eq!(run.status, 0, "{}", run.stderr);
    let log = named_log(&run.stdout, "desk").unwrap_or_else(|| panic!("{}", run.stdout));
    let text = std::fs::read_to_string(&log).unwrap_or_else(|e| panic!("{log}: {e}"));
    assert!(text.contains("dying in the middle of a send"), "{text}");
    let _ = std::fs::remove_dir_all(Path::new(&log).parent().unwrap());
}

#[test]
fn a_clean_run_without_agent_logs_names_no_log() {
    let dir = Desk::mode("ok").at("logs-clean");
    let run = a2a_sim_in(&dir, &["run", "./desk.yaml"], None);
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert!(!run.stdout.contains("real agents' logs"), "{}", run.stdout);
}
