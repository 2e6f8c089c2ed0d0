//! faults.md: every rule pinned — each fault kind at its window's edges (`from` inclusive, `to`
//! exclusive), backoff ticks, dead letters, duplicate keys, crashes, the one order of checks, nested
//! unavailability in `errors`, and the load errors.

mod delivery;
mod explore;
mod fuzz;

use a2a_sim::engine;

use crate::common::one_agent_with_faults as scenario;
use crate::common::{error_codes, load, load_err, report_value};

pub(crate) const SCREENER: &str = "[working: Screening, completed: Done]";

fn wait_then_send(n: u64) -> String {
    format!(
        "  - wait: {n}\n  - send: {{caller: orchestrator, to: screener, text: Screen ACME, as: s}}"
    )
}

#[test]
fn unavailable_holds_from_inclusive_to_exclusive() {
    // The send is judged at the clock before its own tick: the wait's end.
    for (clock, refused) in [(4, false), (5, true), (11, true), (12, false)] {
        let y = scenario(
            SCREENER,
            "  - {agent: screener, unavailable: {from: 5, to: 12}}",
            &wait_then_send(clock),
        );
        let s = load(&y);
        let w = engine::run(&s);
        assert_eq!(w.tasks.is_empty(), refused, "clock {clock}");
        let want: Vec<&str> = if refused {
            vec!["agent_unavailable"]
        } else {
            vec![]
        };
        assert_eq!(error_codes(&w), want, "clock {clock}");
        if refused {
            // `{}`: no task, no id, no tick.
            assert_eq!(w.clock(), clock);
            let r = report_value(&y);
            assert_eq!(r["steps"][1]["result"], serde_json::json!({}));
        }
    }
}

#[test]
fn slow_delays_continuations_queued_inside_the_window() {
    // The task is submitted at clock + 1, when its first turn is queued.
    for (submitted, slowed) in [(4, false), (5, true), (11, true), (12, false)] {
        let y = scenario(
            "[working: Screening, wait: 2, completed: Done]",
            "  - {agent: screener, slow: {extra: 3, from: 5, to: 12}}",
            &wait_then_send(submitted - 1),
        );
        let s = load(&y);
        let w = engine::run(&s);
        let working = w.tasks[0].history[1].tick;
        let want = if slowed { submitted + 4 } else { submitted + 1 };
        assert_eq!(working, want, "submitted {submitted}");
    }
    // A handler `wait: N >= 1` keeps its ready_at; overlapping extras add up.
    let y = scenario(
        "[working: Screening, wait: 2, completed: Done]",
        "  - {agent: screener, slow: {extra: 1}}\n  - {agent: screener, slow: {extra: 2, to: 3}}",
        "  - send: {caller: orchestrator, to: screener, text: Screen ACME}",
    );
    let s = load(&y);
    let w = engine::run(&s);
    let ticks: Vec<u64> = w.tasks[0].history.iter().map(|h| h.tick).collect();
    // submitted 1; first turn at 1 + 3 = 4 -> working 5; the `wait` turn is due at 5 + 1 = 6, and
    // requeues at 6 + 2 = 8, not delayed -> completed 9.
    assert_eq!(ticks, [1, 5, 9]);
}

#[test]
fn a_crash_fails_every_task_the_agent_holds_and_refuses_until_restart() {
    let y = scenario(
        "[working: Screening, input_required: Which list?, completed: Done]",
        "  - {agent: screener, crash: {at: 10, restart: 14}}",
        "  - send: {caller: orchestrator, to: screener, text: Screen ACME, as: s}",
    );
    let s = load(&y);
    let w = engine::run(&s);
    // Paused for its owner at 3; the crash at 10 runs at quiescence and fails it.
    let t = &w.tasks[0];
    assert_eq!(t.state.as_str(), "failed");
    let last = t.history.last().unwrap();
    assert_eq!(last.tick, 11);
    assert_eq!(t.messages[last.message().unwrap()].text, "agent crashed");
    // Unavailable on [at, restart).
    for (clock, refused) in [(9, false), (10, true), (13, true), (14, false)] {
        let y = scenario(
            SCREENER,
            "  - {agent: screener, crash: {at: 10, restart: 14}}",
            &wait_then_send(clock),
        );
        let s = load(&y);
        let w = engine::run(&s);
        assert_eq!(w.tasks.is_empty(), refused, "clock {clock}");
    }
    // No restart: forever; a crash records no error.
    let y = scenario(
        SCREENER,
        "  - {agent: screener, crash: {at: 0}}",
        &wait_then_send(1000),
    );
    let s = load(&y);
    let w = engine::run(&s);
    assert_eq!(error_codes(&w), ["agent_unavailable"]);
}

