//! Faults that pick requests by number (`calls: [K, ...]`) instead of a tick window, and the wire
//! faults `http_error`, `reset` and `drop_stream` as a run in process meets them: which requests
//! are counted, that the pick does not move when the ticks do, `slow` on the task a call opened,
//! the load errors (located), the table report's rows, and `explore`'s printing and shrinking of
//! call-picked faults.

use a2a_sim::engine::faults::{Fault, FaultKind, FaultTarget, Window};
use a2a_sim::engine::world;
use a2a_sim::testing::check::{Rule, check};
use a2a_sim::testing::explore::{Found, human, json_line, schedule};
use a2a_sim::testing::schedule::{fault_json, fault_yaml};
use a2a_sim::testing::shrink::shrink;
use serde_json::{Value, json};

use crate::common::binary::{a2a_sim_in, scratch, write};
use crate::common::{error_codes, load, load_err, one_agent, report_value};

const SCREENER: &str = "[working: Screening, completed: Done]";
const PAUSES: &str =
    "[working: Screening, input_required: Which list?, working: Checking, completed: Done]";

/// The one-screener world of `common::one_agent`, then a `faults:` block.
fn scenario(handler: &str, faults: &str, steps: &str) -> String {
    format!("{}faults:\n{faults}\n", one_agent(handler, steps))
}

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
        let w = world::run(&s);
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
    let w = world::run(&s);
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
    let w = world::run(&s);
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
    let w = world::run(&s);
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
    let w = world::run(&s);
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
        let w = world::run(&s);
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
        let w = world::run(&s);
        assert_eq!(a2a_sim::testing::expect::check(&w), vec![], "{kind}");
        assert_eq!(error_codes(&w), ["agent_unavailable"], "{kind}");
        // A retry: the second attempt answered, as for `unavailable`.
        let y = format!(
            "{}expect:\n  - {{task: pay/screen, outcome: completed, attempt: 2}}\n  - {{task: pay, state: completed}}\n",
            delegating(RETRY, &format!("  - {{agent: screener, {kind}}}"))
        );
        let s = load(&y);
        let w = world::run(&s);
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

/// The rows of the table report's `faults` section, each a list of its cells.
fn faults_rows(table: &str) -> Vec<Vec<String>> {
    table
        .lines()
        .skip_while(|l| *l != "faults")
        .skip(4)
        .take_while(|l| l.starts_with('│'))
        .map(|l| {
            l.trim_matches('│')
                .split('┆')
                .map(|c| c.trim().to_string())
                .collect()
        })
        .collect()
}

#[test]
fn the_table_report_shows_calls_statuses_and_cuts() {
    let faults = [
        "  - {agent: screener, unavailable: {calls: [2, 4]}}",
        "  - {agent: screener, unavailable: {from: 5, to: 12}}",
        "  - {agent: screener, http_error: {status: 502, from: 30, to: 39}}",
        "  - {agent: screener, http_error: {status: 502, calls: [1]}}",
        "  - {agent: screener, reset: {calls: [7]}}",
        "  - {agent: screener, reset: {from: 40}}",
        "  - {agent: screener, drop_stream: {after: 3, from: 2, to: 6}}",
        "  - {agent: screener, drop_stream: {after: 0, calls: [1, 3]}}",
        "  - {agent: screener, slow: {extra: 2, calls: [5]}}",
        "  - {agent: screener, slow: {extra: 2, from: 1, to: 3}}",
    ]
    .join("\n");
    let dir = scratch("faults-calls-table");
    write(&dir, "s.yaml", &scenario(SCREENER, &faults, &send("a")));
    let r = a2a_sim_in(&dir, &["run", "s.yaml"], None);
    assert_eq!(r.status, 0, "{}", r.stderr);
    let rows = faults_rows(&r.stdout);
    let want = [
        ["1", "agent screener", "unavailable", "calls 2, 4"],
        ["2", "agent screener", "unavailable", "[5, 12)"],
        ["3", "agent screener", "http_error", "[30, 39) HTTP 502"],
        ["4", "agent screener", "http_error", "calls 1 HTTP 502"],
        ["5", "agent screener", "reset", "calls 7"],
        ["6", "agent screener", "reset", "[40, forever)"],
        [
            "7",
            "agent screener",
            "drop_stream",
            "[2, 6) after 3 events",
        ],
        [
            "8",
            "agent screener",
            "drop_stream",
            "calls 1, 3 after 0 events",
        ],
        ["9", "agent screener", "slow", "calls 5 +2 ticks"],
        ["10", "agent screener", "slow", "[1, 3) +2 ticks"],
    ];
    assert_eq!(rows, want, "{}", r.stdout);
}

