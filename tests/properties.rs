//! Property tests with a fixed seed and case count: no input makes the loader or the run panic.
//! (For longer local runs, raise `PROPTEST_CASES`.)

use std::path::Path;

use a2a_sim::engine;
use a2a_sim::protocol::{A2aVersion, export};
use a2a_sim::report::table as report_table;
use a2a_sim::report::{html as report_html, json as report_json, mermaid as report_mermaid};
use a2a_sim::scenario::decode_utf8;
use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed};

use crate::common::load_as;

fn config(cases: u32) -> Config {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(cases);
    Config {
        cases,
        rng_seed: RngSeed::Fixed(0x0a2a_5eed),
        failure_persistence: None,
        ..Config::default()
    }
}

fn load(text: &str) -> Result<a2a_sim::engine::scenario::Scenario, String> {
    load_as("prop.yaml", Path::new("."), text)
}

/// Runs a loaded scenario through every renderer.
fn run_everything(s: &a2a_sim::engine::scenario::Scenario) {
    let w = engine::run(s);
    let mut sink = Vec::new();
    report_json::write(&w, &mut sink).unwrap();
    let _ = report_table::render(&w, report_table::Layout::Fixed);
    report_mermaid::write(&w, &mut sink).unwrap();
    report_html::write(&w, &mut sink).unwrap();
    for v in [A2aVersion::V1_0, A2aVersion::V0_3] {
        export::write_tasks(&w, v, &mut sink).unwrap();
        export::write_stream(&w, v, &mut sink).unwrap();
    }
    let _ = export::write_runs(&w, &mut sink);
}

const WORDS: &[&str] = &[
    "agents",
    "callers",
    "steps",
    "name",
    "tenant",
    "clearance",
    "skills",
    "id",
    "tags",
    "handler",
    "working",
    "completed",
    "input_required",
    "send",
    "stream",
    "reply",
    "caller",
    "to",
    "text",
    "as",
    "task",
    "discover",
    "delegate",
    "artifact",
    "data",
    "policy",
    "max_depth",
    "push",
    "url",
    "token",
    "public",
    "internal",
    "a",
    "b",
    "expect",
    "state",
    "*x",
    "&x",
    "- ",
    ": ",
    "{",
    "}",
    "[",
    "]",
    "\n",
    "\n  ",
    "\t",
    "'",
    "\"",
    "#",
    "---",
    "!!str",
    "~",
    "1",
    "-1",
    "99999999999999999999999",
    "task-1",
    "https://hooks.example/",
    ",",
];

fn yamlish() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(WORDS), 0..80).prop_map(|w| w.concat())
}

#[derive(Debug, Clone)]
enum Tree {
    Scalar(String),
    Seq(Vec<Tree>),
    Map(Vec<(String, Tree)>),
}

fn tree() -> impl Strategy<Value = Tree> {
    let leaf = prop::sample::select(WORDS).prop_map(|w| Tree::Scalar(w.trim().to_string()));
    leaf.prop_recursive(5, 64, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Tree::Seq),
            prop::collection::vec(
                (
                    prop::sample::select(WORDS).prop_map(|w| w.trim().to_string()),
                    inner
                ),
                0..6
            )
            .prop_map(Tree::Map),
        ]
    })
}