#[test]
fn a_crash_runs_before_anything_else_due_at_its_tick() {
    // Working at 2; the turn that would complete it is due at 2, and the crash at 2 comes first.
    let y = scenario(
        SCREENER,
        "  - {agent: screener, crash: {at: 2}}",
        "  - send: {caller: orchestrator, to: screener, text: Screen ACME}",
    );
    let s = load(&y);
    let w = engine::run(&s);
    let states: Vec<&str> = w.tasks[0]
        .history
        .iter()
        .map(|h| h.state.as_str())
        .collect();
    assert_eq!(states, ["submitted", "working", "failed"]);
}

const TWO_AGENTS: &str = r#"
policy: {push_allowed_hosts: [hooks.acme.example]}
agents:
  - name: payments
    tenant: acme
    clearance: confidential
    capabilities: {push_notifications: true}
    skills: [{id: pay, tags: [payments]}]
    handler:
      - working: Screening first
      - delegate: {to: screener, text: Screen, as: screen, retry: {attempts: 3, backoff: 2}}
      - completed: Paid
  - name: screener
    tenant: acme
    clearance: confidential
    skills: [{id: screen, tags: [sanctions]}]
    handler: [working: Screening, wait: 10, completed: Done]
callers:
  - {id: orchestrator, tenant: acme, classification: internal}
steps:
  - send: {caller: orchestrator, to: payments, text: Pay, as: pay}
"#;

#[test]
fn a_crash_of_a_task_with_a_running_child_cancels_the_child_first() {
    let y = format!("{TWO_AGENTS}faults:\n  - {{agent: payments, crash: {{at: 5}}}}\n");
    let s = load(&y);
    let w = engine::run(&s);
    let pay = &w.tasks[0];
    let child = &w.tasks[1];
    assert_eq!(pay.state.as_str(), "failed");
    assert_eq!(child.state.as_str(), "canceled");
    let (c, p) = (child.history.last().unwrap(), pay.history.last().unwrap());
    assert!(c.tick < p.tick, "the child is canceled first");
    assert_eq!(
        child.messages[c.message().unwrap()].text,
        "canceled: parent task-1 was canceled"
    );
    assert_eq!(pay.messages[p.message().unwrap()].text, "agent crashed");
}

#[test]
fn a_crashed_child_is_a_failed_delegation_and_is_retried() {
    let y = format!("{TWO_AGENTS}faults:\n  - {{agent: screener, crash: {{at: 5, restart: 6}}}}\n");
    let s = load(&y);
    let w = engine::run(&s);
    assert_eq!(w.tasks[1].state.as_str(), "failed");
    assert_eq!(w.tasks[2].attempt, 2);
    assert_eq!(w.tasks[2].state.as_str(), "completed");
    assert_eq!(w.tasks[0].state.as_str(), "completed");
    assert!(w.errors.is_empty(), "a crash records no error");
}

#[test]
fn nested_unavailability_is_an_outcome_and_an_error_per_attempt() {
    let y = format!(
        "{TWO_AGENTS}faults:\n  - {{agent: screener, unavailable: {{from: 0, to: 100}}}}\nexpect:\n  - {{task: pay/screen, outcome: unavailable}}\n  - {{task: pay, state: failed}}\n"
    );
    let s = load(&y);
    let w = engine::run(&s);
    assert_eq!(
        error_codes(&w),
        [
            "agent_unavailable",
            "agent_unavailable",
            "agent_unavailable"
        ]
    );
    assert_eq!(w.tasks.len(), 1, "no task, no id");
    assert!(w.denials.is_empty());
    assert_eq!(a2a_sim::testing::expect::check(&w), vec![]);
    // Backoff 2, 4 between the attempts: judged at clocks 2, 4, 8.
    let ticks: Vec<&str> = w.errors.iter().map(|e| &*e.detail).collect();
    for (d, t) in ticks.iter().zip(["tick 2:", "tick 4:", "tick 8:"]) {
        assert!(d.contains(t), "{d}");
    }
}

