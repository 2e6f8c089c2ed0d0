//! Fan-out members in `when` (behaviour.md §4): one member by the agent its `to` list names or
//! by position, and `each` / `some` over the members that completed — deciding on one check's
//! data without giving up the fan-out — with the load-time checks that name what is wrong.

use crate::common::{
    build::{agent, run, send, yaml},
    load_err,
    read::{decisions, task},
};

/// kyc verifies; credit scores SCORE; fraud is denied to everyone (it needs a scope nobody has).
fn checks(score: u32) -> Vec<String> {
    vec![
        agent(
            "kyc",
            "[working, {artifact: {text: ok, data: {verified: true}}}, completed]",
        ),
        agent(
            "credit",
            &format!("[working, {{artifact: {{text: scored, data: {{score: {score}}}}}}}, completed]"),
        ),
        "  - {name: fraud, tenant: t, clearance: public, required_scopes: [vault], skills: [{id: fraud, tags: [fraud]}], handler: [working, completed]}\n".to_string(),
    ]
}

/// `desk` fans out to TO (as `checks`, going on whatever the members do) and then decides on
/// COND.
fn desk(to: &str, cond: &str) -> String {
    agent(
        "desk",
        &format!(
            "[working, {{fan_out: {{to: {to}, text: check, as: checks, on_error: continue}}}}, {{when: {cond}, then: [{{completed: approved}}], else: [{{failed: declined}}]}}]"
        ),
    )
}

fn decided(to: &str, cond: &str, score: u32) -> String {
    let mut agents = checks(score);
    agents.push(desk(to, cond));
    let v = run(&agents, &send("desk"));
    let id = v["steps"][0]["result"]["task"].as_str().unwrap();
    let n: usize = id.trim_start_matches("task-").parse().unwrap();
    task(&v, n)["state"].as_str().unwrap().to_string()
}

#[test]
fn a_member_named_by_its_agent_takes_a_delegations_tests() {
    let cond = "{result: checks.credit, data: {score: {gte: 650}}}";
    assert_eq!(decided("[kyc, credit]", cond, 712), "completed");
    assert_eq!(decided("[kyc, credit]", cond, 590), "failed");
    // Its state and outcome too.
    let cond = "{result: checks.kyc, state: completed, outcome: completed}";
    assert_eq!(decided("[kyc, credit]", cond, 590), "completed");
}

#[test]
fn a_member_named_by_position_is_the_same_member() {
    let by_name = decided(
        "[kyc, credit]",
        "{result: checks.credit, data: {score: 712}}",
        712,
    );
    let by_position = decided(
        "[kyc, credit]",
        "{result: checks.2, data: {score: 712}}",
        712,
    );
    assert_eq!(
        (by_name.as_str(), by_position.as_str()),
        ("completed", "completed")
    );
    // The first member is kyc, whose data has no score.
    assert_eq!(
        decided(
            "[kyc, credit]",
            "{result: checks.1, data: {score: 712}}",
            712
        ),
        "failed"
    );
}

#[test]
fn a_denied_member_has_its_groups_word_for_outcome_and_no_state() {
    let cond = "{result: checks.fraud, outcome: denied}";
    assert_eq!(decided("[kyc, fraud]", cond, 700), "completed");
    let cond = "{result: checks.fraud, state: completed}";
    assert_eq!(decided("[kyc, fraud]", cond, 700), "failed");
}

#[test]
fn each_holds_on_every_completed_member_and_some_on_one() {
    let each = "{result: checks, each: {data: {score: {gte: 650}}}}";
    // kyc completed without a score: `each` fails on it, `some` holds on credit's.
    assert_eq!(decided("[kyc, credit]", each, 712), "failed");
    let some = "{result: checks, some: {data: {score: {gte: 650}}}}";
    assert_eq!(decided("[kyc, credit]", some, 712), "completed");
    assert_eq!(decided("[kyc, credit]", some, 590), "failed");
    let each = "{result: checks, each: {state: completed}}";
    assert_eq!(decided("[kyc, credit]", each, 590), "completed");
}

#[test]
fn each_over_members_none_of_which_completed_holds_and_some_does_not() {
    // fraud is denied: no member completed.
    let each = "{result: checks, each: {data: {score: 1}}}";
    assert_eq!(decided("[fraud]", each, 1), "completed");
    let some = "{result: checks, some: {state: completed}}";
    assert_eq!(decided("[fraud]", some, 1), "failed");
}

#[test]
fn the_decision_is_recorded_and_shown_with_the_member_by_position() {
    let mut agents = checks(712);
    agents.push(desk(
        "[kyc, credit]",
        "{result: checks.credit, data: {score: {gte: 650}}}",
    ));
    let y = yaml(&agents, &send("desk"));
    let v = crate::common::report_value(&y);
    let id = v["steps"][0]["result"]["task"].as_str().unwrap();
    let n: usize = id.trim_start_matches("task-").parse().unwrap();
    assert_eq!(decisions(&v, n)[0].1, "then");
    let table = crate::common::binary::a2a_sim_in(
        &{
            let dir = crate::common::binary::scratch("fan-out-members-table");
            crate::common::binary::write(&dir, "f.yaml", &y);
            dir
        },
        &["run", "f.yaml"],
        None,
    );
    assert!(
        table.stdout.contains("checks.2.data.score >= 650"),
        "{}",
        table.stdout
    );
}

