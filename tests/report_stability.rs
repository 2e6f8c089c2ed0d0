//! What the report promises over time: two runs give the same bytes, and a scenario that uses none
//! of the delegation and decision keys gets none of their fields.

use serde_json::Value;

use crate::common::{
    build::{agent, secret, send, send_ri, yaml},
    load,
    read::{errors, hist},
    report,
};

#[test]
fn two_runs_are_byte_identical() {
    let y = yaml(
        &[
            agent(
                "orch",
                "[working, {fan_out: {to: [a, b, secret], text: q, as: g, join: any, timeout: 9, on_error: continue}}, {delegate: {to: flaky, text: x, as: f, retry: {attempts: 3, backoff: 1}, timeout: 4, on_error: continue}}, {delegate: {to: asker, text: y, as: k, on_pause: escalate, replies: [{text: r}]}}, {when: {any: [{result: g, completed: {gte: 1}}, {result: f, outcome: timeout}]}, then: [{artifact: {from: [g, f]}}]}, completed]",
            ),
            agent(
                "a",
                "[working, {wait: 3}, {artifact: {text: A}}, completed]",
            ),
            agent(
                "b",
                "[working, {wait: 1}, {artifact: {text: B, data: {b: 1}}}, failed]",
            ),
            agent("flaky", "[working, {wait: 5}, completed]"),
            agent(
                "asker",
                "[working, input_required, working, {input_required: again}, working, completed]",
            ),
            secret(),
        ],
        &format!(
            "{}  - wait: 3\n  - wait: {{task: orch}}\n  - reply: {{caller: user, task: orch, text: human}}\n",
            send_ri("orch")
        ),
    );
    let s = load(&y);
    let first = report(&s);
    let second = report(&load(&y));
    assert_eq!(first, second);
    let v: Value = serde_json::from_str(&first).unwrap();
    assert_eq!(v["tasks"][0]["state"], "completed", "{first}");
}

#[test]
fn a_scenario_without_the_new_keys_reports_no_new_fields() {
    // The compatibility rule; the goldens under tests/ pin the bytes of every existing scenario.
    let y = yaml(
        &[
            agent("p", "[working, {delegate: {to: q, text: x}}, completed]"),
            agent("q", "[working, input_required, working, completed]"),
        ],
        &format!(
            "{}  - reply: {{caller: user, task: p, text: hi}}\n",
            send("p")
        ),
    );
    let text = report(&load(&y));
    assert!(!text.contains("\"decisions\""));
    assert!(!text.contains("\"attempt\""));
    let v: Value = serde_json::from_str(&text).unwrap();
    // Today's rule: the paused child is canceled, the parent fails; the reply finds it terminal.
    assert_eq!(
        hist(&v, 2),
        "3 submitted, 4 working, 5 input-required, 6 canceled"
    );
    assert_eq!(hist(&v, 1), "1 submitted, 2 working, 7 failed");
    assert_eq!(errors(&v), [(2, "task_terminal".to_string())]);
}
