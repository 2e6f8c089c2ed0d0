//! How a `when` runs and is recorded (behaviour.md §4): the script after the chosen branch,
//! handler step numbers, the decisions in the report, and the load-time checks on conditions.

use serde_json::{Value, json};

use crate::common::{
    build::{agent, loader_result, run, send, yaml},
    load,
    read::{decisions, errors, hist, last_message, task, texts},
    report,
};

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
