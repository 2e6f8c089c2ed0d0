//! Conditions on what came back (behaviour.md §4): a delegation's result (outcome, state, text and data, both
//! spellings of the pause states, a step that did not run) and a group's outcome and size.

use crate::common::{
    build::{agent, run, secret, send},
    read::{decisions, last_message},
};

/// A parent delegating to `q`, then deciding on `cond`.
fn decide_on_result(q: &str, delegate_extra: &str, cond: &str) -> String {
    let v = run(
        &[
            agent(
                "p",
                &format!(
                    "[working, {{delegate: {{to: q, text: x, as: d, on_error: continue{delegate_extra}}}}}, {{when: {cond}, then: [{{completed: then}}], else: [{{completed: else}}]}}]"
                ),
            ),
            agent("q", q),
        ],
        &send("p"),
    );
    last_message(&v, 1)
}

#[test]
fn conditions_on_a_delegations_result_outcome_state_text_and_data() {
    let q = "[working, {artifact: {text: hello, data: {a: 1, b: {c: [x, y]}}}}, {artifact: {text: world, data: {a: 3}}}, completed]";
    let rows = [
        ("{result: d, outcome: completed}", "then"),
        ("{result: d, outcome: [failed, completed]}", "then"),
        ("{result: d, outcome: failed}", "else"),
        ("{result: d, state: completed}", "then"),
        ("{result: d, state: [working, failed]}", "else"),
        // text parts joined with a blank line
        ("{result: d, text: \"hello\\n\\nworld\"}", "then"),
        ("{result: d, text: hello}", "else"),
        ("{result: d, text: {contains: \"o\\n\\nw\"}}", "then"),
        // data parts shallow-merged, later wins
        ("{result: d, data: {a: 3}}", "then"),
        ("{result: d, data: {a: 1}}", "else"),
        ("{result: d, data: {b.c.1: y}}", "then"),
        ("{result: d, data: {/b/c/0: x}}", "then"),
        (
            "{result: d, outcome: completed, data: {a: {gte: 3}}, text: {contains: world}}",
            "then",
        ),
    ];
    for (cond, want) in rows {
        assert_eq!(decide_on_result(q, "", cond), want, "{cond}");
    }
}

#[test]
fn outcome_and_state_take_both_spellings_of_the_pause_states() {
    let q = "[working, {input_required: hm}]";
    let rows = [
        ("{result: d, outcome: input_required}", "then"),
        ("{result: d, outcome: input-required}", "then"),
        (
            "{result: d, outcome: [auth_required, input_required]}",
            "then",
        ),
        // The child's state when evaluated: canceled after the clean-up.
        ("{result: d, state: canceled}", "then"),
        ("{result: d, state: input_required}", "else"),
    ];
    for (cond, want) in rows {
        assert_eq!(decide_on_result(q, "", cond), want, "{cond}");
    }
}

#[test]
fn a_result_whose_step_did_not_run_is_an_absent_subject() {
    let v = run(
        &[
            agent(
                "p",
                "[working, {when: {input: {}, text: never}, then: [{delegate: {to: q, text: x, as: d}}]}, {when: {result: d, outcome: completed}, then: [failed]}, {when: {not: {result: d, outcome: completed}}, then: [{message: absent}]}, {when: {result: d, data: {a: {exists: false}}}, then: [{completed: exists false}]}]",
            ),
            agent("q", "[working, completed]"),
        ],
        &send("p"),
    );
    assert_eq!(last_message(&v, 1), "exists false");
    assert_eq!(
        decisions(&v, 1)
            .iter()
            .map(|d| d.1.as_str())
            .collect::<Vec<_>>(),
        ["else", "else", "then", "then"]
    );
}

#[test]
fn conditions_on_a_group_outcome_completed_and_size() {
    let v = |cond: &str| {
        let v = run(
            &[
                agent(
                    "p",
                    &format!(
                        "[working, {{fan_out: {{to: [a, b, secret, a], text: q, as: g, on_error: continue}}}}, {{when: {cond}, then: [{{completed: then}}], else: [{{completed: else}}]}}]"
                    ),
                ),
                agent("a", "[working, completed]"),
                agent("b", "[working, failed]"),
                secret(),
            ],
            &send("p"),
        );
        last_message(&v, 1)
    };
    let rows = [
        ("{result: g, outcome: failed}", "then"),
        ("{result: g, outcome: completed}", "else"),
        // size counts every member, denied ones included
        ("{result: g, size: 4}", "then"),
        ("{result: g, size: 3}", "else"),
        ("{result: g, completed: 2}", "then"),
        ("{result: g, completed: {gte: 2}, size: {lt: 5}}", "then"),
        ("{result: g, completed: {gt: 2}}", "else"),
        ("{result: g, completed: {in: [1, 2]}}", "then"),
        ("{result: g, completed: {ne: 2}}", "else"),
    ];
    for (cond, want) in rows {
        assert_eq!(v(cond), want, "{cond}");
    }
}
