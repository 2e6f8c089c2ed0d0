//! The deep dive's invariants (§9) and the extras of semantics.md §9, one named test each.

use a2a_sim::engine;
use a2a_sim::engine::record::{ErrorCode, StepResult, TRANSITIONS, TaskState};

use crate::common::*;

const SCREEN: &str = r#"[{working: Screening}, {artifact: {name: result, text: "1 possible match", data: {matches: 1, list: SDN}}}, completed]"#;

#[test]
fn invariant_1_terminal_states_accept_nothing() {
    for state in TaskState::ALL.into_iter().filter(|s| s.is_terminal()) {
        assert!(state.successors().is_empty(), "{state}");
        for to in TaskState::ALL {
            assert!(!state.can_move_to(to), "{state} -> {to}");
        }
    }
    // Through the engine: steps after a terminal state never run, and cancel is refused.
    let s = load(&one_agent(
        "[working, completed, working, failed]",
        r#"
  - send: {caller: orchestrator, to: screener, text: go, as: t}
  - cancel: {caller: orchestrator, task: t}
  - reply: {caller: orchestrator, task: t, text: more}
"#,
    ));
    let w = engine::run(&s);
    assert_eq!(
        history(&w, 0),
        [(1, "submitted"), (2, "working"), (3, "completed")]
    );
    assert_eq!(error_codes(&w), ["task_not_cancelable", "task_terminal"]);
}

#[test]
fn invariant_2_no_trap_states() {
    for start in TaskState::ALL.into_iter().filter(|s| !s.is_terminal()) {
        let mut seen = vec![start];
        let mut frontier = vec![start];
        while let Some(s) = frontier.pop() {
            for &next in s.successors() {
                if !seen.contains(&next) {
                    seen.push(next);
                    frontier.push(next);
                }
            }
        }
        assert!(
            seen.iter().any(|s| s.is_terminal()),
            "{start} cannot reach a terminal state"
        );
    }
    // A handler that stops without a terminal state or a pause does not trap the task either.
    let s = load(&one_agent(
        "[working]",
        "  - send: {caller: orchestrator, to: screener, text: go}",
    ));
    let w = engine::run(&s);
    assert_eq!(states(&w), ["failed"]);
    assert!(has_error(&w, ErrorCode::HandlerIncomplete));
}

#[test]
fn invariant_3_two_edges_are_illegal() {
    assert!(!TaskState::Submitted.can_move_to(TaskState::Completed));
    assert!(!TaskState::InputRequired.can_move_to(TaskState::Rejected));
    assert!(
        TaskState::AuthRequired.can_move_to(TaskState::Rejected),
        "auth-required -> rejected stays legal"
    );
    for (handler, reply) in [
        ("[completed]", false),
        ("[working, input_required, rejected]", true),
    ] {
        let steps = if reply {
            "  - send: {caller: orchestrator, to: screener, text: go, as: t}\n  - reply: {caller: orchestrator, task: t, text: answer}"
        } else {
            "  - send: {caller: orchestrator, to: screener, text: go}"
        };
        let w_scenario = load(&one_agent(handler, steps));
        let w = engine::run(&w_scenario);
        assert_eq!(states(&w), ["failed"], "{handler}");
        assert_eq!(error_codes(&w), ["illegal_transition"], "{handler}");
    }
}

#[test]
fn invariant_4_a_denied_delegation_never_creates_a_task() {
    let s = load(
        &one_agent(
            SCREEN,
            r#"
  - send: {caller: outsider, to: screener, text: go, as: t}
  - get: {caller: outsider, task: t}
"#,
        )
        .replace(
            "callers:\n",
            "callers:\n  - {id: outsider, tenant: globex, classification: internal}\n",
        ),
    );
    let w = engine::run(&s);
    assert!(w.tasks.is_empty());
    assert_eq!(denied_codes(&w, 1), ["tenant"]);
    assert_eq!(
        error_codes(&w),
        ["task_not_found"],
        "the alias of a denied send names no task"
    );
}

#[test]
fn invariant_5_the_chain_is_the_callers_chain_plus_the_caller() {
    let yaml = r#"
agents:
  - {name: screener, tenant: acme, clearance: restricted, skills: [{id: s, tags: [x]}], handler: [working, completed]}
callers:
  - {id: payments-agent, tenant: acme, classification: internal, delegation_chain: [orchestrator, intake]}
steps:
  - send: {caller: payments-agent, to: screener, text: go, data: {delegation_chain: [forged]}}
"#;
    let w_s = load(yaml);
    let w = engine::run(&w_s);
    assert_eq!(chain(&w, 0), ["orchestrator", "intake", "payments-agent"]);
    // The callee cannot forge the chain: a step cannot set it at all.
    let err = load_err(&yaml.replace("text: go,", "text: go, delegation_chain: [x],"));
    assert!(err.contains("unknown field `delegation_chain`"), "{err}");
}