/// The load error of `desk` deciding on COND after fanning out to [kyc, credit].
fn refused(cond: &str) -> String {
    let mut agents = checks(700);
    agents.push(desk("[kyc, credit]", cond));
    load_err(&yaml(&agents, &send("desk")))
}

#[test]
fn a_member_that_is_not_there_is_a_located_error_with_a_hint() {
    let e = refused("{result: checks.credt, data: {score: 1}}");
    assert!(
        e.contains("`checks.credt`: the fan-out `checks` has no member `credt`; its members are `kyc`, `credit`"),
        "{e}"
    );
    assert!(e.contains("did you mean `credit`"), "{e}");
    assert!(e.contains("test.yaml:"), "{e}");
    let e = refused("{result: checks.3, state: completed}");
    assert!(e.contains("a member's position is 1 to 2, not 3"), "{e}");
}

#[test]
fn quantifiers_and_members_refuse_what_does_not_fit() {
    let e = refused("{result: checks, each: {completed: 1}}");
    assert!(e.contains("`completed` does not go inside it"), "{e}");
    let e = refused("{result: checks, each: {state: completed}, size: 2}");
    assert!(e.contains("`size` cannot go beside `each`"), "{e}");
    let e = refused("{result: checks, some: {}}");
    assert!(e.contains("`some` needs at least one test"), "{e}");
    let e = refused("{result: checks.kyc, completed: 1}");
    assert!(
        e.contains("`completed` counts the members of a fan-out"),
        "{e}"
    );
}

#[test]
fn a_delegation_has_no_members() {
    let agents = [
        checks(700),
        vec![agent(
            "desk",
            "[working, {delegate: {to: kyc, text: check, as: one}}, {when: {result: one.kyc, state: completed}, then: [completed], else: [failed]}]",
        )],
    ]
    .concat();
    let e = load_err(&yaml(&agents, &send("desk")));
    assert!(
        e.contains("`one` is a delegation, not a fan-out: `one.kyc` names a fan-out's member"),
        "{e}"
    );
    let agents = [
        checks(700),
        vec![agent(
            "desk",
            "[working, {delegate: {to: kyc, text: check, as: one}}, {when: {result: one, each: {state: completed}}, then: [completed], else: [failed]}]",
        )],
    ]
    .concat();
    let e = load_err(&yaml(&agents, &send("desk")));
    assert!(
        e.contains("`each` is over a fan-out's members, and `one` is a delegation"),
        "{e}"
    );
}

#[test]
fn the_loan_orchestrator_example_passes_and_its_webhook_claims_hold_under_explore() {
    // A fan-out of KYC, credit and fraud, the application forwarded as data, a decision on the
    // credit member's score, and claims about the back office's webhooks.
    let file = "examples/loan-orchestrator/loan.yaml";
    let test = crate::common::binary::a2a_sim(&["test", file]);
    assert_eq!(test.status, 0, "{}", test.stdout);
    let explore = crate::common::binary::a2a_sim(&["explore", file, "--runs", "100"]);
    assert_eq!(explore.status, 0, "{}", explore.stdout);
    assert_eq!(explore.stdout, "100 runs, 0 violations\n");
}

#[test]
fn a_member_named_with_as_is_found_by_that_name() {
    // Two members on one agent cannot be told apart by it; their own names can.
    let cond = "{result: checks.second, data: {score: 712}}";
    let to = "[kyc, {agent: credit, as: first}, {agent: credit, as: second}]";
    assert_eq!(decided(to, cond, 712), "completed");
    let e = refused_to(
        "[kyc, {agent: credit, as: c}, {agent: credit, as: c}]",
        "{result: checks.c, state: completed}",
    );
    assert!(e.contains("duplicate member name `c`"), "{e}");
    let e = refused_to(
        "[kyc, {agent: credit, as: \"2\"}]",
        "{result: checks.1, state: completed}",
    );
    assert!(e.contains("a member's `as` is a name"), "{e}");
    // In a delegation's `to`, `as` has no member to name.
    let agents = [
        checks(700),
        vec![agent(
            "desk",
            "[working, {delegate: {to: {agent: kyc, as: k}, text: check}}, completed]",
        )],
    ]
    .concat();
    let e = load_err(&yaml(&agents, &send("desk")));
    assert!(
        e.contains("`as` inside `to` names a fan-out's member"),
        "{e}"
    );
}

/// The load error of `desk` deciding on COND after fanning out to TO.
fn refused_to(to: &str, cond: &str) -> String {
    let mut agents = checks(700);
    agents.push(desk(to, cond));
    load_err(&yaml(&agents, &send("desk")))
}
