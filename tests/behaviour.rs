//! behaviour.md, rule by rule: §1 time and the scheduler, §2 driver steps, §3 delegation v2 and
//! fan-out, §4 `when`, §5 subtree cancel, §6 results into artifacts and expectations, and each
//! decided fine point of §8. Expected values come from the page, not from a run: exact ticks,
//! states, orders, ids and messages wherever it fixes them.

use std::path::PathBuf;

use a2a_sim::engine::world;
use a2a_sim::testing::{expect, golden};
use serde_json::{Value, json};

use crate::common::*;

// ---------------------------------------------------------------------------------------------
// Helpers

/// An agent in tenant `t`, cleared `public`, whose one skill is tagged with its own name.
fn agent(name: &str, handler: &str) -> String {
    format!(
        "  - {{name: {name}, tenant: t, clearance: public, skills: [{{id: {name}, tags: [{name}]}}], handler: {handler}}}\n"
    )
}

/// An agent no one in this file may use: it requires a scope nobody has.
fn secret() -> String {
    "  - {name: secret, tenant: t, clearance: public, required_scopes: [vault], skills: [{id: secret, tags: [secret]}], handler: [working, completed]}\n".to_string()
}

fn yaml(agents: &[String], steps: &str) -> String {
    format!(
        "policy: {{max_depth: 8}}\nagents:\n{}callers:\n  - {{id: user, tenant: t, classification: public}}\nsteps:\n{steps}",
        agents.concat()
    )
}

fn run(agents: &[String], steps: &str) -> Value {
    report_value(&yaml(agents, steps))
}

/// `send` from `c` to `to`, aliased as `to`.
fn send(to: &str) -> String {
    format!("  - send: {{caller: user, to: {to}, text: go, as: {to}}}\n")
}

