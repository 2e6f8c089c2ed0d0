//! Faults that pick requests by number (`calls: [K, ...]`) instead of a tick window, and the wire
//! faults `http_error`, `reset` and `drop_stream` as a run in process meets them: which requests
//! are counted, that the pick does not move when the ticks do, `slow` on the task a call opened,
//! the load errors (located), the table report's rows, and `explore`'s printing and shrinking of
//! call-picked faults.

use a2a_sim::engine;
use a2a_sim::engine::scenario::{Fault, FaultKind, FaultTarget, Window};
use a2a_sim::testing::check::{Rule, check};
use a2a_sim::testing::explore::{Found, human, json_line, schedule};
use a2a_sim::testing::schedule::{fault_json, fault_yaml};
use a2a_sim::testing::shrink::shrink;
use serde_json::{Value, json};

use crate::common::binary::{a2a_sim_in, scratch, write};
use crate::common::one_agent_with_faults as scenario;
use crate::common::{error_codes, load, load_err, one_agent, report_value};

mod explore;
mod loading;
mod table;

const SCREENER: &str = "[working: Screening, completed: Done]";
const PAUSES: &str =
    "[working: Screening, input_required: Which list?, working: Checking, completed: Done]";

fn send(alias: &str) -> String {
    format!("  - send: {{caller: orchestrator, to: screener, text: Screen {alias}, as: {alias}}}")
}

/// The steps (1-based) whose request a fault refused, in order.
fn refused_steps(report: &Value) -> Vec<u64> {
    report["errors"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["code"] == "agent_unavailable")
        .map(|e| e["step"].as_u64().unwrap())
        .collect()
}

/// Each task's history as `(tick, state)`, from the JSON report.
fn ticks(report: &Value) -> Vec<Vec<(u64, String)>> {
    report["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            t["history"]
                .as_array()
                .unwrap()
                .iter()
                .map(|h| {
                    (
                        h["tick"].as_u64().unwrap(),
                        h["state"].as_str().unwrap().to_string(),
                    )
                })
                .collect()
        })
        .collect()
}

