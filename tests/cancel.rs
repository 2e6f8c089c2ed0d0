//! Canceling a task cancels its whole subtree (behaviour.md §5), deepest first and then in
//! creation order, and leaves nothing running under a terminal parent.

use serde_json::json;

use crate::common::{
    build::{agent, run, send_ri},
    read::{agent_of, last_message, step_result, task},
};

#[test]
fn cancel_reaches_the_subtree_deepest_first_then_in_creation_order() {
    let v = run(
        &[
            agent(
                "top",
                "[working, {fan_out: {to: [a, b], text: q}}, completed]",
            ),
            agent(
                "a",
                "[working, {delegate: {to: sleeper, text: y}}, completed]",
            ),
            agent(
                "b",
                "[working, {delegate: {to: relay, text: y}}, completed]",
            ),
            agent(
                "relay",
                "[working, {delegate: {to: sleeper, text: z}}, completed]",
            ),
            agent("sleeper", "[working, {wait: 100}, completed]"),
        ],
        &format!(
            "{}  - wait: 20\n  - cancel: {{caller: user, task: top}}\n",
            send_ri("top")
        ),
    );
    // top 1; a 2, b 3; a's sleeper 4, b's relay 5; relay's sleeper 6 (depth 3).
    assert_eq!(agent_of(&v, 4), "sleeper");
    assert_eq!(agent_of(&v, 5), "relay");
    assert_eq!(agent_of(&v, 6), "sleeper");
    assert_eq!(step_result(&v, 2), &json!({"tick": 21}));
    let canceled_at = |n: usize| {
        let h = task(&v, n)["history"].as_array().unwrap();
        let last = h.last().unwrap();
        assert_eq!(last["state"], "canceled", "task-{n}");
        last["tick"].as_u64().unwrap()
    };
    assert_eq!(
        [6, 4, 5, 2, 3, 1].map(canceled_at),
        [22, 23, 24, 25, 26, 27]
    );
    assert_eq!(last_message(&v, 6), "canceled: parent task-5 was canceled");
    assert_eq!(last_message(&v, 4), "canceled: parent task-2 was canceled");
    assert_eq!(last_message(&v, 5), "canceled: parent task-3 was canceled");
    assert_eq!(last_message(&v, 2), "canceled: parent task-1 was canceled");
    assert_eq!(last_message(&v, 3), "canceled: parent task-1 was canceled");
    assert_eq!(
        step_result(&v, 3),
        &json!({"task": "task-1", "state": "canceled"})
    );
}

#[test]
fn no_task_is_left_non_terminal_under_a_terminal_parent() {
    let v = run(
        &[
            agent(
                "top",
                "[working, {delegate: {to: mid, text: q}}, completed]",
            ),
            agent(
                "mid",
                "[working, {delegate: {to: sleeper, text: y}}, completed]",
            ),
            agent("sleeper", "[working, {wait: 100}, completed]"),
        ],
        &format!(
            "{}  - wait: 10\n  - cancel: {{caller: user, task: top}}\n  - wait: 0\n",
            send_ri("top")
        ),
    );
    for t in v["tasks"].as_array().unwrap() {
        assert_eq!(t["state"], "canceled", "{}", t["id"]);
    }
    // Nothing is left to run: the clock stays where the cancel left it.
    assert_eq!(step_result(&v, 4), &json!({"tick": 14}));
}
