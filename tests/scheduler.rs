//! The tick clock and the scheduler (behaviour.md §1): what takes a tick and what takes none,
//! idle time, one handler step per turn and the order turns run in, a task blocked on its
//! delegation. Expected ticks come from the rules, not from a run.

use serde_json::{Value, json};

use crate::common::{
    build::{agent, run, secret, send, send_ri},
    read::{decisions, hist, step_result},
};

/// Two tasks started side by side with `return_immediately`, then a driver `wait: 0`: `a` is
/// task-1 (submitted at 1), `b` task-2 (submitted at 2). Their steps interleave by (ready_at, seq).
fn race(a: &str, b: &str, extra: &[String]) -> Value {
    let mut agents = vec![agent("a", a), agent("b", b)];
    agents.extend_from_slice(extra);
    run(
        &agents,
        &format!("{}{}  - wait: 0\n", send_ri("a"), send_ri("b")),
    )
}

#[test]
fn a_status_change_takes_one_tick_and_is_stamped_with_the_new_clock() {
    let v = run(
        &[agent("a", "[working, {message: hi}, completed]")],
        &send("a"),
    );
    assert_eq!(hist(&v, 1), "1 submitted, 2 working, 3 completed");
}

#[test]
fn idle_time_jumps_the_clock_and_takes_no_tick() {
    // wait: 3 at clock 2 with nothing else to do: the next status change is stamped 2 + 3 + 1.
    let v = run(
        &[agent("a", "[working, {wait: 3}, completed]")],
        &format!(
            "{}  - wait: 4\n  - send: {{caller: user, to: a, text: again}}\n",
            send("a")
        ),
    );
    assert_eq!(hist(&v, 1), "1 submitted, 2 working, 6 completed");
    // The driver wait at clock 6 ends at 10, and takes no tick: the next task is submitted at 11.
    assert_eq!(step_result(&v, 2), &json!({"tick": 10}));
    assert_eq!(hist(&v, 2), "11 submitted, 12 working, 16 completed");
}

#[test]
fn nothing_but_status_changes_and_waits_takes_time() {
    // Messages, artifacts, decisions and a reply take no tick.
    let v = run(
        &[agent(
            "a",
            "[working, {message: m}, {artifact: {text: x}}, {when: {input: {}, text: go}, then: [{message: n}]}, input_required, {artifact: {text: y}}, working, completed]",
        )],
        &format!(
            "{}  - reply: {{caller: user, task: a, text: more}}\n",
            send("a")
        ),
    );
    assert_eq!(
        hist(&v, 1),
        "1 submitted, 2 working, 3 input-required, 4 working, 5 completed"
    );
}

/// Rows: handler of `a`, then the histories of `a` and `b` ([working, completed]) when the two
/// run side by side (see [`race`]).
const RACES: &[(&str, &str, &str, &str)] = &[
    (
        "a_new_tasks_handler_is_ready_at_its_submitted_tick_and_steps_interleave",
        "[working, completed]",
        "1 submitted, 3 working, 5 completed",
        "2 submitted, 4 working, 6 completed",
    ),
    (
        "a_message_takes_a_turn",
        "[working, {message: m}, completed]",
        "1 submitted, 3 working, 6 completed",
        "2 submitted, 4 working, 5 completed",
    ),
    (
        "an_artifact_takes_a_turn",
        "[working, {artifact: {text: x}}, completed]",
        "1 submitted, 3 working, 6 completed",
        "2 submitted, 4 working, 5 completed",
    ),
    (
        "handler_wait_zero_is_a_handler_step_that_takes_a_turn",
        "[working, {wait: 0}, completed]",
        "1 submitted, 3 working, 6 completed",
        "2 submitted, 4 working, 5 completed",
    ),
    (
        "a_when_takes_no_turn_its_branchs_first_step_runs_in_the_same_turn",
        "[working, {when: {input: {}, text: go}, then: [completed]}]",
        "1 submitted, 3 working, 5 completed",
        "2 submitted, 4 working, 6 completed",
    ),
    (
        "consecutive_whens_run_in_one_turn",
        "[working, {when: {input: {}, text: no}, then: [failed]}, {when: {input: {}, text: go}, then: [completed]}]",
        "1 submitted, 3 working, 5 completed",
        "2 submitted, 4 working, 6 completed",
    ),
    (
        "handler_incomplete_is_recorded_in_a_turn_of_its_own_after_the_last_step",
        "[working]",
        "1 submitted, 3 working, 5 failed",
        "2 submitted, 4 working, 6 completed",
    ),
    (
        "a_delegation_denied_in_its_own_turn_requeues_the_task_and_fails_it_next_turn",
        "[working, {delegate: {to: secret, text: x}}, completed]",
        "1 submitted, 3 working, 6 failed",
        "2 submitted, 4 working, 5 completed",
    ),
    (
        "a_delegation_without_candidate_requeues_the_task_and_fails_it_next_turn",
        "[working, {delegate: {to: {discover: [nothing]}, text: x}}, completed]",
        "1 submitted, 3 working, 6 failed",
        "2 submitted, 4 working, 5 completed",
    ),
    (
        "an_empty_merge_takes_a_turn",
        "[working, {when: {input: {}, text: never}, then: [{delegate: {to: b, text: x, as: d}}]}, {artifact: {from: d}}, completed]",
        "1 submitted, 3 working, 6 completed",
        "2 submitted, 4 working, 5 completed",
    ),
];

#[test]
fn one_handler_step_per_turn_and_what_takes_a_turn() {
    let mut wrong = Vec::new();
    for (name, a, want_a, want_b) in RACES {
        let v = race(a, "[working, completed]", &[secret()]);
        let got = (hist(&v, 1), hist(&v, 2));
        if got != (want_a.to_string(), want_b.to_string()) {
            wrong.push(format!(
                "{name}: a: {} (want {want_a}); b: {} (want {want_b})",
                got.0, got.1
            ));
        }
    }
    assert!(wrong.is_empty(), "\n{}", wrong.join("\n"));
}

#[test]
fn a_decisions_tick_is_the_clock_at_evaluation_and_a_false_when_without_else_records_else() {
    let v = race(
        "[working, {when: {input: {}, text: no}, then: [failed]}, {when: {input: {}, text: go}, then: [completed]}]",
        "[working, completed]",
        &[],
    );
    // Both evaluated in a's turn at clock 4 (b's working was stamped 4 just before).
    assert_eq!(
        decisions(&v, 1),
        [(2, "else".to_string(), 4), (4, "then".to_string(), 4)]
    );
}

#[test]
fn a_delegating_task_is_blocked_until_its_delegation_resolves_then_queued_again() {
    let v = run(
        &[
            agent(
                "p",
                "[working, {delegate: {to: q, text: x}}, {completed: done}]",
            ),
            agent("q", "[working, {wait: 2}, completed]"),
        ],
        &send("p"),
    );
    assert_eq!(hist(&v, 2), "3 submitted, 4 working, 7 completed");
    assert_eq!(hist(&v, 1), "1 submitted, 2 working, 8 completed");
}