fn error_details(report: &Value) -> Vec<String> {
    report["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["detail"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn calls_picks_the_kth_request_whatever_the_tick() {
    // Waits before the second and third sends move every tick; the second request stays the one
    // refused.
    for (before_b, before_c) in [(0, 0), (3, 0), (0, 9), (5, 20), (40, 1)] {
        let mut steps = vec![send("a")];
        if before_b > 0 {
            steps.push(format!("  - wait: {before_b}"));
        }
        let b = steps.len() as u64 + 1;
        steps.push(send("b"));
        if before_c > 0 {
            steps.push(format!("  - wait: {before_c}"));
        }
        steps.push(send("c"));
        let y = scenario(
            SCREENER,
            "  - {agent: screener, unavailable: {calls: [2]}}",
            &steps.join("\n"),
        );
        let s = load(&y);
        let w = engine::run(&s);
        assert_eq!(
            error_codes(&w),
            ["agent_unavailable"],
            "waits {before_b}, {before_c}"
        );
        assert_eq!(w.tasks.len(), 2, "a and c created tasks");
        let r = report_value(&y);
        assert_eq!(refused_steps(&r), [b], "waits {before_b}, {before_c}");
        assert_eq!(r["steps"][b as usize - 1]["result"], json!({}));
        let texts: Vec<String> = w
            .tasks
            .iter()
            .map(|t| t.messages[0].text.to_string())
            .collect();
        assert_eq!(texts, ["Screen a", "Screen c"]);
    }
}

#[test]
fn a_window_moves_with_the_ticks_where_calls_do_not() {
    // a completes at 3; the wait adds `gap`; b is judged at 3 + gap and c three ticks later. The
    // window [7, 8) refuses whichever send is judged at 7, so the wait moves the refusal; the
    // second request stays the second.
    let steps = |gap: u64| [send("a"), format!("  - wait: {gap}"), send("b"), send("c")].join("\n");
    let refused = |faults: &str, gap: u64| {
        refused_steps(&report_value(&scenario(SCREENER, faults, &steps(gap))))
    };
    let window = "  - {agent: screener, unavailable: {from: 7, to: 8}}";
    let calls = "  - {agent: screener, unavailable: {calls: [2]}}";
    assert_eq!(refused(window, 1), [4]);
    // A refused send takes no tick: c is judged at 7 too.
    assert_eq!(refused(window, 4), [3, 4]);
    assert_eq!(refused(window, 20), Vec::<u64>::new());
    for gap in [1, 4, 20] {
        assert_eq!(refused(calls, gap), [3], "gap {gap}");
    }
}

#[test]
fn every_kind_of_request_to_the_agent_counts() {
    // 1 send, 2 get, 3 set_push_config, 4 reply, 5 send, 6 cancel: each a request to the screener.
    let steps = [
        send("a"),
        "  - get: {caller: orchestrator, task: a}".to_string(),
        "  - set_push_config: {caller: orchestrator, task: a, url: \"https://hooks.acme.example/a\", token: k}".to_string(),
        "  - reply: {caller: orchestrator, task: a, text: The EU list}".to_string(),
        send("b"),
        "  - cancel: {caller: orchestrator, task: b}".to_string(),
    ]
    .join("\n");
    for k in 1..=6u64 {
        let y = scenario(
            PAUSES,
            &format!("  - {{agent: screener, unavailable: {{calls: [{k}]}}}}"),
            &steps,
        );
        let r = report_value(&y);
        assert_eq!(refused_steps(&r), [k], "calls [{k}]: {}", r["errors"]);
        // A refused send makes no task: the later steps that name it are `task_not_found`, and
        // are not requests counted (k = 1: get, config and reply of a; k = 5: cancel of b).
        let codes: Vec<&str> = r["errors"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["code"].as_str().unwrap())
            .collect();
        let not_found = match k {
            1 => 3,
            5 => 1,
            _ => 0,
        };
        let mut want = vec!["agent_unavailable"];
        want.extend(std::iter::repeat_n("task_not_found", not_found));
        assert_eq!(codes, want, "calls [{k}]");
    }
    // The same request refused by number on a get: its step shows nothing.
    let y = scenario(
        SCREENER,
        "  - {agent: screener, unavailable: {calls: [2]}}",
        &[
            send("a"),
            "  - get: {caller: orchestrator, task: a}".into(),
            send("b"),
        ]
        .join("\n"),
    );
    let r = report_value(&y);
    assert_eq!(refused_steps(&r), [2]);
    assert_eq!(r["steps"][1]["result"], json!({}));
    assert_eq!(
        r["tasks"].as_array().unwrap().len(),
        2,
        "both sends made tasks"
    );
}

#[test]
fn a_denied_request_counts_and_discovery_and_unseen_tasks_do_not() {
    // A denied send reached the agent (the fault check comes before admission); a get of a task
    // the caller may not see is `task_not_found` before the fault check; discovery and the
    // admission matrix ask no agent anything.
    let y = r#"
agents:
  - {name: screener, tenant: acme, clearance: confidential, skills: [{id: screen, tags: [sanctions]}], handler: [working, completed]}
callers:
  - {id: orchestrator, tenant: acme, classification: internal}
  - {id: intruder, tenant: acme, classification: internal}
  - {id: outsider, tenant: globex, classification: internal}
steps:
  - send: {caller: outsider, to: screener, text: One}
  - discover: {caller: orchestrator, tags: [sanctions]}
  - matrix: {callers: [orchestrator], agents: [screener]}
  - send: {caller: orchestrator, to: screener, text: Two, as: two}
  - get: {caller: intruder, task: two}
  - get: {caller: orchestrator, task: two}
faults:
  - {agent: screener, unavailable: {calls: [3]}}
"#;
    let r = report_value(y);
    assert_eq!(
        r["denials"].as_array().unwrap().len(),
        1,
        "{}",
        r["denials"]
    );
    assert_eq!(r["tasks"].as_array().unwrap().len(), 1);
    // Calls: 1 the denied send, 2 the orchestrator's send, 3 its get (the intruder's is none).
    assert_eq!(refused_steps(&r), [6]);
    let codes: Vec<&str> = r["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["code"].as_str().unwrap())
        .collect();
    assert_eq!(codes, ["task_not_found", "agent_unavailable"]);
}

/// Payments delegates to the screener with up to three attempts, backoff 2.
fn delegating(retry: &str, faults: &str) -> String {
    format!(
        r#"
agents:
  - name: payments
    tenant: acme
    clearance: confidential
    skills: [{{id: pay, tags: [payments]}}]
    handler:
      - working: Screening first
      - delegate: {{to: screener, text: Screen, as: screen{retry}}}
      - completed: Paid
  - name: screener
    tenant: acme
    clearance: confidential
    skills: [{{id: screen, tags: [sanctions]}}]
    handler: [working: Screening, completed: Done]
callers:
  - {{id: orchestrator, tenant: acme, classification: internal}}
steps:
  - send: {{caller: orchestrator, to: payments, text: Pay, as: pay}}
  - send: {{caller: orchestrator, to: payments, text: Pay again, as: again}}
faults:
{faults}
"#
    )
}

const RETRY: &str = ", retry: {attempts: 3, backoff: 2}";

#[test]
fn each_delegation_attempt_is_a_request_retries_included() {
    // calls [1]: the first attempt is refused, the retry (request 2) answered.
    let y = delegating(RETRY, "  - {agent: screener, unavailable: {calls: [1]}}");
    let s = load(&y);
    let w = engine::run(&s);
    assert_eq!(error_codes(&w), ["agent_unavailable"]);
    let detail = &w.errors[0].detail;
    assert!(
        detail.contains("`screener` is unavailable at tick 2: the request from `payments`"),
        "{detail}"
    );
    let child = &w.tasks[1];
    assert_eq!(child.agent(), 1);
    assert_eq!(child.attempt, 2, "the retry made the task");
    assert_eq!(w.tasks[0].state.as_str(), "completed");
    // The second payment's delegation is request 3: answered at its first attempt.
    assert_eq!(w.tasks.len(), 4);
    assert_eq!(w.tasks[3].attempt, 1);
    assert!(w.tasks.iter().all(|t| t.state.as_str() == "completed"));

    // calls [1, 2]: the third attempt; calls [1, 2, 3]: every attempt of the first payment,
    // which fails with the outcome `unavailable`, and the second payment's first try (request 4)
    // is answered.
    let y = delegating(RETRY, "  - {agent: screener, unavailable: {calls: [1, 2]}}");
    let s = load(&y);
    let w = engine::run(&s);
    assert_eq!(w.tasks[1].attempt, 3);
    assert_eq!(error_codes(&w).len(), 2);
    let y = format!(
        "{}expect:\n  - {{task: pay/screen, outcome: unavailable}}\n  - {{task: pay, state: failed}}\n  - {{task: again, state: completed}}\n  - {{task: again/screen, attempt: 1}}\n",
        delegating(
            RETRY,
            "  - {agent: screener, unavailable: {calls: [1, 2, 3]}}"
        )
    );
    let s = load(&y);
    let w = engine::run(&s);
    assert_eq!(a2a_sim::testing::expect::check(&w), vec![]);
    assert_eq!(error_codes(&w).len(), 3);
}

#[test]
fn requests_are_counted_per_agent() {
    // The driver's sends are payments' requests 1 and 2; the screener's request 1 is the first
    // delegation. `calls: [2]` on payments refuses the second payment, not the screening.
    let y = delegating("", "  - {agent: payments, unavailable: {calls: [2]}}");
    let r = report_value(&y);
    assert_eq!(refused_steps(&r), [2]);
    let agents: Vec<&str> = r["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["agent"].as_str().unwrap())
        .collect();
    assert_eq!(agents, ["payments", "screener"]);
    assert!(error_details(&r)[0].contains("`payments` is unavailable"));
    // On the screener, request 2 is the second payment's delegation.
    let y = format!(
        "{}expect:\n  - {{task: pay, state: completed}}\n  - {{task: again/screen, outcome: unavailable}}\n  - {{task: again, state: failed}}\n",
        delegating("", "  - {agent: screener, unavailable: {calls: [2]}}")
    );
    let s = load(&y);
    let w = engine::run(&s);
    assert_eq!(a2a_sim::testing::expect::check(&w), vec![]);
}

#[test]
fn slow_on_a_call_slows_only_the_task_that_call_opened() {
    let steps = [send("a"), send("b"), send("c")].join("\n");
    let y = scenario(
        SCREENER,
        "  - {agent: screener, slow: {extra: 5, calls: [2]}}",
        &steps,
    );
    let r = report_value(&y);
    let t = ticks(&r);
    let at = |task: usize| t[task].iter().map(|(tick, _)| *tick).collect::<Vec<_>>();
    // a: submitted 1, one tick a turn. b: every continuation waits 5 more. c: as a.
    assert_eq!(at(0), [1, 2, 3]);
    assert_eq!(at(1), [4, 10, 16]);
    assert_eq!(at(2), [17, 18, 19]);
    let states: Vec<&str> = t[1].iter().map(|(_, s)| s.as_str()).collect();
    assert_eq!(states, ["submitted", "working", "completed"]);
    // Without the fault every task takes one tick a turn.
    let plain = report_value(&one_agent(SCREENER, &steps));
    let t = ticks(&plain);
    for task in &t {
        let gaps: Vec<u64> = task.windows(2).map(|p| p[1].0 - p[0].0).collect();
        assert_eq!(gaps, [1, 1]);
    }

    // The second request a get: it opened no task, so none is slowed.
    let y = scenario(
        SCREENER,
        "  - {agent: screener, slow: {extra: 5, calls: [2]}}",
        &[
            send("a"),
            "  - get: {caller: orchestrator, task: a}".into(),
            send("b"),
        ]
        .join("\n"),
    );
    for task in ticks(&report_value(&y)) {
        let gaps: Vec<u64> = task.windows(2).map(|p| p[1].0 - p[0].0).collect();
        assert_eq!(gaps, [1, 1]);
    }
}

#[test]
fn slow_on_a_retry_slows_the_task_the_retry_opened() {
    let faults = "  - {agent: screener, unavailable: {calls: [1]}}";
    let plain = ticks(&report_value(&delegating(RETRY, faults)));
    let slowed = ticks(&report_value(&delegating(
        RETRY,
        &format!("{faults}\n  - {{agent: screener, slow: {{extra: 4, calls: [2]}}}}"),
    )));
    let gaps = |task: &Vec<(u64, String)>| -> Vec<u64> {
        task.windows(2).map(|p| p[1].0 - p[0].0).collect()
    };
    // Task 2 is the retry's child (request 2), task 4 the second payment's (request 3).
    assert_eq!(gaps(&plain[1]), [1, 1]);
    assert_eq!(gaps(&slowed[1]), [5, 5]);
    assert_eq!(plain[1][0].0, slowed[1][0].0, "submitted at the same tick");
    assert_eq!(gaps(&slowed[3]), gaps(&plain[3]));
}

#[test]
fn http_error_and_reset_refuse_a_request_in_process_saying_how() {
    for (fault, how) in [
        (
            "{agent: screener, http_error: {status: 502, calls: [1]}}",
            "`screener` answered HTTP 502 at tick 0: the request from `orchestrator` failed before the server saw it",
        ),
        (
            "{agent: screener, http_error: {status: 418, from: 0, to: 1}}",
            "`screener` answered HTTP 418 at tick 0: the request from `orchestrator` failed before the server saw it",
        ),
        (
            "{agent: screener, reset: {calls: [1]}}",
            "`screener` closed the connection without an answer at tick 0: the request from `orchestrator` failed before the server saw it",
        ),
        (
            "{agent: screener, reset: {}}",
            "`screener` closed the connection without an answer at tick 0: the request from `orchestrator` failed before the server saw it",
        ),
        (
            "{agent: screener, unavailable: {calls: [1]}}",
            "`screener` is unavailable at tick 0: the request from `orchestrator` failed before the server saw it",
        ),
    ] {
        let y = scenario(SCREENER, &format!("  - {fault}"), &send("a"));
        let s = load(&y);
        let w = engine::run(&s);
        assert!(w.tasks.is_empty(), "{fault}: no task");
        assert!(w.denials.is_empty());
        assert_eq!(error_codes(&w), ["agent_unavailable"], "{fault}");
        let r = report_value(&y);
        assert_eq!(r["steps"][0]["result"], json!({}), "{fault}");
        assert_eq!(error_details(&r), [how], "{fault}");
    }
    // The first fault in file order that holds says how.
    let y = scenario(
        SCREENER,
        "  - {agent: screener, reset: {calls: [2]}}\n  - {agent: screener, http_error: {status: 503, from: 0}}",
        &[send("a"), send("b")].join("\n"),
    );
    let details = error_details(&report_value(&y));
    assert!(details[0].contains("answered HTTP 503"), "{details:?}");
    assert!(details[1].contains("closed the connection"), "{details:?}");
}

#[test]
fn a_delegation_refused_by_http_error_or_reset_is_unavailable_and_retried() {
    for kind in [
        "http_error: {status: 500, calls: [1]}",
        "reset: {calls: [1]}",
    ] {
        // No retry: the outcome is `unavailable` and the payment fails.
        let y = format!(
            "{}expect:\n  - {{task: pay/screen, outcome: unavailable}}\n  - {{task: pay, state: failed}}\n  - {{task: again, state: completed}}\n",
            delegating("", &format!("  - {{agent: screener, {kind}}}"))
        );
        let s = load(&y);
        let w = engine::run(&s);
        assert_eq!(a2a_sim::testing::expect::check(&w), vec![], "{kind}");
        assert_eq!(error_codes(&w), ["agent_unavailable"], "{kind}");
        // A retry: the second attempt answered, as for `unavailable`.
        let y = format!(
            "{}expect:\n  - {{task: pay/screen, outcome: completed, attempt: 2}}\n  - {{task: pay, state: completed}}\n",
            delegating(RETRY, &format!("  - {{agent: screener, {kind}}}"))
        );
        let s = load(&y);
        let w = engine::run(&s);
        assert_eq!(a2a_sim::testing::expect::check(&w), vec![], "{kind}");
        assert_eq!(w.tasks[1].attempt, 2, "{kind}");
    }
}

#[test]
fn drop_stream_changes_nothing_in_process() {
    let y = r#"
agents:
  - {name: screener, tenant: acme, clearance: confidential, capabilities: {streaming: true}, skills: [{id: screen, tags: [s]}], handler: [working: Screening, artifact: {name: r, text: ok}, completed: Done]}
callers:
  - {id: orchestrator, tenant: acme, classification: internal}
steps:
  - stream: {caller: orchestrator, to: screener, text: One, as: a}
  - send: {caller: orchestrator, to: screener, text: Two, as: b}
  - stream: {caller: orchestrator, to: screener, text: Three, as: c}
"#;
    let mut plain = report_value(y);
    let faulted = format!(
        "{y}faults:\n  - {{agent: screener, drop_stream: {{after: 0}}}}\n  - {{agent: screener, drop_stream: {{after: 1, calls: [1, 2, 3]}}}}\n"
    );
    let mut with = report_value(&faulted);
    // A run with faults reports its (here no) webhook deliveries; nothing else differs.
    assert_eq!(with["deliveries"], json!([]));
    with.as_object_mut().unwrap().remove("deliveries");
    plain.as_object_mut().unwrap().remove("deliveries");
    assert_eq!(with, plain);
    assert!(with["errors"].as_array().unwrap().is_empty());
}