/// `test.yaml:LINE:COL: ` of the first `at` on the (first) line of `text` that holds `line`.
fn point(text: &str, line: &str, at: &str) -> String {
    let (i, l) = text
        .lines()
        .enumerate()
        .find(|(_, l)| l.contains(line))
        .unwrap_or_else(|| panic!("no line holds {line}"));
    let col = l[l.find(line).unwrap()..].find(at).unwrap() + l.find(line).unwrap() + 1;
    format!("test.yaml:{}:{col}: ", i + 1)
}

#[test]
fn calls_load_errors_are_located_at_their_key() {
    const WINDOW_AND_CALLS: &str =
        "`calls` picks requests instead of a tick window: drop `from` and `to`, or `calls`";
    const ONE_OR_MORE: &str =
        "a request number is 1 or more (the first request to the agent is 1), not";
    let rows = [
        // `calls` with `from`/`to`, in every kind that takes a window: at `calls`' value.
        ("{agent: screener, unavailable: {from: 1, calls: [2]}}", "[2]", WINDOW_AND_CALLS.to_string()),
        ("{agent: screener, slow: {extra: 1, to: 4, calls: [2]}}", "[2]", WINDOW_AND_CALLS.to_string()),
        ("{agent: screener, http_error: {status: 502, from: 0, calls: [1]}}", "[1]", WINDOW_AND_CALLS.to_string()),
        ("{agent: screener, reset: {to: 9, calls: [1]}}", "[1]", WINDOW_AND_CALLS.to_string()),
        ("{agent: screener, drop_stream: {after: 2, calls: [1], from: 3}}", "[1]", WINDOW_AND_CALLS.to_string()),
        // An empty list; a request number below 1, at the item.
        ("{agent: screener, unavailable: {calls: []}}", "[]", "`calls` needs at least one request number, e.g. `[2]`".to_string()),
        ("{agent: screener, unavailable: {calls: [0]}}", "0]", format!("{ONE_OR_MORE} 0")),
        ("{agent: screener, reset: {calls: [3, 0]}}", "0]", format!("{ONE_OR_MORE} 0")),
        ("{agent: screener, slow: {extra: 1, calls: [2, -3, 4]}}", "-3", format!("{ONE_OR_MORE} -3")),
        // The new kinds' own values.
        ("{agent: screener, http_error: {status: 200}}", "200", "`status` is an HTTP error status, 400 to 599, not 200".to_string()),
        ("{agent: screener, http_error: {status: 600, calls: [1]}}", "600", "`status` is an HTTP error status, 400 to 599, not 600".to_string()),
        ("{agent: screener, drop_stream: {after: -1}}", "-1", "`after` is a number of events, 0 or more, not -1".to_string()),
        // A push host counts no requests.
        ("{push_host: hooks.acme.example, down: {calls: [1]}}", "[1]", "`calls` counts requests to an agent; a push host's faults take a tick window".to_string()),
        // A crash takes no `calls`: an unknown key, at the key.
        ("{agent: screener, crash: {at: 1, calls: [1]}}", "calls", "unknown field `calls`, expected `at` or `restart`".to_string()),
        // Two kinds, old and new: at the entry.
        ("{agent: screener, reset: {}, drop_stream: {after: 1}}", "{agent", "an agent fault has exactly one of `unavailable`, `slow`, `crash`, `http_error`, `reset`, `drop_stream`".to_string()),
        ("{agent: screener, http_error: {status: 502}, unavailable: {calls: [1]}}", "{agent", "an agent fault has exactly one of".to_string()),
    ];
    for (fault, at, message) in rows {
        let y = scenario(SCREENER, &format!("  - {fault}"), &send("a"));
        let e = load_err(&y);
        let want = point(&y, fault, at);
        assert!(
            e.lines()
                .any(|l| l.starts_with(&want) && l.contains(&message)),
            "{fault}: want {want}{message}\ngot: {e}"
        );
    }
    // Block style: the item on its own line.
    let y = scenario(
        SCREENER,
        "  - agent: screener\n    reset:\n      calls:\n        - 2\n        - 0",
        &send("a"),
    );
    let e = load_err(&y);
    let want = point(&y, "        - 0", "0");
    assert!(e.starts_with(&format!("{want}{ONE_OR_MORE} 0")), "{e}");
}

