//! Engine behaviour beyond the named invariants: boundaries, refusal order, nesting, ids.

use a2a_sim::engine;

use crate::common::*;

/// The codes of every denial in a run of `yaml`, in order.
fn denial_codes(yaml: &str) -> Vec<&'static str> {
    let s = load(yaml);
    let w = engine::run(&s);
    w.denials
        .iter()
        .flat_map(|d| d.denials.iter().map(|x| x.code.as_str()))
        .collect()
}

fn depth_world(max_depth: u32, chain_len: usize) -> Vec<&'static str> {
    let chain: Vec<String> = (0..chain_len).map(|i| format!("up-{i}")).collect();
    let yaml = format!(
        "policy: {{max_depth: {max_depth}}}\nagents:\n  - {{name: s, tenant: t, clearance: public, skills: [{{id: s, tags: [x]}}], handler: [working, completed]}}\ncallers:\n  - {{id: c, tenant: t, classification: public, delegation_chain: [{}]}}\nsteps:\n  - send: {{caller: c, to: s, text: go}}\n",
        chain.join(", ")
    );
    denial_codes(&yaml)
}

#[test]
fn depth_boundary_both_ways() {
    // max_depth 4: the new chain of 3 (caller chain 2) is admitted, a new chain of 4 is refused.
    assert_eq!(depth_world(4, 2), Vec::<&str>::new());
    assert_eq!(depth_world(4, 3), ["depth"]);
    assert_eq!(depth_world(1, 0), ["depth"]);
    assert_eq!(depth_world(2, 0), Vec::<&str>::new());
}

fn classification_world(clearance: &str, data: &str) -> Vec<&'static str> {
    let yaml = format!(
        "agents:\n  - {{name: s, tenant: t, clearance: {clearance}, skills: [{{id: s, tags: [x]}}], handler: [working, completed]}}\ncallers:\n  - {{id: c, tenant: t, classification: {data}}}\nsteps:\n  - send: {{caller: c, to: s, text: go}}\n"
    );
    denial_codes(&yaml)
}

#[test]
fn classification_boundary_both_ways() {
    assert_eq!(
        classification_world("confidential", "confidential"),
        Vec::<&str>::new()
    );
    assert_eq!(
        classification_world("restricted", "confidential"),
        Vec::<&str>::new()
    );
    assert_eq!(
        classification_world("internal", "confidential"),
        ["classification"]
    );
    assert_eq!(
        classification_world("public", "restricted"),
        ["classification"]
    );
}

#[test]
fn custom_classification_levels_are_ordered_lowest_first() {
    let yaml = "classification_levels: [green, amber, red]\nagents:\n  - {name: s, tenant: t, clearance: amber, skills: [{id: s, tags: [x]}], handler: [working, completed]}\ncallers:\n  - {id: lo, tenant: t, classification: green}\n  - {id: hi, tenant: t, classification: red}\nsteps:\n  - send: {caller: lo, to: s, text: go}\n  - send: {caller: hi, to: s, text: go}\n";
    let s = load(yaml);
    let w = engine::run(&s);
    assert_eq!(w.tasks.len(), 1);
    assert_eq!(denied_codes(&w, 2), ["classification"]);
    let err = load_err(&yaml.replace("clearance: amber", "clearance: confidential"));
    assert!(
        err.contains("unknown classification level `confidential`"),
        "{err}"
    );
}

#[test]
fn replies_resume_after_the_pause_and_take_no_tick() {
    let s = load(&one_agent(
        "[working, {input_required: which list?}, {working: screening}, completed]",
        r#"
  - send: {caller: orchestrator, to: screener, text: go, as: t}
  - reply: {caller: orchestrator, task: t, text: SDN}
  - reply: {caller: orchestrator, task: t, text: again}
"#,
    ));
    let w = engine::run(&s);
    assert_eq!(
        history(&w, 0),
        [
            (1, "submitted"),
            (2, "working"),
            (3, "input-required"),
            (4, "working"),
            (5, "completed")
        ]
    );
    let texts: Vec<&str> = w.tasks[0].messages.iter().map(|m| &*m.text).collect();
    assert_eq!(texts, ["go", "which list?", "SDN", "screening"]);
    assert_eq!(error_codes(&w), ["task_terminal"]);
}

#[test]
fn a_reply_with_no_steps_left_is_handler_incomplete() {
    let s = load(&one_agent(
        "[working, input_required]",
        r#"
  - send: {caller: orchestrator, to: screener, text: go, as: t}
  - reply: {caller: orchestrator, task: t, text: more}
"#,
    ));
    let w = engine::run(&s);
    assert_eq!(error_codes(&w), ["handler_incomplete"]);
    assert_eq!(states(&w), ["failed"]);
}

