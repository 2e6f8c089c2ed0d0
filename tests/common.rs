//! The one set of helpers every test file shares: load scenario text, run it, and look at the
//! outcome by name (here); build scenarios from parts ([`build`]) and read their JSON report
//! ([`read`]); run the binary in a scratch directory ([`binary`]), with a scenario that imports
//! libraries ([`library`]); compare output with its golden file ([`goldens`]).

#![allow(dead_code)]

pub mod binary;
pub mod build;
pub mod goldens;
pub mod library;
pub mod read;

use std::path::Path;

/// The scenario `explore` tests break with faults, up to its `expect:`: a payment agent that
/// delegates to a screener (two attempts) and the orchestrator that asks it to pay. A test adds
/// its claims: `concat!(pay_and_screen!(), "expect:\n  - ...")`.
#[macro_export]
macro_rules! pay_and_screen {
    () => {
        r#"
agents:
  - name: payments
    tenant: acme
    clearance: confidential
    skills: [{id: pay, tags: [payments]}]
    handler:
      - working: Screening first
      - delegate: {to: screener, text: Screen, as: screen, retry: {attempts: 2, backoff: 1}}
      - completed: Paid
  - name: screener
    tenant: acme
    clearance: confidential
    skills: [{id: screen, tags: [sanctions]}]
    handler: [working: Screening, wait: 3, completed: Done]
callers:
  - {id: orchestrator, tenant: acme, classification: internal}
steps:
  - send: {caller: orchestrator, to: payments, text: Pay, as: pay}
"#
    };
}

use a2a_sim::engine;
use a2a_sim::engine::record::{ErrorCode, Record, StepResult};
use a2a_sim::engine::scenario::Scenario;
use a2a_sim::scenario::Load;

/// Loads `yaml` as the file `file`, its relative paths read from `dir`, the scenario named after
/// the file's stem; the load error's text when it does not load.
pub fn load_as(file: &str, dir: &Path, yaml: &str) -> Result<Scenario, String> {
    let name = Path::new(file).file_stem().unwrap().to_string_lossy();
    Load::text(file, yaml, dir, name.as_ref())
        .scenario()
        .map_err(|e| e.to_string())
}

/// Scenario text as test.yaml; the test fails when it does not load.
pub fn load(yaml: &str) -> Scenario {
    match load_as("test.yaml", Path::new("."), yaml) {
        Ok(s) => s,
        Err(e) => panic!("scenario does not load:\n{e}"),
    }
}

/// The load error of scenario text as test.yaml; the test fails when it loads.
pub fn load_err(yaml: &str) -> String {
    match load_as("test.yaml", Path::new("."), yaml) {
        Ok(_) => panic!("scenario loaded but should not have"),
        Err(e) => e,
    }
}

/// The JSON report of a run of `scenario`.
pub fn report(scenario: &Scenario) -> String {
    let world = engine::run(scenario);
    json(&world)
}

/// The JSON report of a run.
pub fn json(world: &Record) -> String {
    let mut out = Vec::new();
    a2a_sim::report::json::write(world, &mut out).unwrap();
    String::from_utf8(out).unwrap()
}

/// The JSON report of a run of scenario text, parsed.
pub fn report_value(yaml: &str) -> serde_json::Value {
    let s = load(yaml);
    serde_json::from_str(&report(&s)).unwrap()
}

pub fn error_codes(world: &Record) -> Vec<&'static str> {
    world.errors.iter().map(|e| e.code.as_str()).collect()
}

pub fn has_error(world: &Record, code: ErrorCode) -> bool {
    world.errors.iter().any(|e| e.code == code)
}

pub fn states(world: &Record) -> Vec<&'static str> {
    world.tasks.iter().map(|t| t.state.as_str()).collect()
}

pub fn history(world: &Record, task: usize) -> Vec<(u64, &'static str)> {
    world.tasks[task]
        .history
        .iter()
        .map(|h| (h.tick, h.state.as_str()))
        .collect()
}

pub fn denied_codes(world: &Record, step: usize) -> Vec<&'static str> {
    match &world.steps[step - 1].result {
        StepResult::Denied(codes) => codes.iter().map(|c| c.as_str()).collect(),
        other => panic!("step {step} was not denied: {other:?}"),
    }
}

pub fn chain(world: &Record, task: usize) -> Vec<String> {
    let names = &world.scenario.symbols;
    world
        .chains
        .to_vec(world.tasks[task].delegation_chain)
        .iter()
        .map(|&s| names.name(s).to_string())
        .collect()
}

/// A minimal world: one screener agent (handler given), one caller, then `steps`.
pub fn one_agent(handler: &str, steps: &str) -> String {
    format!(
        r#"
policy: {{max_depth: 4, push_allowed_hosts: [hooks.acme.example]}}
agents:
  - name: screener
    tenant: acme
    clearance: confidential
    capabilities: {{push_notifications: true}}
    skills: [{{id: screen, tags: [sanctions]}}]
    handler: {handler}
callers:
  - {{id: orchestrator, tenant: acme, classification: internal}}
  - {{id: intruder, tenant: acme, classification: internal}}
steps:
{steps}
"#
    )
}

/// [`one_agent`]'s world, then a `faults:` block.
pub fn one_agent_with_faults(handler: &str, faults: &str, steps: &str) -> String {
    format!("{}faults:\n{faults}\n", one_agent(handler, steps))
}
