//! What a `when` condition tests (behaviour.md §4): the input's text and data with every operator,
//! path and combinator, numbers as doubles and YAML 1.2 scalars, a delegation's or a group's
//! result, and the latest reply.

use crate::common::{
    build::{agent, run, secret, send},
    read::{decisions, last_message},
};

/// Rows: condition, input text, input data (a flow mapping or ""), the branch taken.
const CONDITIONS: &[(&str, &str, &str, &str)] = &[
    // input text
    ("{input: {}, text: go}", "go", "", "then"),
    ("{input: {}, text: Go}", "go", "", "else"),
    ("{input: {}, text: {contains: o}}", "go", "", "then"),
    ("{input: {}, text: {contains: x}}", "go", "", "else"),
    // literals: JSON equality, numbers as numbers
    ("{input: {}, data: {a: 1}}", "go", "{a: 1.0}", "then"),
    ("{input: {}, data: {a: 1.0}}", "go", "{a: 1}", "then"),
    ("{input: {}, data: {a: \"1\"}}", "go", "{a: 1}", "else"),
    ("{input: {}, data: {a: x}}", "go", "{a: x}", "then"),
    (
        "{input: {}, data: {a: [1, 2]}}",
        "go",
        "{a: [1.0, 2]}",
        "then",
    ),
    (
        "{input: {}, data: {a: [1, 2]}}",
        "go",
        "{a: [2, 1]}",
        "else",
    ),
    ("{input: {}, data: {a: null}}", "go", "{a: null}", "then"),
    ("{input: {}, data: {a: null}}", "go", "{b: 1}", "else"),
    // a one-key mapping is an operator only when its key is one
    (
        "{input: {}, data: {a: {foo: 1}}}",
        "go",
        "{a: {foo: 1.0}}",
        "then",
    ),
    (
        "{input: {}, data: {a: {foo: 1}}}",
        "go",
        "{a: {foo: 1, bar: 2}}",
        "else",
    ),
    // eq / ne: JSON equality
    ("{input: {}, data: {a: {eq: 2}}}", "go", "{a: 2.0}", "then"),
    ("{input: {}, data: {a: {eq: 2}}}", "go", "{a: 3}", "else"),
    ("{input: {}, data: {a: {eq: x}}}", "go", "{a: x}", "then"),
    ("{input: {}, data: {a: {ne: 2}}}", "go", "{a: 3}", "then"),
    ("{input: {}, data: {a: {ne: 2}}}", "go", "{a: 2}", "else"),
    (
        "{input: {}, data: {a: {ne: 2}}}",
        "go",
        "{a: \"2\"}",
        "then",
    ),
    ("{input: {}, data: {a: {ne: 2}}}", "go", "{b: 2}", "else"),
    // numbers only
    ("{input: {}, data: {a: {gt: 1}}}", "go", "{a: 2}", "then"),
    ("{input: {}, data: {a: {gt: 1}}}", "go", "{a: 1}", "else"),
    (
        "{input: {}, data: {a: {gt: 1}}}",
        "go",
        "{a: \"2\"}",
        "else",
    ),
    ("{input: {}, data: {a: {gte: 1}}}", "go", "{a: 1.0}", "then"),
    ("{input: {}, data: {a: {gte: 1}}}", "go", "{a: 0.5}", "else"),
    ("{input: {}, data: {a: {lt: 1}}}", "go", "{a: 0.5}", "then"),
    ("{input: {}, data: {a: {lt: 1}}}", "go", "{a: 1}", "else"),
    ("{input: {}, data: {a: {lt: 1}}}", "go", "{a: true}", "else"),
    ("{input: {}, data: {a: {lte: 1}}}", "go", "{a: 1}", "then"),
    ("{input: {}, data: {a: {lte: 1}}}", "go", "{a: 1.5}", "else"),
    (
        "{input: {}, data: {a: {lte: 1}}}",
        "go",
        "{a: null}",
        "else",
    ),
    // in
    (
        "{input: {}, data: {a: {in: [x, 2]}}}",
        "go",
        "{a: 2.0}",
        "then",
    ),
    (
        "{input: {}, data: {a: {in: [x, 2]}}}",
        "go",
        "{a: y}",
        "else",
    ),
    // exists; a null value exists; a missing path is absent
    (
        "{input: {}, data: {a: {exists: true}}}",
        "go",
        "{a: null}",
        "then",
    ),
    (
        "{input: {}, data: {a: {exists: true}}}",
        "go",
        "{b: 1}",
        "else",
    ),
    (
        "{input: {}, data: {a: {exists: false}}}",
        "go",
        "{b: 1}",
        "then",
    ),
    (
        "{input: {}, data: {a: {exists: false}}}",
        "go",
        "{a: 1}",
        "else",
    ),
    (
        "{input: {}, data: {a.b: {exists: false}}}",
        "go",
        "{a: 1}",
        "then",
    ),
    // no data part at all: an absent subject
    ("{input: {}, data: {a: {exists: false}}}", "go", "", "then"),
    ("{input: {}, data: {a: {ne: 1}}}", "go", "", "else"),
    ("{not: {input: {}, data: {a: 1}}}", "go", "", "then"),
    // contains works wherever a string is tested
    (
        "{input: {}, data: {a: {contains: SDN}}}",
        "go",
        "{a: on the SDN list}",
        "then",
    ),
    (
        "{input: {}, data: {a: {contains: SDN}}}",
        "go",
        "{a: 3}",
        "else",
    ),
    // dotted paths: numeric segments index lists
    (
        "{input: {}, data: {a.b.1.c: true}}",
        "go",
        "{a: {b: [0, {c: true}]}}",
        "then",
    ),
    (
        "{input: {}, data: {a.b.0: 0}}",
        "go",
        "{a: {b: [0, 1]}}",
        "then",
    ),
    (
        "{input: {}, data: {a.b.2: {exists: false}}}",
        "go",
        "{a: {b: [0, 1]}}",
        "then",
    ),
    (
        "{input: {}, data: {a.0: x}}",
        "go",
        "{a: {\"0\": x}}",
        "then",
    ),
    // JSON Pointers (RFC 6901)
    (
        "{input: {}, data: {/a~1b/~0c: 5}}",
        "go",
        "{a/b: {\"~c\": 5}}",
        "then",
    ),
    ("{input: {}, data: {/l/1: y}}", "go", "{l: [x, y]}", "then"),
    ("{input: {}, data: {/a.b: 1}}", "go", "{a.b: 1}", "then"),
    ("{input: {}, data: {/a.b: 1}}", "go", "{a: {b: 1}}", "else"),
    ("{input: {}, data: {a.b: 1}}", "go", "{a: {b: 1}}", "then"),
    // several tests on one subject must all hold
    (
        "{input: {}, text: go, data: {a: 1}}",
        "go",
        "{a: 1}",
        "then",
    ),
    (
        "{input: {}, text: go, data: {a: 1}}",
        "go",
        "{a: 2}",
        "else",
    ),
    (
        "{input: {}, data: {a: 1, b: 2}}",
        "go",
        "{a: 1, b: 3}",
        "else",
    ),
    // combinators
    ("{not: {input: {}, text: go}}", "go", "", "else"),
    ("{not: {input: {}, text: no}}", "go", "", "then"),
    (
        "{all: [{input: {}, text: go}, {input: {}, data: {a: 1}}]}",
        "go",
        "{a: 1}",
        "then",
    ),
    (
        "{all: [{input: {}, text: go}, {input: {}, data: {a: 1}}]}",
        "go",
        "{a: 2}",
        "else",
    ),
    (
        "{any: [{input: {}, text: no}, {input: {}, data: {a: 1}}]}",
        "go",
        "{a: 1}",
        "then",
    ),
    (
        "{any: [{input: {}, text: no}, {input: {}, data: {a: 1}}]}",
        "go",
        "{a: 2}",
        "else",
    ),
    (
        "{not: {all: [{input: {}, text: go}, {not: {input: {}, text: go}}]}}",
        "go",
        "",
        "then",
    ),
    // no reply yet: an absent subject
    ("{reply: {}, text: go}", "go", "", "else"),
    ("{not: {reply: {}, text: go}}", "go", "", "then"),
    ("{reply: {}, data: {a: {exists: false}}}", "go", "", "then"),
    ("{reply: {}, data: {a: {exists: true}}}", "go", "", "else"),
];

