//! The v2 records in every output: a retried child's `attempt`, a task's `when` decisions, a
//! non-blocking send, wait steps and artifacts made from results. Until scenarios can ask for
//! them, the records are set on a finished run by hand, the way the engine sets them.

use std::borrow::Cow;

use serde_json::{Value, json};

use a2a_sim::engine;
use a2a_sim::engine::record::{
    Artifact, Branch, DataRef, Decision, EventKind, Record, StepRecord, StepResult, TaskState,
};
use a2a_sim::engine::scenario::{
    Cond, DataTest, HandlerStep, Outcome, Scenario, Step, Subject, Test, ValueTest, WaitSpec, When,
};
use a2a_sim::protocol::{A2aVersion, export};
use a2a_sim::report::table::{self, Layout};

use crate::common::read::keys;
use crate::common::{json, load, one_agent};

/// One task: submitted (tick 1), working (2), completed (3).
fn scenario() -> Scenario {
    load(&one_agent(
        "[working, completed: Screening done]",
        "  - send: {caller: orchestrator, to: screener, text: Screen ACME, as: s}",
    ))
}

fn report(w: &Record) -> Value {
    serde_json::from_str(&json(w)).unwrap()
}

fn tasks(w: &Record, v: A2aVersion) -> Value {
    let mut out = Vec::new();
    export::write_tasks(w, v, &mut out).unwrap();
    serde_json::from_slice(&out).unwrap()
}