#[test]
fn a_calls_error_in_an_imported_file_is_located_there_and_exits_2() {
    let dir = crate::common::library::with_libs("faults-calls-imported");
    write(
        &dir,
        "lib/faults.yaml",
        "faults:\n  - {agent: screener, unavailable: {calls: [1]}}\n  - agent: screener\n    reset:\n      calls:\n        - 2\n        - 0\n",
    );
    write(
        &dir,
        "s.yaml",
        "imports: [lib/agents.yaml, lib/callers.yaml, lib/faults.yaml]\nsteps:\n  - send: {caller: orchestrator, to: screener, text: hi, as: a}\n",
    );
    for cmd in ["check", "run"] {
        let r = a2a_sim_in(&dir, &[cmd, "s.yaml"], None);
        assert_eq!(r.status, 2, "{cmd}");
        assert!(
            r.stderr.starts_with(
                "lib/faults.yaml:7:11: a request number is 1 or more (the first request to the agent is 1), not 0"
            ),
            "{cmd}: {}",
            r.stderr
        );
    }
    // Fixed, the imported faults hold: the first request refused.
    write(
        &dir,
        "lib/faults.yaml",
        "faults:\n  - {agent: screener, unavailable: {calls: [1]}}\n",
    );
    let r = a2a_sim_in(&dir, &["run", "--format", "json", "s.yaml"], None);
    assert_eq!(r.status, 0, "{}", r.stderr);
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(refused_steps(&v), [1]);
}

#[test]
fn the_schema_takes_calls_and_the_wire_faults() {
    let schema = a2a_sim::scenario::schema::scenario_schema();
    let validator = jsonschema::validator_for(&schema).expect("a valid JSON Schema");
    let doc = |faults: &str| {
        let text = scenario(SCREENER, faults, &send("a"));
        a2a_sim::scenario::yaml::parse_value(&text).unwrap()
    };
    let good = doc(
        "  - {agent: screener, unavailable: {calls: [2]}}\n  - {agent: screener, slow: {extra: 3, calls: [1, 2]}}\n  - {agent: screener, http_error: {status: 502, calls: [1]}}\n  - {agent: screener, reset: {from: 1, to: 4}}\n  - {agent: screener, drop_stream: {after: 0, calls: [3]}}",
    );
    let errors: Vec<String> = validator
        .iter_errors(&good)
        .map(|e| e.to_string())
        .collect();
    assert!(errors.is_empty(), "{errors:?}");
    for bad in [
        "  - {agent: screener, crash: {at: 1, calls: [1]}}",
        "  - {agent: screener, http_error: {calls: [1]}}",
        "  - {agent: screener, drop_stream: {calls: [1]}}",
        "  - {agent: screener, unavailable: {calls: 2}}",
    ] {
        assert!(!validator.is_valid(&doc(bad)), "{bad}");
    }
}

// `explore` draws window faults only; a call-picked fault reaches its printing and shrinking from
// the public functions, and from a file's own faults.

