//! Authority across hops (authority.md; semantics.md §1 and §6): attenuation, the
//! report's `scopes` and `amplified`, `check`'s laundering finder and look-alike ids, and minted
//! context ids that skip literal ones. Push hosts and URLs are in `push_hosts.rs`.

use std::path::Path;

use a2a_sim::scenario::{Load, confusable};
use serde_json::Value;

use crate::common::binary::{a2a_sim_in, scratch};
use crate::common::*;

/// A world of agents `a1 → a2 → a3 → core`, each delegating to the next; `extra` goes into the
/// policy, `agents` are YAML lines replacing the default ones.
fn chain_world(policy: &str, caller_scopes: &str, agents: &[&str]) -> String {
    let agents: String = agents.iter().map(|a| format!("  - {a}\n")).collect();
    format!(
        "policy: {{max_depth: 10, {policy}}}
agents:
{agents}callers:
  - {{id: app, tenant: acme, classification: public, scopes: {caller_scopes}}}
steps:
  - send: {{caller: app, to: a1, text: go}}
"
    )
}

fn agent(name: &str, scopes: &str, required: &str, next: Option<&str>, more: &str) -> String {
    let handler = match next {
        Some(n) => format!("[working, {{delegate: {{to: {n}, text: on}}}}, completed]"),
        None => "[working, completed]".to_string(),
    };
    format!(
        "{{name: {name}, tenant: acme, clearance: public, scopes: {scopes}, required_scopes: {required}, skills: [{{id: s, tags: [{name}]}}], handler: {handler}{more}}}"
    )
}

fn task_scopes(report: &Value) -> Vec<Vec<String>> {
    report["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| serde_json::from_value(t["scopes"].clone()).unwrap())
        .collect()
}

fn amplified(report: &Value) -> Vec<Option<Vec<String>>> {
    report["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            t.get("amplified")
                .map(|a| serde_json::from_value(a.clone()).unwrap())
        })
        .collect()
}

#[test]
fn attenuation_over_three_hops_is_the_intersection_in_the_agents_order() {
    let a1 = agent("a1", "[d, c, b, x]", "[]", Some("a2"), "");
    let a2 = agent("a2", "[b, c, y]", "[]", Some("a3"), "");
    let a3 = agent("a3", "[c, z, b]", "[]", Some("core"), "");
    let core = agent("core", "[]", "[c]", None, "");
    let text = chain_world(
        "authority: attenuate",
        "[a, b, c, d]",
        &[&a1, &a2, &a3, &core],
    );
    let r = report_value(&text);
    let want: Vec<Vec<&str>> = vec![
        vec!["a", "b", "c", "d"],
        vec!["d", "c", "b"],
        vec!["b", "c"],
        vec!["c", "b"],
    ];
    assert_eq!(task_scopes(&r), want);
    assert_eq!(r["tasks"][3]["state"], "completed");
    assert_eq!(amplified(&r), vec![None, None, None, None]);

    // A scope lost at the first hop is missing at the third: the ordinary `scope` denial.
    let core = agent("core", "[]", "[a]", None, "");
    let text = chain_world(
        "authority: attenuate",
        "[a, b, c, d]",
        &[&a1, &a2, &a3, &core],
    );
    let scenario = load(&text);
    let world = a2a_sim::engine::run(&scenario);
    assert_eq!(world.denials.len(), 1);
    assert_eq!(&*world.denials[0].denials[0].detail, "missing scope `a`");
    // Under `own` (the default) the same chain carries each agent's own scopes.
    let core = agent("core", "[]", "[z]", None, "");
    let r = report_value(&chain_world(
        "authority: own",
        "[a]",
        &[&a1, &a2, &a3, &core],
    ));
    assert_eq!(task_scopes(&r)[3], vec!["c", "z", "b"]);
    assert_eq!(amplified(&r)[3], Some(vec!["z".to_string()]));
}

