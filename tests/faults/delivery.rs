//! Webhook delivery (faults.md §2): `down` at its window's edges, backoff ticks, dead letters,
//! duplicate keys, saturation, redaction, and when the record is present.

use serde_json::Value;

use super::SCREENER;
use crate::common::report_value;

fn deliveries(y: &str) -> Vec<Value> {
    report_value(y)["deliveries"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

fn pushed(policy: &str, faults: &str, wait: u64) -> String {
    let y = crate::common::one_agent(
        SCREENER,
        &format!(
            "  - wait: {wait}\n  - send: {{caller: orchestrator, to: screener, text: Screen, push: {{url: \"https://hooks.acme.example/a2a?sig=x#y\", token: s3cr3t}}}}"
        ),
    );
    let y = y.replace(
        "push_allowed_hosts: [hooks.acme.example]}",
        &format!("push_allowed_hosts: [hooks.acme.example], {policy}}}"),
    );
    format!("{y}faults:\n{faults}\n")
}

#[test]
fn down_fails_attempts_inside_its_window_and_one_attempt_dead_letters() {
    // `working` is pushed at wait + 2.
    for (tick, outcome) in [
        (4, "delivered"),
        (5, "dead_letter"),
        (6, "dead_letter"),
        (7, "delivered"),
    ] {
        let y = pushed(
            "push_delivery: {attempts: 1}",
            "  - {push_host: hooks.acme.example, down: {from: 5, to: 7}}",
            tick - 2,
        );
        let d = deliveries(&y);
        assert_eq!(d[0]["tick"], tick);
        assert_eq!(d[0]["key"], "task-1/2");
        assert_eq!(d[0]["outcome"], outcome, "tick {tick}");
    }
}

#[test]
fn retries_back_off_exponentially_then_dead_letter() {
    let y = pushed(
        "push_delivery: {attempts: 5, backoff: 3}",
        "  - {push_host: hooks.acme.example, down: {}}",
        0,
    );
    let d = deliveries(&y);
    let working: Vec<(u64, &str)> = d
        .iter()
        .filter(|x| x["key"] == "task-1/2")
        .map(|x| (x["tick"].as_u64().unwrap(), x["outcome"].as_str().unwrap()))
        .collect();
    assert_eq!(
        working,
        [
            (2, "failed"),
            (5, "failed"),
            (11, "failed"),
            (23, "failed"),
            (47, "dead_letter")
        ]
    );
    // No token anywhere; the query and fragment redacted.
    let text = serde_json::to_string(&d).unwrap();
    assert!(
        !text.contains("s3cr3t") && !text.contains("sig=x"),
        "{text}"
    );
    assert!(text.contains("https://hooks.acme.example/a2a?[redacted]#[redacted]"));
    // Tick arithmetic saturates.
    let y = pushed(
        "push_delivery: {attempts: 64, backoff: 9223372036854775807}",
        "  - {push_host: hooks.acme.example, down: {}}",
        0,
    );
    let d = deliveries(&y);
    assert_eq!(d.last().unwrap()["tick"], u64::MAX);
    assert_eq!(d.last().unwrap()["outcome"], "dead_letter");
}

#[test]
fn duplicates_repeat_successes_with_the_same_key_never_failures() {
    let y = pushed(
        "push_delivery: {attempts: 2, backoff: 1}",
        "  - {push_host: hooks.acme.example, duplicate: true}\n  - {push_host: hooks.acme.example, down: {from: 2, to: 3}}",
        0,
    );
    let d = deliveries(&y);
    let rows: Vec<(u64, &str, u64, &str)> = d
        .iter()
        .map(|x| {
            (
                x["tick"].as_u64().unwrap(),
                x["key"].as_str().unwrap(),
                x["attempt"].as_u64().unwrap(),
                x["outcome"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        rows,
        [
            (2, "task-1/2", 1, "failed"),
            (3, "task-1/2", 2, "delivered"),
            (3, "task-1/2", 2, "delivered"),
            (3, "task-1/3", 1, "delivered"),
            (3, "task-1/3", 1, "delivered"),
        ]
    );
}

#[test]
fn deliveries_appear_only_with_faults_or_a_delivery_policy() {
    let plain = crate::common::one_agent(
        SCREENER,
        "  - send: {caller: orchestrator, to: screener, text: Hi, push: {url: \"https://hooks.acme.example/a\", token: k}}",
    );
    assert!(report_value(&plain).get("deliveries").is_none());
    let none = format!("{plain}faults: []\n");
    assert!(report_value(&none).get("deliveries").is_none());
    let policy = plain.replace("max_depth: 4,", "max_depth: 4, push_delivery: {},");
    assert_eq!(
        report_value(&policy)["deliveries"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    let keys: Vec<&str> = report_value(&policy)
        .as_object()
        .unwrap()
        .keys()
        .map(|k| k.as_str())
        .collect::<Vec<_>>()
        .into_iter()
        .map(|k| Box::leak(k.to_string().into_boxed_str()) as &str)
        .collect();
    let at = keys.iter().position(|k| *k == "deliveries").unwrap();
    assert_eq!(keys[at - 1], "pushes", "right after pushes");
}

#[test]
fn hosts_are_normalised_and_hit_only_that_host() {
    // An upper-case entry names the same host; a subdomain is not hit.
    let y = pushed(
        "push_delivery: {attempts: 1}",
        "  - {push_host: HOOKS.Acme.Example, down: {}}",
        0,
    );
    assert_eq!(deliveries(&y)[0]["outcome"], "dead_letter");
    let y = pushed(
        "push_delivery: {attempts: 1}",
        "  - {push_host: hooks.acme.example, down: {}}",
        0,
    )
    .replace(
        "https://hooks.acme.example/a2a",
        "https://x.hooks.acme.example/a2a",
    )
    .replace(
        "[hooks.acme.example]",
        "[hooks.acme.example, \"*.hooks.acme.example\"]",
    );
    assert_eq!(deliveries(&y)[0]["outcome"], "delivered");
}