fn decide(cond: &str, text: &str, data: &str) -> String {
    let data = if data.is_empty() {
        String::new()
    } else {
        format!(", data: {data}")
    };
    let v = run(
        &[agent(
            "p",
            &format!(
                "[working, {{when: {cond}, then: [{{completed: then}}], else: [{{completed: else}}]}}]"
            ),
        )],
        &format!("  - send: {{caller: user, to: p, text: \"{text}\"{data}}}\n"),
    );
    let mut branch = last_message(&v, 1);
    let d = decisions(&v, 1);
    if d.len() != 1 || d[0].1 != branch {
        branch = format!("{branch} (decisions {d:?})");
    }
    branch
}

#[test]
fn conditions_on_input_text_and_data_every_operator_path_and_combinator() {
    let mut wrong = Vec::new();
    for (cond, text, data, want) in CONDITIONS {
        let got = decide(cond, text, data);
        if got != *want {
            wrong.push(format!("{cond} on {text:?} {data}: want {want}, got {got}"));
        }
    }
    assert!(wrong.is_empty(), "\n{}", wrong.join("\n"));
}

#[test]
fn numbers_compare_as_doubles_in_conditions() {
    // 2^53 + 1 is 2^53 as an IEEE double.
    let rows = [
        (
            "{input: {}, data: {n: 9007199254740992}}",
            "{n: 9007199254740993}",
            "then",
        ),
        (
            "{input: {}, data: {n: {eq: 9007199254740992}}}",
            "{n: 9007199254740993}",
            "then",
        ),
        (
            "{input: {}, data: {n: {gt: 9007199254740992}}}",
            "{n: 9007199254740993}",
            "else",
        ),
        (
            "{input: {}, data: {n: {in: [9007199254740992]}}}",
            "{n: 9007199254740993}",
            "then",
        ),
        (
            "{input: {}, data: {n: 0.30000000000000004}}",
            "{n: 0.30000000000000004}",
            "then",
        ),
        ("{input: {}, data: {n: {lt: 1e3}}}", "{n: 999.5}", "then"),
    ];
    for (cond, data, want) in rows {
        assert_eq!(decide(cond, "go", data), want, "{cond} on {data}");
    }
}

