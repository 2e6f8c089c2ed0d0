//! `artifact: {from: ...}` (behaviour.md §6): an artifact made of a delegation's or a group's
//! results, in order, the ids it draws, and what it may not be given besides.

use serde_json::json;

use crate::common::{
    build::{agent, run, send, yaml},
    load_err,
    read::task,
};

#[test]
fn artifact_from_a_single_result() {
    let v = run(
        &[
            agent(
                "p",
                "[working, {delegate: {to: q, text: x, as: d}}, {artifact: {name: summary, from: d}}, completed]",
            ),
            agent(
                "q",
                "[working, {artifact: {text: one, data: {a: 1, b: 1}}}, {artifact: {text: two, data: {b: 2}}}, completed]",
            ),
        ],
        &send("p"),
    );
    assert_eq!(
        task(&v, 1)["artifacts"],
        json!([{"artifact_id": "artifact-3", "name": "summary", "text": "one\n\ntwo", "data": {"a": 1, "b": 2}}])
    );
}

#[test]
fn artifact_from_a_group_is_its_completed_children_in_creation_order() {
    let v = run(
        &[
            agent(
                "p",
                "[working, {fan_out: {to: [a, f, b], text: q, as: g, on_error: continue}}, {artifact: {from: g}}, completed]",
            ),
            agent(
                "a",
                "[working, {wait: 5}, {artifact: {text: A, data: {k: a, x: 1}}}, completed]",
            ),
            agent(
                "f",
                "[working, {artifact: {text: F, data: {f: 1}}}, failed]",
            ),
            agent(
                "b",
                "[working, {artifact: {text: B, data: {k: b}}}, completed]",
            ),
        ],
        &send("p"),
    );
    let arts = task(&v, 1)["artifacts"].as_array().unwrap();
    assert_eq!(arts.len(), 1);
    // b completed before a; the order is still creation order, the failed child is left out.
    assert_eq!(arts[0]["text"], "A\n\nB");
    assert_eq!(arts[0]["data"], json!({"k": "b", "x": 1}));
}

#[test]
fn artifact_from_several_names_in_order() {
    let v = run(
        &[
            agent(
                "p",
                "[working, {delegate: {to: q, text: x, as: d1}}, {delegate: {to: r, text: x, as: d2}}, {artifact: {from: [d2, d1]}}, completed]",
            ),
            agent(
                "q",
                "[working, {artifact: {text: Q, data: {k: q}}}, completed]",
            ),
            agent(
                "r",
                "[working, {artifact: {text: R, data: {k: r, r: 1}}}, completed]",
            ),
        ],
        &send("p"),
    );
    let art = &task(&v, 1)["artifacts"][0];
    assert_eq!(art["text"], "R\n\nQ");
    assert_eq!(art["data"], json!({"k": "q", "r": 1}));
}

#[test]
fn a_single_result_gives_its_last_attempts_parts_whatever_its_outcome() {
    let v = run(
        &[
            agent(
                "p",
                "[working, {delegate: {to: q, text: x, as: d, on_error: continue, retry: {attempts: 2, backoff: 0}}}, {artifact: {from: d}}, completed]",
            ),
            agent("q", "[working, {artifact: {text: partial}}, failed]"),
        ],
        &send("p"),
    );
    let arts = task(&v, 1)["artifacts"].as_array().unwrap();
    assert_eq!(arts.len(), 1);
    assert_eq!(arts[0]["text"], "partial");
    // Artifact ids: attempt 1's is 1, attempt 2's is 2, the merge's 3.
    assert_eq!(arts[0]["artifact_id"], "artifact-3");
    assert_eq!(task(&v, 3)["artifacts"][0]["artifact_id"], "artifact-2");
}

#[test]
fn an_empty_merge_draws_no_artifact_id() {
    let v = run(
        &[
            agent(
                "p",
                "[working, {delegate: {to: q, text: x, as: d}}, {artifact: {from: d}}, {artifact: {text: mine}}, completed]",
            ),
            agent("q", "[working, completed]"),
        ],
        &send("p"),
    );
    assert_eq!(
        task(&v, 1)["artifacts"],
        json!([{"artifact_id": "artifact-1", "text": "mine"}])
    );
}

#[test]
fn artifact_from_excludes_text_and_data() {
    for extra in [", text: t", ", data: {a: 1}"] {
        let y = yaml(
            &[
                agent(
                    "p",
                    &format!(
                        "[working, {{delegate: {{to: q, text: x, as: d}}}}, {{artifact: {{from: d{extra}}}}}, completed]"
                    ),
                ),
                agent("q", "[working, completed]"),
            ],
            &send("p"),
        );
        let err = load_err(&y);
        assert!(err.contains("from"), "{err}");
    }
}
