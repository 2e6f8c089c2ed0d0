//! `fan_out` (behaviour.md §3): its children made in one turn, `join: all` and `join: any`, its
//! timeout, denied and missing members, discovery of every candidate, and the group's outcome.

use serde_json::json;

use crate::common::{
    build::{agent, run, secret, send, unmet, yaml},
    load_err,
    read::{agent_of, errors, hist, last_message, state},
    report_value,
};

#[test]
fn a_fan_out_creates_every_child_in_one_turn_in_order() {
    let v = run(
        &[
            agent(
                "p",
                "[working, {fan_out: {to: [a, b, c], text: q, as: g}}, completed]",
            ),
            agent("a", "[working, completed]"),
            agent("b", "[working, completed]"),
            agent("c", "[working, completed]"),
        ],
        &send("p"),
    );
    assert_eq!(hist(&v, 2), "3 submitted, 6 working, 9 completed");
    assert_eq!(hist(&v, 3), "4 submitted, 7 working, 10 completed");
    assert_eq!(hist(&v, 4), "5 submitted, 8 working, 11 completed");
    assert_eq!(hist(&v, 1), "1 submitted, 2 working, 12 completed");
    assert_eq!(
        [agent_of(&v, 2), agent_of(&v, 3), agent_of(&v, 4)],
        ["a", "b", "c"]
    );
}

#[test]
fn join_all_waits_for_every_child_and_succeeds_iff_all_completed() {
    let v = run(
        &[
            agent(
                "p",
                "[working, {fan_out: {to: [a, b], text: q}}, completed]",
            ),
            agent("a", "[working, failed]"),
            agent("b", "[working, {wait: 5}, completed]"),
        ],
        &send("p"),
    );
    // a fails at 7; b's wait turn runs at 7 (ready 12) and b still runs to its end; then p fails.
    assert_eq!(hist(&v, 2), "3 submitted, 5 working, 7 failed");
    assert_eq!(hist(&v, 3), "4 submitted, 6 working, 13 completed");
    assert_eq!(hist(&v, 1), "1 submitted, 2 working, 14 failed");
}

#[test]
fn join_any_cancels_the_unresolved_children_in_creation_order() {
    let v = run(
        &[
            agent(
                "p",
                "[working, {fan_out: {to: [a, b, c], text: q, join: any}}, {completed: one was enough}]",
            ),
            agent("a", "[working, {wait: 3}, completed]"),
            agent("b", "[working, {delegate: {to: slow, text: y}}, completed]"),
            agent("c", "[working, {wait: 10}, completed]"),
            agent("slow", "[working, {wait: 10}, completed]"),
        ],
        &send("p"),
    );
    // a 6 working, its wait turn at 8 (ready 11); b 7 working, delegates at 9 (task-5);
    // c 8 working. a completes at 12; b (its child task-5 first) and then c are canceled.
    assert_eq!(hist(&v, 2), "3 submitted, 6 working, 12 completed");
    assert_eq!(hist(&v, 5), "9 submitted, 10 working, 13 canceled");
    assert_eq!(last_message(&v, 5), "canceled: parent task-3 was canceled");
    assert_eq!(hist(&v, 3), "4 submitted, 7 working, 14 canceled");
    assert_eq!(hist(&v, 4), "5 submitted, 8 working, 15 canceled");
    assert_eq!(hist(&v, 1), "1 submitted, 2 working, 16 completed");
}

#[test]
fn join_any_without_a_completion_fails() {
    let v = run(
        &[
            agent(
                "p",
                "[working, {fan_out: {to: [a, b], text: q, join: any, as: g, on_error: continue}}, {when: {result: g, outcome: failed, completed: 0, size: 2}, then: [{completed: none}], else: [failed]}]",
            ),
            agent("a", "[working, failed]"),
            agent("b", "[rejected]"),
        ],
        &send("p"),
    );
    assert_eq!(last_message(&v, 1), "none");
}

#[test]
fn a_fan_out_timeout_counts_from_the_start_of_its_turn() {
    let v = run(
        &[
            agent(
                "p",
                "[working, {fan_out: {to: [a, b], text: q, timeout: 4}}, completed]",
            ),
            agent("a", "[working, {wait: 10}, completed]"),
            agent("b", "[working, {wait: 10}, completed]"),
        ],
        &send("p"),
    );
    // The step ran at clock 2: the timer is ready at 6.
    assert_eq!(hist(&v, 2), "3 submitted, 5 working, 7 canceled");
    assert_eq!(hist(&v, 3), "4 submitted, 6 working, 8 canceled");
    assert_eq!(hist(&v, 1), "1 submitted, 2 working, 9 failed");
    assert!(
        last_message(&v, 1).contains("timed out after 4 ticks"),
        "{}",
        last_message(&v, 1)
    );
}

