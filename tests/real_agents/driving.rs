//! Driving a real agent: sends, replies, attribution of its calls, versions, an agent at a URL.

use super::*;

#[test]
fn a_real_agent_is_driven_and_its_calls_become_child_tasks() {
    let r = report(&Desk::mode("ok").at("driven"), &[]);
    assert_eq!(r["errors"], json!([]), "{r:#}");
    assert_eq!(r["denials"], json!([]));
    assert_eq!(
        r["steps"][0]["result"],
        json!({"task": "task-1", "state": "completed"})
    );
    assert_eq!(
        r["steps"][1]["result"],
        json!({"task": "task-3", "state": "completed"})
    );
    let grace = task(&r, "task-1");
    assert_eq!(grace["agent"], "desk");
    assert_eq!(grace["state"], "completed");
    // The agent-role message of its history is a `working` update, then its status.
    let history: Vec<_> = grace["history"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| (h["state"].as_str().unwrap(), h["message"].as_str().unwrap()))
        .collect();
    assert_eq!(
        history,
        [
            ("submitted", "Application: Grace"),
            ("working", "Asking kyc about Grace"),
            ("completed", "Done: Grace")
        ]
    );
    // Its artifact's data as the stub wrote it (`{"zeta": 1.0, "kyc_state": …, "kyc": …,
    // "amount": 20000.0}`), made canonical: keys in order, whole numbers as integers.
    let artifact = &grace["artifacts"][0];
    assert_eq!(artifact["name"], "decision");
    assert_eq!(artifact["text"], "Grace: kyc TASK_STATE_COMPLETED");
    assert_eq!(
        keys(&artifact["data"]),
        ["amount", "kyc", "kyc_state", "zeta"]
    );
    assert_eq!(
        artifact["data"],
        json!({"amount": 20000, "kyc": {"verified": true}, "kyc_state": "TASK_STATE_COMPLETED", "zeta": 1})
    );
    // Its call to kyc: a child of its task, the chain the caller's plus the agent.
    let children = tasks_on(&r, "kyc");
    assert_eq!(children.len(), 2);
    let child = children[0];
    assert_eq!(child["parent"], "task-1");
    assert_eq!(child["caller"], "desk");
    assert_eq!(child["delegation_chain"], json!(["branch", "desk"]));
    assert_eq!(child["state"], "completed");
    let sent = &child["messages"][0];
    assert_eq!(sent["text"], "KYC check: Grace");
    assert_eq!(keys(&sent["data"]), ["amount", "applicant"]);
    assert_eq!(sent["data"], json!({"amount": 20000, "applicant": "Grace"}));
    assert_eq!(children[1]["parent"], "task-3");
    // The ids are a2a-sim's: none of the stub's own shows.
    let text = r.to_string();
    assert!(
        !text.contains("stub-task") && !text.contains("stub-ctx") && !text.contains("stub-msg")
    );
}

#[test]
fn a_run_with_a_real_agent_gives_the_same_report_every_time() {
    let dir = Desk::mode("ok").at("same-twice");
    let args = ["run", "./desk.yaml", "--format", "json"];
    let first = a2a_sim_logged(&dir, &args);
    let second = a2a_sim_logged(&dir, &args);
    assert_eq!(first.status, 0, "{}", first.stderr);
    assert!(first.stdout.contains("task-4"), "{}", first.stdout);
    assert_eq!(first.stdout, second.stdout);
}

#[test]
fn a_call_is_attributed_to_the_task_of_the_traceparent_it_forwards() {
    // `late`: the second application's request makes a call for the first one (forwarding the
    // first request's traceparent) while the second one's request is in flight.
    let r = report(&Desk::mode("late").at("by-trace"), &[]);
    assert_eq!(r["errors"], json!([]), "{r:#}");
    let children = tasks_on(&r, "kyc");
    assert_eq!(children.len(), 1, "{r:#}");
    assert_eq!(children[0]["parent"], "task-1");
    assert_eq!(children[0]["delegation_chain"], json!(["branch", "desk"]));
    assert_eq!(children[0]["messages"][0]["text"], "KYC check: Ned");
}

#[test]
fn without_a_traceparent_a_call_goes_to_the_task_in_flight() {
    let dir = Desk::mode("no-trace").at("in-flight");
    let r = report(&dir, &[]);
    assert_eq!(r["errors"], json!([]), "{r:#}");
    let parents: Vec<_> = tasks_on(&r, "kyc")
        .iter()
        .map(|t| t["parent"].clone())
        .collect();
    assert_eq!(parents, [json!("task-1"), json!("task-3")]);
    // The same report as when the traceparent is forwarded.
    assert_eq!(r, report(&Desk::mode("ok").at("in-flight-traced"), &[]));
}

