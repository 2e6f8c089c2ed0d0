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