#[test]
fn the_one_order_of_checks() {
    let order = |caller: &str, step: &str| {
        let y = format!(
            r#"
policy: {{push_allowed_hosts: [hooks.acme.example]}}
agents:
  - {{name: open, tenant: acme, clearance: confidential, capabilities: {{push_notifications: true}}, skills: [{{id: a, tags: [a]}}], handler: [working, input_required: Which?, completed]}}
  - {{name: nopush, tenant: acme, clearance: confidential, skills: [{{id: b, tags: [b]}}], handler: [working, completed]}}
  - {{name: secret, tenant: acme, clearance: public, skills: [{{id: c, tags: [c]}}], handler: [completed]}}
callers:
  - {{id: orchestrator, tenant: acme, classification: internal}}
  - {{id: other, tenant: acme, classification: internal}}
steps:
  - send: {{caller: orchestrator, to: open, text: Hi, as: t}}
  - wait: 10
  - {step}
faults:
  - {{agent: open, unavailable: {{from: 5}}}}
  - {{agent: nopush, unavailable: {{from: 5}}}}
  - {{agent: secret, unavailable: {{from: 5}}}}
"#
        );
        let _ = caller;
        let s = load(&y);
        let w = engine::run(&s);
        assert!(w.denials.is_empty(), "{step}");
        error_codes(&w).last().copied().unwrap_or("").to_string()
    };
    let rows = [
        // an unavailable agent yields no denials (internal data to a public-cleared agent)
        (
            "send: {caller: orchestrator, to: secret, text: Hi}",
            "agent_unavailable",
        ),
        // the card's own refusal first
        (
            "set_push_config: {caller: orchestrator, agent: nopush, task_id: task-9, url: \"https://hooks.acme.example/a\", token: k}",
            "push_not_supported",
        ),
        // then the task, as the caller sees it
        (
            "set_push_config: {caller: orchestrator, agent: open, task_id: task-9, url: \"https://hooks.acme.example/a\", token: k}",
            "task_not_found",
        ),
        (
            "set_push_config: {caller: other, task_id: task-1, url: \"http://bad\", token: k}",
            "task_not_found",
        ),
        // then the fault, before the operation's own refusals
        (
            "set_push_config: {caller: orchestrator, task: t, url: \"http://bad\", token: k}",
            "agent_unavailable",
        ),
        (
            "reply: {caller: other, task_id: task-1, text: Hi}",
            "task_not_found",
        ),
        (
            "reply: {caller: orchestrator, task: t, text: Hi}",
            "agent_unavailable",
        ),
        (
            "cancel: {caller: orchestrator, task: t}",
            "agent_unavailable",
        ),
        ("get: {caller: other, task_id: task-1}", "task_not_found"),
        ("get: {caller: orchestrator, task: t}", "agent_unavailable"),
        // discovery ranks the unavailable agent and does not fall back
        (
            "send: {caller: orchestrator, to: {discover: [a]}, text: Hi}",
            "agent_unavailable",
        ),
    ];
    for (step, want) in rows {
        assert_eq!(order("orchestrator", step), want, "{step}");
    }
}

#[test]
fn fault_load_errors_are_located_with_hints() {
    let rows = [
        (
            "  - {agent: screenr, unavailable: {from: 1}}",
            "did you mean `screener`",
        ),
        (
            "  - {agent: screener, push_host: hooks.acme.example, down: {}}",
            "exactly one target",
        ),
        (
            "  - {agent: screener}",
            "exactly one of `unavailable`, `slow`, `crash`",
        ),
        (
            "  - {agent: screener, unavailable: {}, slow: {extra: 1}}",
            "exactly one of",
        ),
        (
            "  - {agent: screener, down: {}}",
            "not a fault of this target",
        ),
        (
            "  - {push_host: hooks.acme.example, crash: {at: 1}}",
            "not a fault of this target",
        ),
        (
            "  - {agent: screener, unavailable: {from: 5, to: 5}}",
            "window [5, 5) is empty",
        ),
        (
            "  - {agent: screener, unavailable: {from: -1}}",
            "0 or more",
        ),
        (
            "  - {agent: screener, crash: {at: 5, restart: 5}}",
            "must come after",
        ),
        ("  - {agent: screener, slow: {extra: -2}}", "0 or more"),
        (
            "  - {push_host: \"*.acme.example\", down: {}}",
            "is a pattern",
        ),
        (
            "  - {push_host: hooks.evil.example, down: {}}",
            "not admitted",
        ),
        (
            "  - {push_host: \"https://hooks.acme.example/\", down: {}}",
            "not a host name",
        ),
        ("  - {agent: screener, unavailable: {form: 1}}", "form"),
        (
            "  - {agent: screener, unavailable: {from: 1}, extra: 2}",
            "extra",
        ),
    ];
    for (fault, want) in rows {
        let y = scenario(
            SCREENER,
            fault,
            "  - send: {caller: orchestrator, to: screener, text: Hi}",
        );
        let e = load_err(&y);
        assert!(e.contains(want), "{fault}: {e}");
        assert!(e.contains("test.yaml:"), "located: {e}");
    }
    for (policy, want) in [
        ("push_delivery: {attempts: 0}", "1 to 64"),
        ("push_delivery: {attempts: 65}", "1 to 64"),
        ("push_delivery: {backoff: -1}", "0 or more"),
        ("push_delivery: {retries: 2}", "retries"),
    ] {
        let y = crate::common::one_agent(
            SCREENER,
            "  - send: {caller: orchestrator, to: screener, text: Hi}",
        )
        .replace("max_depth: 4,", &format!("max_depth: 4, {policy},"));
        let e = load_err(&y);
        assert!(e.contains(want), "{policy}: {e}");
    }
}