#[test]
fn nested_delegation_grows_the_chain_one_hop_per_level() {
    let yaml = r#"
policy: {max_depth: 10}
agents:
  - {name: payments, tenant: acme, clearance: restricted, scopes: [screen], skills: [{id: p, tags: [pay]}],
     handler: [working, {delegate: {to: screener, text: screen it}}, completed]}
  - {name: screener, tenant: acme, clearance: restricted, required_scopes: [screen], skills: [{id: s, tags: [sanctions]}],
     handler: [working, {delegate: {to: {discover: [lists]}, text: fetch lists}}, {artifact: {text: clear}}, completed]}
  - {name: lists, tenant: acme, clearance: restricted, skills: [{id: l, tags: [lists]}], handler: [working, completed]}
callers:
  - {id: orchestrator, tenant: acme, classification: confidential, scopes: [screen]}
steps:
  - stream: {caller: orchestrator, to: payments, text: pay, context: case-1}
"#;
    let s = load(yaml);
    let w = engine::run(&s);
    assert_eq!(states(&w), ["completed", "completed", "completed"]);
    assert_eq!(chain(&w, 0), ["orchestrator"]);
    assert_eq!(chain(&w, 1), ["orchestrator", "payments"]);
    assert_eq!(chain(&w, 2), ["orchestrator", "payments", "screener"]);
    let v: serde_json::Value = serde_json::from_str(&json(&w)).unwrap();
    assert_eq!(v["tasks"][1]["parent"], "task-1");
    assert_eq!(v["tasks"][2]["parent"], "task-2");
    assert_eq!(v["tasks"][0]["context_id"], "case-1");
    assert_eq!(v["tasks"][1]["context_id"], "ctx-1");
    assert_eq!(v["tasks"][2]["context_id"], "ctx-2");
    // The classification of the data travels with the nesting.
    assert!(
        w.tasks
            .iter()
            .all(|t| t.classification() == w.tasks[0].classification())
    );
    // The outer stream carries only its own task's events.
    let events = v["steps"][0]["result"]["events"].as_array().unwrap();
    assert!(events.iter().all(|e| e["task"] == "task-1"), "{events:?}");
}

#[test]
fn a_denied_nested_delegation_is_reported_under_the_driver_step() {
    let yaml = r#"
agents:
  - {name: payments, tenant: acme, clearance: restricted, skills: [{id: p, tags: [pay]}],
     handler: [working, {delegate: {to: screener, text: screen}}, completed]}
  - {name: screener, tenant: acme, clearance: restricted, required_scopes: [screen], skills: [{id: s, tags: [x]}]}
callers:
  - {id: orchestrator, tenant: acme, classification: internal}
steps:
  - get: {caller: orchestrator, task_id: task-1}
  - send: {caller: orchestrator, to: payments, text: pay}
"#;
    let s = load(yaml);
    let w = engine::run(&s);
    assert_eq!(states(&w), ["failed"]);
    assert_eq!(w.denials.len(), 1);
    assert_eq!(w.denials[0].step(), 2);
    assert_eq!(w.scenario.symbols.name(w.denials[0].caller), "payments");
    assert_eq!(
        error_codes(&w),
        ["task_not_found"],
        "the failed delegation itself adds no error"
    );
    let why = w.tasks[0]
        .history
        .last()
        .and_then(|h| h.message())
        .map(|m| w.tasks[0].messages[m].text.to_string());
    assert!(why.unwrap().contains("denied: scope"));
}

#[test]
fn a_chain_of_ten_thousand_agents_runs_without_overflowing_the_stack() {
    const N: usize = 10_000;
    let mut yaml = String::from("policy: {max_depth: 1000000}\nagents:\n");
    for i in 0..N {
        let handler = if i + 1 < N {
            format!(
                "[working, {{delegate: {{to: a{}, text: next}}}}, completed]",
                i + 1
            )
        } else {
            "[working, completed]".to_string()
        };
        yaml.push_str(&format!(
            "  - {{name: a{i}, tenant: t, clearance: public, skills: [{{id: s, tags: [x]}}], handler: {handler}}}\n"
        ));
    }
    yaml.push_str("callers:\n  - {id: c, tenant: t, classification: public}\nsteps:\n  - send: {caller: c, to: a0, text: go}\n");
    let s = load(&yaml);
    let w = engine::run(&s);
    assert_eq!(w.tasks.len(), N);
    assert!(w.tasks.iter().all(|t| t.state.as_str() == "completed"));
    assert_eq!(w.chains.len(w.tasks[N - 1].delegation_chain) as usize, N);
}

