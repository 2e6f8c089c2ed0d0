//! How a real agent's calls to the scripted agents are recorded when the agent makes them in
//! parallel (in a canonical order, with `settle_ms`) or for none of its tasks (unattributed, a
//! warning in the report).

use serde_json::json;

use super::{Desk, Started, a2a_sim_logged, at, free_port, report, tasks_on};

const ONE_APPLICATION: &str = "  - send: {caller: branch, to: desk, text: \"Application: Grace\", data: {applicant: Grace, amount: 20000}}\n";

/// The texts of the kyc tasks, in task order.
fn kyc_texts(r: &serde_json::Value) -> Vec<String> {
    tasks_on(r, "kyc")
        .iter()
        .map(|t| {
            t["messages"][0]["text"]
                .as_str()
                .unwrap_or_default()
                .to_string()
        })
        .collect()
}

#[test]
fn parallel_calls_are_recorded_in_a_canonical_order_with_settle_ms() {
    // The stub calls kyc about "zed" first and about "amy" 30 ms later, both at once; within
    // the settle window they are answered by content: amy first.
    let mut desk = Desk::mode("parallel");
    desk.external.push_str("      settle_ms: 300\n");
    desk.steps = ONE_APPLICATION;
    let dir = desk.at("parallel-settled");
    let r = report(&dir, &[]);
    assert_eq!(r["errors"], json!([]), "{r:#}");
    assert_eq!(kyc_texts(&r), ["KYC check: amy", "KYC check: zed"], "{r:#}");
    let parents: Vec<_> = tasks_on(&r, "kyc")
        .iter()
        .map(|t| t["parent"].clone())
        .collect();
    assert_eq!(parents, [json!("task-1"), json!("task-1")]);
    let args = ["run", "./desk.yaml", "--format", "json"];
    assert_eq!(
        a2a_sim_logged(&dir, &args).stdout,
        a2a_sim_logged(&dir, &args).stdout
    );
}

#[test]
fn without_settle_ms_parallel_calls_are_recorded_as_they_come() {
    // The default waits for nothing: zed's call, 30 ms ahead, is answered before amy's comes.
    let mut desk = Desk::mode("parallel");
    desk.steps = ONE_APPLICATION;
    let r = report(&desk.at("parallel-unsettled"), &[]);
    assert_eq!(kyc_texts(&r), ["KYC check: zed", "KYC check: amy"], "{r:#}");
}

#[test]
fn settle_ms_past_its_bound_is_a_located_load_error() {
    let mut desk = Desk::mode("ok");
    desk.external.push_str("      settle_ms: 5000\n");
    let dir = desk.at("settle-bound");
    let run = a2a_sim_logged(&dir, &["run", "desk.yaml"]);
    assert_eq!(run.status, 2, "{}", run.stderr);
    let located = at("desk.yaml", &desk.yaml(), "settle_ms", "5000");
    assert!(run.stderr.contains(&located), "{located}:\n{}", run.stderr);
    assert!(
        run.stderr.contains("`settle_ms` is at most 1000"),
        "{}",
        run.stderr
    );
}

#[test]
fn a_call_tied_to_no_task_is_recorded_without_a_parent_and_warned_about() {
    // `desk` pokes `helper` before answering; `helper` then calls kyc with no traceparent while
    // the request in flight is desk's: the call belongs to none of helper's tasks.
    let (listen, port) = (free_port(), free_port());
    let mut desk = Desk::mode("poke");
    desk.external = format!(
        "      command: [python3, stub_agent.py, --port, \"{{port}}\", --mode, poke]\n      \
         env: {{KYC_URL: \"{{agents.kyc.url}}\", POKE_URL: \"http://127.0.0.1:{port}/poke\"}}\n"
    );
    desk.scripted.push_str(&format!(
        "  - name: helper\n    tenant: acme\n    clearance: confidential\n    scopes: [kyc:check]\n    \
         external: {{url: \"http://127.0.0.1:{port}/\"}}\n"
    ));
    desk.steps = ONE_APPLICATION;
    let dir = desk.at("unattributed");
    let kyc_url = format!("http://127.0.0.1:{listen}/as/helper/agents/kyc/");
    let _helper = Started::on(&dir, port, &kyc_url);
    let listen = format!("127.0.0.1:{listen}");
    let r = report(&dir, &["--listen", &listen]);
    assert_eq!(r["errors"], json!([]), "{r:#}");
    let kyc = tasks_on(&r, "kyc");
    assert_eq!(
        kyc_texts(&r),
        ["KYC check: poked", "KYC check: Grace"],
        "{r:#}"
    );
    assert_eq!(kyc[0]["parent"], json!(null), "{r:#}");
    assert_eq!(kyc[0]["delegation_chain"], json!(["helper"]), "{r:#}");
    assert_eq!(kyc[1]["parent"], "task-1");
    let warnings = r["warnings"].as_array().expect("a warnings list");
    assert_eq!(warnings.len(), 1, "{r:#}");
    assert_eq!(warnings[0]["step"], 1);
    assert_eq!(warnings[0]["task"], kyc[0]["id"]);
    let detail = warnings[0]["detail"].as_str().unwrap();
    assert!(
        detail.starts_with("a call of `helper` to `kyc` is tied to none of its tasks"),
        "{detail}"
    );
    // The table says it too.
    let table = a2a_sim_logged(&dir, &["run", "./desk.yaml", "--listen", &listen]);
    assert!(table.stdout.contains("\nwarnings\n"), "{}", table.stdout);
    assert!(
        table.stdout.contains("a call of `helper` to `kyc`"),
        "{}",
        table.stdout
    );
}

#[test]
fn a_report_without_warnings_has_no_warnings_key() {
    let r = report(&Desk::mode("ok").at("no-warnings"), &[]);
    assert!(r.get("warnings").is_none(), "{r:#}");
}