#[test]
fn a_call_admission_denies_is_a_denial_and_the_agent_is_answered_an_error() {
    let cases = [
        ("scope", "", "[credit:score]", KYC.to_string()),
        (
            "tenant",
            "",
            "[kyc:check]",
            KYC.replace("tenant: acme", "tenant: other"),
        ),
        (
            "depth",
            "policy: {max_depth: 2}\n",
            "[kyc:check]",
            KYC.to_string(),
        ),
    ];
    for (code, head, scopes, kyc) in cases {
        let desk = Desk {
            head,
            scopes,
            scripted: kyc,
            ..Desk::mode("ok")
        };
        let r = report(&desk.at(&format!("denied-{code}")), &[]);
        let denials = r["denials"].as_array().unwrap();
        assert_eq!(denials.len(), 2, "{code}: {r:#}");
        assert_eq!(denials[0]["step"], 1);
        assert_eq!(denials[0]["caller"], "desk");
        assert_eq!(denials[0]["callee"], "kyc");
        assert_eq!(denials[0]["codes"], json!([code]));
        // No task for a denied call; the stub got a JSON-RPC error and failed its task with it.
        assert!(tasks_on(&r, "kyc").is_empty(), "{code}: {r:#}");
        let grace = task(&r, "task-1");
        assert_eq!(grace["state"], "failed");
        let said = grace["history"].as_array().unwrap().last().unwrap()["message"]
            .as_str()
            .unwrap();
        assert!(said.starts_with("kyc refused: -"), "{code}: {said}");
        assert!(
            said.ends_with(&format!("admission denied: {code}")),
            "{code}: {said}"
        );
        assert_eq!(r["errors"], json!([]), "{code}: a denial is no error");
    }
}

#[test]
fn a_scripted_handler_delegating_to_the_real_agent_is_a_located_load_error() {
    // Only the driver's steps reach a real agent: a handler's delegation to it is refused when
    // the file loads, at the `to` that names it (not left waiting at run time).
    let kyc = KYC.replace(
        "      - completed: Identity verified\n",
        "      - delegate: {to: desk, text: back to you}\n      - completed: Identity verified\n",
    );
    let desk = Desk {
        scripted: kyc,
        ..Desk::mode("ok")
    };
    let yaml = desk.yaml();
    let run = a2a_sim_in(&desk.at("cycle"), &["check", "./desk.yaml"], None);
    assert_eq!(run.status, 2, "{}", run.stderr);
    let at = at("./desk.yaml", &yaml, "to: desk", "desk");
    assert!(run.stderr.contains(&at), "no {at} in {}", run.stderr);
    assert!(
        run.stderr.contains("`desk` is a real agent"),
        "{}",
        run.stderr
    );
}

#[test]
fn a_reply_goes_to_the_real_agent_with_its_own_task_and_context_ids() {
    let desk = Desk {
        steps: "  - send: {caller: branch, to: desk, text: \"Application: Grace\", as: grace}\n  \
                - reply: {caller: branch, task: grace, text: \"20000 please\"}\n",
        ..Desk::mode("ask")
    };
    let r = report(&desk.at("reply"), &[]);
    assert_eq!(r["errors"], json!([]), "{r:#}");
    assert_eq!(
        r["steps"][0]["result"],
        json!({"task": "task-1", "state": "input-required"})
    );
    assert_eq!(r["steps"][1]["op"], "reply");
    assert_eq!(
        r["steps"][1]["result"],
        json!({"task": "task-1", "state": "completed"})
    );
    let grace = task(&r, "task-1");
    assert_eq!(grace["context_id"], "ctx-1");
    let last = grace["messages"].as_array().unwrap().last().unwrap();
    assert_eq!(last["text"], "Got it: 20000 please");
    // What the stub was sent with the reply: the ids it gave the task.
    assert_eq!(
        last["data"],
        json!({"contextId": "stub-ctx-1", "taskId": "stub-task-1"})
    );
}

#[test]
fn a_reply_does_not_record_the_agents_question_twice() {
    let desk = Desk {
        steps: "  - send: {caller: branch, to: desk, text: \"Application: Grace\", as: grace}\n  \
                - reply: {caller: branch, task: grace, text: \"20000 please\"}\n",
        ..Desk::mode("ask")
    };
    let r = report(&desk.at("reply-twice"), &[]);
    let asked = task(&r, "task-1")["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["text"] == "Which amount?")
        .count();
    assert_eq!(asked, 1, "{:#}", task(&r, "task-1"));
}

#[test]
fn an_a2a_0_3_agent_is_driven_with_message_send_to_the_same_report() {
    let dir = Desk::new("--mode, ok, --protocol, \"0.3\"").at("protocol-0-3");
    let r = report(&dir, &[]);
    assert!(
        log(&dir, "desk").contains("message/send 1"),
        "{}",
        log(&dir, "desk")
    );
    assert_eq!(r, report(&Desk::mode("ok").at("protocol-1-0"), &[]));
}

#[test]
fn an_agent_already_running_at_a_url_is_driven_and_left_running() {
    let listen = free_port();
    let agent = free_port();
    let desk = Desk {
        external: format!("      url: http://127.0.0.1:{agent}/\n"),
        ..Desk::mode("ok")
    };
    let dir = desk.at("at-url");
    let kyc_url = format!("http://127.0.0.1:{listen}/as/desk/agents/kyc/");
    let mut started = Started::on(&dir, agent, &kyc_url);
    let r = report(&dir, &["--listen", &format!("127.0.0.1:{listen}")]);
    assert_eq!(r["errors"], json!([]), "{r:#}");
    assert_eq!(task(&r, "task-2")["parent"], "task-1");
    assert_eq!(task(&r, "task-1")["state"], "completed");
    assert!(
        started.0.try_wait().unwrap().is_none(),
        "a2a-sim stopped an agent it did not start"
    );
}
