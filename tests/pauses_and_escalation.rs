//! A child that pauses (behaviour.md §3): `on_pause: cancel`, scripted replies, and escalation to
//! the parent, its forwarded reply and the timers that run meanwhile.

use serde_json::json;

use crate::common::{
    build::{agent, run, send, send_ri},
    read::{errors, hist, last_message, step_result, task, texts},
};

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
