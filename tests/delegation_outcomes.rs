//! A delegation's outcome (behaviour.md §3): the child's state when it resolved, `denied` and
//! `no_candidate` without a child, success only on `completed`; the `as` names a handler defines
//! and the numbers a delegation takes, checked at load time.

use crate::common::{
    build::{agent, run, secret, send, unmet, yaml},
    load_err,
    read::{last_message, state},
    report_value,
};

/// A parent that delegates to `q` (`extra` appended inside the delegate mapping) and goes on.
fn parent_of(extra: &str) -> String {
    agent(
        "p",
        &format!(
            "[working, {{delegate: {{to: q, text: x, as: d, on_error: continue{extra}}}}}, {{completed: done}}]"
        ),
    )
}

/// Rows: what `q` does (or the target), the delegation's outcome.
const OUTCOMES: &[(&str, &str, &str)] = &[
    ("[working, completed]", "", "completed"),
    ("[working, failed]", "", "failed"),
    ("[working, canceled]", "", "canceled"),
    ("[rejected]", "", "rejected"),
    ("[working, input_required]", "", "input-required"),
    ("[auth_required]", "", "auth-required"),
    ("[working, {wait: 9}, completed]", ", timeout: 2", "timeout"),
];

#[test]
fn a_delegations_outcome_is_the_childs_state_when_it_resolved() {
    for (q, extra, want) in OUTCOMES {
        let y = format!(
            "{}expect:\n  - {{task: p/d, outcome: {want}}}\n",
            yaml(&[parent_of(extra), agent("q", q)], &send("p"))
        );
        assert_eq!(unmet(&y), Vec::<String>::new(), "q = {q}");
        // Decided in `when` the same way.
        let y = yaml(
            &[
                agent(
                    "p",
                    &format!(
                        "[working, {{delegate: {{to: q, text: x, as: d, on_error: continue{extra}}}}}, {{when: {{result: d, outcome: {want}}}, then: [{{completed: yes}}], else: [{{completed: no}}]}}]"
                    ),
                ),
                agent("q", q),
            ],
            &send("p"),
        );
        let v = report_value(&y);
        assert_eq!(last_message(&v, 1), "yes", "q = {q}");
    }
}

#[test]
fn denied_and_no_candidate_are_outcomes_without_a_child() {
    let rows = [
        ("secret", "denied"),
        ("{discover: [nothing]}", "no_candidate"),
    ];
    for (to, want) in rows {
        let y = format!(
            "{}expect:\n  - {{task: p/d, outcome: {want}}}\n",
            yaml(
                &[
                    agent(
                        "p",
                        &format!(
                            "[working, {{delegate: {{to: {to}, text: x, as: d, on_error: continue}}}}, completed]"
                        )
                    ),
                    secret()
                ],
                &send("p")
            )
        );
        assert_eq!(unmet(&y), Vec::<String>::new(), "to = {to}");
        let v = report_value(&y);
        assert_eq!(v["tasks"].as_array().unwrap().len(), 1, "no child task");
    }
}

#[test]
fn a_delegation_succeeds_iff_its_outcome_is_completed() {
    for (q, extra, want) in OUTCOMES {
        let p = agent(
            "p",
            &format!("[working, {{delegate: {{to: q, text: x{extra}}}}}, {{completed: done}}]"),
        );
        let v = run(&[p, agent("q", q)], &send("p"));
        let expected = if *want == "completed" {
            "completed"
        } else {
            "failed"
        };
        assert_eq!(state(&v, 1), expected, "q = {q}");
    }
}

#[test]
fn as_is_unique_within_a_handler() {
    let y = yaml(
        &[
            agent(
                "p",
                "[working, {delegate: {to: q, text: x, as: d}}, {delegate: {to: q, text: y, as: d}}, completed]",
            ),
            agent("q", "[working, completed]"),
        ],
        &send("p"),
    );
    let err = load_err(&y);
    assert!(err.contains("`d`") || err.contains(" d "), "{err}");
    // The position is the second definition: handler step 3 of agent 0, on line 3 of the file.
    assert!(err.contains("handler[2]") || err.contains(":3:"), "{err}");
}

#[test]
fn as_is_unique_across_delegate_and_fan_out_and_branches() {
    let y = yaml(
        &[
            agent(
                "p",
                "[working, {when: {input: {}, text: go}, then: [{delegate: {to: q, text: x, as: d}}], else: [{fan_out: {to: [q], text: x, as: d}}]}, completed]",
            ),
            agent("q", "[working, completed]"),
        ],
        &send("p"),
    );
    let err = load_err(&y);
    assert!(err.contains('d'), "{err}");
}

#[test]
fn delegation_numbers_are_range_checked_at_load_time() {
    // Rows: delegate extras, what the error names.
    let rows = [
        (", timeout: 0", "timeout"),
        (", retry: {attempts: 0}", "attempts"),
        (", retry: {attempts: 2, backoff: -1}", "backoff"),
    ];
    for (extra, says) in rows {
        let y = yaml(
            &[
                agent(
                    "p",
                    &format!("[working, {{delegate: {{to: q, text: x{extra}}}}}, completed]"),
                ),
                agent("q", "[working, completed]"),
            ],
            &send("p"),
        );
        let err = load_err(&y);
        assert!(err.contains(says), "{extra}: {err}");
    }
    let y = yaml(
        &[
            agent(
                "p",
                "[working, {fan_out: {to: [q], text: x, timeout: 0}}, completed]",
            ),
            agent("q", "[working, completed]"),
        ],
        &send("p"),
    );
    assert!(load_err(&y).contains("timeout"));
}