/// Faults as the scenario writes them, each as `fault_yaml` prints it back.
const PRINTED: [&str; 12] = [
    "{agent: screener, unavailable: {calls: [2]}}",
    "{agent: screener, unavailable: {calls: [2, 4]}}",
    "{agent: screener, unavailable: {from: 5, to: 12}}",
    "{agent: screener, unavailable: {from: 5}}",
    "{agent: screener, http_error: {status: 502, calls: [1]}}",
    "{agent: screener, http_error: {status: 503, from: 0, to: 5}}",
    "{agent: screener, slow: {extra: 3, calls: [2]}}",
    "{agent: screener, slow: {extra: 3, from: 5, to: 12}}",
    "{agent: screener, reset: {calls: [1, 3]}}",
    "{agent: screener, reset: {from: 2}}",
    "{agent: screener, drop_stream: {after: 2, calls: [4]}}",
    "{agent: screener, drop_stream: {after: 0, from: 1, to: 3}}",
];

#[test]
fn fault_yaml_prints_calls_in_place_of_the_window() {
    let faults: Vec<String> = PRINTED.iter().map(|f| format!("  - {f}")).collect();
    let s = load(&scenario(SCREENER, &faults.join("\n"), &send("a")));
    assert_eq!(s.faults.entries.len(), PRINTED.len());
    for (f, want) in s.faults.entries.iter().zip(PRINTED) {
        assert_eq!(fault_yaml(&s, f), want);
    }
}

#[test]
fn fault_json_gives_calls_and_loads_back_as_the_same_fault() {
    let faults: Vec<String> = PRINTED.iter().map(|f| format!("  - {f}")).collect();
    let s = load(&scenario(SCREENER, &faults.join("\n"), &send("a")));
    let json: Vec<Value> = s.faults.entries.iter().map(|f| fault_json(&s, f)).collect();
    assert_eq!(
        json[0],
        json!({"agent": "screener", "unavailable": {"calls": [2]}})
    );
    assert_eq!(
        json[4],
        json!({"agent": "screener", "http_error": {"status": 502, "calls": [1]}})
    );
    assert_eq!(
        json[6],
        json!({"agent": "screener", "slow": {"extra": 3, "calls": [2]}})
    );
    assert_eq!(
        json[10],
        json!({"agent": "screener", "drop_stream": {"after": 2, "calls": [4]}})
    );
    assert_eq!(
        json[2],
        json!({"agent": "screener", "unavailable": {"from": 5, "to": 12}})
    );
    // JSON is YAML: each line pasted back is the same fault.
    let lines: Vec<String> = json.iter().map(|j| format!("  - {j}")).collect();
    let again = load(&scenario(SCREENER, &lines.join("\n"), &send("a")));
    assert_eq!(again.faults.entries, s.faults.entries);
}

/// A claim faults break: the payment completes. The screener gets two attempts.
const WRONG: &str = r#"
agents:
  - name: payments
    tenant: acme
    clearance: confidential
    skills: [{id: pay, tags: [payments]}]
    handler:
      - working: Screening first
      - delegate: {to: screener, text: Screen, as: screen, retry: {attempts: 2, backoff: 1}}
      - completed: Paid
  - name: screener
    tenant: acme
    clearance: confidential
    skills: [{id: screen, tags: [sanctions]}]
    handler: [working: Screening, wait: 3, completed: Done]
callers:
  - {id: orchestrator, tenant: acme, classification: internal}
steps:
  - send: {caller: orchestrator, to: payments, text: Pay, as: pay}
expect:
  - {task: pay, always: true, state: completed}
"#;

fn on_screener(calls: &[u32]) -> Fault {
    Fault {
        target: FaultTarget::Agent(1),
        kind: FaultKind::Unavailable(Window::ALWAYS),
        calls: Some(calls.into()),
    }
}

