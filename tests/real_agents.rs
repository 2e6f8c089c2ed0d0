//! Real agents in the loop (`external:`): a2a-sim starts a real A2A agent, serves it the
//! scripted agents, drives it over JSON-RPC and records what it answered and every call it made.
//! The real agent here is tests/real-agents/stub_agent.py (Python's standard library only; its
//! `--mode` picks how it behaves), copied beside each test's scenario and run with the `python3`
//! on PATH.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::common::binary::{Run, a2a_sim_in, scratch, write};

mod calls;
mod discovery;
mod logs;
mod pushes;
mod tokens;

const STUB: &str = include_str!("real-agents/stub_agent.py");

/// The scripted agent the stub calls: it needs `kyc:check`, says it is checking the applicant
/// and completes with an artifact `{verified: true}`.
const KYC: &str = r#"  - name: kyc
    tenant: acme
    clearance: confidential
    required_scopes: [kyc:check]
    skills: [{id: kyc-check, tags: [kyc]}]
    handler:
      - working: "Checking {{input.data.applicant}}"
      - artifact: {name: kyc-result, text: "{{input.data.applicant}}: verified", data: {verified: true}}
      - completed: Identity verified
"#;

/// Two loan applications, Grace's (20000) and Ned's (150), each a task on the real `desk`.
const TWO_APPLICATIONS: &str = r#"  - send: {caller: branch, to: desk, text: "Application: Grace", data: {applicant: Grace, amount: 20000}, as: grace}
  - send: {caller: branch, to: desk, text: "Application: Ned", data: {applicant: Ned, amount: 150}, as: ned}
"#;

/// A scenario with the real agent `desk` (stub_agent.py) in front of the scripted `kyc`, and
/// the caller `branch`. Each field is YAML text put in its place as is.
struct Desk {
    /// Top-level keys before `agents:` (`policy`, `golden`).
    head: &'static str,
    /// The scripted agents, `kyc` by default.
    scripted: String,
    /// The real agent's `scopes`.
    scopes: &'static str,
    /// The lines of its `external` mapping, indented six spaces; by default the stub started in
    /// the mode of [`Desk::mode`] with `KYC_URL` and `STUB_PID_FILE` (stub.pid) in its env.
    external: String,
    /// The entries of `callers:`.
    callers: &'static str,
    steps: &'static str,
    /// `expect:` and its entries, or nothing.
    expect: &'static str,
}

impl Desk {
    /// `desk` started as `stub_agent.py --port {port} ARGS`, ARGS a YAML flow list's items
    /// (`--mode, ok`); `kyc:check` its only scope; two applications sent to it.
    fn new(args: &str) -> Desk {
        Desk {
            head: "",
            scripted: KYC.to_string(),
            scopes: "[kyc:check]",
            external: format!(
                "      command: [python3, stub_agent.py, --port, \"{{port}}\", {args}]\n      \
                 env: {{KYC_URL: \"{{agents.kyc.url}}\", STUB_PID_FILE: stub.pid}}\n"
            ),
            callers: "  - {id: branch, tenant: acme, classification: confidential}\n",
            steps: TWO_APPLICATIONS,
            expect: "",
        }
    }

    fn mode(mode: &str) -> Desk {
        Desk::new(&format!("--mode, {mode}"))
    }

    fn yaml(&self) -> String {
        [
            "name: stub desk\ntemplates: true\n",
            self.head,
            "agents:\n",
            &self.scripted,
            "  - name: desk\n    tenant: acme\n    clearance: confidential\n    scopes: ",
            self.scopes,
            "\n    external:\n",
            &self.external,
            "callers:\n",
            self.callers,
            "steps:\n",
            self.steps,
            self.expect,
        ]
        .concat()
    }

    /// A scratch folder `real-agents-NAME` with the stub and this scenario as desk.yaml.
    fn at(&self, name: &str) -> PathBuf {
        in_scratch(name, &self.yaml())
    }
}

/// A scratch folder `real-agents-NAME` with the stub and `yaml` as desk.yaml.
fn in_scratch(name: &str, yaml: &str) -> PathBuf {
    let dir = scratch(&format!("real-agents-{name}"));
    write(&dir, "stub_agent.py", STUB);
    write(&dir, "desk.yaml", yaml);
    dir
}

/// `a2a-sim ARGS --agent-logs logs` in `dir`.
fn a2a_sim_logged(dir: &Path, args: &[&str]) -> Run {
    let args = [args, &["--agent-logs", "logs"][..]].concat();
    a2a_sim_in(dir, &args, None)
}