#[test]
fn a_fan_out_timeout_cancels_each_child_with_its_subtree_in_creation_order() {
    let v = run(
        &[
            agent(
                "p",
                "[working, {fan_out: {to: [r1, r2], text: q, timeout: 8, as: g, on_error: continue}}, {when: {result: g, outcome: timeout}, then: [{completed: late}], else: [failed]}]",
            ),
            agent("r1", "[working, {delegate: {to: s, text: y}}, completed]"),
            agent("r2", "[working, {delegate: {to: s, text: y}}, completed]"),
            agent("s", "[working, {wait: 20}, completed]"),
        ],
        &send("p"),
    );
    // p 1,2; r1 3, r2 4; r1 w5, r2 w6; s of r1 (task-4) 7, s of r2 (task-5) 8; s w9, s w10.
    // Timer at 2 + 8 = 10: r1's subtree (task-4, then r1), then r2's (task-5, then r2).
    assert_eq!(hist(&v, 4), "7 submitted, 9 working, 11 canceled");
    assert_eq!(hist(&v, 2), "3 submitted, 5 working, 12 canceled");
    assert_eq!(hist(&v, 5), "8 submitted, 10 working, 13 canceled");
    assert_eq!(hist(&v, 3), "4 submitted, 6 working, 14 canceled");
    assert_eq!(last_message(&v, 4), "canceled: parent task-2 was canceled");
    assert_eq!(last_message(&v, 5), "canceled: parent task-3 was canceled");
    assert_eq!(hist(&v, 1), "1 submitted, 2 working, 15 completed");
    assert_eq!(last_message(&v, 1), "late");
}

#[test]
fn a_denied_fan_out_member_has_outcome_denied_and_creates_no_task() {
    let y = format!(
        "{}expect:\n  - {{task: p/g/2, outcome: denied}}\n  - {{denied: p/g/2, codes: [scope]}}\n  - {{task: p/g/3, state: completed}}\n  - {{task: p/g/1, outcome: completed}}\n",
        yaml(
            &[
                agent(
                    "p",
                    "[working, {fan_out: {to: [a, secret, b], text: q, as: g, on_error: continue}}, {when: {result: g, size: 3, completed: 2, outcome: failed}, then: [{completed: counted}], else: [failed]}]",
                ),
                agent("a", "[working, completed]"),
                agent("b", "[working, completed]"),
                secret(),
            ],
            &send("p"),
        )
    );
    assert_eq!(unmet(&y), Vec::<String>::new());
    let v = report_value(&y);
    assert_eq!(v["tasks"].as_array().unwrap().len(), 3);
    // No id and no tick for the denied one.
    assert_eq!(hist(&v, 2), "3 submitted, 5 working, 7 completed");
    assert_eq!(hist(&v, 3), "4 submitted, 6 working, 8 completed");
    assert_eq!(agent_of(&v, 3), "b");
    assert_eq!(v["denials"][0]["codes"], json!(["scope"]));
    assert_eq!(v["denials"][0]["caller"], "p");
    assert_eq!(last_message(&v, 1), "counted");
}

#[test]
fn a_discover_member_with_no_candidate_has_outcome_no_candidate() {
    let y = format!(
        "{}expect:\n  - {{task: p/g/2, outcome: no_candidate}}\n  - {{task: p/g/1, outcome: completed}}\n",
        yaml(
            &[
                agent(
                    "p",
                    "[working, {fan_out: {to: [a, {discover: [nothing]}], text: q, as: g, on_error: continue}}, {when: {result: g, size: 2, completed: 1, outcome: failed}, then: [{completed: counted}], else: [failed]}]",
                ),
                agent("a", "[working, completed]"),
            ],
            &send("p"),
        )
    );
    assert_eq!(unmet(&y), Vec::<String>::new());
    let v = report_value(&y);
    assert_eq!(errors(&v), [(1, "no_candidate".to_string())]);
    assert_eq!(last_message(&v, 1), "counted");
}

#[test]
fn a_fan_out_with_no_candidate_fails_with_no_candidate_error() {
    let v = run(
        &[agent(
            "p",
            "[working, {fan_out: {to: {discover: [nothing]}, text: q, as: g, on_error: continue}}, {when: {result: g, outcome: failed, size: 0}, then: [{completed: empty}], else: [failed]}]",
        )],
        &send("p"),
    );
    assert_eq!(errors(&v), [(1, "no_candidate".to_string())]);
    assert_eq!(last_message(&v, 1), "empty");
    assert_eq!(v["tasks"].as_array().unwrap().len(), 1);
    let v = run(
        &[agent(
            "p",
            "[working, {fan_out: {to: {discover: [nothing]}, text: q}}, completed]",
        )],
        &send("p"),
    );
    assert_eq!(state(&v, 1), "failed");
}

