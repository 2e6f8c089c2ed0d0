//! `expect` (behaviour.md §6): every test an expectation can make on a task path, a denial or a
//! ranking, and a scenario checked on its expectations alone (`golden: false`).

use std::path::PathBuf;

use a2a_sim::testing::golden;

use crate::common::binary::scratch;
use crate::common::build::{agent, loader_result, secret, send, unmet, yaml};

fn paths_scenario(expectation: &str) -> String {
    let agents = [
        agent(
            "orch",
            "[working, {fan_out: {to: [r1, r2, secret, {discover: [nothing]}], text: q, as: researchers, on_error: continue}}, {delegate: {to: pay, text: p, as: pay}}, completed]",
        ),
        agent("r1", "[working, {artifact: {text: one}}, completed]"),
        agent("r2", "[working, {artifact: {text: two}}, completed]"),
        agent(
            "pay",
            "[working, {delegate: {to: screener, text: s, as: screen}}, completed]",
        ),
        agent(
            "screener",
            "[working, {artifact: {text: clear, data: {score: 0.2, hits: [a, b]}}}, completed]",
        ),
        secret(),
    ];
    let steps = format!(
        "{}{}  - send: {{caller: user, to: secret, text: go, as: s}}\n  - send: {{caller: user, to: {{discover: [nothing]}}, text: go, as: n}}\n  - discover: {{caller: user, tags: [r1]}}\n",
        send("orch"),
        send("pay")
    );
    format!("{}expect:\n  - {expectation}\n", yaml(&agents, &steps))
}

/// Rows: an expectation, whether it holds.
const EXPECTATIONS: &[(&str, bool)] = &[
    ("{task: pay/screen, state: completed}", true),
    ("{task: pay/screen, state: failed}", false),
    ("{task: pay/screen, state: [failed, completed]}", true),
    ("{task: pay/screen, delegation_chain: [user, pay]}", true),
    ("{task: pay/screen, delegation_chain: [user]}", false),
    (
        "{task: pay/screen, history: [submitted, working, completed]}",
        true,
    ),
    ("{task: pay/screen, history: [submitted, completed]}", false),
    ("{task: pay/screen, outcome: completed}", true),
    ("{task: pay/screen, outcome: [failed, timeout]}", false),
    ("{task: pay/screen, text: clear}", true),
    ("{task: pay/screen, text: {contains: lea}}", true),
    ("{task: pay/screen, text: cleared}", false),
    (
        "{task: pay/screen, data: {score: {lt: 0.5}, hits.1: b, /hits/0: a}}",
        true,
    ),
    ("{task: pay/screen, data: {score: {gt: 0.5}}}", false),
    ("{task: pay/screen, attempt: 1}", true),
    ("{task: pay/screen, attempt: 2}", false),
    (
        "{task: orch/pay/screen, delegation_chain: [user, orch, pay]}",
        true,
    ),
    ("{task: orch/pay, state: completed}", true),
    ("{task: orch/researchers, outcome: failed}", true),
    ("{task: orch/researchers/1, text: one}", true),
    ("{task: orch/researchers/2, text: two}", true),
    (
        "{task: orch/researchers/2, delegation_chain: [user, orch]}",
        true,
    ),
    ("{task: orch/researchers/3, outcome: denied}", true),
    // every test other than outcome needs the task
    ("{task: orch/researchers/3, state: completed}", false),
    ("{task: orch/researchers/3, history: [submitted]}", false),
    ("{task: orch/researchers/4, outcome: no_candidate}", true),
    ("{task: orch/researchers/4, text: \"\"}", false),
    ("{denied: orch/researchers/3, codes: [scope]}", true),
    ("{denied: orch/researchers/3, codes: []}", false),
    // top-level aliases: the send's outcome
    ("{task: pay, outcome: completed}", true),
    ("{task: s, outcome: denied}", true),
    ("{task: s, state: completed}", false),
    ("{task: n, outcome: no_candidate}", true),
    ("{task: n, outcome: denied}", false),
    ("{ranking: 5, agents: [r1]}", true),
    ("{ranking: 5, agents: [r2]}", false),
];

#[test]
fn expectations_on_task_paths_and_every_test() {
    let mut wrong = Vec::new();
    for (e, holds) in EXPECTATIONS {
        let y = paths_scenario(e);
        let u = match loader_result(&y) {
            Ok(()) => unmet(&y),
            Err(err) => {
                wrong.push(format!("{e}: does not load: {err}"));
                continue;
            }
        };
        if u.is_empty() != *holds {
            wrong.push(format!("{e}: want holds={holds}, unmet {u:?}"));
        }
    }
    assert!(wrong.is_empty(), "\n{}", wrong.join("\n"));
}

#[test]
fn golden_false_is_checked_on_its_expectations_alone() {
    let dir = scratch("golden-false");
    let write = |name: &str, text: String| -> PathBuf {
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        p
    };
    let base = yaml(&[agent("a", "[working, completed]")], &send("a"));
    let ok = write(
        "ok.yaml",
        format!("golden: false\n{base}expect:\n  - {{task: a, state: completed}}\n"),
    );
    let o = golden::test_one(&ok, false, &Default::default());
    assert!(o.passed(), "{o:?}");
    assert!(!o.missing_golden);
    assert!(
        !golden::golden_path(&ok).exists(),
        "no golden is written or needed"
    );
    let bad = write(
        "bad.yaml",
        format!("golden: false\n{base}expect:\n  - {{task: a, state: failed}}\n"),
    );
    let o = golden::test_one(&bad, false, &Default::default());
    assert!(!o.passed());
    assert_eq!(o.unmet.len(), 1, "{o:?}");
    // It needs at least one expect entry.
    let none = write("none.yaml", format!("golden: false\n{base}"));
    let o = golden::test_one(&none, false, &Default::default());
    assert!(o.load_error.is_some(), "{o:?}");
    // Everything else needs its golden as before.
    let plain = write(
        "plain.yaml",
        format!("{base}expect:\n  - {{task: a, state: completed}}\n"),
    );
    let o = golden::test_one(&plain, false, &Default::default());
    assert!(o.missing_golden && !o.passed(), "{o:?}");
    let _ = std::fs::remove_dir_all(&dir);
}