#[test]
fn ids_are_numeric_in_creation_order() {
    let mut steps = String::new();
    for _ in 0..11 {
        steps.push_str("  - send: {caller: orchestrator, to: screener, text: go}\n");
    }
    let v = report_value(&one_agent("[working, completed]", &steps));
    let ids: Vec<&str> = v["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids[8..], ["task-9", "task-10", "task-11"]);
}

#[test]
fn context_of_may_name_any_earlier_task_and_a_new_push_config_replaces_the_old() {
    let s = load(&one_agent(
        "[working, input_required, working, completed]",
        r#"
  - send: {caller: orchestrator, to: screener, text: go, as: t, push: {url: "https://hooks.acme.example/old", token: a}}
  - send: {caller: intruder, to: screener, text: join, context_of: t, as: u}
  - set_push_config: {caller: orchestrator, task: t, url: "https://hooks.acme.example/new", token: b}
  - reply: {caller: orchestrator, task: t, text: more}
"#,
    ));
    let w = engine::run(&s);
    // A context id is a correlation key, not a credential.
    assert_eq!(w.tasks[1].context, w.tasks[0].context);
    let urls: Vec<&str> = w
        .pushes
        .iter()
        .filter(|p| p.task == 0)
        .map(|p| w.push_urls[p.url].as_str())
        .collect();
    assert_eq!(
        urls,
        [
            "https://hooks.acme.example/old",
            "https://hooks.acme.example/old",
            "https://hooks.acme.example/new",
            "https://hooks.acme.example/new"
        ]
    );
}

#[test]
fn errors_within_a_step_come_in_the_order_they_happen() {
    let yaml = r#"
policy: {push_allowed_hosts: [hooks.acme.example]}
agents:
  - {name: payments, tenant: acme, clearance: restricted, capabilities: {push_notifications: true}, skills: [{id: p, tags: [pay]}],
     handler: [working, {delegate: {to: screener, text: screen, on_error: continue}}, {completed: done}, working]}
  - {name: screener, tenant: acme, clearance: restricted, skills: [{id: s, tags: [x]}], handler: [working, {completed: x}, failed]}
  - {name: broken, tenant: acme, clearance: restricted, skills: [{id: b, tags: [x]}], handler: [completed]}
callers:
  - {id: orchestrator, tenant: acme, classification: internal}
steps:
  - send: {caller: orchestrator, to: payments, text: pay, push: {url: "http://hooks.acme.example/", token: t}}
"#;
    let s = load(yaml);
    let w = engine::run(&s);
    assert_eq!(
        error_codes(&w),
        ["host_not_allowed"],
        "steps after a terminal state do not run"
    );
    let nested_first = yaml
        .replace("to: screener, text: screen", "to: broken, text: screen")
        .replace(
            "{completed: done}, working",
            "working, {completed: done}, working",
        );
    let s = load(&nested_first);
    let w = engine::run(&s);
    // working -> working is illegal too: the parent's own bug comes after its child's.
    assert_eq!(
        error_codes(&w),
        [
            "host_not_allowed",
            "illegal_transition",
            "illegal_transition"
        ]
    );
    assert_eq!(
        w.errors[1].task(),
        Some(1),
        "the nested task's handler error first"
    );
    assert_eq!(w.errors[2].task(), Some(0), "then its parent's");
}

#[test]
fn a_run_ranks_a_repeated_query_as_it_ranks_it_the_first_time() {
    // A run scores each tag set once and reuses it; what a caller may use is filtered per
    // query. Same tags from callers of two tenants and clearances, overlapping tag sets, and
    // a delegation by discovery, each compared with the query run alone in a fresh run.
    let head = r#"
classification_levels: [public, internal, secret]
agents:
  - {name: a1, tenant: t1, clearance: secret, skills: [{id: s, tags: [pay, fx]}], handler: [completed]}
  - {name: a2, tenant: t1, clearance: public, skills: [{id: s, tags: [pay]}, {id: r, tags: [fx, risk]}], handler: [completed]}
  - {name: a3, tenant: t2, clearance: secret, skills: [{id: s, tags: [pay, fx, risk]}], handler: [completed]}
  - {name: a4, tenant: t2, clearance: internal, skills: [{id: s, tags: [risk]}], handler: [completed]}
callers:
  - {id: c1, tenant: t1, classification: public}
  - {id: c2, tenant: t2, classification: secret}
  - {id: c3, tenant: t1, classification: secret}
steps:
"#;
    let queries = [
        "discover: {caller: c1, tags: [pay, fx]}",
        "discover: {caller: c2, tags: [pay, fx]}",
        "discover: {caller: c3, tags: [pay, fx], limit: 1}",
        "discover: {caller: c1, tags: [fx]}",
        "discover: {caller: c2, tags: [risk, fx]}",
        "discover: {caller: c1, tags: [pay, fx]}",
        "send: {caller: c2, to: {discover: [pay]}, text: hi}",
        "discover: {caller: c2, tags: [pay]}",
        "send: {caller: c1, to: {discover: [pay]}, text: hi}",
        "discover: {caller: c3, tags: [risk]}",
    ];
    let steps = |qs: &[&str]| -> String { qs.iter().map(|q| format!("  - {q}\n")).collect() };
    let all = report_value(&format!("{head}{}", steps(&queries)));
    for (i, q) in queries.iter().enumerate() {
        let alone = report_value(&format!("{head}{}", steps(&[q])));
        let mut expected = alone["steps"][0]["result"].clone();
        let mut got = all["steps"][i]["result"].clone();
        // A send's task id depends on the tasks before it; its agent is the point.
        for r in [&mut expected, &mut got] {
            if let Some(o) = r.as_object_mut() {
                o.remove("task");
            }
        }
        assert_eq!(got, expected, "step {}: {q}", i + 1);
    }
    let agents: Vec<&str> = all["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["agent"].as_str().unwrap())
        .collect();
    assert_eq!(agents, ["a3", "a1"]);
}

#[test]
fn a_finished_task_keeps_no_spare_room_in_its_logs() {
    // Six messages and five status changes spill both logs past their three inline slots,
    // into room for eight; a task that ended gives the spare slots back. One that did not keeps
    // its room to grow.
    let handler = "[working, {message: a}, {message: b}, {message: c}, {input_required: more?}, working, completed]";
    let s = load(&one_agent(
        handler,
        r#"
  - send: {caller: orchestrator, to: screener, text: go, as: t}
  - send: {caller: orchestrator, to: screener, text: go, as: u}
  - reply: {caller: orchestrator, task: t, text: yes}
"#,
    ));
    let w = engine::run(&s);
    let (done, paused) = (&w.tasks[0], &w.tasks[1]);
    assert_eq!(states(&w), ["completed", "input-required"]);
    assert_eq!((done.messages.len(), done.history.len()), (6, 5));
    assert_eq!(done.messages.capacity(), done.messages.len());
    assert_eq!(done.history.capacity(), done.history.len());
    assert_eq!(paused.messages.len(), 5);
    assert!(paused.messages.capacity() > paused.messages.len());
}

#[test]
fn a_run_recording_stream_steps_keeps_only_their_calls_and_reports_the_same() {
    use engine::RecordStreams;
    let yaml = r#"
agents:
  - {name: payments, tenant: acme, clearance: restricted, skills: [{id: p, tags: [pay]}],
     handler: [working, {delegate: {to: screener, text: screen it}}, input_required, working, completed]}
  - {name: screener, tenant: acme, clearance: restricted, skills: [{id: s, tags: [x]}], handler: [working, completed]}
callers:
  - {id: orchestrator, tenant: acme, classification: internal}
steps:
  - send: {caller: orchestrator, to: screener, text: first}
  - stream: {caller: orchestrator, to: payments, text: pay, as: p}
  - reply: {caller: orchestrator, task: p, text: go on}
"#;
    let s = load(yaml);
    let all = engine::run(&s);
    let some = engine::run_recording(&s, RecordStreams::StreamSteps);
    assert_eq!(json(&all), json(&some));
    assert_eq!(states(&some), ["completed", "completed", "completed"]);
    // Every call recorded: the send, the stream, its nested delegation and the reply.
    assert_eq!(all.calls.len(), 4);
    // Only the stream step's: its task's events from submitted to the pause, and nothing else.
    assert_eq!(some.calls.len(), 1);
    assert_eq!(some.calls[0].task, 1);
    let stream = some.call_events(0).count();
    assert!(stream >= 4, "{stream}");
    assert_eq!(some.events.len(), stream);
    assert_eq!(all.call_events(1).count(), stream);
}

#[test]
fn an_artifact_whose_template_renders_empty_keeps_its_empty_text() {
    let yaml = r#"
templates: true
agents:
  - {name: s, tenant: t, clearance: public, skills: [{id: s, tags: [x]}],
     handler: [working, {artifact: {name: empty, text: "{{input.data.missing}}"}}, {artifact: {name: none, data: {k: 1}}}, completed]}
callers:
  - {id: c, tenant: t, classification: public}
steps:
  - send: {caller: c, to: s, text: go}
"#;
    let v: serde_json::Value = serde_json::from_str(&report(&load(yaml))).unwrap();
    let artifacts = &v["tasks"][0]["artifacts"];
    assert_eq!(artifacts[0]["text"], "", "{artifacts}");
    assert!(artifacts[1].get("text").is_none(), "{artifacts}");
}
