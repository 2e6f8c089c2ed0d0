//! Engine corners: small reproductions of scheduling orders the engine once got wrong, each
//! pinned with the exact ticks the behaviour pages give (behaviour.md §1–§3 and §8, faults.md §1).

use a2a_sim::engine::World;
use serde_json::{Value, json};

use crate::common::read::{hist, task, texts};
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
// A wake replaces a queued turn (behaviour.md §1, faults.md §1 `slow`)

/// The child pauses at 6 and its timer cancels it at 7 before the scripted reply's turn: the
/// retry's backoff (5) then counts from 7, so attempt 2 is created at 13, not at 8.
#[test]
fn a_retry_backoff_replaces_the_turn_a_paused_child_had_queued() {
    let v = scenario(
        &[
            agent(
                "p",
                "[working, {delegate: {to: c, text: go, timeout: 3, retry: {attempts: 2, backoff: 5}, replies: [{text: ok}]}}, completed]",
            ),
            agent(
                "c",
                "[working, {wait: 1}, {input_required: which list?}, completed]",
            ),
        ],
        "  - send: {caller: u, to: p, text: hi, as: t}\n",
        "",
    );
    assert_eq!(
        hist(&v, 2),
        "3 submitted, 4 working, 6 input-required, 7 canceled"
    );
    assert_eq!(
        hist(&v, 3),
        "13 submitted, 14 working, 16 input-required, 17 canceled"
    );
    assert_eq!(task(&v, 3)["attempt"], 2);
    assert_eq!(hist(&v, 1), "1 submitted, 2 working, 18 failed");
    // The timers won every time: no scripted reply was ever given.
    assert!(!texts(&v, 2).contains(&"ok".to_string()));
    assert!(!texts(&v, 3).contains(&"ok".to_string()));
}

/// A `slow` parent: its child pauses at 5 (wake at 5 + 3), then crashes at 6 (wake at 6 + 3).
/// The second wake replaces the first, so the parent completes at 10, not 9.
#[test]
fn a_second_wake_of_a_slow_task_replaces_its_queued_turn() {
    let v = scenario(
        &[
            agent(
                "p",
                "[working, {delegate: {to: c, text: go, on_pause: escalate, on_error: continue}}, completed]",
            ),
            agent("c", "[working, {input_required: which list?}, completed]"),
        ],
        "  - send: {caller: u, to: p, text: hi, as: t}\n",
        "  - {agent: p, slow: {extra: 3, from: 4}}\n  - {agent: c, crash: {at: 5}}\n",
    );
    assert_eq!(
        hist(&v, 2),
        "3 submitted, 4 working, 5 input-required, 6 failed"
    );
    assert_eq!(hist(&v, 1), "1 submitted, 2 working, 10 completed");
    assert_eq!(v["steps"][0]["result"]["state"], "completed");
}

/// A replacing wake may come earlier than the turn it replaces: the child pauses at 5 inside a
/// `slow` window (wake at 5 + 1000), then crashes (wake at 6, after the window). The turn left
/// behind for 1005 is stale: it neither runs the task's next step nor moves the clock, so the
/// handler's `wait: 2000` ends at 2006.
#[test]
fn a_replaced_turn_left_in_the_queue_is_dropped_when_it_comes_up() {
    let v = scenario(
        &[
            agent(
                "p",
                "[working, {delegate: {to: c, text: go, on_pause: escalate, on_error: continue}}, {wait: 2000}, completed]",
            ),
            agent("c", "[working, {input_required: which list?}, completed]"),
        ],
        "  - send: {caller: u, to: p, text: hi, as: t}\n",
        "  - {agent: p, slow: {extra: 1000, from: 4, to: 6}}\n  - {agent: c, crash: {at: 5}}\n",
    );
    assert_eq!(
        hist(&v, 2),
        "3 submitted, 4 working, 5 input-required, 6 failed"
    );
    assert_eq!(hist(&v, 1), "1 submitted, 2 working, 2007 completed");
}

/// What a server session waits for is the next live activity: the replaced turn left for 1005
/// is not (a server would otherwise sleep until then for nothing, and then the whole way again).
#[test]
fn a_server_session_waits_for_live_work_not_for_a_replaced_turn() {
    let s = load(
        "agents:\n\
         - {name: p, tenant: acme, clearance: internal, skills: [{id: s, tags: [p]}], handler: [working, {delegate: {to: c, text: go, on_pause: escalate, on_error: continue}}, {wait: 2000}, completed]}\n\
         - {name: c, tenant: acme, clearance: internal, skills: [{id: s, tags: [c]}], handler: [working, {input_required: which list?}, completed]}\n\
         callers: [{id: u, tenant: acme, classification: public}]\n\
         steps: [{send: {caller: u, to: p, text: hi, as: t, return_immediately: true}}]\n\
         faults:\n\
         - {agent: p, slow: {extra: 1000, from: 4, to: 6}}\n\
         - {agent: c, crash: {at: 5}}\n",
    );
    let mut world = World::new(&s);
    world.serve_step(&s.steps[0]);
    assert_eq!(world.next_due(), Some(1));
    world.advance_to(6);
    // `p` took the crash's outcome at 6 and waits until 2006; its turn for 1005 was replaced.
    assert_eq!(world.clock(), 6);
    assert_eq!(world.next_due(), Some(2006));
    world.finish();
    assert_eq!(history(&world, 0).last(), Some(&(2007, "completed")));
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