#[test]
fn an_own_hop_resets_the_bound_and_only_tasks_that_needed_it_are_amplified() {
    let a1 = agent("a1", "[b]", "[]", Some("a2"), "");
    let a2 = agent("a2", "[p, q]", "[]", Some("a3"), ", authority: own");
    let a3 = agent("a3", "[p, b]", "[p]", Some("core"), "");
    let core = agent("core", "[]", "[q, a]", None, "");
    let r = report_value(&chain_world(
        "authority: attenuate",
        "[a, b]",
        &[&a1, &a2, &a3, &core],
    ));
    // a2 delegates with its own [p, q]; a3 (attenuating again) passes on [p] only, so core,
    // which needs q, is refused.
    assert_eq!(
        task_scopes(&r),
        vec![vec!["a", "b"], vec!["b"], vec!["p", "q"]]
    );
    assert_eq!(
        amplified(&r),
        vec![None, None, Some(vec!["p".to_string()])],
        "only the task admitted through the own hop is amplified"
    );
    assert_eq!(r["denials"][0]["details"][0], "missing scope `q`, `a`");
}

#[test]
fn without_an_authority_key_the_report_has_no_new_keys() {
    let a1 = agent("a1", "[p]", "[]", Some("core"), "");
    let core = agent("core", "[]", "[p]", None, "");
    let text = chain_world("push_allowed_hosts: []", "[]", &[&a1, &core]);
    let r = report_value(&text);
    for t in r["tasks"].as_array().unwrap() {
        assert!(
            t.get("scopes").is_none() && t.get("amplified").is_none(),
            "{t}"
        );
    }
    // An agent's key alone turns them on.
    let a1 = agent("a1", "[p]", "[]", Some("core"), ", authority: own");
    let r = report_value(&chain_world("push_allowed_hosts: []", "[]", &[&a1, &core]));
    assert_eq!(amplified(&r), vec![None, Some(vec!["p".to_string()])]);
}

fn check(name: &str, text: &str, args: &[&str]) -> crate::common::binary::Run {
    let dir = scratch(name);
    std::fs::write(dir.join("t.yaml"), text).unwrap();
    let mut all = vec!["check"];
    all.extend_from_slice(args);
    all.push("t.yaml");
    a2a_sim_in(&dir, &all, None)
}

fn findings(text: &str) -> Vec<(String, String)> {
    let loaded = Load::text("t.yaml", text, Path::new("."), "t")
        .load()
        .unwrap_or_else(|e| panic!("{e}"));
    loaded
        .warnings
        .iter()
        .filter_map(|d| {
            let c = d.coded.as_ref()?;
            Some((
                format!("{}:{}:{}", c.code, d.line, d.column),
                c.path.join(" "),
            ))
        })
        .collect()
}

const WHEN_WORLD: &str = "agents:
  - name: gateway
    tenant: acme
    clearance: public
    scopes: [pay:write]
    skills: [{id: g, tags: [gateway]}]
    handler:
      - working
      - when: {input: {}, text: {contains: urgent}}
        then:
          - delegate: {to: core, text: book}
        else:
          - fan_out: {to: {discover: [booking]}, text: book}
      - completed
  - {name: relay, tenant: acme, clearance: public, scopes: [pay:write], skills: [{id: r, tags: [relay]}], handler: [working, {delegate: {to: gateway, text: on}}, completed]}
  - {name: aaa-ledger, tenant: acme, clearance: public, skills: [{id: l, tags: [booking]}], handler: [working, completed]}
  - {name: core, tenant: acme, clearance: public, required_scopes: [pay:write], skills: [{id: c, tags: [booking]}], handler: [working, completed]}
callers:
  - {id: app, tenant: acme, classification: public}
steps:
  - send: {caller: app, to: relay, text: hi}
  - send: {caller: app, to: gateway, text: hi}
";