#[test]
fn yaml_is_read_as_yaml_1_2_in_conditions() {
    let rows = [
        ("{input: {}, data: {flag: \"yes\"}}", "{flag: yes}", "then"),
        ("{input: {}, data: {flag: true}}", "{flag: yes}", "else"),
        ("{input: {}, data: {flag: true}}", "{flag: on}", "else"),
        ("{input: {}, data: {flag: \"on\"}}", "{flag: on}", "then"),
        (
            "{input: {}, data: {d: \"2024-01-02\"}}",
            "{d: 2024-01-02}",
            "then",
        ),
        (
            "{input: {}, data: {d: {contains: \"-01-\"}}}",
            "{d: 2024-01-02}",
            "then",
        ),
    ];
    for (cond, data, want) in rows {
        assert_eq!(decide(cond, "go", data), want, "{cond} on {data}");
    }
}

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

#[test]
fn reply_subject_sees_driver_scripted_and_forwarded_replies() {
    // In a paused task, and in a working one.
    let check = "{when: {reply: {}, text: SDN, data: {k: 1}}, then: [working, {completed: saw it}], else: [failed]}";
    let working_check =
        "{when: {reply: {}, text: SDN, data: {k: 1}}, then: [{completed: saw it}], else: [failed]}";
    // A driver reply.
    let v = run(
        &[agent("a", &format!("[working, input_required, {check}]"))],
        &format!(
            "{}  - reply: {{caller: user, task: a, text: SDN, data: {{k: 1}}}}\n",
            send("a")
        ),
    );
    assert_eq!(last_message(&v, 1), "saw it");
    // A scripted reply.
    let v = run(
        &[
            agent(
                "p",
                "[working, {delegate: {to: q, text: x, replies: [{text: SDN, data: {k: 1}}]}}, completed]",
            ),
            agent("q", &format!("[working, input_required, {check}]")),
        ],
        &send("p"),
    );
    assert_eq!(last_message(&v, 2), "saw it");
    // A forwarded reply, and the escalated parent's own reply subject.
    let v = run(
        &[
            agent(
                "p",
                &format!(
                    "[working, {{delegate: {{to: q, text: x, on_pause: escalate}}}}, {working_check}]"
                ),
            ),
            agent("q", &format!("[working, input_required, {check}]")),
        ],
        &format!(
            "{}  - reply: {{caller: user, task: p, text: SDN, data: {{k: 1}}}}\n",
            send("p")
        ),
    );
    assert_eq!(last_message(&v, 2), "saw it");
    assert_eq!(last_message(&v, 1), "saw it");
}

#[test]
fn the_reply_subject_is_the_latest_reply() {
    let v = run(
        &[agent(
            "a",
            "[working, input_required, working, input_required, {when: {reply: {}, text: second}, then: [working, {completed: latest}], else: [failed]}]",
        )],
        &format!(
            "{}  - reply: {{caller: user, task: a, text: first}}\n  - reply: {{caller: user, task: a, text: second}}\n",
            send("a")
        ),
    );
    assert_eq!(last_message(&v, 1), "latest");
}
