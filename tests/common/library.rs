//! A scenario that takes its agents, callers and policy from two library files, in a scratch
//! directory: the everyday layout for tests of imports, `--set`, standard input and CI output.

use std::path::PathBuf;

use super::binary::{scratch, write};

/// lib/agents.yaml: the policy, the levels and one screener.
pub const AGENTS_LIB: &str = "\
policy: {max_depth: 4}
classification_levels: [public, internal, confidential, restricted]
agents:
  - name: screener
    tenant: acme
    clearance: confidential
    skills: [{id: screen, tags: [sanctions]}]
    handler: [working, completed]
";

/// lib/callers.yaml: the orchestrator.
pub const CALLERS_LIB: &str = "\
callers:
  - {id: orchestrator, tenant: acme, classification: internal}
";

/// s.yaml: imports both libraries and sends once (aliased `a`).
pub const USES_LIBS: &str = "\
imports: [lib/agents.yaml, lib/callers.yaml]
steps:
  - send: {caller: orchestrator, to: screener, text: hi, as: a}
";

/// A scratch directory `name` holding both libraries and s.yaml.
pub fn with_libs(name: &str) -> PathBuf {
    let dir = scratch(name);
    write(&dir, "lib/agents.yaml", AGENTS_LIB);
    write(&dir, "lib/callers.yaml", CALLERS_LIB);
    write(&dir, "s.yaml", USES_LIBS);
    dir
}