#[test]
fn check_finds_laundering_on_a_when_branch_and_a_discovery_candidate_once_by_shortest_path() {
    // The `then` branch names core; the `else` fan-out's discovery ranks core second. The path
    // through relay is longer, and reaches the same (caller, callee, scopes): reported once.
    let got = findings(WHEN_WORLD);
    assert_eq!(
        got,
        vec![(
            "authority_amplified:11:13".to_string(),
            "app gateway core".to_string()
        )]
    );
    // Without the `then` branch, the discovery candidate alone is found, at the fan-out.
    let only_else = WHEN_WORLD.replace(
        "          - delegate: {to: core, text: book}",
        "          - working",
    );
    assert_eq!(
        findings(&only_else),
        vec![(
            "authority_amplified:13:13".to_string(),
            "app gateway core".to_string()
        )]
    );
    // The card a handler's `{discover}` picks (core ranks first once the ledger sorts after it).
    let picked = only_else
        .replace(
            "          - working\n",
            "          - delegate: {to: {discover: [booking]}, text: book}\n",
        )
        .replace("aaa-ledger", "zzz-ledger")
        .replace(
            "          - fan_out: {to: {discover: [booking]}, text: book}",
            "          - working",
        );
    assert_eq!(
        findings(&picked),
        vec![(
            "authority_amplified:11:13".to_string(),
            "app gateway core".to_string()
        )]
    );
    // Attenuation leaves nothing to find.
    assert!(findings(&format!("policy: {{authority: attenuate}}\n{WHEN_WORLD}")).is_empty());
}

#[test]
fn check_prints_located_findings_notes_json_and_allow() {
    let r = check("auth-human", WHEN_WORLD, &[]);
    assert_eq!(r.status, 0, "{}", r.stderr);
    assert!(
        r.stderr.starts_with(
            "t.yaml:11:13: warning[authority_amplified]: app → gateway → core\n  reaches `pay:write`, which app does not hold (gateway delegates with its own scopes)\n  hint: "
        ),
        "{}",
        r.stderr
    );
    assert_eq!(
        check("auth-deny", WHEN_WORLD, &["--deny", "warnings"]).status,
        2
    );
    let r = check(
        "auth-allow",
        WHEN_WORLD,
        &["--allow", "authority_amplified"],
    );
    assert_eq!((r.status, r.stderr.as_str()), (0, ""));
    let r = check("auth-json", WHEN_WORLD, &["--error-format", "json"]);
    let v: Value = serde_json::from_str(r.stderr.lines().next().unwrap()).unwrap();
    assert_eq!(v["code"], "authority_amplified");
    assert_eq!(v["severity"], "warning");
    assert_eq!(v["path"], serde_json::json!(["app", "gateway", "core"]));
    assert_eq!(v["scopes"], serde_json::json!(["pay:write"]));
    assert_eq!(
        (v["line"].as_u64(), v["column"].as_u64()),
        (Some(11), Some(13))
    );
    // Borrowed from an agent marked `authority: own` itself: a note, green under --deny.
    let marked = WHEN_WORLD.replace(
        "    scopes: [pay:write]\n",
        "    scopes: [pay:write]\n    authority: own\n",
    );
    let r = check("auth-note", &marked, &["--deny", "warnings"]);
    assert_eq!(r.status, 0, "{}", r.stderr);
    assert!(
        r.stderr
            .starts_with("t.yaml:12:13: note[authority_amplified]: app → gateway → core"),
        "{}",
        r.stderr
    );
}