/// Flow-style YAML of a tree, with every scalar quoted so structure, not syntax, is what varies.
fn flow(t: &Tree) -> String {
    match t {
        Tree::Scalar(s) => serde_json::to_string(s).unwrap(),
        Tree::Seq(items) => format!(
            "[{}]",
            items.iter().map(flow).collect::<Vec<_>>().join(", ")
        ),
        Tree::Map(entries) => format!(
            "{{{}}}",
            entries
                .iter()
                .map(|(k, v)| format!("{}: {}", serde_json::to_string(k).unwrap(), flow(v)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

proptest! {
    #![proptest_config(config(2048))]

    #[test]
    fn random_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..400)) {
        if let Ok(text) = decode_utf8("prop.yaml", &bytes)
            && let Ok(s) = load(text)
        {
            run_everything(&s);
        }
    }

    #[test]
    fn yaml_fragments_never_panic(text in yamlish()) {
        if let Ok(s) = load(&text) {
            run_everything(&s);
        }
    }

    #[test]
    fn random_yaml_trees_never_panic(t in tree()) {
        let text = flow(&t);
        if let Ok(s) = load(&text) {
            run_everything(&s);
        }
        // The same tree under a real top level reaches the deeper checks.
        let wrapped = format!("agents: [{{name: a, tenant: t, clearance: public, skills: [{{id: s, tags: [x]}}], handler: {}}}]\ncallers: [{{id: c, tenant: t, classification: public}}]\nsteps: {}\n", flow(&t), flow(&t));
        if let Ok(s) = load(&wrapped) {
            run_everything(&s);
        }
    }
}

const HANDLER_STEPS: &[&str] = &[
    "working",
    "{working: busy}",
    "input_required",
    "{auth_required: token?}",
    "completed",
    "failed",
    "rejected",
    "canceled",
    "{message: note}",
    "{artifact: {text: t}}",
    "{artifact: {data: {k: 1}}}",
    "{delegate: {to: a0, text: sub}}",
    "{delegate: {to: a1, text: sub, on_error: continue}}",
    "{delegate: {to: {discover: [x]}, text: sub}}",
];

fn valid_scenario() -> impl Strategy<Value = String> {
    let handler = prop::collection::vec(prop::sample::select(HANDLER_STEPS), 0..7);
    let agents = prop::collection::vec((handler, any::<bool>(), 0usize..4, 0usize..2), 2..5);
    let steps = prop::collection::vec((0usize..7, 0usize..3, 0usize..5, 0usize..6), 0..14);
    (agents, steps, 1u8..6).prop_map(|(agents, steps, max_depth)| {
        let levels = ["public", "internal", "confidential", "restricted"];
        let mut y = format!("policy: {{max_depth: {max_depth}, push_allowed_hosts: [hooks.example]}}\nagents:\n");
        for (i, (handler, push, clearance, tenant)) in agents.iter().enumerate() {
            y.push_str(&format!(
                "  - {{name: a{i}, tenant: t{tenant}, clearance: {}, scopes: [s], capabilities: {{push_notifications: {push}}}, skills: [{{id: k, tags: [x, y{i}]}}], handler: [{}]}}\n",
                levels[*clearance],
                handler.join(", ")
            ));
        }
        y.push_str("callers:\n  - {id: c0, tenant: t0, classification: internal, scopes: [s]}\n  - {id: c1, tenant: t1, classification: public}\n  - {id: a0, tenant: t0, classification: public, delegation_chain: [up]}\nsteps:\n");
        let mut aliases = 0;
        for (kind, caller, target, extra) in steps {
            let caller = ["c0", "c1", "a0"][caller];
            let agent = format!("a{}", target % agents.len());
            let alias = if aliases > 0 { format!("t{}", extra % aliases) } else { String::new() };
            let line = match (kind, aliases) {
                (0, _) => format!("  - discover: {{caller: {caller}, tags: [x, y{target}], limit: {extra}}}\n"),
                (1, _) | (2, 0) | (3, 0) | (4, 0) | (5, 0) => {
                    aliases += 1;
                    let push = if extra % 2 == 0 { ", push: {url: \"https://hooks.example/p\", token: tk}" } else { "" };
                    format!("  - stream: {{caller: {caller}, to: {agent}, text: go, as: t{}{push}}}\n", aliases - 1)
                }
                (2, _) => format!("  - reply: {{caller: {caller}, task: {alias}, text: more}}\n"),
                (3, _) => format!("  - cancel: {{caller: {caller}, task: {alias}}}\n"),
                (4, _) => format!("  - set_push_config: {{caller: {caller}, task: {alias}, url: \"https://hooks.example/x\", token: tk}}\n"),
                (5, _) => format!("  - get: {{caller: {caller}, task_id: task-{extra}}}\n"),
                _ => {
                    let context = if aliases > 0 { ", context_of: t0" } else { "" };
                    aliases += 1;
                    format!("  - send: {{caller: {caller}, to: {{discover: [x]}}, text: go, as: t{}{context}}}\n", aliases - 1)
                }
            };
            y.push_str(&line);
        }
        y
    })
}

proptest! {
    #![proptest_config(config(1024))]

    #[test]
    fn random_valid_scenarios_run_to_the_end(text in valid_scenario()) {
        let s = match load(&text) {
            Ok(s) => s,
            Err(e) => return Err(TestCaseError::fail(format!("a valid scenario did not load: {e}\n{text}"))),
        };
        run_everything(&s);
        // Every task ends paused or terminal: nothing is left working or submitted.
        let w = engine::run(&s);
        for t in &w.tasks {
            prop_assert!(t.state.is_terminal() || t.state.is_pause(), "{:?} left {}\n{text}", t.agent(), t.state);
        }
        // Same input, same bytes.
        let (mut a, mut b) = (Vec::new(), Vec::new());
        report_json::write(&w, &mut a).unwrap();
        report_json::write(&engine::run(&s), &mut b).unwrap();
        prop_assert_eq!(a, b);
    }
}

/// Handler steps of the scheduler's language: waits, decisions, fan-outs, timeouts, retries,
/// escalation and scripted replies. `{R}` is replaced by a fresh result name.
const V2_HANDLER_STEPS: &[&str] = &[
    "working",
    "input_required",
    "completed",
    "failed",
    "{wait: 0}",
    "{wait: 3}",
    "{message: note}",
    "{artifact: {text: t, data: {score: 2}}}",
    "{delegate: {to: a1, text: sub, as: {R}, timeout: 4}}",
    "{delegate: {to: a2, text: sub, as: {R}, on_error: continue, retry: {attempts: 3, backoff: 1}}}",
    "{delegate: {to: a0, text: sub, as: {R}, on_pause: escalate}}",
    "{delegate: {to: a3, text: sub, as: {R}, replies: [{text: yes}], on_error: continue}}",
    "{fan_out: {to: [a1, a2, a3], text: all, as: {R}, timeout: 5, on_error: continue}}",
    "{fan_out: {to: {discover: [x], limit: 2}, text: any, as: {R}, join: any}}",
    "{when: {input: {}, text: {contains: go}}, then: [working], else: [{message: other}]}",
    "{when: {reply: {}, data: {score: {gte: 1}}}, then: [completed]}",
    "{when: {not: {input: {}, text: never}}, then: [{wait: 1}], else: [failed]}",
];

fn v2_scenario() -> impl Strategy<Value = String> {
    let handler = prop::collection::vec(prop::sample::select(V2_HANDLER_STEPS), 0..8);
    let agents = prop::collection::vec(handler, 4..6);
    let steps = prop::collection::vec((0usize..6, 0usize..6, 0usize..4), 1..10);
    (agents, steps).prop_map(|(agents, steps)| {
        let mut y = String::from("policy: {max_depth: 5}\nagents:\n");
        for (i, handler) in agents.iter().enumerate() {
            let mut results = 0;
            let mut steps = Vec::new();
            for step in handler {
                let mut step = step.to_string();
                if step.contains("{R}") {
                    step = step.replace("{R}", &format!("r{results}"));
                    results += 1;
                }
                steps.push(step);
            }
            if results > 0 {
                steps.push("{when: {result: r0, outcome: [completed, timeout]}, then: [{artifact: {from: r0}}]}".into());
            }
            y.push_str(&format!(
                "  - {{name: a{i}, tenant: t, clearance: public, skills: [{{id: k, tags: [x]}}], handler: [{}]}}\n",
                steps.join(", ")
            ));
        }
        y.push_str("callers:\n  - {id: c, tenant: t, classification: public}\nsteps:\n");
        let mut aliases = 0;
        for (kind, target, extra) in steps {
            let agent = format!("a{}", target % agents.len());
            let alias = if aliases > 0 { format!("t{}", extra % aliases) } else { String::new() };
            let line = match (kind, aliases) {
                (0, _) | (_, 0) => {
                    aliases += 1;
                    format!("  - send: {{caller: c, to: {agent}, text: go, as: t{}}}\n", aliases - 1)
                }
                (1, _) => {
                    aliases += 1;
                    format!("  - send: {{caller: c, to: {agent}, text: go, as: t{}, return_immediately: true}}\n", aliases - 1)
                }
                (2, _) => format!("  - reply: {{caller: c, task: {alias}, text: more, data: {{score: {extra}}}}}\n"),
                (3, _) => format!("  - cancel: {{caller: c, task: {alias}}}\n"),
                (4, _) => format!("  - wait: {extra}\n"),
                _ => format!("  - wait: {{task: {alias}}}\n"),
            };
            y.push_str(&line);
        }
        y
    })
}

proptest! {
    #![proptest_config(config(512))]

    #[test]
    fn random_scheduled_scenarios_keep_the_invariants(text in v2_scenario()) {
        let s = match load(&text) {
            Ok(s) => s,
            Err(e) => return Err(TestCaseError::fail(format!("a valid scenario did not load: {e}\n{text}"))),
        };
        run_everything(&s);
        let w = engine::run(&s);
        for (i, t) in w.tasks.iter().enumerate() {
            // Quiescence: nothing is left running.
            prop_assert!(t.state.is_terminal() || t.state.is_pause(), "task-{} left {}\n{text}", i + 1, t.state);
            // No task is non-terminal under a terminal parent.
            if let Some(p) = t.parent() {
                prop_assert!(!w.tasks[p].state.is_terminal() || t.state.is_terminal(), "task-{} {} under terminal task-{}\n{text}", i + 1, t.state, p + 1);
            }
            // Time only moves forward.
            prop_assert!(t.history.windows(2).all(|h| h[0].tick < h[1].tick), "task-{} history out of order\n{text}", i + 1);
        }
        let (mut a, mut b) = (Vec::new(), Vec::new());
        report_json::write(&w, &mut a).unwrap();
        report_json::write(&engine::run(&s), &mut b).unwrap();
        prop_assert_eq!(a, b);
    }
}
