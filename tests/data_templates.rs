//! Data templates (`templates: true`): every string inside a handler's `data` — a delegation's,
//! a fan-out's, an artifact's, a scripted reply's — is a template; one that is exactly one
//! reference takes the referenced value with its type; a reference without a value is the error
//! `template_missing` naming it, never an empty string; without the opt-in, data is literal.

use serde_json::{Value, json};

use crate::common::{load_err, report_value};

/// `desk` runs HANDLER; credit scores what it gets (its artifact echoes the data it was sent).
fn scenario(templates: bool, handler: &str) -> String {
    format!(
        r#"templates: {templates}
agents:
  - name: credit
    tenant: acme
    clearance: internal
    skills: [{{id: c, tags: [credit]}}]
    handler:
      - working
      - artifact: {{text: scored, data: {{score: 712, got: "{{{{input.data}}}}"}}}}
      - completed: done
  - name: desk
    tenant: acme
    clearance: internal
    skills: [{{id: d, tags: [loans]}}]
    handler: {handler}
callers:
  - {{id: u, tenant: acme, classification: internal}}
steps:
  - send: {{caller: u, to: desk, text: apply, data: {{applicant: {{name: Ada, id: 7}}, amount: 20000}}, as: a}}
"#
    )
}

fn task<'a>(v: &'a Value, agent: &str) -> &'a Value {
    v["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["agent"] == agent)
        .unwrap_or_else(|| panic!("no task on {agent}: {v:#}"))
}

/// The data of the first message of the task on `agent`.
fn sent(v: &Value, agent: &str) -> Value {
    task(v, agent)["messages"][0]["data"].clone()
}

const FORWARD: &str = r#"[working, {delegate: {to: credit, text: score, data: {applicant: "{{input.data.applicant}}", amount: "{{input.data.amount}}", note: "for {{input.data.applicant.name}}: {{input.data.amount}}"}, as: credit}}, completed]"#;

#[test]
fn a_string_that_is_one_reference_takes_the_value_with_its_type() {
    let v = report_value(&scenario(true, FORWARD));
    assert_eq!(
        sent(&v, "credit"),
        json!({"applicant": {"name": "Ada", "id": 7}, "amount": 20000, "note": "for Ada: 20000"})
    );
    // The whole data, as an object (the child's artifact echoes it).
    assert_eq!(
        task(&v, "credit")["artifacts"][0]["data"]["got"]["amount"],
        json!(20000)
    );
}

#[test]
fn without_the_opt_in_data_is_literal() {
    let v = report_value(&scenario(false, FORWARD));
    assert_eq!(sent(&v, "credit")["amount"], json!("{{input.data.amount}}"));
}

#[test]
fn results_reach_an_artifact_and_a_fan_outs_data() {
    let handler = r#"[working, {fan_out: {to: [credit], text: score, data: {amount: "{{input.data.amount}}"}, as: checks}}, {delegate: {to: credit, text: again, data: {k: 1}, as: credit}}, {artifact: {text: decided, data: {score: "{{result.credit.data.score}}", all: "{{result.credit.data}}"}}}, completed]"#;
    let v = report_value(&scenario(true, handler));
    let desk = task(&v, "desk");
    assert_eq!(desk["state"], "completed", "{v:#}");
    assert_eq!(desk["artifacts"][0]["data"]["score"], json!(712));
    assert_eq!(desk["artifacts"][0]["data"]["all"]["score"], json!(712));
    assert_eq!(sent(&v, "credit"), json!({"amount": 20000}));
}

#[test]
fn a_reference_without_a_value_is_template_missing_not_an_empty_string() {
    // In an artifact: the task fails, the error names the reference.
    let handler =
        r#"[working, {artifact: {text: x, data: {n: "{{input.data.nope}}"}}}, completed]"#;
    let v = report_value(&scenario(true, handler));
    assert_eq!(v["errors"][0]["code"], "template_missing", "{v:#}");
    let detail = v["errors"][0]["detail"].as_str().unwrap();
    assert!(detail.contains("`{{input.data.nope}}`"), "{detail}");
    assert_eq!(task(&v, "desk")["state"], "failed");
    // In a delegation's data: no child, the delegation fails (as on_error says).
    let handler = r#"[working, {delegate: {to: credit, text: score, data: {a: "x {{input.data.nope}}"}, as: credit}}, completed]"#;
    let v = report_value(&scenario(true, handler));
    assert_eq!(v["errors"][0]["code"], "template_missing", "{v:#}");
    assert!(
        v["tasks"]
            .as_array()
            .unwrap()
            .iter()
            .all(|t| t["agent"] != "credit")
    );
    assert_eq!(task(&v, "desk")["state"], "failed");
}

#[test]
fn a_bad_reference_in_data_is_a_located_load_error() {
    let handler = r#"[working, {delegate: {to: credit, text: score, data: {a: "{{inptu.data.x}}"}}}, completed]"#;
    let e = load_err(&scenario(true, handler));
    assert!(
        e.contains("unknown template reference `{{inptu.data.x}}`"),
        "{e}"
    );
    assert!(e.contains("test.yaml:"), "{e}");
}

#[test]
fn check_warns_where_a_data_reference_may_have_no_value() {
    // `credit` is defined in one branch only: on the other the artifact's data has no value.
    let yaml = r#"templates: true
agents:
  - {name: credit, tenant: t, clearance: public, skills: [{id: c, tags: [c]}], handler: [working, {artifact: {text: s, data: {score: 1}}}, completed]}
  - name: desk
    tenant: t
    clearance: public
    skills: [{id: d, tags: [d]}]
    handler:
      - working
      - when: {input: {}, text: go}
        then: [{delegate: {to: credit, text: score, as: credit}}]
      - artifact: {text: x, data: {score: "{{result.credit.data.score}}"}}
      - completed
callers: [{id: u, tenant: t, classification: public}]
steps:
  - send: {caller: u, to: desk, text: go}
"#;
    let dir = crate::common::binary::scratch("data-template-warning");
    crate::common::binary::write(&dir, "w.yaml", yaml);
    let run = crate::common::binary::a2a_sim_in(&dir, &["check", "w.yaml"], None);
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("w.yaml:12:43: warning: handler step 4 puts `result.credit` in its data"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("fails with `template_missing`"),
        "{}",
        run.stderr
    );
}
