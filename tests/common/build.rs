//! Scenario text built from parts: agents in one tenant, a caller `user`, steps; then loaded, run
//! and read as the JSON report.
//!
//! Every agent built here is in tenant `t`, cleared `public`, and has one skill tagged with its
//! own name, so `discover: [NAME]` finds it and nothing else.

use std::path::Path;

use a2a_sim::engine;
use a2a_sim::testing::expect;
use serde_json::Value;

use super::{load, load_as, report_value};

/// An agent in tenant `t`, cleared `public`, whose one skill is tagged with its own name.
pub fn agent(name: &str, handler: &str) -> String {
    format!(
        "  - {{name: {name}, tenant: t, clearance: public, skills: [{{id: {name}, tags: [{name}]}}], handler: {handler}}}\n"
    )
}

/// An agent no one in these scenarios may use: it requires a scope nobody has.
pub fn secret() -> String {
    "  - {name: secret, tenant: t, clearance: public, required_scopes: [vault], skills: [{id: secret, tags: [secret]}], handler: [working, completed]}\n".to_string()
}

/// A whole scenario: `policy.max_depth` 8, the agents, the caller `user` and the steps.
pub fn yaml(agents: &[String], steps: &str) -> String {
    format!(
        "policy: {{max_depth: 8}}\nagents:\n{}callers:\n  - {{id: user, tenant: t, classification: public}}\nsteps:\n{steps}",
        agents.concat()
    )
}

/// The JSON report of a run of [`yaml`]`(agents, steps)`.
pub fn run(agents: &[String], steps: &str) -> Value {
    report_value(&yaml(agents, steps))
}

/// `send` from `user` to `to`, aliased as `to`.
pub fn send(to: &str) -> String {
    format!("  - send: {{caller: user, to: {to}, text: go, as: {to}}}\n")
}

/// `send ... return_immediately: true`, aliased as `to`.
pub fn send_ri(to: &str) -> String {
    format!("  - send: {{caller: user, to: {to}, text: go, as: {to}, return_immediately: true}}\n")
}

/// The unmet expectations of a scenario.
pub fn unmet(yaml: &str) -> Vec<String> {
    let s = load(yaml);
    let w = engine::run(&s);
    expect::check(&w).into_iter().map(|u| u.message).collect()
}

/// Whether a scenario loads (as test.yaml); the load error's text when it does not.
pub fn loader_result(y: &str) -> Result<(), String> {
    load_as("test.yaml", Path::new("."), y).map(|_| ())
}
