//! `discover` ranks a real agent by the skills of the card it serves, read when it started (the
//! scenario gives it none).

use serde_json::json;

use super::{Desk, report};

#[test]
fn discover_ranks_a_real_agent_by_its_own_cards_skills() {
    let mut desk = Desk::mode("ok");
    desk.external = desk.external.replace(
        "STUB_PID_FILE: stub.pid}",
        "STUB_PID_FILE: stub.pid, STUB_TAGS: \"loans,credit\"}",
    );
    desk.steps = "  - discover: {caller: branch, tags: [loans, credit]}\n  - discover: {caller: branch, tags: [kyc]}\n";
    let r = report(&desk.at("discover-live"), &[]);
    assert_eq!(
        r["steps"][0]["result"]["ranking"],
        json!([{"agent": "desk", "score": 2}]),
        "{r:#}"
    );
    // kyc's skill is the scenario's own; the real agent's card does not have it.
    assert_eq!(
        r["steps"][1]["result"]["ranking"],
        json!([{"agent": "kyc", "score": 1}]),
        "{r:#}"
    );
}

#[test]
fn a_real_agent_whose_card_has_no_skills_is_never_discovered() {
    let mut desk = Desk::mode("ok");
    desk.steps = "  - discover: {caller: branch, tags: [loans]}\n";
    let r = report(&desk.at("discover-none"), &[]);
    assert_eq!(r["steps"][0]["result"]["ranking"], json!([]), "{r:#}");
}

#[test]
fn a_send_to_the_agent_discovery_picks_reaches_the_real_agent() {
    let mut desk = Desk::mode("ok");
    desk.external = desk.external.replace(
        "STUB_PID_FILE: stub.pid}",
        "STUB_PID_FILE: stub.pid, STUB_TAGS: loans}",
    );
    desk.steps = "  - send: {caller: branch, to: {discover: [loans]}, text: \"Application: Grace\", data: {applicant: Grace, amount: 20000}}\n";
    let r = report(&desk.at("discover-send"), &[]);
    assert_eq!(r["errors"], json!([]), "{r:#}");
    assert_eq!(r["tasks"][0]["agent"], "desk", "{r:#}");
    assert_eq!(r["tasks"][0]["state"], "completed", "{r:#}");
    assert_eq!(r["tasks"][1]["agent"], "kyc", "{r:#}");
    assert_eq!(r["tasks"][1]["parent"], "task-1", "{r:#}");
}