/// `send ... return_immediately: true`, aliased as `to`.
fn send_ri(to: &str) -> String {
    format!("  - send: {{caller: user, to: {to}, text: go, as: {to}, return_immediately: true}}\n")
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

/// The message of a task's latest status entry ("" when it has none).
fn last_message(v: &Value, n: usize) -> String {
    let h = task(v, n)["history"].as_array().unwrap();
    h.last().unwrap()["message"]
        .as_str()
        .unwrap_or("")
        .to_string()
}

fn state(v: &Value, n: usize) -> &str {
    task(v, n)["state"].as_str().unwrap()
}

fn agent_of(v: &Value, n: usize) -> &str {
    task(v, n)["agent"].as_str().unwrap()
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

/// `(step, code)` of every error.
fn errors(v: &Value) -> Vec<(u64, String)> {
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
fn decisions(v: &Value, n: usize) -> Vec<(u64, String, u64)> {
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

fn step_result(v: &Value, step: usize) -> &Value {
    &v["steps"][step - 1]["result"]
}

/// The unmet expectations of a scenario.
fn unmet(yaml: &str) -> Vec<String> {
    let s = load(yaml);
    let w = world::run(&s);
    expect::check(&w).into_iter().map(|u| u.message).collect()
}

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

// ---------------------------------------------------------------------------------------------
// §1 Time and the scheduler

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

// ---------------------------------------------------------------------------------------------
// §2 Driver steps

#[test]
fn send_blocks_until_its_task_resolves_running_other_due_work_in_scheduler_order() {
    // b runs beside the blocking send of a; the send ends right after the turn that completed a.
    let v = run(
        &[
            agent("a", "[working, completed]"),
            agent("b", "[working, {wait: 0}, {wait: 0}, completed]"),
        ],
        &format!(
            "{}{}  - get: {{caller: user, task: b}}\n",
            send_ri("b"),
            send("a")
        ),
    );
    assert_eq!(hist(&v, 2), "2 submitted, 4 working, 5 completed");
    assert_eq!(
        step_result(&v, 2),
        &json!({"task": "task-2", "state": "completed"})
    );
    assert_eq!(
        step_result(&v, 3),
        &json!({"task": "task-1", "state": "working"}),
        "the send stopped the scheduler right after a's completing turn"
    );
    assert_eq!(hist(&v, 1), "1 submitted, 3 working, 6 completed");
}

#[test]
fn send_blocks_until_a_pause_too() {
    let v = run(
        &[agent(
            "a",
            "[working, {input_required: which?}, working, completed]",
        )],
        &send("a"),
    );
    assert_eq!(
        step_result(&v, 1),
        &json!({"task": "task-1", "state": "input-required"})
    );
    assert_eq!(hist(&v, 1), "1 submitted, 2 working, 3 input-required");
}

#[test]
fn send_return_immediately_ends_at_submitted() {
    let v = run(
        &[agent("a", "[working, completed]")],
        &format!("{}  - get: {{caller: user, task: a}}\n", send_ri("a")),
    );
    assert_eq!(
        step_result(&v, 1),
        &json!({"task": "task-1", "state": "submitted"})
    );
    // `get` runs no scheduler: the handler is still queued.
    assert_eq!(
        step_result(&v, 2),
        &json!({"task": "task-1", "state": "submitted"})
    );
    // Its handler stays queued and runs at quiescence.
    assert_eq!(hist(&v, 1), "1 submitted, 2 working, 3 completed");
}

#[test]
fn send_return_immediately_sets_the_push_config_first() {
    let y = r#"
policy: {push_allowed_hosts: [hooks.example]}
agents:
  - {name: a, tenant: t, clearance: public, capabilities: {push_notifications: true}, skills: [{id: a, tags: [a]}], handler: [working, completed]}
callers:
  - {id: user, tenant: t, classification: public}
steps:
  - send: {caller: user, to: a, text: go, return_immediately: true, push: {url: "https://hooks.example/x", token: tok}}
"#;
    let v = report_value(y);
    assert_eq!(step_result(&v, 1)["state"], "submitted");
    let pushed: Vec<(u64, &str)> = v["pushes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["tick"].as_u64().unwrap(), p["state"].as_str().unwrap()))
        .collect();
    assert_eq!(pushed, [(2, "working"), (3, "completed")]);
}

#[test]
fn return_immediately_on_stream_is_a_load_error() {
    let y = yaml(
        &[agent("a", "[working, completed]")],
        "  - stream: {caller: user, to: a, text: go, return_immediately: true}\n",
    );
    let err = load_err(&y);
    assert!(err.contains("return_immediately"), "{err}");
}

#[test]
fn driver_wait_queues_at_clock_plus_n_and_reports_the_clock_then() {
    let v = run(
        &[agent("a", "[working, completed]")],
        &format!("{}  - wait: 4\n  - wait: 0\n", send("a")),
    );
    assert_eq!(
        v["steps"][1],
        json!({"step": 2, "op": "wait", "result": {"tick": 7}})
    );
    assert_eq!(
        v["steps"][2],
        json!({"step": 3, "op": "wait", "result": {"tick": 7}})
    );
}

#[test]
fn driver_wait_runs_earlier_queued_due_work_first_and_stops_at_its_own_turn() {
    // a's continuation at 4 is queued after the driver wait (also at 4): the wait ends first.
    let v = run(
        &[agent("a", "[working, {wait: 2}, completed]")],
        &format!(
            "{}  - wait: 3\n  - get: {{caller: user, task: a}}\n",
            send_ri("a")
        ),
    );
    assert_eq!(step_result(&v, 2), &json!({"tick": 4}));
    assert_eq!(step_result(&v, 3)["state"], "working");
    assert_eq!(hist(&v, 1), "1 submitted, 2 working, 5 completed");
    // Queued earlier and due: runs before the wait ends.
    let v = run(
        &[agent("a", "[working, {wait: 1}, completed]")],
        &format!(
            "{}  - wait: 3\n  - get: {{caller: user, task: a}}\n",
            send_ri("a")
        ),
    );
    assert_eq!(hist(&v, 1), "1 submitted, 2 working, 4 completed");
    assert_eq!(step_result(&v, 2), &json!({"tick": 4}));
    assert_eq!(step_result(&v, 3)["state"], "completed");
}

#[test]
fn wait_task_runs_until_the_task_resolves() {
    let v = run(
        &[agent("a", "[working, {wait: 5}, completed]")],
        &format!("{}  - wait: {{task: a}}\n", send_ri("a")),
    );
    assert_eq!(
        v["steps"][1],
        json!({"step": 2, "op": "wait", "result": {"tick": 8}})
    );
}

#[test]
fn wait_task_on_a_resolved_task_ends_at_once() {
    let v = run(
        &[
            agent("a", "[working, completed]"),
            agent("b", "[working, completed]"),
        ],
        &format!(
            "{}{}  - wait: {{task: a}}\n  - get: {{caller: user, task: b}}\n",
            send("a"),
            send_ri("b")
        ),
    );
    assert_eq!(step_result(&v, 3), &json!({"tick": 4}));
    assert_eq!(step_result(&v, 4)["state"], "submitted");
}

#[test]
fn reply_blocks_until_the_next_pause_or_terminal_state_not_an_artifact_or_message() {
    let v = run(
        &[agent(
            "a",
            "[working, input_required, {artifact: {text: x}}, {message: m}, working, {wait: 3}, {input_required: again}, working, completed]",
        )],
        &format!(
            "{}  - reply: {{caller: user, task: a, text: r1}}\n  - reply: {{caller: user, task: a, text: r2}}\n",
            send("a")
        ),
    );
    assert_eq!(
        step_result(&v, 2),
        &json!({"task": "task-1", "state": "input-required"})
    );
    assert_eq!(
        step_result(&v, 3),
        &json!({"task": "task-1", "state": "completed"})
    );
    assert_eq!(
        hist(&v, 1),
        "1 submitted, 2 working, 3 input-required, 4 working, 8 input-required, 9 working, 10 completed"
    );
}

#[test]
fn a_reply_to_a_running_task_is_task_not_awaiting() {
    let v = run(
        &[agent("a", "[working, input_required, completed]")],
        &format!(
            "{}  - reply: {{caller: user, task: a, text: early}}\n  - get: {{caller: user, task: a}}\n",
            send_ri("a")
        ),
    );
    assert_eq!(errors(&v), [(2, "task_not_awaiting".to_string())]);
    // Changes nothing: no message joins, no handler runs.
    assert_eq!(step_result(&v, 3)["state"], "submitted");
    assert_eq!(texts(&v, 1), ["go"]);
    assert_eq!(hist(&v, 1), "1 submitted, 2 working, 3 input-required");
}

#[test]
fn cancel_acts_at_the_current_clock_and_runs_no_scheduler() {
    let v = run(
        &[agent("a", "[working, completed]")],
        &format!("{}  - cancel: {{caller: user, task: a}}\n", send_ri("a")),
    );
    assert_eq!(hist(&v, 1), "1 submitted, 2 canceled");
    assert_eq!(step_result(&v, 2)["state"], "canceled");
}

#[test]
fn set_push_config_runs_no_scheduler() {
    let y = r#"
policy: {push_allowed_hosts: [hooks.example]}
agents:
  - {name: a, tenant: t, clearance: public, capabilities: {push_notifications: true}, skills: [{id: a, tags: [a]}], handler: [working, completed]}
callers:
  - {id: user, tenant: t, classification: public}
steps:
  - send: {caller: user, to: a, text: go, as: a, return_immediately: true}
  - set_push_config: {caller: user, task: a, url: "https://hooks.example/x", token: tok}
  - get: {caller: user, task: a}
"#;
    let v = report_value(y);
    assert_eq!(step_result(&v, 3)["state"], "submitted");
    // Set before the handler ran: both of its changes are pushed.
    assert_eq!(v["pushes"].as_array().unwrap().len(), 2);
}

#[test]
fn quiescence_runs_everything_after_the_last_step() {
    let v = run(
        &[
            agent("p", "[working, {delegate: {to: q, text: x}}, completed]"),
            agent("q", "[working, {wait: 10}, completed]"),
        ],
        &send_ri("p"),
    );
    assert_eq!(hist(&v, 1), "1 submitted, 2 working, 16 completed");
    assert_eq!(hist(&v, 2), "3 submitted, 4 working, 15 completed");
}

#[test]
fn dropped_timers_never_move_the_clock() {
    let v = run(
        &[
            agent(
                "p",
                "[working, {delegate: {to: q, text: x, timeout: 100}}, completed]",
            ),
            agent("q", "[working, completed]"),
        ],
        &format!("{}  - wait: 0\n{}", send("p"), send("q")),
    );
    assert_eq!(hist(&v, 1), "1 submitted, 2 working, 6 completed");
    assert_eq!(step_result(&v, 2), &json!({"tick": 6}));
    assert_eq!(hist(&v, 3), "7 submitted, 8 working, 9 completed");
}

#[test]
fn queued_continuations_of_a_terminal_task_are_dropped() {
    let v = run(
        &[agent("a", "[working, {wait: 50}, completed]")],
        &format!(
            "{}  - wait: 0\n  - cancel: {{caller: user, task: a}}\n  - wait: 0\n",
            send_ri("a")
        ),
    );
    assert_eq!(step_result(&v, 2), &json!({"tick": 2}));
    assert_eq!(step_result(&v, 4), &json!({"tick": 3}));
    assert_eq!(hist(&v, 1), "1 submitted, 2 working, 3 canceled");
    assert!(errors(&v).is_empty());
}

#[test]
fn errors_of_non_blocking_work_go_under_the_driver_step_running_then() {
    // a's handler bug (submitted -> completed) happens in step 2's scheduler run.
    let v = run(
        &[
            agent("a", "[completed]"),
            agent("b", "[working, completed]"),
        ],
        &format!("{}  - wait: 0\n{}", send_ri("a"), send("b")),
    );
    assert_eq!(errors(&v), [(2, "illegal_transition".to_string())]);
    // In a blocking send of another task.
    let v = run(
        &[
            agent("a", "[completed]"),
            agent("b", "[working, completed]"),
        ],
        &format!("{}{}", send_ri("a"), send("b")),
    );
    assert_eq!(errors(&v), [(2, "illegal_transition".to_string())]);
}

#[test]
fn errors_at_quiescence_go_under_the_last_steps_number() {
    let v = run(
        &[agent("a", "[completed]")],
        &format!(
            "{}  - get: {{caller: user, task: a}}\n  - get: {{caller: user, task: a}}\n",
            send_ri("a")
        ),
    );
    assert_eq!(errors(&v), [(3, "illegal_transition".to_string())]);
}

// ---------------------------------------------------------------------------------------------
// §3 Delegation v2: outcomes

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

// §3 timeout

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

// §3 retry

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

// §3 on_pause, scripted replies, escalation

#[test]
fn on_pause_cancel_cleans_up_in_the_childs_pausing_turn() {
    // b's turn, due at 7 and queued before q paused, runs after the clean-up.
    let v = run(
        &[
            agent(
                "p",
                "[working, {delegate: {to: q, text: x, as: d, on_error: continue}}, {when: {all: [{result: d, outcome: input_required}, {result: d, state: canceled}]}, then: [{completed: cleaned}], else: [{completed: other}]}]",
            ),
            agent("q", "[working, {input_required: which?}]"),
            agent("b", "[working, {wait: 4}, completed]"),
        ],
        &format!("{}{}", send_ri("b"), send("p")),
    );
    assert_eq!(
        hist(&v, 3),
        "5 submitted, 6 working, 7 input-required, 8 canceled"
    );
    assert_eq!(hist(&v, 1), "1 submitted, 3 working, 9 completed");
    assert_eq!(hist(&v, 2), "2 submitted, 4 working, 10 completed");
    assert_eq!(last_message(&v, 2), "cleaned");
}

#[test]
fn scripted_replies_are_given_in_order_one_per_pause_in_the_parents_next_turn() {
    let v = run(
        &[
            agent(
                "p",
                "[working, {delegate: {to: q, text: x, replies: [{text: first}, {text: second, data: {k: 1}}]}}, completed]",
            ),
            agent(
                "q",
                "[working, {input_required: q1}, working, {input_required: q2}, {when: {reply: {}, text: second, data: {k: 1}}, then: [working, {completed: saw second}], else: [failed]}]",
            ),
        ],
        &send("p"),
    );
    // A reply takes no tick.
    assert_eq!(
        hist(&v, 2),
        "3 submitted, 4 working, 5 input-required, 6 working, 7 input-required, 8 working, 9 completed"
    );
    assert_eq!(
        texts(&v, 2),
        ["x", "q1", "first", "q2", "second", "saw second"]
    );
    let msgs = task(&v, 2)["messages"].as_array().unwrap();
    assert_eq!(msgs[4]["data"], json!({"k": 1}));
    assert_eq!(hist(&v, 1), "1 submitted, 2 working, 10 completed");
}

#[test]
fn scripted_replies_then_on_pause_when_they_run_out() {
    // Default on_pause: cancel.
    let q = agent(
        "q",
        "[working, {input_required: q1}, working, {input_required: q2}, working, completed]",
    );
    let v = run(
        &[
            agent(
                "p",
                "[working, {delegate: {to: q, text: x, as: d, on_error: continue, replies: [{text: first}]}}, {when: {result: d, outcome: input-required}, then: [{completed: ran out}], else: [failed]}]",
            ),
            q.clone(),
        ],
        &send("p"),
    );
    assert_eq!(
        hist(&v, 2),
        "3 submitted, 4 working, 5 input-required, 6 working, 7 input-required, 8 canceled"
    );
    assert_eq!(last_message(&v, 1), "ran out");
}

#[test]
fn scripted_replies_then_escalation_when_they_run_out() {
    let v = run(
        &[
            agent(
                "p",
                "[working, {delegate: {to: q, text: x, on_pause: escalate, replies: [{text: first}]}}, completed]",
            ),
            agent(
                "q",
                "[working, {input_required: q1}, working, {input_required: q2}, working, completed]",
            ),
        ],
        &format!(
            "{}  - reply: {{caller: user, task: p, text: human}}\n",
            send("p")
        ),
    );
    assert_eq!(step_result(&v, 1)["state"], "input-required");
    assert_eq!(
        hist(&v, 1),
        "1 submitted, 2 working, 8 input-required, 9 working, 12 completed"
    );
    let h = task(&v, 1)["history"].as_array().unwrap();
    assert_eq!(h[2]["message"], "q2");
    assert_eq!(texts(&v, 2), ["x", "q1", "first", "q2", "human"]);
    assert_eq!(
        hist(&v, 2),
        "3 submitted, 4 working, 5 input-required, 6 working, 7 input-required, 10 working, 11 completed"
    );
}

#[test]
fn scripted_replies_restart_on_each_attempt() {
    let v = run(
        &[
            agent(
                "p",
                "[working, {delegate: {to: q, text: x, retry: {attempts: 2}, replies: [{text: r1}]}}, completed]",
            ),
            agent("q", "[working, input_required, working, failed]"),
        ],
        &send("p"),
    );
    assert_eq!(
        hist(&v, 2),
        "3 submitted, 4 working, 5 input-required, 6 working, 7 failed"
    );
    assert_eq!(
        hist(&v, 3),
        "9 submitted, 10 working, 11 input-required, 12 working, 13 failed"
    );
    assert_eq!(texts(&v, 3), ["x", "r1"]);
    assert_eq!(hist(&v, 1), "1 submitted, 2 working, 14 failed");
}

#[test]
fn an_escalated_pause_takes_the_childs_state_and_latest_status_message() {
    let v = run(
        &[
            agent(
                "p",
                "[working, {delegate: {to: q, text: x, on_pause: escalate}}, {completed: done}]",
            ),
            agent(
                "q",
                "[working, {auth_required: Sign in to the list provider}, {working: resumed}, completed]",
            ),
        ],
        &format!(
            "{}  - reply: {{caller: user, task: p, text: token, data: {{t: 1}}}}\n",
            send("p")
        ),
    );
    assert_eq!(
        step_result(&v, 1),
        &json!({"task": "task-1", "state": "auth-required"})
    );
    assert_eq!(
        hist(&v, 1),
        "1 submitted, 2 working, 6 auth-required, 7 working, 10 completed"
    );
    let h = task(&v, 1)["history"].as_array().unwrap();
    assert_eq!(h[2]["message"], "Sign in to the list provider");
    // The reply is forwarded to the child, text and data.
    assert_eq!(
        texts(&v, 2),
        ["x", "Sign in to the list provider", "token", "resumed"]
    );
    assert_eq!(task(&v, 2)["messages"][2]["data"], json!({"t": 1}));
    assert_eq!(
        hist(&v, 2),
        "3 submitted, 4 working, 5 auth-required, 8 working, 9 completed"
    );
    assert_eq!(
        step_result(&v, 2),
        &json!({"task": "task-1", "state": "completed"})
    );
}

#[test]
fn an_escalated_reply_moves_each_level_to_working_top_down() {
    let v = run(
        &[
            agent(
                "top",
                "[working, {delegate: {to: mid, text: x, on_pause: escalate}}, completed]",
            ),
            agent(
                "mid",
                "[working, {delegate: {to: bot, text: y, on_pause: escalate}}, completed]",
            ),
            agent(
                "bot",
                "[working, {input_required: which list?}, {when: {reply: {}, text: SDN}, then: [working, completed], else: [failed]}]",
            ),
        ],
        &format!(
            "{}  - reply: {{caller: user, task: top, text: SDN}}\n",
            send("top")
        ),
    );
    assert_eq!(step_result(&v, 1)["state"], "input-required");
    // bot pauses at 7, mid takes it at 8, top at 9; the reply: top working 10, mid 11, then bot.
    assert_eq!(
        hist(&v, 3),
        "5 submitted, 6 working, 7 input-required, 12 working, 13 completed"
    );
    assert_eq!(
        hist(&v, 2),
        "3 submitted, 4 working, 8 input-required, 11 working, 14 completed"
    );
    assert_eq!(
        hist(&v, 1),
        "1 submitted, 2 working, 9 input-required, 10 working, 15 completed"
    );
    for n in 1..=3 {
        assert!(texts(&v, n).contains(&"SDN".to_string()), "task-{n}");
    }
    let h = task(&v, 1)["history"].as_array().unwrap();
    assert_eq!(h[2]["message"], "which list?");
}

#[test]
fn an_escalated_child_may_escalate_again() {
    let v = run(
        &[
            agent(
                "p",
                "[working, {delegate: {to: q, text: x, on_pause: escalate}}, completed]",
            ),
            agent(
                "q",
                "[working, {input_required: one}, working, {input_required: two}, working, completed]",
            ),
        ],
        &format!(
            "{}  - reply: {{caller: user, task: p, text: a}}\n  - reply: {{caller: user, task: p, text: b}}\n",
            send("p")
        ),
    );
    assert_eq!(step_result(&v, 2)["state"], "input-required");
    assert_eq!(step_result(&v, 3)["state"], "completed");
    assert_eq!(
        hist(&v, 1),
        "1 submitted, 2 working, 6 input-required, 7 working, 10 input-required, 11 working, 14 completed"
    );
    let h = task(&v, 1)["history"].as_array().unwrap();
    assert_eq!(h[4]["message"], "two");
}

#[test]
fn an_illegal_escalation_cancels_the_child_then_fails_the_parent() {
    // The parent is still submitted: submitted -> input-required is forbidden.
    let v = run(
        &[
            agent(
                "p",
                "[{delegate: {to: q, text: x, on_pause: escalate}}, completed]",
            ),
            agent("q", "[working, {input_required: which?}]"),
        ],
        &send("p"),
    );
    assert_eq!(
        hist(&v, 2),
        "2 submitted, 3 working, 4 input-required, 5 canceled"
    );
    assert_eq!(hist(&v, 1), "1 submitted, 6 failed");
    assert_eq!(errors(&v), [(1, "illegal_transition".to_string())]);
    assert_eq!(v["errors"][0]["task"], "task-1");
    // submitted -> auth-required is allowed: the same escalation of an auth pause is legal.
    let v = run(
        &[
            agent(
                "p",
                "[{delegate: {to: q, text: x, on_pause: escalate}}, completed]",
            ),
            agent("q", "[working, {auth_required: sign in}]"),
        ],
        &send("p"),
    );
    assert_eq!(hist(&v, 1), "1 submitted, 5 auth-required");
    assert!(errors(&v).is_empty());
}

#[test]
fn a_timer_that_fires_while_the_parent_is_escalated_cancels_the_child_and_requeues_the_parent() {
    let p = |on_error: &str| {
        agent(
            "p",
            &format!(
                "[working, {{delegate: {{to: q, text: x, as: d, on_pause: escalate, timeout: 5, on_error: {on_error}}}}}, {{when: {{result: d, outcome: timeout}}, then: [{{failed: gave up}}], else: [completed]}}]"
            ),
        )
    };
    let q = agent(
        "q",
        "[working, {input_required: which?}, working, completed]",
    );
    let steps = format!("{}  - wait: 10\n", send("p"));
    let v = run(&[p("continue"), q.clone()], &steps);
    assert_eq!(
        hist(&v, 2),
        "3 submitted, 4 working, 5 input-required, 9 canceled"
    );
    assert_eq!(
        hist(&v, 1),
        "1 submitted, 2 working, 6 input-required, 10 failed"
    );
    assert_eq!(last_message(&v, 1), "gave up");
    assert_eq!(step_result(&v, 2), &json!({"tick": 16}));
    let v = run(&[p("fail"), q], &steps);
    assert_eq!(
        hist(&v, 1),
        "1 submitted, 2 working, 6 input-required, 10 failed"
    );
    assert!(last_message(&v, 1).contains("timed out after 5 ticks"));
}

#[test]
fn a_timer_due_before_a_pending_scripted_reply_wins() {
    let v = run(
        &[
            agent(
                "p",
                "[working, {delegate: {to: q, text: x, timeout: 2, replies: [{text: never}]}}, completed]",
            ),
            agent(
                "q",
                "[working, {input_required: which?}, working, completed]",
            ),
        ],
        &send("p"),
    );
    assert_eq!(
        hist(&v, 2),
        "3 submitted, 4 working, 5 input-required, 6 canceled"
    );
    assert!(!texts(&v, 2).contains(&"never".to_string()));
    assert_eq!(hist(&v, 1), "1 submitted, 2 working, 7 failed");
    assert!(last_message(&v, 1).contains("timed out after 2 ticks"));
}

// ---------------------------------------------------------------------------------------------
// §3 Fan-out

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

// ---------------------------------------------------------------------------------------------
// §4 Decisions: `when`

/// Rows: condition, input text, input data (a flow mapping or ""), the branch taken.
const CONDITIONS: &[(&str, &str, &str, &str)] = &[
    // input text
    ("{input: {}, text: go}", "go", "", "then"),
    ("{input: {}, text: Go}", "go", "", "else"),
    ("{input: {}, text: {contains: o}}", "go", "", "then"),
    ("{input: {}, text: {contains: x}}", "go", "", "else"),
    // literals: JSON equality, numbers as numbers
    ("{input: {}, data: {a: 1}}", "go", "{a: 1.0}", "then"),
    ("{input: {}, data: {a: 1.0}}", "go", "{a: 1}", "then"),
    ("{input: {}, data: {a: \"1\"}}", "go", "{a: 1}", "else"),
    ("{input: {}, data: {a: x}}", "go", "{a: x}", "then"),
    (
        "{input: {}, data: {a: [1, 2]}}",
        "go",
        "{a: [1.0, 2]}",
        "then",
    ),
    (
        "{input: {}, data: {a: [1, 2]}}",
        "go",
        "{a: [2, 1]}",
        "else",
    ),
    ("{input: {}, data: {a: null}}", "go", "{a: null}", "then"),
    ("{input: {}, data: {a: null}}", "go", "{b: 1}", "else"),
    // a one-key mapping is an operator only when its key is one
    (
        "{input: {}, data: {a: {foo: 1}}}",
        "go",
        "{a: {foo: 1.0}}",
        "then",
    ),
    (
        "{input: {}, data: {a: {foo: 1}}}",
        "go",
        "{a: {foo: 1, bar: 2}}",
        "else",
    ),
    // eq / ne: JSON equality
    ("{input: {}, data: {a: {eq: 2}}}", "go", "{a: 2.0}", "then"),
    ("{input: {}, data: {a: {eq: 2}}}", "go", "{a: 3}", "else"),
    ("{input: {}, data: {a: {eq: x}}}", "go", "{a: x}", "then"),
    ("{input: {}, data: {a: {ne: 2}}}", "go", "{a: 3}", "then"),
    ("{input: {}, data: {a: {ne: 2}}}", "go", "{a: 2}", "else"),
    (
        "{input: {}, data: {a: {ne: 2}}}",
        "go",
        "{a: \"2\"}",
        "then",
    ),
    ("{input: {}, data: {a: {ne: 2}}}", "go", "{b: 2}", "else"),
    // numbers only
    ("{input: {}, data: {a: {gt: 1}}}", "go", "{a: 2}", "then"),
    ("{input: {}, data: {a: {gt: 1}}}", "go", "{a: 1}", "else"),
    (
        "{input: {}, data: {a: {gt: 1}}}",
        "go",
        "{a: \"2\"}",
        "else",
    ),
    ("{input: {}, data: {a: {gte: 1}}}", "go", "{a: 1.0}", "then"),
    ("{input: {}, data: {a: {gte: 1}}}", "go", "{a: 0.5}", "else"),
    ("{input: {}, data: {a: {lt: 1}}}", "go", "{a: 0.5}", "then"),
    ("{input: {}, data: {a: {lt: 1}}}", "go", "{a: 1}", "else"),
    ("{input: {}, data: {a: {lt: 1}}}", "go", "{a: true}", "else"),
    ("{input: {}, data: {a: {lte: 1}}}", "go", "{a: 1}", "then"),
    ("{input: {}, data: {a: {lte: 1}}}", "go", "{a: 1.5}", "else"),
    (
        "{input: {}, data: {a: {lte: 1}}}",
        "go",
        "{a: null}",
        "else",
    ),
    // in
    (
        "{input: {}, data: {a: {in: [x, 2]}}}",
        "go",
        "{a: 2.0}",
        "then",
    ),
    (
        "{input: {}, data: {a: {in: [x, 2]}}}",
        "go",
        "{a: y}",
        "else",
    ),
    // exists; a null value exists; a missing path is absent
    (
        "{input: {}, data: {a: {exists: true}}}",
        "go",
        "{a: null}",
        "then",
    ),
    (
        "{input: {}, data: {a: {exists: true}}}",
        "go",
        "{b: 1}",
        "else",
    ),
    (
        "{input: {}, data: {a: {exists: false}}}",
        "go",
        "{b: 1}",
        "then",
    ),
    (
        "{input: {}, data: {a: {exists: false}}}",
        "go",
        "{a: 1}",
        "else",
    ),
    (
        "{input: {}, data: {a.b: {exists: false}}}",
        "go",
        "{a: 1}",
        "then",
    ),
    // no data part at all: an absent subject
    ("{input: {}, data: {a: {exists: false}}}", "go", "", "then"),
    ("{input: {}, data: {a: {ne: 1}}}", "go", "", "else"),
    ("{not: {input: {}, data: {a: 1}}}", "go", "", "then"),
    // contains works wherever a string is tested
    (
        "{input: {}, data: {a: {contains: SDN}}}",
        "go",
        "{a: on the SDN list}",
        "then",
    ),
    (
        "{input: {}, data: {a: {contains: SDN}}}",
        "go",
        "{a: 3}",
        "else",
    ),
    // dotted paths: numeric segments index lists
    (
        "{input: {}, data: {a.b.1.c: true}}",
        "go",
        "{a: {b: [0, {c: true}]}}",
        "then",
    ),
    (
        "{input: {}, data: {a.b.0: 0}}",
        "go",
        "{a: {b: [0, 1]}}",
        "then",
    ),
    (
        "{input: {}, data: {a.b.2: {exists: false}}}",
        "go",
        "{a: {b: [0, 1]}}",
        "then",
    ),
    (
        "{input: {}, data: {a.0: x}}",
        "go",
        "{a: {\"0\": x}}",
        "then",
    ),
    // JSON Pointers (RFC 6901)
    (
        "{input: {}, data: {/a~1b/~0c: 5}}",
        "go",
        "{a/b: {\"~c\": 5}}",
        "then",
    ),
    ("{input: {}, data: {/l/1: y}}", "go", "{l: [x, y]}", "then"),
    ("{input: {}, data: {/a.b: 1}}", "go", "{a.b: 1}", "then"),
    ("{input: {}, data: {/a.b: 1}}", "go", "{a: {b: 1}}", "else"),
    ("{input: {}, data: {a.b: 1}}", "go", "{a: {b: 1}}", "then"),
    // several tests on one subject must all hold
    (
        "{input: {}, text: go, data: {a: 1}}",
        "go",
        "{a: 1}",
        "then",
    ),
    (
        "{input: {}, text: go, data: {a: 1}}",
        "go",
        "{a: 2}",
        "else",
    ),
    (
        "{input: {}, data: {a: 1, b: 2}}",
        "go",
        "{a: 1, b: 3}",
        "else",
    ),
    // combinators
    ("{not: {input: {}, text: go}}", "go", "", "else"),
    ("{not: {input: {}, text: no}}", "go", "", "then"),
    (
        "{all: [{input: {}, text: go}, {input: {}, data: {a: 1}}]}",
        "go",
        "{a: 1}",
        "then",
    ),
    (
        "{all: [{input: {}, text: go}, {input: {}, data: {a: 1}}]}",
        "go",
        "{a: 2}",
        "else",
    ),
    (
        "{any: [{input: {}, text: no}, {input: {}, data: {a: 1}}]}",
        "go",
        "{a: 1}",
        "then",
    ),
    (
        "{any: [{input: {}, text: no}, {input: {}, data: {a: 1}}]}",
        "go",
        "{a: 2}",
        "else",
    ),
    (
        "{not: {all: [{input: {}, text: go}, {not: {input: {}, text: go}}]}}",
        "go",
        "",
        "then",
    ),
    // no reply yet: an absent subject
    ("{reply: {}, text: go}", "go", "", "else"),
    ("{not: {reply: {}, text: go}}", "go", "", "then"),
    ("{reply: {}, data: {a: {exists: false}}}", "go", "", "then"),
    ("{reply: {}, data: {a: {exists: true}}}", "go", "", "else"),
];

fn decide(cond: &str, text: &str, data: &str) -> String {
    let data = if data.is_empty() {
        String::new()
    } else {
        format!(", data: {data}")
    };
    let v = run(
        &[agent(
            "p",
            &format!(
                "[working, {{when: {cond}, then: [{{completed: then}}], else: [{{completed: else}}]}}]"
            ),
        )],
        &format!("  - send: {{caller: user, to: p, text: \"{text}\"{data}}}\n"),
    );
    let mut branch = last_message(&v, 1);
    let d = decisions(&v, 1);
    if d.len() != 1 || d[0].1 != branch {
        branch = format!("{branch} (decisions {d:?})");
    }
    branch
}

#[test]
fn conditions_on_input_text_and_data_every_operator_path_and_combinator() {
    let mut wrong = Vec::new();
    for (cond, text, data, want) in CONDITIONS {
        let got = decide(cond, text, data);
        if got != *want {
            wrong.push(format!("{cond} on {text:?} {data}: want {want}, got {got}"));
        }
    }
    assert!(wrong.is_empty(), "\n{}", wrong.join("\n"));
}

#[test]
fn numbers_compare_as_doubles_in_conditions() {
    // 2^53 + 1 is 2^53 as an IEEE double.
    let rows = [
        (
            "{input: {}, data: {n: 9007199254740992}}",
            "{n: 9007199254740993}",
            "then",
        ),
        (
            "{input: {}, data: {n: {eq: 9007199254740992}}}",
            "{n: 9007199254740993}",
            "then",
        ),
        (
            "{input: {}, data: {n: {gt: 9007199254740992}}}",
            "{n: 9007199254740993}",
            "else",
        ),
        (
            "{input: {}, data: {n: {in: [9007199254740992]}}}",
            "{n: 9007199254740993}",
            "then",
        ),
        (
            "{input: {}, data: {n: 0.30000000000000004}}",
            "{n: 0.30000000000000004}",
            "then",
        ),
        ("{input: {}, data: {n: {lt: 1e3}}}", "{n: 999.5}", "then"),
    ];
    for (cond, data, want) in rows {
        assert_eq!(decide(cond, "go", data), want, "{cond} on {data}");
    }
}

#[test]
fn yaml_is_read_as_yaml_1_2_in_conditions() {
    let rows = [
        ("{input: {}, data: {flag: \"yes\"}}", "{flag: yes}", "then"),
        ("{input: {}, data: {flag: true}}", "{flag: yes}", "else"),
        ("{input: {}, data: {flag: true}}", "{flag: on}", "else"),
        ("{input: {}, data: {flag: \"on\"}}", "{flag: on}", "then"),
        (
            "{input: {}, data: {d: \"2024-01-02\"}}",
            "{d: 2024-01-02}",
            "then",
        ),
        (
            "{input: {}, data: {d: {contains: \"-01-\"}}}",
            "{d: 2024-01-02}",
            "then",
        ),
    ];
    for (cond, data, want) in rows {
        assert_eq!(decide(cond, "go", data), want, "{cond} on {data}");
    }
}

/// A parent delegating to `q`, then deciding on `cond`.
fn decide_on_result(q: &str, delegate_extra: &str, cond: &str) -> String {
    let v = run(
        &[
            agent(
                "p",
                &format!(
                    "[working, {{delegate: {{to: q, text: x, as: d, on_error: continue{delegate_extra}}}}}, {{when: {cond}, then: [{{completed: then}}], else: [{{completed: else}}]}}]"
                ),
            ),
            agent("q", q),
        ],
        &send("p"),
    );
    last_message(&v, 1)
}

#[test]
fn conditions_on_a_delegations_result_outcome_state_text_and_data() {
    let q = "[working, {artifact: {text: hello, data: {a: 1, b: {c: [x, y]}}}}, {artifact: {text: world, data: {a: 3}}}, completed]";
    let rows = [
        ("{result: d, outcome: completed}", "then"),
        ("{result: d, outcome: [failed, completed]}", "then"),
        ("{result: d, outcome: failed}", "else"),
        ("{result: d, state: completed}", "then"),
        ("{result: d, state: [working, failed]}", "else"),
        // text parts joined with a blank line
        ("{result: d, text: \"hello\\n\\nworld\"}", "then"),
        ("{result: d, text: hello}", "else"),
        ("{result: d, text: {contains: \"o\\n\\nw\"}}", "then"),
        // data parts shallow-merged, later wins
        ("{result: d, data: {a: 3}}", "then"),
        ("{result: d, data: {a: 1}}", "else"),
        ("{result: d, data: {b.c.1: y}}", "then"),
        ("{result: d, data: {/b/c/0: x}}", "then"),
        (
            "{result: d, outcome: completed, data: {a: {gte: 3}}, text: {contains: world}}",
            "then",
        ),
    ];
    for (cond, want) in rows {
        assert_eq!(decide_on_result(q, "", cond), want, "{cond}");
    }
}

#[test]
fn outcome_and_state_take_both_spellings_of_the_pause_states() {
    let q = "[working, {input_required: hm}]";
    let rows = [
        ("{result: d, outcome: input_required}", "then"),
        ("{result: d, outcome: input-required}", "then"),
        (
            "{result: d, outcome: [auth_required, input_required]}",
            "then",
        ),
        // The child's state when evaluated: canceled after the clean-up.
        ("{result: d, state: canceled}", "then"),
        ("{result: d, state: input_required}", "else"),
    ];
    for (cond, want) in rows {
        assert_eq!(decide_on_result(q, "", cond), want, "{cond}");
    }
}

#[test]
fn a_result_whose_step_did_not_run_is_an_absent_subject() {
    let v = run(
        &[
            agent(
                "p",
                "[working, {when: {input: {}, text: never}, then: [{delegate: {to: q, text: x, as: d}}]}, {when: {result: d, outcome: completed}, then: [failed]}, {when: {not: {result: d, outcome: completed}}, then: [{message: absent}]}, {when: {result: d, data: {a: {exists: false}}}, then: [{completed: exists false}]}]",
            ),
            agent("q", "[working, completed]"),
        ],
        &send("p"),
    );
    assert_eq!(last_message(&v, 1), "exists false");
    assert_eq!(
        decisions(&v, 1)
            .iter()
            .map(|d| d.1.as_str())
            .collect::<Vec<_>>(),
        ["else", "else", "then", "then"]
    );
}

#[test]
fn conditions_on_a_group_outcome_completed_and_size() {
    let v = |cond: &str| {
        let v = run(
            &[
                agent(
                    "p",
                    &format!(
                        "[working, {{fan_out: {{to: [a, b, secret, a], text: q, as: g, on_error: continue}}}}, {{when: {cond}, then: [{{completed: then}}], else: [{{completed: else}}]}}]"
                    ),
                ),
                agent("a", "[working, completed]"),
                agent("b", "[working, failed]"),
                secret(),
            ],
            &send("p"),
        );
        last_message(&v, 1)
    };
    let rows = [
        ("{result: g, outcome: failed}", "then"),
        ("{result: g, outcome: completed}", "else"),
        // size counts every member, denied ones included
        ("{result: g, size: 4}", "then"),
        ("{result: g, size: 3}", "else"),
        ("{result: g, completed: 2}", "then"),
        ("{result: g, completed: {gte: 2}, size: {lt: 5}}", "then"),
        ("{result: g, completed: {gt: 2}}", "else"),
        ("{result: g, completed: {in: [1, 2]}}", "then"),
        ("{result: g, completed: {ne: 2}}", "else"),
    ];
    for (cond, want) in rows {
        assert_eq!(v(cond), want, "{cond}");
    }
}

#[test]
fn reply_subject_sees_driver_scripted_and_forwarded_replies() {
    // In a paused task, and in a working one.
    let check = "{when: {reply: {}, text: SDN, data: {k: 1}}, then: [working, {completed: saw it}], else: [failed]}";
    let working_check =
        "{when: {reply: {}, text: SDN, data: {k: 1}}, then: [{completed: saw it}], else: [failed]}";
    // A driver reply.
    let v = run(
        &[agent("a", &format!("[working, input_required, {check}]"))],
        &format!(
            "{}  - reply: {{caller: user, task: a, text: SDN, data: {{k: 1}}}}\n",
            send("a")
        ),
    );
    assert_eq!(last_message(&v, 1), "saw it");
    // A scripted reply.
    let v = run(
        &[
            agent(
                "p",
                "[working, {delegate: {to: q, text: x, replies: [{text: SDN, data: {k: 1}}]}}, completed]",
            ),
            agent("q", &format!("[working, input_required, {check}]")),
        ],
        &send("p"),
    );
    assert_eq!(last_message(&v, 2), "saw it");
    // A forwarded reply, and the escalated parent's own reply subject.
    let v = run(
        &[
            agent(
                "p",
                &format!(
                    "[working, {{delegate: {{to: q, text: x, on_pause: escalate}}}}, {working_check}]"
                ),
            ),
            agent("q", &format!("[working, input_required, {check}]")),
        ],
        &format!(
            "{}  - reply: {{caller: user, task: p, text: SDN, data: {{k: 1}}}}\n",
            send("p")
        ),
    );
    assert_eq!(last_message(&v, 2), "saw it");
    assert_eq!(last_message(&v, 1), "saw it");
}

#[test]
fn the_reply_subject_is_the_latest_reply() {
    let v = run(
        &[agent(
            "a",
            "[working, input_required, working, input_required, {when: {reply: {}, text: second}, then: [working, {completed: latest}], else: [failed]}]",
        )],
        &format!(
            "{}  - reply: {{caller: user, task: a, text: first}}\n  - reply: {{caller: user, task: a, text: second}}\n",
            send("a")
        ),
    );
    assert_eq!(last_message(&v, 1), "latest");
}

#[test]
fn after_the_chosen_branch_the_script_goes_on_after_the_when_and_branches_nest() {
    let v = run(
        &[agent(
            "p",
            "[working, {when: {input: {}, text: go}, then: [{message: outer-then}, {when: {input: {}, text: no}, then: [{message: inner-then}], else: [{message: inner-else}]}], else: [{message: outer-else}]}, {completed: after}]",
        )],
        &send("p"),
    );
    assert_eq!(texts(&v, 1), ["go", "outer-then", "inner-else", "after"]);
}

#[test]
fn handler_step_numbering_is_pre_order() {
    // 1 working; 2 when; 3 then: when; 4 its then; 5 its else; 6 outer else; 7 when; 8 its then.
    let script = "[working, {when: {input: {}, text: go}, then: [{when: {input: {}, text: no}, then: [{message: a}], else: [{message: b}]}], else: [{message: c}]}, {when: {input: {}, text: go}, then: [working]}]";
    let v = run(&[agent("p", script)], &send("p"));
    assert_eq!(
        decisions(&v, 1),
        [
            (2, "then".to_string(), 2),
            (3, "else".to_string(), 2),
            (7, "then".to_string(), 2)
        ]
    );
    // Error messages count the same way: working -> working at handler step 8.
    assert_eq!(errors(&v), [(1, "illegal_transition".to_string())]);
    let detail = v["errors"][0]["detail"].as_str().unwrap();
    assert!(detail.contains("handler step 8"), "{detail}");
    assert!(last_message(&v, 1).contains("handler step 8"));
}

#[test]
fn decisions_are_listed_in_order_right_after_history() {
    let y = yaml(
        &[agent(
            "p",
            "[working, {when: {input: {}, text: go}, then: [{message: m}]}, {when: {input: {}, text: no}, then: [failed]}]",
        )],
        &send("p"),
    );
    let text = report(&load(&y));
    let h = text.find("\"history\"").unwrap();
    let d = text.find("\"decisions\"").unwrap();
    let m = text.find("\"messages\"").unwrap();
    assert!(h < d && d < m);
    let v: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        task(&v, 1)["decisions"],
        json!([
            {"handler_step": 2, "branch": "then", "tick": 2},
            {"handler_step": 4, "branch": "else", "tick": 2}
        ])
    );
    // handler_incomplete: the script ended in working.
    assert_eq!(errors(&v), [(1, "handler_incomplete".to_string())]);
}

#[test]
fn a_false_condition_without_else_records_else() {
    let v = run(
        &[agent(
            "p",
            "[working, {when: {input: {}, text: no}, then: [failed]}, completed]",
        )],
        &send("p"),
    );
    assert_eq!(decisions(&v, 1), [(2, "else".to_string(), 2)]);
    assert_eq!(hist(&v, 1), "1 submitted, 2 working, 3 completed");
}

#[test]
fn a_task_without_a_when_lists_no_decisions() {
    let v = run(&[agent("p", "[working, completed]")], &send("p"));
    assert!(task(&v, 1).get("decisions").is_none());
    assert!(task(&v, 1).get("attempt").is_none());
}

#[test]
fn load_time_checks_on_conditions() {
    // Rows: the `when` step, something the error must say.
    let rows = [
        // a result names an `as` defined earlier in the same handler
        (
            "{when: {result: later, outcome: completed}, then: [completed]}, {delegate: {to: q, text: x, as: later}}",
            "later",
        ),
        (
            "{when: {result: nowhere, outcome: completed}, then: [completed]}",
            "nowhere",
        ),
        // operators are checked
        (
            "{when: {input: {}, data: {a: {gt: x}}}, then: [completed]}",
            "gt",
        ),
        (
            "{when: {input: {}, data: {a: {in: 3}}}, then: [completed]}",
            "in",
        ),
        (
            "{when: {input: {}, data: {a: {exists: maybe}}}, then: [completed]}",
            "exists",
        ),
        // outcome and state take words, not operators
        (
            "{when: {result: d, outcome: {in: [completed]}}, then: [completed]}",
            "outcome",
        ),
        (
            "{when: {result: d, outcome: finished}, then: [completed]}",
            "finished",
        ),
        (
            "{when: {result: d, state: timeout}, then: [completed]}",
            "timeout",
        ),
        // paths are checked
        (
            "{when: {input: {}, data: {/a~2: 1}}, then: [completed]}",
            "a~2",
        ),
        // exactly one subject
        ("{when: {text: go}, then: [completed]}", "subject"),
        (
            "{when: {input: {}, reply: {}, text: go}, then: [completed]}",
            "subject",
        ),
        // a group has no text, a delegation no size
        ("{when: {result: d, size: 1}, then: [completed]}", "size"),
    ];
    for (when, says) in rows {
        let y = yaml(
            &[
                agent(
                    "p",
                    &format!("[working, {{delegate: {{to: q, text: x, as: d}}}}, {when}]"),
                ),
                agent("q", "[working, completed]"),
            ],
            &send("p"),
        );
        let err = match loader_result(&y) {
            Ok(()) => panic!("loads but should not: {when}"),
            Err(e) => e,
        };
        assert!(err.contains(says), "{when}: {err}");
        // Positions point into the handler (line 3 of the file holds agent p).
        assert!(err.contains("test.yaml:3:"), "{when}: {err}");
    }
}

fn loader_result(y: &str) -> Result<(), String> {
    a2a_sim::scenario::loader::load_str("test.yaml", y, std::path::Path::new("."), "t".into())
        .map(|_| ())
        .map_err(|e| e.to_string())
}

// ---------------------------------------------------------------------------------------------
// §5 Cancel reaches the whole subtree

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

// ---------------------------------------------------------------------------------------------
// §6 Results into artifacts

#[test]
fn artifact_from_a_single_result() {
    let v = run(
        &[
            agent(
                "p",
                "[working, {delegate: {to: q, text: x, as: d}}, {artifact: {name: summary, from: d}}, completed]",
            ),
            agent(
                "q",
                "[working, {artifact: {text: one, data: {a: 1, b: 1}}}, {artifact: {text: two, data: {b: 2}}}, completed]",
            ),
        ],
        &send("p"),
    );
    assert_eq!(
        task(&v, 1)["artifacts"],
        json!([{"artifact_id": "artifact-3", "name": "summary", "text": "one\n\ntwo", "data": {"a": 1, "b": 2}}])
    );
}

#[test]
fn artifact_from_a_group_is_its_completed_children_in_creation_order() {
    let v = run(
        &[
            agent(
                "p",
                "[working, {fan_out: {to: [a, f, b], text: q, as: g, on_error: continue}}, {artifact: {from: g}}, completed]",
            ),
            agent(
                "a",
                "[working, {wait: 5}, {artifact: {text: A, data: {k: a, x: 1}}}, completed]",
            ),
            agent(
                "f",
                "[working, {artifact: {text: F, data: {f: 1}}}, failed]",
            ),
            agent(
                "b",
                "[working, {artifact: {text: B, data: {k: b}}}, completed]",
            ),
        ],
        &send("p"),
    );
    let arts = task(&v, 1)["artifacts"].as_array().unwrap();
    assert_eq!(arts.len(), 1);
    // b completed before a; the order is still creation order, the failed child is left out.
    assert_eq!(arts[0]["text"], "A\n\nB");
    assert_eq!(arts[0]["data"], json!({"k": "b", "x": 1}));
}

#[test]
fn artifact_from_several_names_in_order() {
    let v = run(
        &[
            agent(
                "p",
                "[working, {delegate: {to: q, text: x, as: d1}}, {delegate: {to: r, text: x, as: d2}}, {artifact: {from: [d2, d1]}}, completed]",
            ),
            agent(
                "q",
                "[working, {artifact: {text: Q, data: {k: q}}}, completed]",
            ),
            agent(
                "r",
                "[working, {artifact: {text: R, data: {k: r, r: 1}}}, completed]",
            ),
        ],
        &send("p"),
    );
    let art = &task(&v, 1)["artifacts"][0];
    assert_eq!(art["text"], "R\n\nQ");
    assert_eq!(art["data"], json!({"k": "q", "r": 1}));
}

#[test]
fn a_single_result_gives_its_last_attempts_parts_whatever_its_outcome() {
    let v = run(
        &[
            agent(
                "p",
                "[working, {delegate: {to: q, text: x, as: d, on_error: continue, retry: {attempts: 2, backoff: 0}}}, {artifact: {from: d}}, completed]",
            ),
            agent("q", "[working, {artifact: {text: partial}}, failed]"),
        ],
        &send("p"),
    );
    let arts = task(&v, 1)["artifacts"].as_array().unwrap();
    assert_eq!(arts.len(), 1);
    assert_eq!(arts[0]["text"], "partial");
    // Artifact ids: attempt 1's is 1, attempt 2's is 2, the merge's 3.
    assert_eq!(arts[0]["artifact_id"], "artifact-3");
    assert_eq!(task(&v, 3)["artifacts"][0]["artifact_id"], "artifact-2");
}

#[test]
fn an_empty_merge_draws_no_artifact_id() {
    let v = run(
        &[
            agent(
                "p",
                "[working, {delegate: {to: q, text: x, as: d}}, {artifact: {from: d}}, {artifact: {text: mine}}, completed]",
            ),
            agent("q", "[working, completed]"),
        ],
        &send("p"),
    );
    assert_eq!(
        task(&v, 1)["artifacts"],
        json!([{"artifact_id": "artifact-1", "text": "mine"}])
    );
}

#[test]
fn artifact_from_excludes_text_and_data() {
    for extra in [", text: t", ", data: {a: 1}"] {
        let y = yaml(
            &[
                agent(
                    "p",
                    &format!(
                        "[working, {{delegate: {{to: q, text: x, as: d}}}}, {{artifact: {{from: d{extra}}}}}, completed]"
                    ),
                ),
                agent("q", "[working, completed]"),
            ],
            &send("p"),
        );
        let err = load_err(&y);
        assert!(err.contains("from"), "{err}");
    }
}

// ---------------------------------------------------------------------------------------------
// §6 Expectations on anything

fn paths_scenario(expectation: &str) -> String {
    let agents = [
        agent(
            "orch",
            "[working, {fan_out: {to: [r1, r2, secret, {discover: [nothing]}], text: q, as: researchers, on_error: continue}}, {delegate: {to: pay, text: p, as: pay}}, completed]",
        ),
        agent("r1", "[working, {artifact: {text: one}}, completed]"),
        agent("r2", "[working, {artifact: {text: two}}, completed]"),
        agent(
            "pay",
            "[working, {delegate: {to: screener, text: s, as: screen}}, completed]",
        ),
        agent(
            "screener",
            "[working, {artifact: {text: clear, data: {score: 0.2, hits: [a, b]}}}, completed]",
        ),
        secret(),
    ];
    let steps = format!(
        "{}{}  - send: {{caller: user, to: secret, text: go, as: s}}\n  - send: {{caller: user, to: {{discover: [nothing]}}, text: go, as: n}}\n  - discover: {{caller: user, tags: [r1]}}\n",
        send("orch"),
        send("pay")
    );
    format!("{}expect:\n  - {expectation}\n", yaml(&agents, &steps))
}

/// Rows: an expectation, whether it holds.
const EXPECTATIONS: &[(&str, bool)] = &[
    ("{task: pay/screen, state: completed}", true),
    ("{task: pay/screen, state: failed}", false),
    ("{task: pay/screen, state: [failed, completed]}", true),
    ("{task: pay/screen, delegation_chain: [user, pay]}", true),
    ("{task: pay/screen, delegation_chain: [user]}", false),
    (
        "{task: pay/screen, history: [submitted, working, completed]}",
        true,
    ),
    ("{task: pay/screen, history: [submitted, completed]}", false),
    ("{task: pay/screen, outcome: completed}", true),
    ("{task: pay/screen, outcome: [failed, timeout]}", false),
    ("{task: pay/screen, text: clear}", true),
    ("{task: pay/screen, text: {contains: lea}}", true),
    ("{task: pay/screen, text: cleared}", false),
    (
        "{task: pay/screen, data: {score: {lt: 0.5}, hits.1: b, /hits/0: a}}",
        true,
    ),
    ("{task: pay/screen, data: {score: {gt: 0.5}}}", false),
    ("{task: pay/screen, attempt: 1}", true),
    ("{task: pay/screen, attempt: 2}", false),
    (
        "{task: orch/pay/screen, delegation_chain: [user, orch, pay]}",
        true,
    ),
    ("{task: orch/pay, state: completed}", true),
    ("{task: orch/researchers, outcome: failed}", true),
    ("{task: orch/researchers/1, text: one}", true),
    ("{task: orch/researchers/2, text: two}", true),
    (
        "{task: orch/researchers/2, delegation_chain: [user, orch]}",
        true,
    ),
    ("{task: orch/researchers/3, outcome: denied}", true),
    // every test other than outcome needs the task
    ("{task: orch/researchers/3, state: completed}", false),
    ("{task: orch/researchers/3, history: [submitted]}", false),
    ("{task: orch/researchers/4, outcome: no_candidate}", true),
    ("{task: orch/researchers/4, text: \"\"}", false),
    ("{denied: orch/researchers/3, codes: [scope]}", true),
    ("{denied: orch/researchers/3, codes: []}", false),
    // top-level aliases: the send's outcome
    ("{task: pay, outcome: completed}", true),
    ("{task: s, outcome: denied}", true),
    ("{task: s, state: completed}", false),
    ("{task: n, outcome: no_candidate}", true),
    ("{task: n, outcome: denied}", false),
    ("{ranking: 5, agents: [r1]}", true),
    ("{ranking: 5, agents: [r2]}", false),
];

#[test]
fn expectations_on_task_paths_and_every_test() {
    let mut wrong = Vec::new();
    for (e, holds) in EXPECTATIONS {
        let y = paths_scenario(e);
        let u = match loader_result(&y) {
            Ok(()) => unmet(&y),
            Err(err) => {
                wrong.push(format!("{e}: does not load: {err}"));
                continue;
            }
        };
        if u.is_empty() != *holds {
            wrong.push(format!("{e}: want holds={holds}, unmet {u:?}"));
        }
    }
    assert!(wrong.is_empty(), "\n{}", wrong.join("\n"));
}

#[test]
fn golden_false_is_checked_on_its_expectations_alone() {
    let dir = std::env::temp_dir().join(format!("a2a-sim-behaviour-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let write = |name: &str, text: String| -> PathBuf {
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        p
    };
    let base = yaml(&[agent("a", "[working, completed]")], &send("a"));
    let ok = write(
        "ok.yaml",
        format!("golden: false\n{base}expect:\n  - {{task: a, state: completed}}\n"),
    );
    let o = golden::test_one(&ok, false);
    assert!(o.passed(), "{o:?}");
    assert!(!o.missing_golden);
    assert!(
        !golden::golden_path(&ok).exists(),
        "no golden is written or needed"
    );
    let bad = write(
        "bad.yaml",
        format!("golden: false\n{base}expect:\n  - {{task: a, state: failed}}\n"),
    );
    let o = golden::test_one(&bad, false);
    assert!(!o.passed());
    assert_eq!(o.unmet.len(), 1, "{o:?}");
    // It needs at least one expect entry.
    let none = write("none.yaml", format!("golden: false\n{base}"));
    let o = golden::test_one(&none, false);
    assert!(o.load_error.is_some(), "{o:?}");
    // Everything else needs its golden as before.
    let plain = write(
        "plain.yaml",
        format!("{base}expect:\n  - {{task: a, state: completed}}\n"),
    );
    let o = golden::test_one(&plain, false);
    assert!(o.missing_golden && !o.passed(), "{o:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

// ---------------------------------------------------------------------------------------------
// Determinism and compatibility

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

#[test]
fn a_condition_load_error_points_at_the_offending_key() {
    let y = r#"agents:
  - name: p
    tenant: t
    clearance: public
    skills: [{id: p, tags: [p]}]
    handler:
      - working
      - when:
          input: {}
          outcome: completed
        then: [completed]
callers:
  - {id: user, tenant: t, classification: public}
steps:
  - send: {caller: user, to: p, text: go}
"#;
    let err = loader_result(y).unwrap_err();
    // `outcome` is not a test of `input`: the key is at line 10, column 11.
    assert!(err.contains("test.yaml:10:11:"), "{err}");
}

#[test]
fn stream_blocks_like_send_and_ends_at_the_escalated_pause() {
    let v = run(
        &[
            agent(
                "p",
                "[working, {delegate: {to: q, text: x, on_pause: escalate}}, completed]",
            ),
            agent("q", "[working, {input_required: hm}, working, completed]"),
        ],
        "  - stream: {caller: user, to: p, text: go}\n",
    );
    let r = step_result(&v, 1);
    assert_eq!(r["state"], "input-required");
    let events: Vec<(String, String)> = r["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["event"].as_str().unwrap().to_string(),
                e["state"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let want = [
        ("task", "submitted"),
        ("status", "working"),
        ("status", "input-required"),
        ("task", "input-required"),
    ]
    .map(|(a, b)| (a.to_string(), b.to_string()));
    assert_eq!(events, want);
    assert_eq!(r["events"][2]["tick"], 6);
    assert_eq!(r["events"][2]["message"], "hm");
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
fn a_non_blocking_sends_call_ends_when_the_task_is_created() {
    use a2a_sim::engine::record::EventKind;
    let text = yaml(
        &[agent("a", "[working, {message: note}, completed]")],
        &send_ri("a"),
    );
    let s = load(&text);
    let w = world::run(&s);
    assert_eq!(w.tasks[0].state.as_str(), "completed");
    // The send's response is the submitted task: its call holds the opening and closing
    // snapshots only; what the handler did later is in the task, not in that response.
    let events: Vec<_> = w.call_events(0).map(|e| w.event_kind(e)).collect();
    assert_eq!(events.len(), 2, "{events:?}");
    assert!(
        events
            .iter()
            .all(|k| matches!(k, EventKind::Task { history: 1, .. }))
    );
}