fn stream(w: &Record, v: A2aVersion) -> Vec<Value> {
    let mut out = Vec::new();
    export::write_stream(w, v, &mut out).unwrap();
    String::from_utf8(out)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn runs(w: &Record) -> Value {
    let mut out = Vec::new();
    export::write_runs(w, &mut out).unwrap();
    serde_json::from_slice(&out).unwrap()
}

fn ours(task: &Value) -> &Value {
    &task["metadata"]["a2a-sim"]
}

fn decision(handler_step: usize, branch: Branch, tick: u64) -> Decision {
    Decision {
        handler_step,
        branch,
        tick,
    }
}

#[test]
fn a_task_record_lists_attempt_then_decisions_right_after_history() {
    let s = scenario();
    let mut w = engine::run(&s).into_record();
    assert_eq!(
        keys(&report(&w)["tasks"][0]),
        [
            "id",
            "context_id",
            "agent",
            "caller",
            "delegation_chain",
            "parent",
            "state",
            "history",
            "messages",
            "artifacts"
        ],
        "a run without retries or decisions keeps its record"
    );

    w.tasks[0].attempt = 2;
    w.tasks[0]
        .decisions_mut()
        .extend([decision(2, Branch::Then, 2), decision(4, Branch::Else, 2)]);
    let task = &report(&w)["tasks"][0];
    assert_eq!(
        keys(task)[7..],
        ["history", "attempt", "decisions", "messages", "artifacts"]
    );
    assert_eq!(task["attempt"], json!(2));
    assert_eq!(
        task["decisions"],
        json!([
            {"handler_step": 2, "branch": "then", "tick": 2},
            {"handler_step": 4, "branch": "else", "tick": 2}
        ])
    );

    // A first attempt is the default and says nothing.
    w.tasks[0].attempt = 1;
    assert_eq!(
        keys(&report(&w)["tasks"][0])[7..],
        ["history", "decisions", "messages", "artifacts"]
    );
}

#[test]
fn a_wait_step_reports_its_tick_and_no_caller() {
    let plain = scenario();
    let mut s = scenario();
    s.steps.push(Step::Wait(WaitSpec::Ticks(3)));
    let mut w = engine::run(&plain).into_record();
    w.steps.push(StepRecord::new(None, StepResult::Tick(6)));
    w.scenario = &s;
    assert_eq!(
        report(&w)["steps"][1],
        json!({"step": 2, "op": "wait", "result": {"tick": 6}})
    );
    let table = table::render(&w, Layout::Fixed);
    let row = table.lines().find(|l| l.contains("wait")).unwrap();
    assert!(row.contains("tick 6"), "{row}");
}

/// The scenario with a `when` appended to the screener's handler (step 3, after `working` and
/// `completed`), on a result named `screen`.
fn with_a_when() -> Scenario {
    let mut s = scenario();
    let agent = &mut s.agents[0];
    agent.results.push("screen".into());
    agent.handler.push(HandlerStep::When(When {
        cond: Cond::Test(
            Subject::Result(0),
            vec![Test::Data(DataTest {
                written: "recommendation".into(),
                path: vec!["recommendation".into()],
                test: ValueTest::Eq(json!("manual_review")),
            })],
        ),
        then: vec![HandlerStep::Status(TaskState::InputRequired, None)],
        otherwise: vec![HandlerStep::When(When {
            cond: Cond::Test(
                Subject::Result(0),
                vec![Test::Outcome(vec![Outcome::Failed, Outcome::Timeout])],
            ),
            then: vec![],
            otherwise: vec![],
        })],
    }));
    s
}

#[test]
fn the_table_shows_the_attempt_and_each_branch_taken_and_why() {
    let s = with_a_when();
    let plain = scenario();
    let mut w = engine::run(&plain).into_record();
    let before = table::render(&w, Layout::Fixed);
    assert!(!before.contains("attempt") && !before.contains("handler step"));

    w.scenario = &s;
    w.tasks[0].attempt = 3;
    w.tasks[0]
        .decisions_mut()
        .extend([decision(3, Branch::Else, 2), decision(5, Branch::Then, 2)]);
    let after = table::render(&w, Layout::Fixed);
    let lines: Vec<&str> = after.lines().collect();
    let parent = lines
        .iter()
        .position(|l| l.starts_with("  parent:"))
        .unwrap();
    assert_eq!(lines[parent + 1], "  attempt: 3");
    let row = |step: &str| {
        let cells = |l: &&str| -> Vec<String> {
            l.split(['│', '┆'])
                .map(|c| c.trim().to_string())
                .filter(|c| !c.is_empty())
                .collect()
        };
        lines
            .iter()
            .map(cells)
            .find(|c| c.len() == 4 && c[1] == step)
            .unwrap_or_else(|| panic!("no decision row for step {step} in\n{after}"))
    };
    assert_eq!(
        row("3"),
        [
            "2",
            "3",
            r#"screen.data.recommendation == "manual_review""#,
            "else"
        ]
    );
    assert_eq!(
        row("5"),
        ["2", "5", "screen.outcome in [failed, timeout]", "then"]
    );
    // The decisions come right after the status history, before the messages.
    let header = |h: &str| lines.iter().position(|l| l.starts_with(h)).unwrap();
    assert!(header("│ tick ┆ state") < header("│ tick ┆ handler step"));
    assert!(header("│ tick ┆ handler step") < header("│ message ┆ role"));
}

#[test]
fn a2a_tasks_carry_a_non_blocking_send_in_each_versions_spelling() {
    let s = scenario();
    let mut w = engine::run(&s).into_record();
    for v in [A2aVersion::V1_0, A2aVersion::V0_3] {
        assert!(ours(&tasks(&w, v)[0]).get("configuration").is_none());
    }
    w.tasks[0].return_immediately = true;
    assert_eq!(
        ours(&tasks(&w, A2aVersion::V1_0)[0])["configuration"],
        json!({"returnImmediately": true})
    );
    assert_eq!(
        ours(&tasks(&w, A2aVersion::V0_3)[0])["configuration"],
        json!({"blocking": false})
    );
    // Every snapshot of the task says so: the send was made that way from the start.
    for line in stream(&w, A2aVersion::V1_0) {
        if let Some(task) = line.get("task") {
            assert_eq!(ours(task)["configuration"]["returnImmediately"], true);
        }
    }
}

#[test]
fn a2a_metadata_carries_attempt_and_decisions_only_when_there_are_some() {
    let s = scenario();
    let mut w = engine::run(&s).into_record();
    let plain = ours(&tasks(&w, A2aVersion::V1_0)[0]).clone();
    assert_eq!(keys(&plain), ["agent", "delegationChain", "caller"]);

    w.tasks[0].attempt = 2;
    w.tasks[0]
        .decisions_mut()
        .push(decision(3, Branch::Then, 2));
    for v in [A2aVersion::V1_0, A2aVersion::V0_3] {
        let task = &tasks(&w, v)[0];
        assert_eq!(ours(task)["attempt"], json!(2));
        assert_eq!(
            ours(task)["decisions"],
            json!([{"handlerStep": 3, "branch": "then", "tick": 2}])
        );
    }
}

#[test]
fn a_stream_snapshot_shows_only_the_decisions_made_before_it() {
    let s = scenario();
    let mut w = engine::run(&s).into_record();
    // Made in the first turn (tick 1, before `working`) and after `working` (tick 2).
    w.tasks[0]
        .decisions_mut()
        .extend([decision(1, Branch::Then, 1), decision(2, Branch::Else, 2)]);
    for (v, wrap) in [(A2aVersion::V1_0, true), (A2aVersion::V0_3, false)] {
        let unwrap = |l: Value| match wrap {
            true => l.get("task").cloned(),
            false => (l["kind"] == "task").then_some(l),
        };
        // The wire's only snapshot opens the stream: no decision was made before it.
        let snapshots: Vec<Value> = stream(&w, v).into_iter().filter_map(unwrap).collect();
        assert_eq!(snapshots.len(), 1, "{v:?}");
        assert!(ours(&snapshots[0]).get("decisions").is_none(), "{v:?}");
        // The record's closing snapshot (the in-process stream's terminator) shows both.
        let closing = w
            .events
            .iter()
            .rev()
            .find(|e| matches!(w.event_kind(e), EventKind::Task { .. }))
            .unwrap();
        let last = export::stream_event(&w, v, w.event_task(closing), w.event_kind(closing), false);
        let last = unwrap(last).unwrap();
        assert_eq!(
            ours(&last)["decisions"].as_array().unwrap().len(),
            2,
            "{v:?}"
        );
    }
}

#[test]
fn an_artifact_made_from_results_owns_its_parts_in_every_output() {
    let s = scenario();
    let mut w = engine::run(&s).into_record();
    let mut data = serde_json::Map::new();
    data.insert("matches".into(), json!(1));
    w.tasks[0].artifacts.push(Artifact::new(
        9,
        Some("screening"),
        Some(Cow::Owned("1 possible match\n\nlist SDN".into())),
        Some(DataRef::Owned(Box::new(data))),
    ));
    assert_eq!(
        report(&w)["tasks"][0]["artifacts"],
        json!([{"artifact_id": "artifact-9", "name": "screening",
                "text": "1 possible match\n\nlist SDN", "data": {"matches": 1}}])
    );
    assert_eq!(
        tasks(&w, A2aVersion::V1_0)[0]["artifacts"],
        json!([{"artifactId": "artifact-9", "name": "screening", "parts": [
            {"text": "1 possible match\n\nlist SDN"},
            {"data": {"matches": 1}, "mediaType": "application/json"}
        ]}])
    );
    let parts = &runs(&w)[0]["output"][0]["parts"];
    assert_eq!(parts[0]["content"], "1 possible match\n\nlist SDN");
    assert_eq!(parts[1]["content"], r#"{"matches":1}"#);
}

/// A payment agent that decides on its screener's recommendation, a nested `when` in the
/// `else` branch (handler step 5), a retried flaky callee and a non-blocking send.
const V2: &str = r#"
agents:
  - name: screener
    tenant: acme
    clearance: confidential
    skills: [{id: screen, tags: [sanctions]}]
    handler:
      - working
      - artifact: {name: r, data: {recommendation: manual_review, score: 0.83}}
      - completed
  - name: flaky
    tenant: acme
    clearance: confidential
    skills: [{id: f, tags: [f]}]
    handler: [working, failed: backend down]
  - name: pay
    tenant: acme
    clearance: confidential
    skills: [{id: pay, tags: [pay]}]
    handler:
      - working
      - delegate: {to: screener, text: Screen it, as: screen}
      - when: {result: screen, data: {recommendation: clear}}
        then: [completed: Payment released]
        else:
          - delegate: {to: flaky, text: Ask again, as: second, retry: {attempts: 2}, on_error: continue}
          - when: {any: [{result: second, outcome: completed}, {result: screen, data: {score: {lt: 0.5}}}]}
            then: [completed: Released on second opinion]
            else: [input_required: Held for manual review]
callers:
  - {id: orchestrator, tenant: acme, classification: internal}
steps:
  - send: {caller: orchestrator, to: pay, text: Pay PMT-771, as: p}
  - send: {caller: orchestrator, to: screener, text: Screen FZE, return_immediately: true}
"#;

#[test]
fn a_run_reports_each_decision_and_retry_wherever_the_task_is_shown() {
    let s = load(V2);
    let w = engine::run(&s);
    let r = report(&w);
    let pay = &r["tasks"][0];
    assert_eq!(pay["agent"], "pay");
    let decisions: Vec<(u64, &str)> = pay["decisions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["handler_step"].as_u64().unwrap(),
                d["branch"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(decisions, [(3, "else"), (6, "else")]);
    let retried: Vec<&Value> = r["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["agent"] == "flaky")
        .collect();
    assert_eq!(retried.len(), 2);
    assert!(retried[0].get("attempt").is_none());
    assert_eq!(retried[1]["attempt"], 2);

    let table = table::render(&w, Layout::Fixed);
    for (step, when) in [
        ("3", r#"screen.data.recommendation == "clear""#),
        (
            "6",
            "second.outcome == completed or screen.data.score < 0.5",
        ),
    ] {
        assert!(
            table.lines().any(|l| l.contains(&format!("┆ {step} "))
                && l.contains(when)
                && l.contains("else")),
            "no row for handler step {step} in\n{table}"
        );
    }
    assert!(table.contains("  attempt: 2\n"), "{table}");

    let a2a = tasks(&w, A2aVersion::V1_0);
    assert_eq!(ours(&a2a[0])["decisions"][1]["handlerStep"], 6);
    let attempts: Vec<&Value> = a2a
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| ours(t).get("attempt"))
        .collect();
    assert_eq!(attempts, [&json!(2)]);
    let configured: Vec<&Value> = a2a
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| ours(t).get("configuration"))
        .collect();
    assert_eq!(configured, [&json!({"returnImmediately": true})]);
}
