//! The `matrix` driver step: admission for every pair, nothing created.

use a2a_sim::engine;
use a2a_sim::engine::record::StepResult;
use a2a_sim::testing::expect;

use crate::common::{load, load_err, report_value};

const WORLD: &str = r#"
policy: {max_depth: 3}
agents:
  - name: screener
    tenant: acme
    clearance: confidential
    required_scopes: [screen]
    skills: [{id: s, tags: [sanctions]}]
    handler: [working, completed]
  - name: ledger
    tenant: globex
    clearance: restricted
    skills: [{id: l, tags: [ledger]}]
    handler: [working, completed]
callers:
  - {id: desk, tenant: acme, classification: internal, scopes: [screen]}
  - {id: bot, tenant: acme, classification: restricted, delegation_chain: [a, b]}
  - {id: screener, tenant: acme, classification: public, scopes: [screen]}
"#;

fn with(steps: &str) -> String {
    format!("{WORLD}steps:\n{steps}")
}

fn grid(yaml: &str, step: usize) -> Vec<Vec<Vec<&'static str>>> {
    let s = load(yaml);
    let w = engine::run(&s);
    match &w.steps[step - 1].result {
        StepResult::Matrix(g) => g
            .iter()
            .map(|r| {
                r.iter()
                    .map(|c| c.iter().map(|d| d.as_str()).collect())
                    .collect()
            })
            .collect(),
        other => panic!("not a matrix: {other:?}"),
    }
}

#[test]
fn all_means_every_caller_and_agent_in_declaration_order_with_every_code() {
    let g = grid(&with("  - matrix: {callers: all, agents: all}"), 1);
    assert_eq!(
        g,
        vec![
            vec![vec![], vec!["tenant"]],
            vec![
                vec!["depth", "classification", "scope"],
                vec!["depth", "tenant"]
            ],
            vec![vec!["cycle"], vec!["tenant"]],
        ]
    );
}

#[test]
fn a_matrix_creates_no_task_draws_no_id_or_tick_and_records_no_denial() {
    let yaml = with(
        "  - matrix: {callers: all, agents: all}\n  - send: {caller: desk, to: screener, text: go, as: t}",
    );
    let s = load(&yaml);
    let w = engine::run(&s);
    assert_eq!(w.tasks.len(), 1);
    assert!(w.denials.is_empty(), "a matrix is not a delegation attempt");
    assert_eq!(w.tasks[0].history[0].tick, 1);
    assert_eq!(w.tasks[0].context.to_string(), "ctx-1");
}

#[test]
fn cells_agree_with_the_denials_a_send_gets() {
    let yaml = with(
        "  - matrix: {callers: [bot], agents: [screener]}\n  - send: {caller: bot, to: screener, text: go}",
    );
    let s = load(&yaml);
    let w = engine::run(&s);
    let StepResult::Matrix(g) = &w.steps[0].result else {
        panic!()
    };
    let StepResult::Denied(codes) = &w.steps[1].result else {
        panic!()
    };
    assert_eq!(&g[0][0][..], &codes[..]);
}

#[test]
fn lists_keep_their_order() {
    let g = grid(
        &with("  - matrix: {callers: [screener, desk], agents: [ledger]}"),
        1,
    );
    assert_eq!(g, vec![vec![vec!["tenant"]], vec![vec!["tenant"]]]);
}

#[test]
fn bad_axes_are_located_load_errors() {
    for (steps, want) in [
        (
            "  - matrix: {callers: some, agents: all}",
            "expected a list of names or `all`, not `some`",
        ),
        (
            "  - matrix: {callers: [nobody], agents: all}",
            "unknown caller `nobody`",
        ),
        (
            "  - matrix: {callers: all, agents: [ghost]}",
            "unknown agent `ghost`",
        ),
        (
            "  - matrix: {callers: [], agents: all}",
            "at least one name",
        ),
        (
            "  - matrix: {callers: [desk, desk], agents: all}",
            "`desk` is listed twice",
        ),
        ("  - matrix: {callers: all}", "agents"),
    ] {
        let e = load_err(&with(steps));
        assert!(e.contains(want), "{steps}: {e}");
        assert!(e.contains("test.yaml:"), "located: {e}");
    }
}

#[test]
fn json_has_matrices_only_when_used_and_the_table_a_grid() {
    let v = report_value(&with("  - send: {caller: desk, to: screener, text: go}"));
    assert!(v.get("matrices").is_none());
    let v = report_value(&with("  - matrix: {callers: [desk], agents: all}"));
    assert_eq!(v["steps"][0]["op"], "matrix");
    assert_eq!(v["steps"][0]["result"]["pairs"], 2);
    assert_eq!(v["steps"][0]["result"]["admitted"], 1);
    let m = &v["matrices"][0];
    assert_eq!(m["step"], 1);
    assert_eq!(m["callers"], serde_json::json!(["desk"]));
    assert_eq!(m["agents"], serde_json::json!(["screener", "ledger"]));
    assert_eq!(
        m["grid"][0],
        serde_json::json!({"caller": "desk", "denied": {"screener": [], "ledger": ["tenant"]}})
    );
    let s = load(&with("  - matrix: {callers: [desk], agents: all}"));
    let w = engine::run(&s);
    let t = a2a_sim::report::table::render(&w, a2a_sim::report::table::Layout::Fixed);
    assert!(t.contains("matrix (step 1)"), "{t}");
    assert!(t.contains("✓") && t.contains("tenant"), "{t}");
}

#[test]
fn expect_pins_a_whole_matrix() {
    let pinned = |g: &str| {
        with(&format!(
            "  - matrix: {{callers: [desk, screener], agents: all}}\nexpect:\n  - matrix: 1\n    grid: {g}\ngolden: false\n"
        ))
    };
    let ok = load(&pinned(
        "{desk: {screener: [], ledger: [tenant]}, screener: {screener: [cycle], ledger: [tenant]}}",
    ));
    assert!(expect::check(&engine::run(&ok)).is_empty());
    let wrong = load(&pinned(
        "{desk: {screener: [scope], ledger: [tenant]}, screener: {screener: [cycle], ledger: [tenant]}}",
    ));
    let unmet = expect::check(&engine::run(&wrong));
    assert_eq!(unmet.len(), 1);
    assert!(
        unmet[0].message.contains("`desk` → `screener`"),
        "{:?}",
        unmet
    );
    // A grid that leaves a pair out, or names one the step does not have, does not load.
    for (g, want) in [
        (
            "{desk: {screener: [], ledger: [tenant]}}",
            "no row for caller `screener`",
        ),
        (
            "{desk: {screener: []}, screener: {screener: [cycle], ledger: [tenant]}}",
            "no cell for agent `ledger`",
        ),
        (
            "{desk: {screener: [], ledger: [tenant], x: []}, screener: {screener: [cycle], ledger: [tenant]}}",
            "`x` is not an agent",
        ),
        (
            "{desk: {screener: [nope], ledger: [tenant]}, screener: {screener: [cycle], ledger: [tenant]}}",
            "unknown denial code `nope`",
        ),
    ] {
        let e = load_err(&pinned(g));
        assert!(e.contains(want), "{g}: {e}");
    }
    let e = load_err(&with(
        "  - send: {caller: desk, to: screener, text: go}\nexpect:\n  - matrix: 1\n    grid: {}\n",
    ));
    assert!(e.contains("not a matrix step"), "{e}");
}