#[test]
fn invariant_7_discovery_never_returns_the_caller_and_is_order_independent() {
    let agents = [
        "  - {name: alpha, tenant: acme, clearance: restricted, skills: [{id: a, tags: [kyc, sanctions]}]}",
        "  - {name: beta, tenant: acme, clearance: restricted, skills: [{id: b, tags: [kyc]}, {id: c, tags: [sanctions]}]}",
        "  - {name: gamma, tenant: acme, clearance: restricted, skills: [{id: g, tags: [kyc, sanctions]}]}",
        "  - {name: orchestrator, tenant: acme, clearance: restricted, skills: [{id: o, tags: [kyc, sanctions]}]}",
    ];
    let mut rankings = Vec::new();
    for order in [[0, 1, 2, 3], [3, 2, 1, 0], [1, 3, 0, 2]] {
        let list: Vec<&str> = order.iter().map(|&i| agents[i]).collect();
        let yaml = format!(
            "agents:\n{}\ncallers:\n  - {{id: orchestrator, tenant: acme, classification: public}}\nsteps:\n  - discover: {{caller: orchestrator, tags: [kyc, sanctions]}}\n",
            list.join("\n")
        );
        let v = report_value(&yaml);
        rankings.push(v["steps"][0]["result"]["ranking"].clone());
    }
    assert_eq!(rankings[0], rankings[1]);
    assert_eq!(rankings[0], rankings[2]);
    let names: Vec<&str> = rankings[0]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["agent"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["alpha", "gamma", "beta"],
        "best single skill, then name; never the caller"
    );
}

#[test]
fn invariant_8_check_delegation_returns_all_applicable_denials() {
    let yaml = r#"
policy: {max_depth: 2}
agents:
  - {name: screener, tenant: acme, clearance: internal, required_scopes: [sanctions:screen, kyc:read], skills: [{id: s, tags: [x]}]}
callers:
  - {id: outsider, tenant: globex, classification: restricted, delegation_chain: [screener]}
steps:
  - send: {caller: outsider, to: screener, text: go}
"#;
    let w_s = load(yaml);
    let w = engine::run(&w_s);
    assert_eq!(
        denied_codes(&w, 1),
        ["cycle", "depth", "tenant", "classification", "scope"]
    );
    let details = &w.denials[0].denials[4].detail;
    assert!(
        details.contains("`sanctions:screen`") && details.contains("`kyc:read`"),
        "{details}"
    );
}

#[test]
fn invariant_11_send_and_stream_agree() {
    for handler in [
        SCREEN,
        "[working, {message: thinking}, {artifact: {text: a}}, {artifact: {data: {k: 1}}}, completed]",
        "[working, input_required]",
        "[completed]",
        "[]",
    ] {
        let run = |op: &str| {
            let s = load(&one_agent(
                handler,
                &format!("  - {op}: {{caller: orchestrator, to: screener, text: go}}"),
            ));
            let w = engine::run(&s);
            let v: serde_json::Value = serde_json::from_str(&json(&w)).unwrap();
            (
                v["tasks"].clone(),
                v["errors"].clone(),
                v["steps"][0]["result"]["state"].clone(),
            )
        };
        assert_eq!(run("send"), run("stream"), "{handler}");
    }
    // The stream's last event is the final task.
    let s = load(&one_agent(
        SCREEN,
        "  - stream: {caller: orchestrator, to: screener, text: go}",
    ));
    let v: serde_json::Value = serde_json::from_str(&report(&s)).unwrap();
    let events = v["steps"][0]["result"]["events"].as_array().unwrap();
    assert_eq!(events.first().unwrap()["event"], "task");
    assert_eq!(
        events.last().unwrap(),
        &serde_json::json!({"event": "task", "task": "task-1", "state": "completed"})
    );
}

