//! Loading the v2 keys (behaviour.md §2–§6) into the engine's model, and every load-time check at
//! its position. `check`'s handler-path warnings are in `handler_warnings.rs`.

use std::path::Path;

use a2a_sim::engine::record::TaskState;
use a2a_sim::engine::scenario::*;
use a2a_sim::scenario::Load;
use serde_json::json;

use crate::common::{load, one_agent};

/// The 1-based line and column of the first occurrence of `marker` in `text`.
pub(crate) fn position(text: &str, marker: &str) -> (usize, usize) {
    let at = text
        .find(marker)
        .unwrap_or_else(|| panic!("{marker:?} not in the scenario"));
    let before = &text[..at];
    let line = before.matches('\n').count() + 1;
    let column = before.len() - before.rfind('\n').map_or(0, |n| n + 1) + 1;
    (line, column)
}

/// A scenario of two agents (`screener`, and `pay` with `handler`), one caller, then `steps` and
/// `extra` top-level keys.
pub(crate) fn world(handler: &str, steps: &str, extra: &str) -> String {
    format!(
        "agents:
  - {{name: screener, tenant: acme, clearance: public, skills: [{{id: s, tags: [sanctions]}}], handler: [working, completed]}}
  - name: pay
    tenant: acme
    clearance: public
    skills: [{{id: p, tags: [payments]}}]
    handler: {handler}
callers:
  - {{id: orchestrator, tenant: acme, classification: public}}
steps:
  - discover: {{caller: orchestrator, tags: [sanctions]}}
  - send: {{caller: orchestrator, to: pay, text: go, as: p}}
{steps}{extra}"
    )
}

fn pay(s: &Scenario) -> &Agent {
    &s.agents[1]
}

