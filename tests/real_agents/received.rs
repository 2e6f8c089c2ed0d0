//! `received` expectations: what a real (or scripted) agent was sent, pinned.

use super::*;

#[test]
fn received_expectations_hold_on_what_the_real_agent_sent() {
    let desk = Desk {
        head: "golden: false\n",
        expect: r#"expect:
  - {errors: 0}
  - {received: kyc, from: desk, count: 2, data: {applicant: {exists: true}}}
  - {received: kyc, count: {gte: 2}, text: {contains: "KYC check"}}
  - {received: kyc, from: desk, nth: 1, data: {amount: 20000}}
  - {received: kyc, from: desk, nth: 2, text: "KYC check: Ned", data: {applicant: Ned, amount: 150}}
  - {received: desk, from: branch, count: 2, text: {contains: Application}}
  - {received: kyc, from: branch, count: 0}
"#,
        ..Desk::mode("ok")
    };
    let run = a2a_sim_logged(&desk.at("received-hold"), &["test", "./desk.yaml"]);
    assert_eq!(run.status, 0, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stdout.starts_with("ok     ./desk.yaml"),
        "{}",
        run.stdout
    );
}

#[test]
fn received_expectations_that_fail_say_where_and_why() {
    let desk = Desk {
        head: "golden: false\n",
        expect: r#"expect:
  - {received: kyc, from: desk, count: 3}
  - {received: kyc, nth: 2, text: {contains: Grace}, data: {amount: 20000}}
  - {received: kyc, nth: 5, text: x}
"#,
        ..Desk::mode("ok")
    };
    let yaml = desk.yaml();
    let run = a2a_sim_logged(&desk.at("received-fail"), &["test", "./desk.yaml"]);
    assert_eq!(run.status, 1, "{}{}", run.stdout, run.stderr);
    let file = "./desk.yaml";
    let count = at(file, &yaml, "count: 3", "{");
    let nth2 = at(file, &yaml, "nth: 2", "{");
    let nth5 = at(file, &yaml, "nth: 5", "{");
    for line in [
        format!("{count}: expectation failed: `kyc` received from `desk`: expected 3 tasks, got 2"),
        format!(
            "{nth2}: expectation failed: `kyc` received, task 2 (task-4): expected text {{contains: \"Grace\"}}, got \"KYC check: Ned\""
        ),
        format!(
            "{nth2}: expectation failed: `kyc` received, task 2 (task-4): data `amount` expected 20000, got 150"
        ),
        format!("{nth5}: expectation failed: `kyc` received: no task number 5 (it received 2)"),
    ] {
        assert!(run.stdout.contains(&line), "no {line:?} in\n{}", run.stdout);
    }
}

/// A scripted-only scenario: `front` delegates Ada's check to `kyc`, `branch` sends Bob's.
const SCRIPTED: &str = r#"name: scripted received
golden: false
agents:
  - name: front
    tenant: acme
    clearance: confidential
    scopes: [kyc:check]
    skills: [{id: f, tags: [front]}]
    handler:
      - working: Onboarding
      - delegate: {to: kyc, text: "KYC check: Ada", data: {applicant: Ada}}
      - completed: done
  - name: kyc
    tenant: acme
    clearance: confidential
    required_scopes: [kyc:check]
    skills: [{id: k, tags: [kyc]}]
    handler: [working, {completed: verified}]
callers:
  - {id: branch, tenant: acme, classification: confidential, scopes: [kyc:check]}
steps:
  - send: {caller: branch, to: front, text: "Onboard Ada"}
  - send: {caller: branch, to: kyc, text: "KYC check: Bob", data: {applicant: Bob}}
expect:
"#;

#[test]
fn received_expectations_hold_on_a_scripted_scenario() {
    let holds = [
        "{received: kyc, count: 2}",
        "{received: kyc, from: front, count: 1, text: {contains: Ada}, data: {applicant: Ada}}",
        "{received: kyc, from: branch, count: 1, text: \"KYC check: Bob\"}",
        "{received: front, from: branch, count: {gte: 1}}",
        "{received: kyc, nth: 2, data: {applicant: Bob}}",
    ];
    let yaml = format!("{SCRIPTED}  - {}\n", holds.join("\n  - "));
    let run = a2a_sim_in(
        &in_scratch("received-scripted", &yaml),
        &["test", "./desk.yaml"],
        None,
    );
    assert_eq!(run.status, 0, "{}{}", run.stdout, run.stderr);
    let yaml = format!("{SCRIPTED}  - {{received: kyc, from: front, count: 2}}\n");
    let run = a2a_sim_in(
        &in_scratch("received-scripted-fail", &yaml),
        &["test", "./desk.yaml"],
        None,
    );
    assert_eq!(run.status, 1, "{}{}", run.stdout, run.stderr);
    let where_ = at("./desk.yaml", &yaml, "count: 2}", "{");
    let said = format!(
        "{where_}: expectation failed: `kyc` received from `front`: expected 2 tasks, got 1"
    );
    assert!(run.stdout.contains(&said), "no {said:?} in\n{}", run.stdout);
}

#[test]
fn received_entries_that_make_no_sense_are_located_load_errors() {
    let cases = [
        (
            "{received: nope, count: 1}",
            "nope",
            "`received` names no agent `nope` of the scenario",
        ),
        (
            "{received: kyc, from: nobody, count: 1}",
            "nobody",
            "`from` names no caller or agent `nobody` of the scenario",
        ),
        (
            "{received: kyc, nth: 0, text: x}",
            "0",
            "`nth` must be at least 1, not 0",
        ),
        (
            "{received: kyc, state: completed}",
            "completed}",
            "`state` does not go with `received`",
        ),
    ];
    for (entry, located, message) in cases {
        let yaml = format!("{SCRIPTED}  - {{errors: 0}}\n  - {entry}\n");
        let run = a2a_sim_in(
            &in_scratch("received-load", &yaml),
            &["test", "./desk.yaml"],
            None,
        );
        assert_eq!(run.status, 2, "{entry}: {}{}", run.stdout, run.stderr);
        let want = format!("{}: {message}", at("./desk.yaml", &yaml, entry, located));
        let all = format!("{}{}", run.stdout, run.stderr);
        assert!(all.contains(&want), "{entry}: no {want:?} in\n{all}");
    }
}
