//! `check`'s warnings about handler bugs (behaviour.md §7): every path a handler can take is walked, warnings print
//! without failing `check` unless denied, and only the bundled handler-bug scenarios get them.

use crate::common::binary::{a2a_sim_in, scratch};
use crate::loading::{position, world};
use a2a_sim::scenario::Load;
use std::path::Path;

/// `(handler, where each warning points, what it says)`; no warnings for an empty list.
type WarningRow<'a> = (&'a str, &'a [(&'a str, &'a str)]);

#[rustfmt::skip]
const WARNINGS: &[WarningRow] = &[
    ("[working, completed]", &[]),
    ("[completed]", &[("completed]", "handler step 1 moves the task from `submitted` to `completed`")]),
    ("[working, input_required, rejected]", &[("rejected]", "from `input-required` to `rejected`")]),
    ("[working]", &[("working]", "can end in `working` without a terminal state or a pause")]),
    ("[working, input_required]", &[]),
    ("[working, {delegate: {to: screener, text: a}}]", &[("{delegate", "can end in `working`")]),
    ("[working, {delegate: {to: screener, text: a, on_error: continue}}, completed]", &[]),
    // Both branches are walked; each says which path it is on.
    ("[working, {when: {input: {}, text: a}, then: [completed], else: [working]}]", &[
        ("working]}]", "handler step 4 moves the task from `working` to `working` (on the path through the `else` branch of step 2)"),
    ]),
    ("[working, {when: {input: {}, text: a}, then: [completed]}]", &[
        ("{when", "can end in `working` (on the path through the `else` branch of step 2)"),
    ]),
    ("[{when: {input: {}, text: a}, then: [working]}, completed]", &[
        ("completed]", "handler step 3 moves the task from `submitted` to `completed` (on the path through the `else` branch of step 1)"),
    ]),
    // After a pause the script resumes from the pause state.
    ("[working, {when: {input: {}, text: a}, then: [input_required]}, completed]", &[
        ("completed]", "from `input-required` to `completed`"),
    ]),
    // Escalation: illegal from `submitted`; after a reply the task is `working` again.
    ("[{delegate: {to: screener, text: a, on_pause: escalate}}, working, completed]", &[
        ("escalate}}", "handler step 1 escalates a child's pause, but a task in `submitted` may not move to `input-required`"),
        ("working, completed]", "from `working` to `working` (on the path through an escalated `auth-required` at step 1)"),
    ]),
    ("[working, {delegate: {to: screener, text: a, on_pause: escalate}}, completed]", &[]),
    ("[working, {fan_out: {to: [screener], text: a}}, completed]", &[]),
];

#[test]
fn check_warns_about_handler_bugs_on_every_path() {
    let mut failures = Vec::new();
    for (handler, want) in WARNINGS {
        let text = world(handler, "", "");
        let loaded = match Load::text("t.yaml", &text, Path::new("."), "t").load() {
            Ok(l) => l,
            Err(e) => panic!("{handler}: {e}"),
        };
        let got: Vec<String> = loaded.warnings.iter().map(|d| d.to_string()).collect();
        let mut ok = got.len() == want.len();
        for (marker, message) in want.iter() {
            // Every row's handler is one flow sequence on the `handler:` line.
            let (line, start) = position(&text, handler);
            let column = handler.find(marker).map_or(0, |c| start + c);
            let prefix = format!("t.yaml:{line}:{column}: ");
            ok &= got
                .iter()
                .any(|g| g.starts_with(&prefix) && g.contains(message));
        }
        if !ok {
            failures.push(format!("{handler}\n  want {want:?}\n  got  {got:#?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn warnings_print_without_failing_check_unless_denied() {
    let dir = scratch("check-warnings");
    std::fs::write(dir.join("bug.yaml"), world("[completed]", "", "")).unwrap();
    std::fs::write(dir.join("fine.yaml"), world("[working, completed]", "", "")).unwrap();
    let r = a2a_sim_in(&dir, &["check", "bug.yaml", "fine.yaml"], None);
    assert_eq!(r.status, 0, "{}", r.stderr);
    assert_eq!(r.stderr.lines().count(), 1, "{}", r.stderr);
    assert!(
        r.stderr.starts_with(
            "bug.yaml:7:15: warning: handler step 1 moves the task from `submitted` to `completed`"
        ),
        "{}",
        r.stderr
    );
    let denied = a2a_sim_in(
        &dir,
        &["check", "--deny", "warnings", "bug.yaml", "fine.yaml"],
        None,
    );
    assert_eq!(denied.status, 2, "{}", denied.stderr);
    assert!(
        denied.stderr.starts_with("bug.yaml:7:15: handler step 1"),
        "{}",
        denied.stderr
    );
    assert_eq!(
        a2a_sim_in(&dir, &["check", "--deny", "warnings", "fine.yaml"], None).status,
        0
    );
    for (args, severity) in [
        (
            &["check", "--error-format", "json", "bug.yaml"][..],
            "warning",
        ),
        (
            &[
                "check",
                "--error-format",
                "json",
                "--deny",
                "warnings",
                "bug.yaml",
            ][..],
            "error",
        ),
    ] {
        let r = a2a_sim_in(&dir, args, None);
        let first: serde_json::Value =
            serde_json::from_str(r.stderr.lines().next().unwrap_or("")).unwrap();
        assert_eq!(first["severity"], severity, "{args:?}");
        assert_eq!(
            (first["line"].as_u64(), first["column"].as_u64()),
            (Some(7), Some(15))
        );
    }
    // `run` does not print them: the bug is the scenario's subject.
    let run = a2a_sim_in(&dir, &["run", "--format", "json", "bug.yaml"], None);
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert!(run.stderr.is_empty(), "{}", run.stderr);
}

#[test]
fn the_bundled_handler_bugs_get_warnings_and_other_scenarios_none() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let bugs = Load::file(&root.join("scenarios/handler-bugs.yaml"))
        .load()
        .unwrap();
    let agents: Vec<&str> = bugs.warnings.iter().map(|d| d.message.as_str()).collect();
    assert_eq!(agents.len(), 6, "{agents:#?}");
    for f in [
        "traced-delegation.yaml",
        "discovery.yaml",
        "nested-delegation.yaml",
        "card-files.yaml",
        "admission-denials.yaml",
    ] {
        let l = Load::file(&root.join("scenarios").join(f)).load().unwrap();
        // Laundering paths (authority.md §3, coded `authority_amplified`) are findings of their
        // own, not handler bugs.
        let bugs: Vec<_> = l.warnings.iter().filter(|d| d.coded.is_none()).collect();
        assert!(bugs.is_empty(), "{f}: {bugs:?}");
    }
}
