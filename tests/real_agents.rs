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
use crate::common::read::keys;

mod calls;
mod discovery;
mod driving;
mod failures;
mod load_errors;
mod logs;
mod processes;
mod pushes;
mod received;
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
