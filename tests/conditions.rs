//! What a `when` condition tests (behaviour.md §4): the input's text and data with every operator,
//! path and combinator, numbers as doubles and YAML 1.2 scalars, and the latest reply. Conditions
//! on a delegation's or a group's result are in `result_conditions.rs`.

use crate::common::{
    build::{agent, run, send},
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