/// `a2a-sim run ./desk.yaml --format json` (plus `extra`) in `dir`: the report, the run having
/// exited 0. (`./desk.yaml`, not `desk.yaml`: see
/// [`a_scenario_named_without_a_folder_starts_its_agent_in_the_current_folder`].)
fn report(dir: &Path, extra: &[&str]) -> Value {
    let args = [&["run", "./desk.yaml", "--format", "json"][..], extra].concat();
    let run = a2a_sim_logged(dir, &args);
    assert_eq!(run.status, 0, "run failed:\n{}", run.stderr);
    serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}:\n{}", run.stdout))
}

fn task<'a>(report: &'a Value, id: &str) -> &'a Value {
    report["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["id"] == id)
        .unwrap_or_else(|| panic!("no task {id} in {report:#}"))
}

fn tasks_on<'a>(report: &'a Value, agent: &str) -> Vec<&'a Value> {
    report["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["agent"] == agent)
        .collect()
}

/// The `errors` codes of a report, in order.
fn error_codes(report: &Value) -> Vec<&str> {
    report["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["code"].as_str().unwrap())
        .collect()
}

/// The keys of a JSON object, in the order the report wrote them (serde_json keeps it: the
/// workspace enables `preserve_order`).
fn keys(v: &Value) -> Vec<&str> {
    v.as_object().unwrap().keys().map(String::as_str).collect()
}

fn log(dir: &Path, agent: &str) -> String {
    std::fs::read_to_string(dir.join("logs").join(format!("{agent}.log"))).unwrap_or_default()
}

/// `FILE:LINE:COL` of `located` in the first line of `yaml` that contains `line_has`.
fn at(file: &str, yaml: &str, line_has: &str, located: &str) -> String {
    let (n, line) = yaml
        .lines()
        .enumerate()
        .find(|(_, l)| l.contains(line_has))
        .unwrap_or_else(|| panic!("no line has {line_has:?}"));
    let col = line.find(located).expect("located in the line") + 1;
    format!("{file}:{}:{col}", n + 1)
}

/// The pid the stub wrote to `dir/NAME`.
fn pid_in(dir: &Path, name: &str) -> u32 {
    let text = std::fs::read_to_string(dir.join(name)).expect("the stub wrote its pid");
    text.trim().parse().unwrap()
}

/// Whether process `pid` is running (a zombie is not).
fn running(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => {
            let state = stat.rsplit(')').next().unwrap_or("").trim_start();
            !state.starts_with(['Z', 'X'])
        }
        Err(_) if Path::new("/proc/self").exists() => false,
        Err(_) => Command::new("kill")
            .args(["-0", &pid.to_string()])
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success()),
    }
}

/// Whether process `pid` is gone by `within` from now.
fn gone_within(pid: u32, within: Duration) -> bool {
    let deadline = Instant::now() + within;
    while running(pid) {
        if Instant::now() > deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    true
}

/// Kills `pid` (a process a test started, left behind by a bug) so it does not outlive the test.
fn kill(pid: u32) {
    let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
}

fn free_port() -> u16 {
    let listener = TcpListener::bind(("127.0.0.1", 0)).unwrap();
    listener.local_addr().unwrap().port()
}

/// A stub started by the test itself (for `external: {url}`), killed when dropped.
struct Started(Child);

impl Started {
    fn on(dir: &Path, port: u16, kyc_url: &str) -> Started {
        let child = Command::new("python3")
            .args(["stub_agent.py", "--port", &port.to_string(), "--mode", "ok"])
            .current_dir(dir)
            .env("KYC_URL", kyc_url)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("python3 runs");
        let started = Started(child);
        let deadline = Instant::now() + Duration::from_secs(20);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(Instant::now() < deadline, "the stub did not listen");
            std::thread::sleep(Duration::from_millis(20));
        }
        started
    }
}

