//! `a2a-sim check`: every problem of a scenario at its line (as text or JSON), and a warning for
//! a push host that names this machine.

use crate::common::binary::{a2a_sim, a2a_sim_in, scratch};

#[test]
fn check_reports_every_problem_at_its_line() {
    let dir = scratch("check");
    let text = "agents:\n  - {name: a, tenant: t, clearance: public, skills: [{id: s, tags: [x]}]}\n  - {name: a, tenant: t, clearance: secret, skills: [{id: s, tags: [x]}]}\ncallers:\n  - {id: c, tenant: t, classification: public}\nsteps:\n  - send: {caller: c, to: b, text: hi}\n  - get: {caller: d, task: nope}\n";
    std::fs::write(dir.join("s.yaml"), text).unwrap();
    let r = a2a_sim_in(&dir, &["check", "s.yaml"], None);
    assert_eq!(r.status, 2);
    let lines: Vec<&str> = r.stderr.lines().collect();
    assert_eq!(lines.len(), 5, "{}", r.stderr);
    assert!(
        lines[0].starts_with("s.yaml:3:12: duplicate agent name `a`"),
        "{}",
        lines[0]
    );
    assert!(
        lines[1].starts_with("s.yaml:3:37: unknown classification level `secret`"),
        "{}",
        lines[1]
    );
    assert!(
        lines[2].starts_with("s.yaml:7:27: unknown agent `b`"),
        "{}",
        lines[2]
    );
    assert!(
        lines[3].starts_with("s.yaml:8:19: unknown caller `d`"),
        "{}",
        lines[3]
    );
    assert!(
        lines[4].starts_with("s.yaml:8:28: unknown alias `nope`"),
        "{}",
        lines[4]
    );
    let json = a2a_sim_in(&dir, &["check", "--error-format", "json", "s.yaml"], None);
    let first: serde_json::Value =
        serde_json::from_str(json.stderr.lines().next().unwrap()).unwrap();
    assert_eq!(
        (first["line"].as_u64(), first["column"].as_u64()),
        (Some(3), Some(12))
    );
    assert_eq!(a2a_sim(&["check", "scenarios"]).status, 0);
}

/// `serve` refuses to push to this machine unless told to: an allow-list entry that names it is
/// said at its line, and a scenario without one says nothing.
#[test]
fn check_warns_of_a_push_host_that_names_this_machine() {
    let r = a2a_sim(&["check", "tests/serve/push-by-name.yaml"]);
    assert_eq!(r.status, 0, "{}", r.stderr);
    assert!(
        r.stderr.contains(
            "tests/serve/push-by-name.yaml:6:44: warning: `localhost` names this machine"
        ),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("--allow-loopback-push"), "{}", r.stderr);
    let quiet = a2a_sim(&["check", "tests/serve/session.yaml"]);
    assert!(
        !quiet.stderr.contains("names this machine"),
        "{}",
        quiet.stderr
    );
}
