//! Engine corners: small reproductions of scheduling orders the engine once got wrong, each
//! pinned with the exact ticks the behaviour pages give (behaviour.md §1–§3 and §8, faults.md §1).

use serde_json::{Value, json};

use crate::common::*;

/// An agent in tenant `acme`, cleared `internal`, whose one skill is tagged with its own name.
fn agent(name: &str, handler: &str) -> String {
    format!(
        "  - {{name: {name}, tenant: acme, clearance: internal, skills: [{{id: s, tags: [{name}]}}], handler: {handler}}}\n"
    )
}

/// Agents, one caller `u`, the steps and (optionally) faults, as a scenario.
fn scenario(agents: &[String], steps: &str, faults: &str) -> Value {
    let faults = if faults.is_empty() {
        String::new()
    } else {
        format!("faults:\n{faults}")
    };
    report_value(&format!(
        "agents:\n{}callers:\n  - {{id: u, tenant: acme, classification: public}}\nsteps:\n{steps}{faults}",
        agents.concat()
    ))
}

/// The report's `task-N`.
fn task(v: &Value, n: usize) -> &Value {
    let t = &v["tasks"][n - 1];
    assert_eq!(t["id"], format!("task-{n}"), "tasks are listed in id order");
    t
}

/// A task's status history as `TICK state` pairs.
fn hist(v: &Value, n: usize) -> String {
    task(v, n)["history"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| format!("{} {}", h["tick"], h["state"].as_str().unwrap()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The texts of a task's messages (A2A history), in order.
fn texts(v: &Value, n: usize) -> Vec<String> {
    task(v, n)["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["text"].as_str().unwrap().to_string())
        .collect()
}

// ---------------------------------------------------------------------------------------------
// A scripted reply into an escalated chain (behaviour.md §3 `on_pause: escalate`, §8 pauses)

/// `a` answers its child `b` with a scripted reply; `b` had escalated the question of its own
/// child `c`. The reply moves `b` back to `working` (9), forwards the text to `c`, which moves to
/// `working` too (10, its next step) and finishes; then `b` and `a` finish in turn.
#[test]
fn a_scripted_reply_into_an_escalated_chain_moves_each_level_back_to_working() {
    let v = scenario(
        &[
            agent(
                "a",
                "[working, {delegate: {to: b, text: go, replies: [{text: approve}]}}, completed]",
            ),
            agent(
                "b",
                "[working, {delegate: {to: c, text: go, on_pause: escalate}}, completed]",
            ),
            agent(
                "c",
                "[working, {input_required: Which list?}, working, completed]",
            ),
        ],
        "  - send: {caller: u, to: a, text: hi, as: t}\n",
        "",
    );
    assert_eq!(hist(&v, 1), "1 submitted, 2 working, 13 completed");
    assert_eq!(
        hist(&v, 2),
        "3 submitted, 4 working, 8 input-required, 9 working, 12 completed"
    );
    assert_eq!(
        hist(&v, 3),
        "5 submitted, 6 working, 7 input-required, 10 working, 11 completed"
    );
    // The reply reached the task that asked, and the level it passed through.
    assert_eq!(texts(&v, 3).last().unwrap(), "approve");
    assert!(texts(&v, 2).contains(&"approve".to_string()));
    assert_eq!(
        v["steps"][0],
        json!({"step": 1, "op": "send", "caller": "u", "result": {"task": "task-1", "state": "completed"}})
    );
    assert_eq!(v["errors"], json!([]));
}

/// The same chain answered by the driver's `reply` to `a` (escalated twice): all three levels
/// move back to `working` top down, one tick each, before `c`'s handler resumes.
#[test]
fn a_driver_reply_into_a_chain_escalated_twice_moves_every_level_top_down() {
    let v = scenario(
        &[
            agent(
                "a",
                "[working, {delegate: {to: b, text: go, on_pause: escalate}}, completed]",
            ),
            agent(
                "b",
                "[working, {delegate: {to: c, text: go, on_pause: escalate}}, completed]",
            ),
            agent(
                "c",
                "[working, {input_required: Which list?}, working, completed]",
            ),
        ],
        "  - send: {caller: u, to: a, text: hi, as: t}\n  - reply: {caller: u, task: t, text: approve}\n",
        "",
    );
    assert_eq!(
        hist(&v, 1),
        "1 submitted, 2 working, 9 input-required, 10 working, 15 completed"
    );
    assert_eq!(
        hist(&v, 2),
        "3 submitted, 4 working, 8 input-required, 11 working, 14 completed"
    );
    assert_eq!(
        hist(&v, 3),
        "5 submitted, 6 working, 7 input-required, 12 working, 13 completed"
    );
}

// ---------------------------------------------------------------------------------------------
// `join: any`: clean-up first, then the delegating task (behaviour.md §3)

/// `a` completes at 7, `b` is canceled at 8, and only then is `p` queued: the driver's wait,
/// queued earlier for 8, runs before `p`'s next turn.
#[test]
fn join_any_cancels_the_open_children_before_it_queues_the_delegating_task() {
    let v = scenario(
        &[
            agent(
                "p",
                "[working, {fan_out: {to: [a, b], text: q, join: any}}, completed]",
            ),
            agent("a", "[working, completed]"),
            agent("b", "[working, {wait: 10}, completed]"),
        ],
        "  - send: {caller: u, to: p, text: hi, as: t, return_immediately: true}\n  - wait: 7\n",
        "",
    );
    assert_eq!(
        v["steps"][1],
        json!({"step": 2, "op": "wait", "result": {"tick": 8}})
    );
    assert_eq!(hist(&v, 2), "3 submitted, 5 working, 7 completed");
    assert_eq!(hist(&v, 3), "4 submitted, 6 working, 8 canceled");
    assert_eq!(hist(&v, 1), "1 submitted, 2 working, 9 completed");
}