impl Drop for Started {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

// ---- driving a real agent ----------------------------------------------------------------------

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

// ---- `received` expectations -------------------------------------------------------------------

#[test]
fn received_expectations_hold_on_what_the_real_agent_sent() {
    let desk = Desk {
        head: "golden: false\n",
        expect: r#"expect:
  - {errors: 0}
  - {received: kyc, from: desk, count: 2, data: {applicant: {exists: true}}}
  - {received: kyc, count: {gte: 2}, text: {contains: "KYC check"}}
  - {received: kyc, from: desk, nth: 1, data: {amount: 20000}}
  - {received: kyc, from: desk, nth: 2, text: "KYC check: Ned", data: {applicant: Ned, amount: 150}}
  - {received: desk, from: branch, count: 2, text: {contains: Application}}
  - {received: kyc, from: branch, count: 0}
"#,
        ..Desk::mode("ok")
    };
    let run = a2a_sim_logged(&desk.at("received-hold"), &["test", "./desk.yaml"]);
    assert_eq!(run.status, 0, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stdout.starts_with("ok     ./desk.yaml"),
        "{}",
        run.stdout
    );
}

#[test]
fn received_expectations_that_fail_say_where_and_why() {
    let desk = Desk {
        head: "golden: false\n",
        expect: r#"expect:
  - {received: kyc, from: desk, count: 3}
  - {received: kyc, nth: 2, text: {contains: Grace}, data: {amount: 20000}}
  - {received: kyc, nth: 5, text: x}
"#,
        ..Desk::mode("ok")
    };
    let yaml = desk.yaml();
    let run = a2a_sim_logged(&desk.at("received-fail"), &["test", "./desk.yaml"]);
    assert_eq!(run.status, 1, "{}{}", run.stdout, run.stderr);
    let file = "./desk.yaml";
    let count = at(file, &yaml, "count: 3", "{");
    let nth2 = at(file, &yaml, "nth: 2", "{");
    let nth5 = at(file, &yaml, "nth: 5", "{");
    for line in [
        format!("{count}: expectation failed: `kyc` received from `desk`: expected 3 tasks, got 2"),
        format!(
            "{nth2}: expectation failed: `kyc` received, task 2 (task-4): expected text {{contains: \"Grace\"}}, got \"KYC check: Ned\""
        ),
        format!(
            "{nth2}: expectation failed: `kyc` received, task 2 (task-4): data `amount` expected 20000, got 150"
        ),
        format!("{nth5}: expectation failed: `kyc` received: no task number 5 (it received 2)"),
    ] {
        assert!(run.stdout.contains(&line), "no {line:?} in\n{}", run.stdout);
    }
}

/// A scripted-only scenario: `front` delegates Ada's check to `kyc`, `branch` sends Bob's.
const SCRIPTED: &str = r#"name: scripted received
golden: false
agents:
  - name: front
    tenant: acme
    clearance: confidential
    scopes: [kyc:check]
    skills: [{id: f, tags: [front]}]
    handler:
      - working: Onboarding
      - delegate: {to: kyc, text: "KYC check: Ada", data: {applicant: Ada}}
      - completed: done
  - name: kyc
    tenant: acme
    clearance: confidential
    required_scopes: [kyc:check]
    skills: [{id: k, tags: [kyc]}]
    handler: [working, {completed: verified}]
callers:
  - {id: branch, tenant: acme, classification: confidential, scopes: [kyc:check]}
steps:
  - send: {caller: branch, to: front, text: "Onboard Ada"}
  - send: {caller: branch, to: kyc, text: "KYC check: Bob", data: {applicant: Bob}}
expect:
"#;

#[test]
fn received_expectations_hold_on_a_scripted_scenario() {
    let holds = [
        "{received: kyc, count: 2}",
        "{received: kyc, from: front, count: 1, text: {contains: Ada}, data: {applicant: Ada}}",
        "{received: kyc, from: branch, count: 1, text: \"KYC check: Bob\"}",
        "{received: front, from: branch, count: {gte: 1}}",
        "{received: kyc, nth: 2, data: {applicant: Bob}}",
    ];
    let yaml = format!("{SCRIPTED}  - {}\n", holds.join("\n  - "));
    let run = a2a_sim_in(
        &in_scratch("received-scripted", &yaml),
        &["test", "./desk.yaml"],
        None,
    );
    assert_eq!(run.status, 0, "{}{}", run.stdout, run.stderr);
    let yaml = format!("{SCRIPTED}  - {{received: kyc, from: front, count: 2}}\n");
    let run = a2a_sim_in(
        &in_scratch("received-scripted-fail", &yaml),
        &["test", "./desk.yaml"],
        None,
    );
    assert_eq!(run.status, 1, "{}{}", run.stdout, run.stderr);
    let where_ = at("./desk.yaml", &yaml, "count: 2}", "{");
    let said = format!(
        "{where_}: expectation failed: `kyc` received from `front`: expected 2 tasks, got 1"
    );
    assert!(run.stdout.contains(&said), "no {said:?} in\n{}", run.stdout);
}

#[test]
fn received_entries_that_make_no_sense_are_located_load_errors() {
    let cases = [
        (
            "{received: nope, count: 1}",
            "nope",
            "`received` names no agent `nope` of the scenario",
        ),
        (
            "{received: kyc, from: nobody, count: 1}",
            "nobody",
            "`from` names no caller or agent `nobody` of the scenario",
        ),
        (
            "{received: kyc, nth: 0, text: x}",
            "0",
            "`nth` must be at least 1, not 0",
        ),
        (
            "{received: kyc, state: completed}",
            "completed}",
            "`state` does not go with `received`",
        ),
    ];
    for (entry, located, message) in cases {
        let yaml = format!("{SCRIPTED}  - {{errors: 0}}\n  - {entry}\n");
        let run = a2a_sim_in(
            &in_scratch("received-load", &yaml),
            &["test", "./desk.yaml"],
            None,
        );
        assert_eq!(run.status, 2, "{entry}: {}{}", run.stdout, run.stderr);
        let want = format!("{}: {message}", at("./desk.yaml", &yaml, entry, located));
        let all = format!("{}{}", run.stdout, run.stderr);
        assert!(all.contains(&want), "{entry}: no {want:?} in\n{all}");
    }
}

// ---- agents that fail --------------------------------------------------------------------------

#[test]
fn an_agent_that_exits_before_its_card_answers_fails_the_run_naming_it() {
    let dir = Desk::mode("exit").at("exits");
    let run = a2a_sim_logged(&dir, &["run", "./desk.yaml", "--format", "json"]);
    assert_eq!(run.status, 2, "{}", run.stderr);
    assert_eq!(run.stdout, "");
    for said in [
        "agent `desk`",
        "`python3 stub_agent.py --port ",
        "--mode exit`",
        "exit status: 3",
        "stub-agent: refusing to start (mode exit)",
    ] {
        assert!(run.stderr.contains(said), "no {said:?} in\n{}", run.stderr);
    }
    // `test` says the same and counts it an error.
    let test = a2a_sim_logged(&dir, &["test", "./desk.yaml"]);
    assert_eq!(test.status, 2, "{}", test.stdout);
    assert!(test.stdout.contains("exit status: 3"), "{}", test.stdout);
    assert!(test.stdout.contains("1 error"), "{}", test.stdout);
}

#[test]
fn the_log_lines_of_an_agent_that_exits_are_shown_on_lines_of_their_own() {
    let run = a2a_sim_logged(
        &Desk::mode("exit").at("exits-lines"),
        &["run", "./desk.yaml"],
    );
    assert_eq!(run.status, 2);
    assert!(
        run.stderr
            .contains("\n    stub-agent: refusing to start (mode exit)"),
        "{}",
        run.stderr
    );
}

#[test]
fn an_agent_whose_card_never_answers_fails_the_run_after_ready_timeout_s() {
    let mut desk = Desk::mode("hang");
    desk.external.push_str("      ready_timeout_s: 1\n");
    let dir = desk.at("hangs");
    let start = Instant::now();
    let run = a2a_sim_logged(&dir, &["run", "./desk.yaml"]);
    let took = start.elapsed();
    assert_eq!(run.status, 2, "{}", run.stderr);
    assert!(
        took >= Duration::from_millis(900) && took < Duration::from_secs(15),
        "{took:?}"
    );
    assert!(
        run.stderr
            .contains("agent `desk`: its card did not answer within 1 s"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("--mode hang`"), "{}", run.stderr);
    assert!(gone_within(
        pid_in(&dir, "stub.pid"),
        Duration::from_secs(2)
    ));
}

#[test]
fn a_card_without_a_jsonrpc_interface_fails_the_run() {
    let dir = Desk::mode("bad-card").at("bad-card");
    let run = a2a_sim_logged(&dir, &["run", "./desk.yaml"]);
    assert_eq!(run.status, 2, "{}", run.stderr);
    assert!(run.stderr.contains("agent `desk`"), "{}", run.stderr);
    assert!(run.stderr.contains("JSONRPC"), "{}", run.stderr);
    assert!(gone_within(
        pid_in(&dir, "stub.pid"),
        Duration::from_secs(2)
    ));
}

#[test]
fn an_answer_that_is_not_json_is_a_protocol_error_and_the_run_goes_on() {
    let r = report(&Desk::mode("garbage").at("garbage"), &[]);
    assert_eq!(error_codes(&r), ["protocol_error", "protocol_error"]);
    let first = &r["errors"][0];
    assert_eq!(
        (&first["step"], &first["task"]),
        (&json!(1), &json!("task-1"))
    );
    assert!(
        first["detail"].as_str().unwrap().contains("not JSON"),
        "{first}"
    );
    assert!(
        first["detail"].as_str().unwrap().contains("<html>"),
        "{first}"
    );
    assert_eq!(task(&r, "task-1")["state"], "failed");
    assert_eq!(r["steps"][1]["result"]["state"], "failed");
}

#[test]
fn an_agent_that_does_not_answer_in_time_is_an_agent_timeout() {
    let desk = Desk {
        steps: "  - send: {caller: branch, to: desk, text: \"Application: Grace\"}\n",
        ..Desk::mode("slow")
    };
    let dir = desk.at("slow");
    let start = Instant::now();
    let r = report(&dir, &["--agent-timeout", "1"]);
    assert!(
        start.elapsed() < Duration::from_secs(20),
        "{:?}",
        start.elapsed()
    );
    assert_eq!(error_codes(&r), ["agent_timeout"]);
    assert_eq!(r["errors"][0]["task"], "task-1");
    assert!(
        r["errors"][0]["detail"]
            .as_str()
            .unwrap()
            .contains("--agent-timeout")
    );
    assert_eq!(task(&r, "task-1")["state"], "failed");
    assert!(gone_within(
        pid_in(&dir, "stub.pid"),
        Duration::from_secs(2)
    ));
}

#[test]
fn an_agent_that_dies_mid_answer_is_recorded_and_the_run_finishes() {
    let r = report(&Desk::mode("die").at("dies"), &[]);
    let codes = error_codes(&r);
    assert_eq!(codes.len(), 2, "{r:#}");
    // Which one is a race between the connection closing and the exit being seen (see the
    // ignored test below); either way it is recorded on the task, and the task fails.
    for (code, id) in codes.iter().zip(["task-1", "task-2"]) {
        assert!(matches!(*code, "agent_exited" | "protocol_error"), "{r:#}");
        assert_eq!(task(&r, id)["state"], "failed");
    }
}

#[test]
fn the_report_of_an_agent_that_dies_is_the_same_every_run() {
    let dir = Desk::mode("die").at("dies-twice");
    let args = ["run", "./desk.yaml", "--format", "json"];
    let first = a2a_sim_logged(&dir, &args).stdout;
    for _ in 0..4 {
        assert_eq!(first, a2a_sim_logged(&dir, &args).stdout);
    }
}

// ---- logs, flags and processes -----------------------------------------------------------------

#[test]
fn agent_logs_gets_the_output_of_each_agent_as_name_log() {
    let dir = Desk::mode("ok").at("logs");
    report(&dir, &[]);
    let log = log(&dir, "desk");
    assert!(log.contains("stub-agent: serving on port"), "{log}");
    // Its scripted agents under its own prefix, and a traceparent on each request.
    assert!(log.contains("KYC_URL=http://127.0.0.1:"), "{log}");
    assert!(log.contains("/as/desk/agents/kyc/\n"), "{log}");
    for line in log.lines().filter(|l| l.contains("SendMessage")) {
        let trace = line.rsplit(' ').next().unwrap();
        let fields: Vec<&str> = trace.split('-').collect();
        let hex = |s: &str, n| s.len() == n && s.bytes().all(|b| b.is_ascii_hexdigit());
        assert!(
            fields.len() == 4
                && fields[0] == "00"
                && hex(fields[1], 32)
                && hex(fields[2], 16)
                && fields[3] == "01",
            "{line}"
        );
    }
    assert_eq!(log.matches("SendMessage").count(), 2, "{log}");
}

#[test]
fn listen_sets_where_the_scripted_agents_are_served() {
    let port = free_port();
    let dir = Desk::mode("ok").at("listen");
    let r = report(&dir, &["--listen", &format!("127.0.0.1:{port}")]);
    assert_eq!(r["errors"], json!([]), "{r:#}");
    let want = format!("KYC_URL=http://127.0.0.1:{port}/as/desk/agents/kyc/");
    assert!(log(&dir, "desk").contains(&want), "{}", log(&dir, "desk"));
}

#[test]
fn no_agent_process_outlives_the_run() {
    let dir = Desk::mode("ok").at("stopped");
    report(&dir, &[]);
    // a2a-sim reaped it before it exited.
    assert!(!running(pid_in(&dir, "stub.pid")));
}

#[test]
fn an_agent_that_ignores_sigterm_is_killed() {
    let dir = Desk::new("--mode, ok, --ignore-sigterm").at("stubborn");
    let start = Instant::now();
    report(&dir, &[]);
    let took = start.elapsed();
    assert!(!running(pid_in(&dir, "stub.pid")));
    assert!(log(&dir, "desk").contains("ignoring SIGTERM"));
    // SIGKILL comes 5 s after SIGTERM.
    assert!(
        took >= Duration::from_secs(4) && took < Duration::from_secs(30),
        "{took:?}"
    );
}

/// `desk` started through `sh -c`, the stub a child of the shell.
fn through_a_shell(stub_args: &str) -> Desk {
    Desk {
        external: format!(
            "      command: [sh, -c, \"python3 stub_agent.py --port $0 {stub_args} & wait\", \"{{port}}\"]\n      \
             env: {{STUB_PID_FILE: stub.pid}}\n"
        ),
        steps: "  - send: {caller: branch, to: desk, text: hi}\n",
        ..Desk::mode("ask")
    }
}

#[test]
fn an_agent_started_through_a_shell_is_stopped_with_it() {
    let dir = through_a_shell("--mode ask").at("shell");
    let r = report(&dir, &[]);
    assert_eq!(task(&r, "task-1")["state"], "input-required", "{r:#}");
    assert!(gone_within(
        pid_in(&dir, "stub.pid"),
        Duration::from_secs(3)
    ));
}

#[test]
fn an_agent_under_a_launcher_that_ignores_sigterm_is_killed_with_its_group() {
    let dir = through_a_shell("--mode ask --ignore-sigterm").at("shell-stubborn");
    report(&dir, &[]);
    let pid = pid_in(&dir, "stub.pid");
    let gone = gone_within(pid, Duration::from_secs(7));
    if !gone {
        kill(pid);
    }
    assert!(gone, "the agent outlived the run");
}

// ---- `test`: goldens -----------------------------------------------------------------------------

#[test]
fn test_blesses_a_real_agents_golden_and_then_passes_it() {
    let dir = Desk::mode("ok").at("golden");
    let missing = a2a_sim_logged(&dir, &["test", "./desk.yaml"]);
    assert_eq!(missing.status, 1, "{}", missing.stdout);
    assert!(
        missing.stdout.contains("no golden file ./desk.golden.json"),
        "{}",
        missing.stdout
    );
    let blessed = a2a_sim_logged(&dir, &["test", "--bless", "./desk.yaml"]);
    assert_eq!(blessed.status, 0, "{}", blessed.stdout);
    let again = a2a_sim_logged(&dir, &["test", "./desk.yaml"]);
    assert_eq!(again.status, 0, "{}", again.stdout);
    let golden = std::fs::read_to_string(dir.join("desk.golden.json")).unwrap();
    let run = a2a_sim_logged(&dir, &["run", "./desk.yaml", "--format", "json"]);
    assert_eq!(golden, run.stdout);
}

// ---- located load errors -----------------------------------------------------------------------

#[test]
fn a_wrong_external_agent_is_a_located_load_error() {
    let command = "      command: [python3, stub_agent.py, --port, \"{port}\", --mode, ok]\n";
    let with = |external: &str| Desk {
        external: external.to_string(),
        ..Desk::mode("ok")
    };
    let cases: Vec<(Desk, &str, &str, &str)> = vec![
        (
            with(&format!("{command}      url: http://127.0.0.1:9/\n")),
            "command: [python3",
            "command",
            "`external` takes `command` (a2a-sim starts the agent) or `url` (it is already running), not both",
        ),
        (
            with("      ready_timeout_s: 5\n"),
            "ready_timeout_s: 5",
            "ready",
            "`external` needs `command`",
        ),
        (
            with("      command: []\n"),
            "command: []",
            "[]",
            "`command` needs the program to run first",
        ),
        (
            with("      url: ftp://127.0.0.1/\n"),
            "url: ftp",
            "ftp",
            "`ftp://127.0.0.1/` is not an absolute http(s) URL",
        ),
        (
            with("      url: http://127.0.0.1:9/\n      env: {KYC_URL: x}\n"),
            "env: {KYC_URL: x}",
            "{KYC_URL",
            "`env` is for a started agent (`command`)",
        ),
        (
            with(&format!("{command}      ready_timeout_s: 0\n")),
            "ready_timeout_s: 0",
            "0",
            "`ready_timeout_s` must be at least 1",
        ),
        (
            with("      command: [python3, stub_agent.py, --port, \"{nope}\"]\n"),
            "{nope}",
            "[",
            "unknown placeholder `{nope}`",
        ),
        (
            with(&format!(
                "{command}      env: {{KYC_URL: \"{{agents.credit.url}}\"}}\n"
            )),
            "agents.credit.url",
            "\"{agents",
            "`{agents.credit.url}` names no agent `credit` of the scenario",
        ),
        (
            Desk {
                callers: "  - {id: desk, tenant: acme, classification: confidential}\n",
                ..Desk::mode("ok")
            },
            "{id: desk",
            "{",
            "caller `desk` has the name of an external agent",
        ),
    ];
    for (desk, line_has, located, message) in cases {
        let yaml = desk.yaml();
        let run = a2a_sim_in(
            &in_scratch("load-errors", &yaml),
            &["run", "./desk.yaml"],
            None,
        );
        assert_eq!(run.status, 2, "{message}: {}", run.stderr);
        assert_eq!(run.stdout, "");
        let want = format!("{}: {message}", at("./desk.yaml", &yaml, line_has, located));
        assert!(run.stderr.contains(&want), "no {want:?} in\n{}", run.stderr);
    }
    // `handler` beside `external`, located at the handler.
    let yaml = Desk::mode("ok").yaml().replace(
        "    external:\n",
        "    handler: [{completed: done}]\n    external:\n",
    );
    let run = a2a_sim_in(
        &in_scratch("load-errors", &yaml),
        &["run", "./desk.yaml"],
        None,
    );
    assert_eq!(run.status, 2);
    let want = format!(
        "{}: an agent with `external` is played by the real agent",
        at("./desk.yaml", &yaml, "handler: [{completed: done}]", "[")
    );
    assert!(run.stderr.contains(&want), "no {want:?} in\n{}", run.stderr);
}

#[test]
fn agents_url_of_an_external_agent_is_a_located_load_error() {
    let desk = Desk {
        external: "      command: [python3, stub_agent.py, --port, \"{port}\"]\n      \
                   env: {KYC_URL: \"{agents.desk.url}\"}\n"
            .to_string(),
        ..Desk::mode("ok")
    };
    let yaml = desk.yaml();
    let run = a2a_sim_in(
        &in_scratch("url-of-external", &yaml),
        &["check", "./desk.yaml"],
        None,
    );
    assert_eq!(run.status, 2, "{}", run.stderr);
    let at = at("./desk.yaml", &yaml, "agents.desk.url", "\"{agents");
    assert!(run.stderr.contains(&at), "no {at} in {}", run.stderr);
}

#[test]
fn a_placeholder_the_loader_accepts_is_filled_in() {
    let dir = Desk::new("--mode, ok, --token, \"{token}\"").at("token");
    let check = a2a_sim_in(&dir, &["check", "./desk.yaml"], None);
    let run = a2a_sim_logged(&dir, &["run", "./desk.yaml"]);
    assert!(
        check.status == 2 || run.status == 0,
        "check passed ({}) but run failed:\n{}",
        check.status,
        run.stderr
    );
}

#[test]
fn a_scenario_named_without_a_folder_starts_its_agent_in_the_current_folder() {
    let dir = Desk::mode("ok").at("bare-name");
    let run = a2a_sim_logged(&dir, &["run", "desk.yaml", "--format", "json"]);
    assert_eq!(run.status, 0, "{}", run.stderr);
}

#[test]
fn check_does_not_warn_about_the_handler_of_an_external_agent() {
    let run = a2a_sim_in(
        &Desk::mode("ok").at("check-warning"),
        &["check", "./desk.yaml"],
        None,
    );
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert!(!run.stderr.contains("warning"), "{}", run.stderr);
}

#[test]
fn a_scripted_delegation_to_a_real_agent_is_not_silently_left_submitted() {
    let front = format!(
        "{KYC}  - name: front\n    tenant: acme\n    clearance: confidential\n    \
         skills: [{{id: f, tags: [front]}}]\n    handler:\n      - working: Forwarding\n      \
         - delegate: {{to: desk, text: \"Application: Ada\", data: {{applicant: Ada, amount: 5}}}}\n      \
         - completed: done\n"
    );
    let desk = Desk {
        scripted: front,
        steps: "  - send: {caller: branch, to: front, text: go}\n",
        ..Desk::mode("ok")
    };
    let dir = desk.at("scripted-to-real");
    let run = a2a_sim_logged(&dir, &["run", "./desk.yaml", "--format", "json"]);
    if run.status == 2 {
        return; // refused when loading: fine, if located
    }
    let r: Value = serde_json::from_str(&run.stdout).unwrap();
    let reached = log(&dir, "desk").contains("SendMessage");
    let reported = !r["errors"].as_array().unwrap().is_empty();
    assert!(reached || reported, "{r:#}");
}

#[test]
fn a_crash_kills_the_real_agents_process_and_restart_starts_it_anew() {
    // Grace's application is done before tick 10; the wait takes the clock to 11, past the crash
    // at 10: before Ned's send the process is killed and started again (restart 11).
    let desk = Desk {
        head: "faults:\n  - {agent: desk, crash: {at: 10, restart: 11}}\n",
        steps: "  - send: {caller: branch, to: desk, text: \"Application: Grace\", data: {applicant: Grace, amount: 20000}, as: grace}\n  \
                - wait: 4\n  \
                - send: {caller: branch, to: desk, text: \"Application: Ned\", data: {applicant: Ned, amount: 150}, as: ned}\n",
        ..Desk::mode("ok")
    };
    let dir = desk.at("crash-restart");
    let first = desk_pids(&dir);
    let r = report(&dir, &[]);
    assert_eq!(r["errors"], json!([]), "{r:#}");
    for t in ["task-1", "task-3"] {
        assert_eq!(task(&r, t)["state"], "completed", "{r:#}");
    }
    // Two processes in turn: the log shows two starts, and the pid file the second one's.
    let log = log(&dir, "desk");
    assert_eq!(
        log.matches("stub-agent: serving on port").count(),
        2,
        "{log}"
    );
    assert_ne!(first, Some(pid_in(&dir, "stub.pid")));
    assert!(!running(pid_in(&dir, "stub.pid")));
}

/// The pid a stub left from an earlier run in `dir`, if any (none: a fresh folder).
fn desk_pids(dir: &Path) -> Option<u32> {
    std::fs::read_to_string(dir.join("stub.pid"))
        .ok()
        .and_then(|t| t.trim().parse().ok())
}

/// A claim the stub breaks when kyc refuses it: Grace's application always completes.
fn with_an_always_claim() -> Desk {
    Desk {
        steps: "  - send: {caller: branch, to: desk, text: \"Application: Grace\", data: {applicant: Grace, amount: 20000}, as: grace}\n",
        expect: "expect:\n  - {task: grace, state: completed, always: true}\n",
        ..Desk::mode("ok")
    }
}

#[test]
fn explore_finds_and_shrinks_what_breaks_a_real_agent_the_same_with_any_jobs() {
    let dir = with_an_always_claim().at("explore");
    let args = |jobs| {
        [
            "explore",
            "./desk.yaml",
            "--runs",
            "6",
            "--skip-agents",
            "desk",
            "--jobs",
            jobs,
        ]
    };
    let one = a2a_sim_in(&dir, &args("1"), None);
    assert_eq!(one.status, 1, "{}{}", one.stdout, one.stderr);
    assert!(one.stdout.contains("minimal schedule"), "{}", one.stdout);
    assert!(one.stdout.contains("{agent: kyc, "), "{}", one.stdout);
    let two = a2a_sim_in(&dir, &args("2"), None);
    assert_eq!(one.stdout, two.stdout);
}

#[test]
fn explore_refuses_an_agent_at_a_url() {
    let desk = Desk {
        external: "      url: http://127.0.0.1:9/\n".to_string(),
        ..with_an_always_claim()
    };
    let run = a2a_sim_in(&desk.at("explore-url"), &["explore", "./desk.yaml"], None);
    assert_eq!(run.status, 2, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("agent `desk` is reached at a `url`: explore starts a fresh agent"),
        "{}",
        run.stderr
    );
}

#[test]
fn a_get_and_a_cancel_of_the_real_agents_task_are_asked_of_it_by_its_own_id() {
    let desk = Desk {
        steps: "  - send: {caller: branch, to: desk, text: \"Application: Grace\", as: grace}\n  \
                - get: {caller: branch, task: grace}\n  \
                - cancel: {caller: branch, task: grace}\n",
        ..Desk::mode("ask")
    };
    let dir = desk.at("get-cancel");
    let r = report(&dir, &[]);
    assert_eq!(r["errors"], json!([]), "{r:#}");
    assert_eq!(task(&r, "task-1")["state"], "canceled");
    let log = log(&dir, "desk");
    assert!(log.contains("GetTask stub-task-1"), "{log}");
    assert!(log.contains("CancelTask stub-task-1"), "{log}");
}