#[test]
fn a_fan_out_discovery_takes_every_candidate_in_rank_order_up_to_limit() {
    let r = |name: &str, tags: &str| {
        format!(
            "  - {{name: {name}, tenant: t, clearance: public, skills: [{{id: s, tags: [{tags}]}}], handler: [working, completed]}}\n"
        )
    };
    let agents = [
        agent(
            "p",
            "[working, {fan_out: {to: {discover: [research, deep], limit: 3}, text: q, as: g}}, completed]",
        ),
        r("r-d", "research"),
        r("r-c", "research, deep"),
        r("r-b", "research"),
        r("r-a", "research"),
        r("x", "other"),
    ];
    let v = run(&agents, &send("p"));
    // Score 2 first, then score 1 by name; limit 3.
    assert_eq!(
        [agent_of(&v, 2), agent_of(&v, 3), agent_of(&v, 4)],
        ["r-c", "r-a", "r-b"]
    );
    assert_eq!(v["tasks"].as_array().unwrap().len(), 4);
    let mut no_limit = agents.to_vec();
    no_limit[0] = agent(
        "p",
        "[working, {fan_out: {to: {discover: [research, deep]}, text: q, as: g}}, completed]",
    );
    let v = run(&no_limit, &send("p"));
    assert_eq!(v["tasks"].as_array().unwrap().len(), 5);
    assert_eq!(agent_of(&v, 5), "r-d");
}

#[test]
fn a_paused_fan_out_child_is_canceled_in_its_pausing_turn() {
    let v = run(
        &[
            agent(
                "p",
                "[working, {fan_out: {to: [a, b], text: q, as: g, on_error: continue}}, {when: {result: g, completed: 1, outcome: failed}, then: [{completed: one}], else: [failed]}]",
            ),
            agent("a", "[working, {input_required: which?}]"),
            agent("b", "[working, {wait: 1}, completed]"),
        ],
        &send("p"),
    );
    // a pauses at 7 and is canceled at 8 in that same turn, before b's wait turn (due at 6)
    // runs at 8 (ready 9). Were the cancel p's, b's wait would run at 7 and b complete at 9.
    assert_eq!(
        hist(&v, 2),
        "3 submitted, 5 working, 7 input-required, 8 canceled"
    );
    assert_eq!(hist(&v, 3), "4 submitted, 6 working, 10 completed");
    assert_eq!(last_message(&v, 1), "one");
}

#[test]
fn escalate_and_replies_on_a_fan_out_are_load_errors() {
    for extra in [", on_pause: escalate", ", replies: [{text: r}]"] {
        let y = yaml(
            &[
                agent(
                    "p",
                    &format!("[working, {{fan_out: {{to: [a], text: q{extra}}}}}, completed]"),
                ),
                agent("a", "[working, completed]"),
            ],
            &send("p"),
        );
        let _ = load_err(&y);
    }
}

#[test]
fn as_is_optional_on_a_fan_out() {
    let v = run(
        &[
            agent("p", "[working, {fan_out: {to: [a], text: q}}, completed]"),
            agent("a", "[working, completed]"),
        ],
        &send("p"),
    );
    assert_eq!(state(&v, 1), "completed");
}

#[test]
fn a_groups_outcome_is_completed_else_timeout_else_failed() {
    // Rows: a's handler, join, timeout, the group's outcome.
    let rows = [
        ("[working, completed]", "all", "", "completed"),
        ("[working, failed]", "all", "", "failed"),
        (
            "[working, {wait: 9}, completed]",
            "all",
            ", timeout: 3",
            "timeout",
        ),
        (
            "[working, {wait: 9}, completed]",
            "any",
            ", timeout: 3",
            "timeout",
        ),
        ("[working, completed]", "any", "", "completed"),
        ("[working, failed]", "any", "", "failed"),
    ];
    for (a, join, extra, want) in rows {
        let y = format!(
            "{}expect:\n  - {{task: p/g, outcome: {want}}}\n",
            yaml(
                &[
                    agent(
                        "p",
                        &format!(
                            "[working, {{fan_out: {{to: [a, b], text: q, as: g, join: {join}, on_error: continue{extra}}}}}, {{when: {{result: g, outcome: {want}}}, then: [{{completed: yes}}], else: [{{completed: no}}]}}]"
                        ),
                    ),
                    agent("a", a),
                    agent("b", a),
                ],
                &send("p"),
            )
        );
        let v = report_value(&y);
        assert_eq!(last_message(&v, 1), "yes", "a = {a}, join {join}");
        assert_eq!(unmet(&y), Vec::<String>::new(), "a = {a}, join {join}");
    }
}
