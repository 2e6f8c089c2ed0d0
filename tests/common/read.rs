//! Reading the JSON report of a run: a task by number, its history, state, messages and
//! decisions, the errors, a step's result, an object's keys in written order.

use serde_json::Value;

/// The report's `task-N`.
pub fn task(v: &Value, n: usize) -> &Value {
    let t = &v["tasks"][n - 1];
    assert_eq!(t["id"], format!("task-{n}"), "tasks are listed in id order");
    t
}

/// A task's status history as `TICK state` pairs.
pub fn hist(v: &Value, n: usize) -> String {
    task(v, n)["history"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| format!("{} {}", h["tick"], h["state"].as_str().unwrap()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The message of a task's latest status entry ("" when it has none).
pub fn last_message(v: &Value, n: usize) -> String {
    let h = task(v, n)["history"].as_array().unwrap();
    h.last().unwrap()["message"]
        .as_str()
        .unwrap_or("")
        .to_string()
}

/// A task's state.
pub fn state(v: &Value, n: usize) -> &str {
    task(v, n)["state"].as_str().unwrap()
}

/// The agent a task ran on.
pub fn agent_of(v: &Value, n: usize) -> &str {
    task(v, n)["agent"].as_str().unwrap()
}

/// The texts of a task's messages (A2A history), in order.
pub fn texts(v: &Value, n: usize) -> Vec<String> {
    task(v, n)["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["text"].as_str().unwrap().to_string())
        .collect()
}

/// The keys of a JSON object, in the order the report wrote them (serde_json keeps it: the
/// workspace enables `preserve_order`).
pub fn keys(v: &Value) -> Vec<&str> {
    v.as_object().unwrap().keys().map(String::as_str).collect()
}

/// `(step, code)` of every error.
pub fn errors(v: &Value) -> Vec<(u64, String)> {
    v["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["step"].as_u64().unwrap(),
                e["code"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// `(handler_step, branch, tick)` of a task's decisions.
pub fn decisions(v: &Value, n: usize) -> Vec<(u64, String, u64)> {
    task(v, n)["decisions"]
        .as_array()
        .map(|d| {
            d.iter()
                .map(|x| {
                    (
                        x["handler_step"].as_u64().unwrap(),
                        x["branch"].as_str().unwrap().to_string(),
                        x["tick"].as_u64().unwrap(),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

/// The result of driver step `step` (counted from 1).
pub fn step_result(v: &Value, step: usize) -> &Value {
    &v["steps"][step - 1]["result"]
}