#[test]
fn a_denial_consumes_no_task_id_context_id_or_tick() {
    let s = load(
        &one_agent(
            SCREEN,
            r#"
  - send: {caller: outsider, to: screener, text: denied}
  - send: {caller: orchestrator, to: screener, text: admitted}
"#,
        )
        .replace(
            "callers:\n",
            "callers:\n  - {id: outsider, tenant: globex, classification: internal}\n",
        ),
    );
    let w = engine::run(&s);
    assert_eq!(w.tasks.len(), 1);
    let v: serde_json::Value = serde_json::from_str(&json(&w)).unwrap();
    assert_eq!(v["tasks"][0]["id"], "task-1");
    assert_eq!(v["tasks"][0]["context_id"], "ctx-1");
    assert_eq!(v["tasks"][0]["history"][0]["tick"], 1);
    assert_eq!(v["tasks"][0]["messages"][0]["message_id"], "msg-1");
}

#[test]
fn a_non_owner_cannot_read_resume_cancel_or_push_configure() {
    let s = load(&one_agent(
        "[working, input_required, working, completed]",
        r#"
  - send: {caller: orchestrator, to: screener, text: go, as: t}
  - get: {caller: intruder, task: t}
  - reply: {caller: intruder, task: t, text: hijack}
  - cancel: {caller: intruder, task: t}
  - set_push_config: {caller: intruder, task: t, url: "https://hooks.acme.example/x", token: tok}
  - get: {caller: intruder, task_id: task-99}
"#,
    ));
    let w = engine::run(&s);
    assert_eq!(error_codes(&w), ["task_not_found"; 5]);
    // Same words for someone else's task as for an id that does not exist.
    assert_eq!(&*w.errors[0].detail, "task `task-1` not found");
    assert_eq!(&*w.errors[4].detail, "task `task-99` not found");
    assert_eq!(states(&w), ["input-required"]);
    assert_eq!(
        w.tasks[0].messages.len(),
        1,
        "the intruder's reply joined nothing"
    );
    assert!(w.tasks[0].push().is_none());
}

#[test]
fn no_paused_child_outlives_a_failed_delegation() {
    let yaml = r#"
agents:
  - {name: payments, tenant: acme, clearance: restricted, skills: [{id: p, tags: [pay]}],
     handler: [working, {delegate: {to: screener, text: screen}}, completed]}
  - {name: screener, tenant: acme, clearance: restricted, skills: [{id: s, tags: [x]}],
     handler: [working, {input_required: which list?}]}
callers:
  - {id: orchestrator, tenant: acme, classification: internal}
steps:
  - send: {caller: orchestrator, to: payments, text: pay}
"#;
    let s = load(yaml);
    let w = engine::run(&s);
    assert_eq!(states(&w), ["failed", "canceled"]);
    assert_eq!(history(&w, 1).last().unwrap().1, "canceled");
    let on_continue = load(&yaml.replace("text: screen}", "text: screen, on_error: continue}"));
    let w = engine::run(&on_continue);
    assert_eq!(states(&w), ["completed", "canceled"]);
}

#[test]
fn no_output_contains_a_push_token_in_clear() {
    let s = load(&one_agent(
        "[working, input_required, working, completed]",
        r#"
  - send: {caller: orchestrator, to: screener, text: go, as: t, push: {url: "https://hooks.acme.example/a", token: s3cr3t-one}}
  - set_push_config: {caller: orchestrator, task: t, url: "https://hooks.acme.example/b", token: s3cr3t-two}
  - set_push_config: {caller: orchestrator, task: t, url: "http://evil.test/", token: s3cr3t-three}
  - reply: {caller: orchestrator, task: t, text: more}
"#,
    ));
    let w = engine::run(&s);
    assert_eq!(
        w.pushes.len(),
        4,
        "working, input-required, then working, completed"
    );
    let table = a2a_sim::report::table::render(&w, a2a_sim::report::table::Layout::Fixed);
    for out in [json(&w), table, format!("{w:?}"), format!("{s:?}")] {
        assert!(!out.contains("s3cr3t"), "a token leaked:\n{out}");
    }
}

#[test]
fn the_same_scenario_gives_byte_identical_output() {
    let yaml = one_agent(
        SCREEN,
        "  - stream: {caller: orchestrator, to: screener, text: go}",
    );
    let outputs: Vec<String> = (0..3).map(|_| report(&load(&yaml))).collect();
    assert_eq!(outputs[0], outputs[1]);
    assert_eq!(outputs[1], outputs[2]);
}

#[test]
fn every_transition_in_the_table_is_what_set_status_allows() {
    let mut legal = 0;
    for (from, tos) in TRANSITIONS {
        for to in TaskState::ALL {
            assert_eq!(from.can_move_to(to), tos.contains(&to));
            legal += usize::from(tos.contains(&to));
        }
    }
    assert_eq!(legal, 17);
    assert!(matches!(StepResult::Nothing, StepResult::Nothing));
}
