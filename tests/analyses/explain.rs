//! `explain`: the values each rule compared, agreeing with the rules themselves.

use std::path::Path;

use a2a_sim::analysis::explain;
use a2a_sim::engine::record::StepResult;
use a2a_sim::engine::scenario::{HostPattern, Step, check_push_url};
use a2a_sim::scenario::Load;
use a2a_sim::{corpus, engine};

use crate::common::binary::a2a_sim;

fn bundled() -> Vec<std::path::PathBuf> {
    corpus::expand(&[Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios")]).unwrap()
}

#[test]
fn step_verdicts_equal_the_denials_of_every_bundled_send() {
    let mut sends = 0;
    for f in bundled() {
        let s = Load::file(&f).scenario().unwrap();
        let w = engine::run(&s);
        for (i, step) in s.steps.iter().enumerate() {
            let Step::Send(_) = step else { continue };
            let e = explain::step(&w, i + 1).unwrap();
            let got: Vec<String> = e.json["denied"]
                .as_array()
                .map(|a| a.iter().map(|c| c.as_str().unwrap().to_string()).collect())
                .unwrap_or_default();
            let want: Vec<String> = match &w.steps[i].result {
                StepResult::Denied(c) => c.iter().map(|c| c.as_str().to_string()).collect(),
                _ => Vec::new(),
            };
            if e.json["verdict"] != "no_candidate" {
                sends += 1;
                assert_eq!(got, want, "{} step {}", f.display(), i + 1);
            }
        }
    }
    assert!(sends > 20);
}

#[test]
fn push_verdicts_equal_the_first_refusal_of_every_bundled_push_config() {
    let mut seen = 0;
    for f in bundled() {
        let s = Load::file(&f).scenario().unwrap();
        let w = engine::run(&s);
        for (i, step) in s.steps.iter().enumerate() {
            let with_push = match step {
                Step::SetPushConfig { .. } => true,
                Step::Send(send) => {
                    send.push().is_some() && matches!(w.steps[i].result, StepResult::Task { .. })
                }
                _ => false,
            };
            if !with_push {
                continue;
            }
            seen += 1;
            let e = explain::step(&w, i + 1).unwrap();
            let refusals = [
                "push_not_supported",
                "task_not_found",
                "host_not_allowed",
                "missing_token",
            ];
            let first = w
                .errors
                .iter()
                .filter(|x| x.step() == i + 1)
                .map(|x| x.code.as_str())
                .find(|c| refusals.contains(c))
                .unwrap_or("accepted");
            assert_eq!(
                e.json["push"]["verdict"],
                first,
                "{} step {}",
                f.display(),
                i + 1
            );
        }
    }
    assert!(seen > 15, "{seen}");
}

#[test]
fn every_check_shows_its_operands() {
    let r = a2a_sim(&["explain", "scenarios/admission-denials.yaml", "--step", "4"]);
    assert_eq!(r.status, 0, "{}", r.stderr);
    assert!(
        r.stdout
            .contains("depth:          chain of 3 + 1 hop = 4 ≥ max_depth 4 → denied"),
        "{}",
        r.stdout
    );
    let r = a2a_sim(&["explain", "scenarios/admission-denials.yaml", "--step", "3"]);
    assert!(
        r.stdout
            .contains("chain of 2 + 1 hop = 3 < max_depth 4 → admitted"),
        "{}",
        r.stdout
    );
    // The all-denials send: each check with what it compared.
    let s = Load::file(Path::new("scenarios/admission-denials.yaml"))
        .scenario()
        .unwrap();
    let w = engine::run(&s);
    let step = w
        .steps
        .iter()
        .position(|r| matches!(&r.result, StepResult::Denied(c) if c.len() == 5))
        .unwrap()
        + 1;
    let e = explain::step(&w, step).unwrap();
    let text = &e.text;
    for want in [
        "is in the caller's chain",
        "card tenant `acme` ≠ caller tenant `globex`",
        "card cleared `confidential` (rank 2) < data `restricted` (rank 3)",
        "missing [sanctions:screen, pii:read]",
        "verdict: denied (cycle, depth, tenant, classification, scope)",
    ] {
        assert!(text.contains(want), "{want}\n{text}");
    }
}

#[test]
fn the_push_check_names_the_parsed_host_and_agrees_with_set_push_config() {
    let allowed: Vec<HostPattern> = ["ok.example", "*.hooks.example"]
        .iter()
        .map(|p| HostPattern::parse(p).unwrap())
        .collect();
    for (url, host) in [
        ("https://ok.example/a2a", Some("ok.example")),
        ("https://OK.Example:8443/x", Some("ok.example")),
        ("https://a.b.hooks.example/", Some("a.b.hooks.example")),
        ("https://hooks.example/", Some("hooks.example")),
        ("http://ok.example/", Some("ok.example")),
        ("https://u:p@ok.example/", Some("ok.example")),
        ("https://ok.example@evil.test/", Some("evil.test")),
        ("https://evil.test#ok.example", Some("evil.test")),
        (
            "https://ok.example.evil.test/",
            Some("ok.example.evil.test"),
        ),
        ("https://127.0.0.1/", Some("127.0.0.1")),
        ("not a url", None),
    ] {
        let c = explain::push_url(url, &allowed);
        assert_eq!(c.passed, check_push_url(url, &allowed).is_ok(), "{url}");
        assert_eq!(c.host.as_deref(), host, "{url}");
    }
    let c = explain::push_url("https://a.hooks.example/", &allowed);
    assert_eq!(
        c.rule,
        "`a.hooks.example` is a subdomain of the allowed `*.hooks.example`"
    );
    // The parser reads `ok.example` as a user name: that rule decides, on the host `evil.test`.
    let c = explain::push_url("https://ok.example@evil.test/", &allowed);
    assert_eq!(c.rule, "the URL carries a user name or password");
    let c = explain::push_url("https://evil.test#ok.example", &allowed);
    assert!(
        c.rule.contains("`evil.test` matches no entry"),
        "{}",
        c.rule
    );
    // On a bundled step: capability first, and the token never shown.
    let r = a2a_sim(&[
        "explain",
        "scenarios/push-notifications.yaml",
        "--step",
        "2",
        "--format",
        "json",
    ]);
    assert_eq!(r.status, 0, "{}", r.stderr);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["push"]["verdict"], "push_not_supported");
    assert_eq!(v["push"]["host"], "hooks.acme.example");
    assert!(!r.stdout.contains("s3cr3t"), "a token leaked: {}", r.stdout);
}

#[test]
fn discovery_shows_every_agent_excluded_or_scored_with_the_engines_ranks() {
    let s = Load::file(Path::new("scenarios/discovery.yaml"))
        .scenario()
        .unwrap();
    let w = engine::run(&s);
    let StepResult::Ranking(ranking) = &w.steps[0].result else {
        panic!()
    };
    let e = explain::discover(&w, 1).unwrap();
    let agents = e.json["agents"].as_array().unwrap();
    assert_eq!(agents.len(), s.agents.len(), "every agent of the directory");
    let result: Vec<&str> = e.json["result"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    let want: Vec<&str> = ranking.iter().map(|r| s.agents[r.agent].name()).collect();
    assert_eq!(result, want);
    for (why, detail) in [
        ("self", "`kyc-orchestrator` is the caller"),
        ("tenant", "card tenant `globex` ≠ caller tenant `acme`"),
        ("clearance", "card cleared `internal` < data `confidential`"),
    ] {
        assert!(
            agents
                .iter()
                .any(|a| a["excluded"] == why && a["detail"] == detail),
            "{why}: {agents:?}"
        );
    }
    let top = agents
        .iter()
        .find(|a| a["agent"] == "sanctions-screener")
        .unwrap();
    assert_eq!(top["rank"], 1);
    assert_eq!(top["skills"][0]["overlap"], 2);
    let r = a2a_sim(&[
        "explain",
        "scenarios/admission-denials.yaml",
        "--discover",
        "1",
    ]);
    assert_eq!(r.status, 2);
    assert!(r.stderr.contains("makes no discovery"), "{}", r.stderr);
    let r = a2a_sim(&["explain", "scenarios/multi-turn.yaml", "--discover", "2"]);
    assert_eq!(r.status, 2);
}

#[test]
fn a_task_shows_its_path_decisions_and_ticks() {
    let r = a2a_sim(&[
        "explain",
        "scenarios/payment-decision.yaml",
        "--task",
        "task-1",
    ]);
    assert_eq!(r.status, 0, "{}", r.stderr);
    for want in [
        "tick   2  step 1: working",
        "step 2: delegate → [task-2 on sanctions-screener (completed, attempt 1)] outcome completed",
        "step 3: when screen.data.recommendation == \"clear\" → false → else",
        "step 7: when reply.data.decision == \"release\" → true → then",
        "tick  12  step 10: completed",
        "input-required (not a step of the script): Which beneficiary?",
    ] {
        assert!(r.stdout.contains(want), "{want}\n{}", r.stdout);
    }
    let r = a2a_sim(&[
        "explain",
        "scenarios/handler-bugs.yaml",
        "--task",
        "task-1",
        "--format",
        "json",
    ]);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["errors"][1]["code"], "illegal_transition");
    assert_eq!(v["path"][1]["illegal"], true);
    assert_eq!(v["path"][2]["outside_script"], true);
    assert_eq!(v["end"], "an illegal transition failed the task");
}

#[test]
fn wrong_questions_exit_2_with_a_message_not_a_panic() {
    for (args, want) in [
        (vec!["--step", "0"], "no step 0"),
        (vec!["--step", "999"], "no step 999"),
        (vec!["--task", "task-999"], "no task `task-999`"),
        (vec!["--task", "nonsense"], "no task `nonsense`"),
        (vec![], "--step N, --discover N or --task ID"),
    ] {
        let mut all = vec!["explain", "scenarios/discovery.yaml"];
        all.extend(args);
        let r = a2a_sim(&all);
        assert_eq!(r.status, 2, "{all:?}");
        assert!(r.stderr.contains(want), "{all:?}: {}", r.stderr);
    }
    let r = a2a_sim(&[
        "explain",
        "scenarios/discovery.yaml",
        "--step",
        "1",
        "--task",
        "task-1",
    ]);
    assert_eq!(r.status, 2, "one question at a time");
}

#[test]
fn a_matrix_step_explains_each_pair() {
    let s = Load::file(Path::new("scenarios/admission-matrix.yaml"))
        .scenario()
        .unwrap();
    let w = engine::run(&s);
    let e = explain::step(&w, 2).unwrap();
    let pairs = e.json["pairs"].as_array().unwrap();
    assert_eq!(pairs.len(), 6);
    let StepResult::Matrix(g) = &w.steps[1].result else {
        panic!()
    };
    for (p, cell) in pairs.iter().zip(g.iter().flatten()) {
        let want: Vec<&str> = cell.iter().map(|c| c.as_str()).collect();
        assert_eq!(p["denied"], serde_json::json!(want));
    }
}
