//! A delegation's `timeout` and `retry` (behaviour.md §3): when the timer fires and what it
//! cancels, the backoff between attempts, which outcomes are retried, and what a retried child
//! records.

use serde_json::Value;

use crate::common::{
    build::{agent, run, secret, send, unmet, yaml},
    load,
    read::{hist, last_message, task},
    report,
};

#[test]
fn a_timeout_fires_at_the_childs_submitted_tick_plus_n_and_cancels_it() {
    let v = run(
        &[
            agent(
                "p",
                "[working, {delegate: {to: q, text: x, timeout: 3}}, completed]",
            ),
            agent("q", "[working, {wait: 5}, completed]"),
        ],
        &send("p"),
    );
    // q submitted at 3: the timer is ready at 6; its cancel is stamped 7.
    assert_eq!(hist(&v, 2), "3 submitted, 4 working, 7 canceled");
    assert_eq!(hist(&v, 1), "1 submitted, 2 working, 8 failed");
    assert!(
        last_message(&v, 1).contains("timed out after 3 ticks"),
        "{}",
        last_message(&v, 1)
    );
}

#[test]
fn a_timer_wins_a_tie_with_its_childs_later_steps() {
    // q's completing step is ready at 6, the timer too: the timer was queued first.
    let v = run(
        &[
            agent(
                "p",
                "[working, {delegate: {to: q, text: x, timeout: 3, as: d, on_error: continue}}, {when: {result: d, outcome: timeout}, then: [{completed: timed out}], else: [{completed: in time}]}]",
            ),
            agent("q", "[working, {wait: 2}, completed]"),
        ],
        &send("p"),
    );
    assert_eq!(hist(&v, 2), "3 submitted, 4 working, 7 canceled");
    assert_eq!(last_message(&v, 1), "timed out");
    // One tick earlier, the child wins and the timer is dropped.
    let v = run(
        &[
            agent(
                "p",
                "[working, {delegate: {to: q, text: x, timeout: 3, as: d, on_error: continue}}, {when: {result: d, outcome: timeout}, then: [{completed: timed out}], else: [{completed: in time}]}]",
            ),
            agent("q", "[working, {wait: 1}, completed]"),
        ],
        &send("p"),
    );
    assert_eq!(hist(&v, 2), "3 submitted, 4 working, 6 completed");
    assert_eq!(hist(&v, 1), "1 submitted, 2 working, 7 completed");
    assert_eq!(last_message(&v, 1), "in time");
}

#[test]
fn a_timeout_cancels_the_childs_whole_subtree_deepest_first() {
    let v = run(
        &[
            agent(
                "p",
                "[working, {delegate: {to: q, text: x, timeout: 4}}, completed]",
            ),
            agent("q", "[working, {delegate: {to: r, text: y}}, completed]"),
            agent("r", "[working, {wait: 10}, completed]"),
        ],
        &send("p"),
    );
    assert_eq!(hist(&v, 3), "5 submitted, 6 working, 8 canceled");
    assert_eq!(last_message(&v, 3), "canceled: parent task-2 was canceled");
    assert_eq!(hist(&v, 2), "3 submitted, 4 working, 9 canceled");
    assert_eq!(hist(&v, 1), "1 submitted, 2 working, 10 failed");
    assert!(last_message(&v, 1).contains("timed out after 4 ticks"));
}

#[test]
fn retry_backoff_doubles_from_when_the_failed_attempt_resolved() {
    let v = run(
        &[
            agent(
                "p",
                "[working, {delegate: {to: q, text: x, retry: {attempts: 3, backoff: 2}}}, completed]",
            ),
            agent("q", "[working, failed]"),
        ],
        &send("p"),
    );
    // Attempt 1 fails at 5; wait 2 × 2^0 → turn at 7, child at 8; fails at 10; wait 2 × 2^1 → 14.
    assert_eq!(hist(&v, 2), "3 submitted, 4 working, 5 failed");
    assert_eq!(hist(&v, 3), "8 submitted, 9 working, 10 failed");
    assert_eq!(hist(&v, 4), "15 submitted, 16 working, 17 failed");
    assert_eq!(hist(&v, 1), "1 submitted, 2 working, 18 failed");
}