#[test]
fn handler_constructs_load_into_the_model() {
    let handler = r#"
      - working
      - wait: 2
      - delegate:
          to: screener
          text: Screen it
          data: {party: ACME}
          as: screen
          timeout: 5
          retry: {attempts: 3, backoff: 2}
          on_pause: escalate
          replies: [{text: "It is SDN", data: {list: SDN}}]
      - fan_out: {to: [screener, {discover: [sanctions]}], text: Ask, as: panel, join: any, timeout: 4, on_error: continue}
      - fan_out: {to: {discover: [sanctions], limit: 2}, text: Ask all}
      - when:
          all:
            - {result: screen, outcome: [completed, input_required], state: completed, text: {contains: SDN}, data: {recommendation: manual_review, "/a~1b/0": {gte: 1}, top.score: {in: [1, 2]}}}
            - not: {result: panel, completed: {gte: 1}, size: 2}
            - any: [{input: {}, text: hi}, {reply: {}, data: {ok: {exists: false}, k: {x: 1}}}]
        then:
          - delegate: {to: screener, text: again, as: second}
          - artifact: {name: merged, from: [screen, second]}
        else: [input_required: Held]
      - artifact: {from: panel}
      - completed
"#;
    let s = load(&world(handler, "", ""));
    let a = pay(&s);
    assert_eq!(a.results, ["screen", "panel", "second"]);
    assert_eq!(a.handler.len(), 8);
    assert!(matches!(a.handler[1], HandlerStep::Wait(2)));
    let HandlerStep::Delegate(d) = &a.handler[2] else {
        panic!("{:?}", a.handler[2])
    };
    assert!(matches!(d.to, Target::Agent(0)));
    assert_eq!(
        d.message.data().map(|m| m["party"].clone()),
        Some(json!("ACME"))
    );
    assert_eq!((d.result, d.timeout), (Some(0), Some(5)));
    assert_eq!(
        d.retry,
        Retry {
            attempts: 3,
            backoff: 2
        }
    );
    assert_eq!(d.on_pause, OnPause::Escalate);
    assert_eq!(d.replies.len(), 1);
    assert_eq!(d.replies[0].text, "It is SDN");
    let HandlerStep::FanOut(f) = &a.handler[3] else {
        panic!()
    };
    assert!(
        matches!(&f.to, FanTargets::List(l) if l.len() == 2 && matches!(l[1], Target::Discover(_)))
    );
    assert_eq!(
        (f.result, f.join, f.timeout, f.on_error),
        (Some(1), Join::Any, Some(4), OnError::Continue)
    );
    let HandlerStep::FanOut(f) = &a.handler[4] else {
        panic!()
    };
    assert!(matches!(&f.to, FanTargets::Ranking { limit: Some(2), .. }));
    assert_eq!((f.result, f.join), (None, Join::All));
    let HandlerStep::When(w) = &a.handler[5] else {
        panic!()
    };
    let Cond::All(parts) = &w.cond else { panic!() };
    let Cond::Test(Subject::Result(0), tests) = &parts[0] else {
        panic!("{:?}", parts[0])
    };
    assert!(
        matches!(&tests[0], Test::Outcome(o) if *o == [Outcome::Completed, Outcome::InputRequired])
    );
    assert!(matches!(&tests[1], Test::State(st) if *st == [TaskState::Completed]));
    assert!(matches!(&tests[2], Test::Text(TextTest::Contains(t)) if t == "SDN"));
    let data: Vec<(&str, Vec<String>)> = tests[3..]
        .iter()
        .map(|t| match t {
            Test::Data(d) => (d.written.as_str(), d.path.clone()),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(
        data,
        [
            ("recommendation", vec!["recommendation".to_string()]),
            ("/a~1b/0", vec!["a/b".into(), "0".into()]),
            ("top.score", vec!["top".into(), "score".into()]),
        ]
    );
    assert!(
        matches!(&tests[3], Test::Data(DataTest { test: ValueTest::Eq(v), .. }) if *v == json!("manual_review"))
    );
    assert!(matches!(&tests[4], Test::Data(DataTest { test: ValueTest::Gte(n), .. }) if *n == 1.0));
    assert!(
        matches!(&tests[5], Test::Data(DataTest { test: ValueTest::In(v), .. }) if *v == [json!(1), json!(2)])
    );
    let Cond::Not(inner) = &parts[1] else {
        panic!()
    };
    assert!(matches!(&**inner, Cond::Test(Subject::Result(1), t)
        if matches!(t[..], [Test::Completed(ValueTest::Gte(_)), Test::Size(ValueTest::Eq(_))])));
    let Cond::Any(any) = &parts[2] else { panic!() };
    assert!(
        matches!(&any[0], Cond::Test(Subject::Input, t) if matches!(&t[0], Test::Text(TextTest::Equals(x)) if x == "hi"))
    );
    // A one-key mapping whose key is no operator is a literal.
    assert!(matches!(&any[1], Cond::Test(Subject::Reply, t)
        if matches!(&t[..], [Test::Data(DataTest { test: ValueTest::Exists(false), .. }), Test::Data(DataTest { test: ValueTest::Eq(v), .. })] if *v == json!({"x": 1}))));
    assert_eq!(w.then.len(), 2);
    assert!(
        matches!(&w.then[1], HandlerStep::Artifact(ArtifactSpec { from, text: None, data: None, .. }) if *from == [0, 2])
    );
    assert!(matches!(
        &w.otherwise[..],
        [HandlerStep::Status(TaskState::InputRequired, Some(_))]
    ));
    assert!(
        matches!(&a.handler[6], HandlerStep::Artifact(ArtifactSpec { from, .. }) if *from == [1])
    );
}

#[test]
fn driver_steps_expectations_and_golden_load_into_the_model() {
    let handler = "[working, {delegate: {to: screener, text: a, as: screen}}, {fan_out: {to: [screener, screener], text: b, as: panel}}, completed]";
    let steps =
        "  - send: {caller: orchestrator, to: pay, text: bg, as: q, return_immediately: true}
  - wait: 3
  - wait: {task: q}
";
    let extra = r#"golden: false
expect:
  - {task: p/screen, state: [completed, input_required], history: [submitted, working, completed], outcome: timeout, text: done, data: {"/x": 1}, attempt: 2}
  - {task: p/panel/2, outcome: [completed, no_candidate]}
  - {task: p, delegation_chain: [orchestrator]}
  - {denied: p/screen, codes: [tenant]}
  - {denied: q, codes: []}
  - {ranking: 1, agents: [screener]}
"#;
    let s = load(&world(handler, steps, extra));
    assert!(!s.golden);
    assert!(matches!(
        &s.steps[2],
        Step::Send(send) if send.return_immediately() && !send.stream()
    ));
    assert!(matches!(s.steps[3], Step::Wait(WaitSpec::Ticks(3))));
    assert!(matches!(s.steps[4], Step::Wait(WaitSpec::Task(1))));
    let Expectation::Task(t) = &s.expectations[0] else {
        panic!()
    };
    assert_eq!(
        t.path,
        TaskPath {
            alias: 0,
            hops: vec![PathHop::Result("screen".into())]
        }
    );
    assert_eq!(
        t.state,
        Some(vec![TaskState::Completed, TaskState::InputRequired])
    );
    assert_eq!(
        t.history,
        Some(vec![
            TaskState::Submitted,
            TaskState::Working,
            TaskState::Completed
        ])
    );
    assert_eq!(t.outcome, Some(vec![Outcome::Timeout]));
    assert_eq!(t.text, Some(TextTest::Equals("done".into())));
    assert_eq!(t.data[0].path, ["x"]);
    assert_eq!(t.attempt, Some(2));
    let Expectation::Task(t) = &s.expectations[1] else {
        panic!()
    };
    assert_eq!(
        t.path.hops,
        [PathHop::Result("panel".into()), PathHop::Member(2)]
    );
    assert!(
        matches!(&s.expectations[3], Expectation::DeniedPath { path, codes } if path.hops.len() == 1 && codes.len() == 1)
    );
    assert!(
        matches!(&s.expectations[4], Expectation::Denied { step: 3, codes } if codes.is_empty())
    );
    assert!(
        matches!(&s.expectations[5], Expectation::Ranking { step: 1, agents } if *agents == ["screener"])
    );
    // Without the new keys, the defaults of today.
    let s = load(&world("[working, completed]", "", ""));
    assert!(s.golden);
    assert!(pay(&s).results.is_empty());
}

/// `(handler, steps, extra top-level keys, where the error points, what it says)`.
type Row<'a> = (&'a str, &'a str, &'a str, &'a str, &'a str);

#[rustfmt::skip]
const ERRORS: &[Row] = &[
    // `as` names
    ("[working, {delegate: {to: screener, text: a, as: s1}}, {fan_out: {to: [screener], text: b, as: s1}}, completed]", "", "", "s1}}, completed", "duplicate result name `s1`"),
    ("[working, {delegate: {to: screener, text: a, as: screen}}, {when: {result: scren, outcome: completed}, then: [completed]}]", "", "", "scren", "unknown result `scren`: no earlier `delegate` or `fan_out` of this handler has `as: scren` (did you mean `screen`?)"),
    ("[working, {when: {result: later, outcome: completed}, then: [completed]}, {delegate: {to: screener, text: a, as: later}}]", "", "", "later, outcome", "unknown result `later`"),
    ("[working, {delegate: {to: screener, text: a, as: 'a/b'}}, completed]", "", "", "'a/b'", "cannot contain `/`"),
    ("[working, {delegate: {to: screener, text: a, as: '7'}}, completed]", "", "", "'7'", "cannot be a number"),
    // artifacts from results
    ("[working, {delegate: {to: screener, text: a, as: s}}, {artifact: {from: s, text: hi}}, completed]", "", "", "s, text: hi", "drop `text` and `data`"),
    ("[working, {delegate: {to: screener, text: a, as: s}}, {artifact: {from: [s, t]}}, completed]", "", "", "t]}}", "unknown result `t`"),
    // fan-outs
    ("[working, {fan_out: {to: [screener], text: a, on_pause: escalate}}, completed]", "", "", "escalate}}", "a fan-out cancels a child that pauses"),
    ("[working, {fan_out: {to: [screener], text: a, replies: [{text: x}]}}, completed]", "", "", "[{text: x}]", "takes no `replies`"),
    ("[working, {fan_out: {to: [], text: a}}, completed]", "", "", "[], text", "at least one target"),
    ("[working, {fan_out: {to: [screner], text: a}}, completed]", "", "", "screner]", "unknown agent `screner`"),
    ("[working, {fan_out: {to: screener, text: a}}, completed]", "", "", "screener, text", "a fan-out's `to` is a list"),
    // numbers
    ("[working, {wait: -1}, completed]", "", "", "-1}", "`wait` must be at least 0, not -1"),
    ("[working, {delegate: {to: screener, text: a, timeout: 0}}, completed]", "", "", "0}}", "`timeout` must be at least 1, not 0"),
    ("[working, {delegate: {to: screener, text: a, retry: {attempts: 0}}}, completed]", "", "", "0}}}", "`attempts` must be at least 1"),
    ("[working, {delegate: {to: screener, text: a, retry: {backoff: -2}}}, completed]", "", "", "-2}", "`backoff` must be at least 0"),
    ("[working, {delegate: {to: screener, text: a, retry: {attempts: 5000}}}, completed]", "", "", "5000", "at most 1000"),
    ("[working, {delegate: {to: screener, text: a, on_pause: escalte}}, completed]", "", "", "escalte", "did you mean `escalate`?"),
    // conditions
    ("[working, {delegate: {to: screener, text: a, as: s}}, {when: {result: s, data: {score: {gt: high}}}, then: [completed]}]", "", "", "high", "`gt` needs a number"),
    ("[working, {delegate: {to: screener, text: a, as: s}}, {when: {result: s, data: {k: {in: 3}}}, then: [completed]}]", "", "", "3}}}", "`in` needs a list"),
    ("[working, {delegate: {to: screener, text: a, as: s}}, {when: {result: s, data: {k: {exists: 1}}}, then: [completed]}]", "", "", "1}}}", "`exists` needs `true` or `false`"),
    ("[working, {delegate: {to: screener, text: a, as: s}}, {when: {result: s, data: {k: {contains: 1}}}, then: [completed]}]", "", "", "1}}}", "`contains` needs a string"),
    ("[working, {delegate: {to: screener, text: a, as: s}}, {when: {result: s, data: {'/a~2': 1}}, then: [completed]}]", "", "", "1}}, then", "not a valid JSON Pointer"),
    ("[working, {delegate: {to: screener, text: a, as: s}}, {when: {result: s, data: {'a..b': 1}}, then: [completed]}]", "", "", "1}}, then", "empty segment"),
    ("[working, {delegate: {to: screener, text: a, as: s}}, {when: {result: s, completed: 1}, then: [completed]}]", "", "", "completed: 1", "`completed` counts the members of a fan-out, and `s` is a delegation"),
    ("[working, {fan_out: {to: [screener], text: a, as: g}}, {when: {result: g, state: completed}, then: [completed]}]", "", "", "state: completed", "`state` is the state of a delegation's child task, and `g` is a fan-out"),
    ("[working, {fan_out: {to: [screener], text: a, as: g}}, {when: {result: g, size: {exists: true}}, then: [completed]}]", "", "", "exists: true", "`exists` does not apply to a count"),
    ("[working, {fan_out: {to: [screener], text: a, as: g}}, {when: {result: g, size: two}, then: [completed]}]", "", "", "two}", "`size` takes a number"),
    ("[working, {when: {input: {}, outcome: completed}, then: [completed]}]", "", "", "outcome: completed", "`outcome` is how a delegation ended, and `input` is a message"),
    ("[working, {when: {input: {}, reply: {}, text: a}, then: [completed]}]", "", "", "reply: {}", "a condition has one subject"),
    ("[working, {when: {input: {}}, then: [completed]}]", "", "", "{}}, then", "needs at least one test"),
    ("[working, {when: {text: a}, then: [completed]}]", "", "", "{text: a}", "a condition needs a subject"),
    ("[working, {when: {all: [], text: a}, then: [completed]}]", "", "", "text: a", "`text` cannot go beside `all`"),
    ("[working, {when: {any: []}, then: [completed]}]", "", "", "[]}, then", "`any` needs at least one condition"),
    ("[working, {delegate: {to: screener, text: a, as: s}}, {when: {result: s, outcome: complted}, then: [completed]}]", "", "", "complted", "did you mean `completed`?"),
    ("[working, {when: {input: {}, text: a}}]", "", "", "{input: {}, text: a}}]", "needs `then: [steps]`"),
    ("[working, {then: [completed]}]", "", "", "{then", "go with `when: CONDITION`"),
    // driver steps
    ("[working, completed]", "  - stream: {caller: orchestrator, to: pay, text: s, return_immediately: true}\n", "", "true}", "a stream is read to its end"),
    ("[working, completed]", "  - wait: {task: later}\n  - send: {caller: orchestrator, to: pay, text: s, as: later}\n", "", "later}\n", "unknown alias `later`"),
    ("[working, completed]", "  - wait: -3\n", "", "-3", "`wait` must be at least 0, not -3"),
    // expectations and golden
    ("[working, completed]", "", "golden: false\n", "false", "needs at least one `expect` entry"),
    ("[working, {delegate: {to: screener, text: a, as: screen}}, completed]", "", "expect:\n  - {task: p/scren, state: completed}\n", "p/scren", "the handler of `pay` has no delegation or fan-out with `as: scren` (did you mean `screen`?)"),
    ("[working, {delegate: {to: screener, text: a, as: screen}}, completed]", "", "expect:\n  - {task: p/screen/1, state: completed}\n", "p/screen/1", "`screen` is not a fan-out"),
    ("[working, {fan_out: {to: [screener], text: a, as: g}}, completed]", "", "expect:\n  - {task: p/g/2, state: completed}\n", "p/g/2", "`g` has 1 members, so there is no member 2"),
    ("[working, {fan_out: {to: [screener], text: a, as: g}}, completed]", "", "expect:\n  - {task: p/g/0, state: completed}\n", "p/g/0", "numbered from 1"),
    ("[working, completed]", "", "expect:\n  - task: p\n", "p\n", "needs at least one test"),
    ("[working, completed]", "", "expect:\n  - {task: p, attempt: 0}\n", "0}", "`attempt` must be at least 1"),
    ("[working, completed]", "", "expect:\n  - {task: p, history: [submitted, wroking]}\n", "wroking", "did you mean `working`?"),
    ("[working, completed]", "", "expect:\n  - {ranking: 2, agents: [pay]}\n", "2, agents", "not a discover step"),
    ("[working, completed]", "", "expect:\n  - {ranking: 1, agents: [screner]}\n", "screner", "unknown agent `screner`"),
    ("[working, completed]", "", "expect:\n  - {denied: 2, outcome: denied}\n", "denied}", "`outcome` goes with `task`"),
];

#[test]
fn every_new_check_is_located_at_the_offending_value() {
    let mut failures = Vec::new();
    for (handler, steps, extra, marker, message) in ERRORS {
        let text = world(handler, steps, extra);
        let (line, column) = position(&text, marker);
        let want = format!("test.yaml:{line}:{column}: ");
        match Load::text("test.yaml", &text, Path::new("."), "test").scenario() {
            Ok(_) => failures.push(format!("{handler} {steps}{extra}: loaded")),
            Err(e) => {
                let e = e.to_string();
                if !e
                    .lines()
                    .any(|l| l.starts_with(&want) && l.contains(message))
                {
                    failures.push(format!(
                        "{handler} {steps}{extra}\n  want {want}…{message}\n  got  {e}"
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn common_one_agent_world_still_loads() {
    // The helper other tests use gains nothing it did not ask for.
    let s = load(&one_agent(
        "[working, completed]",
        "  - send: {caller: orchestrator, to: screener, text: hi}",
    ));
    assert!(s.golden && s.agents[0].results.is_empty());
}

#[test]
fn the_schema_describes_the_new_keys_as_the_loader_reads_them() {
    let schema = a2a_sim::scenario::scenario_schema();
    let validator = jsonschema::validator_for(&schema).expect("a valid JSON Schema");
    let doc = |text: &str| a2a_sim::scenario::yaml::parse_value(text).unwrap();
    let good = world(
        "[working, {wait: 1}, {delegate: {to: screener, text: a, as: s, retry: {attempts: 2}, on_pause: escalate, replies: [{text: r}]}}, {fan_out: {to: {discover: [sanctions], limit: 2}, text: b, as: g, join: any}}, {when: {any: [{result: s, data: {k: {gte: 1}}}, {result: g, completed: {gte: 1}}]}, then: [{artifact: {from: [s, g]}}], else: [failed]}, completed]",
        "  - wait: 2\n  - wait: {task: p}\n  - send: {caller: orchestrator, to: pay, text: x, return_immediately: true}\n",
        "golden: false\nexpect:\n  - {task: p/s, outcome: [completed], attempt: 1}\n  - {ranking: 1, agents: [screener]}\n",
    );
    let errors: Vec<String> = validator
        .iter_errors(&doc(&good))
        .map(|e| e.to_string())
        .collect();
    assert!(errors.is_empty(), "{errors:?}");
    for (handler, steps) in [
        (
            "[working, {fan_out: {to: [screener], text: a, on_pause: escalate}}]",
            "",
        ),
        ("[working, {when: {input: {}, text: a}}]", ""),
        (
            "[working]",
            "  - stream: {caller: orchestrator, to: pay, text: x, return_immediately: true}\n",
        ),
        ("[working, {wait: -1}]", ""),
    ] {
        let bad = world(handler, steps, "");
        assert!(!validator.is_valid(&doc(&bad)), "{handler} {steps}");
    }
}