#[test]
fn the_bundled_confused_deputy_is_found_and_attenuation_refuses_it() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let own = Load::file(&root.join("scenarios/confused-deputy.yaml"))
        .load()
        .unwrap();
    let codes: Vec<_> = own
        .warnings
        .iter()
        .map(|d| d.coded.as_ref().map(|c| c.severity.as_str()))
        .collect();
    assert_eq!(codes, vec![Some("warning"), Some("note")]);
    let world = a2a_sim::engine::run(&own.scenario);
    assert_eq!(
        world
            .tasks
            .iter()
            .filter(|t| !t.amplified().is_empty())
            .count(),
        2
    );
    let att = Load::file(&root.join("scenarios/confused-deputy-attenuated.yaml"))
        .scenario()
        .unwrap();
    let world = a2a_sim::engine::run(&att);
    let d = &world.denials[1];
    assert_eq!((d.step(), d.denials[0].code.as_str()), (2, "scope"));
    assert_eq!(world.tasks[0].state.as_str(), "failed");
}

const TENANTS: &str = "agents:
  - {name: a, tenant: acme, clearance: public, skills: [{id: s, tags: [x]}], handler: [working, completed]}
  - {name: g, tenant: globex, clearance: public, skills: [{id: s, tags: [x]}], handler: [working, completed]}
callers:
  - {id: acme-app, tenant: acme, classification: public}
  - {id: globex-app, tenant: globex, classification: public}
steps:
  - send: {caller: acme-app, to: a, text: one}
  - send: {caller: acme-app, to: a, text: two, context: ctx-2}
  - send: {caller: acme-app, to: a, text: three, context: ctx-02}
  - send: {caller: globex-app, to: g, text: other tenant}
";

#[test]
fn minted_context_ids_skip_literal_ones_across_tenants() {
    let r = report_value(TENANTS);
    let ids: Vec<&str> = r["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["context_id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, vec!["ctx-1", "ctx-2", "ctx-02", "ctx-3"]);
    let dir = scratch("auth-ctx");
    std::fs::write(dir.join("t.yaml"), TENANTS).unwrap();
    let acp = a2a_sim_in(&dir, &["run", "--format", "acp", "t.yaml"], None);
    // The context id is inside each run's A2A part; the session id is derived from it.
    assert_eq!(acp.stdout.matches("ctx-2\\\"").count(), 1, "{}", acp.stdout);
    assert_eq!(acp.stdout.matches("ctx-3\\\"").count(), 1, "{}", acp.stdout);
    let runs: Vec<Value> = serde_json::from_str(&acp.stdout).unwrap();
    let sessions: std::collections::BTreeSet<&str> = runs
        .iter()
        .map(|r| r["session_id"].as_str().unwrap())
        .collect();
    assert_eq!(sessions.len(), 4);
}

#[test]
fn look_alike_identities_warn_and_stay_distinct() {
    assert!(confusable("payments", "p\u{430}yments"), "Cyrillic a");
    assert!(confusable("pay:write", "Pay:Write"), "case");
    assert!(confusable("ledger", "led\u{200b}ger"), "zero width space");
    assert!(confusable("core", "ｃｏｒｅ"), "NFKC");
    assert!(!confusable("core", "care") && !confusable("same", "same"));
    let text = "agents:
  - {name: payments, tenant: acme, clearance: public, scopes: [pay:write], skills: [{id: s, tags: [x]}], handler: [working, completed]}
  - {name: \"p\u{430}yments\", tenant: acme, clearance: public, required_scopes: [Pay:Write], skills: [{id: s, tags: [x]}], handler: [working, completed]}
callers:
  - {id: app, tenant: acme, classification: public}
steps:
  - send: {caller: app, to: payments, text: go}
";
    let loaded = Load::text("t.yaml", text, Path::new("."), "t")
        .load()
        .unwrap();
    let got: Vec<String> = loaded
        .warnings
        .iter()
        .map(|d| format!("{}:{} {}", d.line, d.column, d.message))
        .collect();
    assert_eq!(
        got,
        vec![
            "3:12 id `p\\u{430}yments` looks like id `payments` (confusable): they are different identities",
            "3:75 scope `Pay:Write` looks like scope `pay:write` (confusable): they are different identities",
        ]
    );
    assert_eq!(loaded.scenario.agents.len(), 2);
}