#[test]
fn retry_backoff_defaults_to_one_tick_and_zero_retries_at_once() {
    let q = agent("q", "[working, failed]");
    let v = run(
        &[
            agent(
                "p",
                "[working, {delegate: {to: q, text: x, retry: {attempts: 2}}}, completed]",
            ),
            q.clone(),
        ],
        &send("p"),
    );
    assert_eq!(hist(&v, 3), "7 submitted, 8 working, 9 failed");
    let v = run(
        &[
            agent(
                "p",
                "[working, {delegate: {to: q, text: x, retry: {attempts: 2, backoff: 0}}}, completed]",
            ),
            q,
        ],
        &send("p"),
    );
    assert_eq!(hist(&v, 3), "6 submitted, 7 working, 8 failed");
}

#[test]
fn retry_backoff_counts_after_the_timeout_clean_up() {
    let v = run(
        &[
            agent(
                "p",
                "[working, {delegate: {to: q, text: x, timeout: 3, retry: {attempts: 2, backoff: 1}}}, completed]",
            ),
            agent("q", "[working, {wait: 5}, completed]"),
        ],
        &send("p"),
    );
    // Each attempt has its own timer from its child's submitted tick.
    assert_eq!(hist(&v, 2), "3 submitted, 4 working, 7 canceled");
    assert_eq!(hist(&v, 3), "9 submitted, 10 working, 13 canceled");
    assert_eq!(hist(&v, 1), "1 submitted, 2 working, 14 failed");
    assert!(last_message(&v, 1).contains("timed out after 3 ticks"));
}

#[test]
fn only_failed_and_timeout_are_retried() {
    // Rows: q's handler (or the target), delegate extras, how many child tasks get made.
    let rows: &[(&str, &str, &str, usize)] = &[
        ("q", "[working, failed]", "", 3),
        ("q", "[working, {wait: 9}, completed]", ", timeout: 2", 3),
        ("q", "[rejected]", "", 1),
        ("q", "[working, canceled]", "", 1),
        ("q", "[working, input_required]", "", 1),
        ("q", "[auth_required]", "", 1),
        ("q", "[working, completed]", "", 1),
        ("secret", "[working, failed]", "", 0),
        ("{discover: [nothing]}", "[working, failed]", "", 0),
    ];
    for (to, q, extra, tasks) in rows {
        let p = agent(
            "p",
            &format!(
                "[working, {{delegate: {{to: {to}, text: x, retry: {{attempts: 3, backoff: 0}}{extra}}}}}, completed]"
            ),
        );
        let v = run(&[p, agent("q", q), secret()], &send("p"));
        assert_eq!(
            v["tasks"].as_array().unwrap().len(),
            1 + tasks,
            "to {to}, q = {q}"
        );
    }
}

#[test]
fn a_retried_child_carries_attempt_right_after_history() {
    let y = yaml(
        &[
            agent(
                "p",
                "[working, {delegate: {to: q, text: x, retry: {attempts: 2}}}, completed]",
            ),
            agent("q", "[working, failed]"),
        ],
        &send("p"),
    );
    let s = load(&y);
    let text = report(&s);
    let v: Value = serde_json::from_str(&text).unwrap();
    assert!(
        task(&v, 2).get("attempt").is_none(),
        "attempt 1 carries none"
    );
    assert_eq!(task(&v, 3)["attempt"], 2);
    // New ids: a new task and a fresh context.
    assert_ne!(task(&v, 2)["context_id"], task(&v, 3)["context_id"]);
    // Key order in task-3's record: history, attempt, messages.
    let t3 = &text[text.find("\"id\": \"task-3\"").unwrap()..];
    let h = t3.find("\"history\"").unwrap();
    let a = t3.find("\"attempt\"").unwrap();
    let m = t3.find("\"messages\"").unwrap();
    assert!(h < a && a < m, "{t3}");
    let between = &t3[h..a];
    assert_eq!(
        between.matches("\"state\"").count(),
        3,
        "nothing between the history and attempt: {between}"
    );
}

#[test]
fn the_result_of_a_retried_delegation_is_the_last_attempts() {
    let y = format!(
        "{}expect:\n  - {{task: p/d, attempt: 3, history: [submitted, working, failed]}}\n",
        yaml(
            &[
                agent(
                    "p",
                    "[working, {delegate: {to: q, text: x, as: d, retry: {attempts: 3, backoff: 0}}}, completed]",
                ),
                agent("q", "[working, failed]"),
            ],
            &send("p"),
        )
    );
    assert_eq!(unmet(&y), Vec::<String>::new());
    assert_eq!(
        unmet(&y.replace("attempt: 3", "attempt: 1")).len(),
        1,
        "the path names the last attempt"
    );
}