#[test]
fn the_shrinker_drops_one_call_at_a_time() {
    let s = load(WRONG);
    // Both attempts refused (requests 1 and 2) breaks the claim; 3 and 5 are never made.
    let drawn = vec![on_screener(&[3, 1, 5, 2])];
    let v = check(&s, &schedule(&s.faults, &drawn)).expect("both attempts refused");
    assert_eq!(v.rule, Rule::Expect(1));
    let (shrunk, found) = shrink(&s, &s.faults, drawn, v, None);
    assert_eq!(found.rule, Rule::Expect(1));
    assert_eq!(shrunk, [on_screener(&[1, 2])], "order kept, no window made");
    // 1-minimal: either call alone breaks nothing.
    for one in [1, 2] {
        assert_eq!(
            check(&s, &schedule(&s.faults, &[on_screener(&[one])])),
            None
        );
    }
    // A single call that is needed stays, beside a window fault that is not.
    let s2 = load(&WRONG.replace("attempts: 2", "attempts: 1"));
    let drawn = vec![
        Fault::new(
            FaultTarget::Agent(0),
            FaultKind::Slow {
                window: Window {
                    from: 0,
                    to: Some(50),
                },
                extra: 2,
            },
        ),
        on_screener(&[1]),
    ];
    let v = check(&s2, &schedule(&s2.faults, &drawn)).expect("the one attempt refused");
    let (shrunk, _) = shrink(&s2, &s2.faults, drawn, v, None);
    assert_eq!(shrunk, [on_screener(&[1])]);
}

#[test]
fn explore_prints_a_call_picked_schedule_that_pastes_back() {
    let s = load(WRONG);
    let faults = vec![on_screener(&[1, 2])];
    let violation = check(&s, &schedule(&s.faults, &faults)).unwrap();
    let found = Found {
        run: 7,
        violation,
        faults,
    };
    let text = human("wrong.yaml", 1, &s, &found, 1);
    assert!(
        text.ends_with(
            "  minimal schedule (paste into the scenario):\n  faults:\n    - {agent: screener, unavailable: {calls: [1, 2]}}\n"
        ),
        "{text}"
    );
    let block: String = text
        .lines()
        .skip_while(|l| l.trim() != "faults:")
        .map(|l| format!("{}\n", &l[2..]))
        .collect();
    let pasted = load(&format!("{WRONG}{block}"));
    let w = world::run(&pasted);
    assert_eq!(error_codes(&w), ["agent_unavailable", "agent_unavailable"]);
    assert!(a2a_sim::testing::check::always(&w).is_some(), "{block}");
    let line: Value = serde_json::from_str(&json_line("wrong.yaml", 1, &s, &found, 1)).unwrap();
    assert_eq!(
        line["faults"],
        json!([{"agent": "screener", "unavailable": {"calls": [1, 2]}}])
    );
}

#[test]
fn explore_runs_under_a_files_own_call_picked_faults() {
    let dir = scratch("faults-calls-explore");
    // Both attempts refused by the file's own faults: no drawn fault is needed.
    write(
        &dir,
        "wrong.yaml",
        &format!("{WRONG}faults:\n  - {{agent: screener, unavailable: {{calls: [1, 2]}}}}\n"),
    );
    let r = a2a_sim_in(&dir, &["explore", "wrong.yaml", "--runs", "10"], None);
    assert_eq!(r.status, 1, "{}", r.stderr);
    assert!(
        r.stdout
            .contains("  no fault needed beyond the scenario's own faults\n"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.ends_with("10 runs, 10 violations, 1 distinct\n"),
        "{}",
        r.stdout
    );
    // The file's own faults with calls that are never made: no violation without drawn faults,
    // and each drawn schedule is added to them.
    let claimless = WRONG.split("expect:").next().unwrap();
    write(
        &dir,
        "fine.yaml",
        &format!("{claimless}faults:\n  - {{agent: screener, unavailable: {{calls: [9]}}}}\n"),
    );
    let r = a2a_sim_in(&dir, &["explore", "fine.yaml", "--runs", "25"], None);
    assert_eq!(
        (r.status, r.stdout.as_str()),
        (0, "25 runs, 0 violations\n"),
        "{}",
        r.stderr
    );
}

/// BUG: a request number past `u32::MAX` is refused with the message for a number below 1.
#[test]
fn a_request_number_too_large_is_not_said_to_be_below_1() {
    let y = scenario(
        SCREENER,
        "  - {agent: screener, unavailable: {calls: [5000000000]}}",
        &send("a"),
    );
    let e = load_err(&y);
    assert!(!e.contains("is 1 or more"), "{e}");
}