#[test]
fn if_makes_an_entry_hold_vacuously_and_goes_with_claims_about_a_task_or_its_webhooks() {
    let y = format!(
        "{TWO_AGENTS}expect:\n  - {{task: pay, always: true, if: {{task: pay/screen, state: failed}}, state: canceled}}\n  - {{task: pay, if: {{task: pay, state: completed}}, attempt: 1}}\n"
    );
    let s = load(&y);
    assert_eq!(s.always, [true, false]);
    assert_eq!(a2a_sim::testing::expect::check(&engine::run(&s)), vec![]);
    let y =
        format!("{TWO_AGENTS}expect:\n  - {{errors: 0, if: {{task: pay, state: completed}}}}\n");
    assert!(load_err(&y).contains(
        "`if` goes with `task`, `deliveries`, `dead_letters` and `pushes: {task}` entries"
    ));
    let y =
        format!("{TWO_AGENTS}expect:\n  - {{task: pay, state: completed, if: {{errors: 0}}}}\n");
    assert!(load_err(&y).contains("an `if` is a task entry"));
}

#[test]
fn a_fan_out_member_is_judged_at_the_clock_the_fan_out_reaches_it() {
    // The first child's creation moves the clock to 3; the second is judged at 3.
    let y = r#"
agents:
  - {name: lead, tenant: acme, clearance: confidential, skills: [{id: l, tags: [l]}], handler: [working, fan_out: {to: [a, b], text: Go, as: g, on_error: continue}, completed]}
  - {name: a, tenant: acme, clearance: confidential, skills: [{id: a, tags: [a]}], handler: [working, completed]}
  - {name: b, tenant: acme, clearance: confidential, skills: [{id: b, tags: [b]}], handler: [working, completed]}
callers:
  - {id: orchestrator, tenant: acme, classification: internal}
steps:
  - send: {caller: orchestrator, to: lead, text: Go, as: go}
expect:
  - {task: go/g/2, outcome: unavailable}
  - {task: go/g/1, outcome: completed}
faults:
  - {agent: b, unavailable: {from: 3, to: 4}}
  - {agent: a, unavailable: {from: 0, to: 2}}
"#;
    let s = load(y);
    let w = engine::run(&s);
    assert_eq!(a2a_sim::testing::expect::check(&w), vec![]);
    assert_eq!(error_codes(&w), ["agent_unavailable"]);
}

#[test]
fn slow_never_delays_timers_or_driver_waits() {
    let y = r#"
agents:
  - name: payments
    tenant: acme
    clearance: confidential
    skills: [{id: pay, tags: [payments]}]
    handler: [working, {delegate: {to: screener, text: Screen, as: screen, timeout: 3, on_error: continue}}, completed]
  - name: screener
    tenant: acme
    clearance: confidential
    skills: [{id: screen, tags: [sanctions]}]
    handler: [working, completed]
callers:
  - {id: orchestrator, tenant: acme, classification: internal}
steps:
  - wait: 2
  - send: {caller: orchestrator, to: payments, text: Pay, as: pay}
expect:
  - {task: pay/screen, outcome: timeout}
faults:
  - {agent: screener, slow: {extra: 10}}
"#;
    let s = load(y);
    let w = engine::run(&s);
    assert_eq!(a2a_sim::testing::expect::check(&w), vec![]);
    // The driver's wait ends at 2; the screener's child, submitted at 5, times out at 8.
    let r = report_value(y);
    assert_eq!(r["steps"][0]["result"]["tick"], 2);
    let child = &w.tasks[1];
    assert_eq!(child.history[0].tick, 5);
    assert_eq!(
        child.history.last().unwrap().tick,
        9,
        "canceled by the timer due at 8"
    );
}
