//! Claims about webhooks: delivery attempts (of a task, to a URL, by outcome, counted), dead
//! letters, and what a task's last push carries; with `always` and `if` like any claim.

use crate::common::binary::{a2a_sim_in, scratch};
use crate::common::load_err;

/// The bundled flaky-webhooks scenario with `claims` as its `expect:` entries.
fn with_claims(name: &str, claims: &str) -> std::path::PathBuf {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/scenarios/flaky-webhooks.yaml"
    ))
    .unwrap();
    let (head, _) = text.split_once("expect:\n").unwrap();
    let dir = scratch(name);
    std::fs::write(
        dir.join("s.yaml"),
        format!("{head}golden: false\nexpect:\n{claims}"),
    )
    .unwrap();
    dir
}

#[test]
fn delivery_attempts_dead_letters_and_the_last_push_are_claims() {
    // What the run does: hooks.acme.example fails twice then delivers (each delivery twice, a
    // duplicate), eu.webhooks.acme.example never gets through and dead-letters twice.
    let dir = with_claims(
        "webhook-claims-hold",
        "  - {deliveries: {task: kyc}, count: 16}\n  - {deliveries: {task: kyc, url: \"https://hooks.acme.example/kyc\"}, outcome: delivered, count: {gte: 2}}\n  - {deliveries: {url: \"https://hooks.acme.example/kyc\"}, outcome: [failed], count: 2}\n  - {deliveries: {}, outcome: dead_letter}\n  - {dead_letters: 2}\n  - {dead_letters: {lt: 3}}\n  - {pushes: {task: kyc}, last: {state: completed}}\n  - {pushes: 4}\n",
    );
    let r = a2a_sim_in(&dir, &["test", "s.yaml"], None);
    assert_eq!(r.status, 0, "{}{}", r.stdout, r.stderr);
    let dir = with_claims(
        "webhook-claims-fail",
        "  - {deliveries: {task: kyc, url: \"https://eu.webhooks.acme.example/kyc#frag\"}, outcome: delivered}\n  - {dead_letters: 0}\n  - {pushes: {task: kyc}, last: {state: [failed, canceled]}}\n  - {deliveries: {task: kyc}, outcome: delivered, count: 0, if: {task: kyc, state: failed}}\n",
    );
    let r = a2a_sim_in(&dir, &["test", "s.yaml"], None);
    assert_eq!(r.status, 1, "{}{}", r.stdout, r.stderr);
    for line in [
        "s.yaml:49:5: expectation failed: expected {gte: 1} delivery attempts of `kyc` to https://eu.webhooks.acme.example/kyc#frag delivered, got 0",
        "s.yaml:50:5: expectation failed: expected 0 dead letters, got 2",
        "s.yaml:51:5: expectation failed: task `kyc`: expected its last push to carry one of failed, canceled, got completed",
    ] {
        assert!(r.stdout.contains(line), "{line}\n{}", r.stdout);
    }
    // The fourth holds vacuously: the task did not fail.
    assert_eq!(
        r.stdout.matches("expectation failed").count(),
        3,
        "{}",
        r.stdout
    );
}

#[test]
fn webhook_claims_hold_under_explore_or_are_found_broken() {
    // The last push always carries the end the task reached: with crashes drawn, it can fail.
    let dir = with_claims(
        "webhook-claims-explore",
        "  - {pushes: {task: kyc}, last: {state: completed}, always: true}\n",
    );
    let r = a2a_sim_in(
        &dir,
        &["explore", "s.yaml", "--runs", "40", "--faults", "crash"],
        None,
    );
    assert_eq!(r.status, 1, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stdout.contains(
            "expect entry 1 violated: task `kyc`: expected its last push to carry completed"
        ),
        "{}",
        r.stdout
    );
    // Pinned with `if`, the claim is about runs in which the task completed: it holds.
    let dir = with_claims(
        "webhook-claims-explore-if",
        "  - {pushes: {task: kyc}, last: {state: completed}, always: true, if: {task: kyc, state: completed}}\n",
    );
    let r = a2a_sim_in(
        &dir,
        &["explore", "s.yaml", "--runs", "40", "--faults", "crash"],
        None,
    );
    assert_eq!(r.status, 0, "{}{}", r.stdout, r.stderr);
}

#[test]
fn webhook_claims_are_checked_at_load_and_located() {
    let base = "agents:\n  - {name: a, tenant: t, clearance: internal, skills: [{id: s, tags: [x]}], capabilities: {push_notifications: true}, handler: [working, completed]}\ncallers:\n  - {id: c, tenant: t, classification: public}\nsteps:\n  - send: {caller: c, to: a, text: hi, as: t1}\nexpect:\n";
    for (claim, message) in [
        (
            "  - {errors: 0, count: 1}\n",
            "test.yaml:8:24: `count` goes with `deliveries`",
        ),
        (
            "  - {pushes: 1, last: {state: completed}}\n",
            "`last` goes with `pushes: {task: T}`",
        ),
        (
            "  - {pushes: {task: t1}}\n",
            "a `pushes: {task: T}` expectation needs `last: {state: S}`",
        ),
        (
            "  - {deliveries: {task: t1}, outcome: delivred}\n",
            "unknown delivery outcome `delivred`; the delivery outcomes are `delivered`, `failed`, `dead_letter` (did you mean `delivered`?)",
        ),
        (
            "  - {deliveries: {task: t1}, state: completed}\n",
            "`state` does not go with `deliveries`",
        ),
        (
            "  - {dead_letters: 1, outcome: failed}\n",
            "`outcome` does not go with `dead_letters`",
        ),
        ("  - {deliveries: {task: nope}}\n", "nope"),
        ("  - {dead_letters: {gte: x}}\n", "needs a number"),
        (
            "  - {errors: 0, if: {task: t1, state: completed}}\n",
            "`if` goes with `task`, `deliveries`, `dead_letters` and `pushes: {task}` entries",
        ),
    ] {
        let err = load_err(&format!("{base}{claim}"));
        assert!(err.contains(message), "{claim}: {err}");
    }
}
