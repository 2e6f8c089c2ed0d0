//! `a2a-sim-gen`: prints one synthetic `a2a-sim` scenario (YAML) to stdout, reproducibly.
//!
//! Benchmarks and the example corpus need scenarios larger and more varied than anyone writes by
//! hand. This tool makes them from a seed. The same flags give byte-identical output on every
//! machine: the PRNG is splitmix64 (implemented below, no `rand`), no hash-map order and no
//! floating point reach the output, and every string is written as a JSON string literal (valid
//! YAML whatever it contains).
//!
//! ```text
//! a2a-sim-gen --seed N --agents A --steps S [--tenants T] [--skills-per-agent K]
//!             [--callers C] [--history H] [--nesting-depth D]
//!
//! a2a-sim-gen --seed 1 --agents 200 --steps 100000 > bench.yaml    # a benchmark world
//! a2a-sim-gen --seed 7 --agents 20 --steps 50 > corpus/seed-7.yaml # a small corpus file
//! a2a-sim-gen --seed 1 --history 10000 > long.yaml                 # one task, 10,000 pauses
//! ```
//!
//! A synthetic scenario (format: `docs/src/reference/scenario-format.md`) has:
//! - `A` agents, round-robin over `T` tenants (default `min(3, A)`), mostly cleared high; about
//!   half can push; `K` skills each (default 2) tagged from a vocabulary of 50 tags; some
//!   `required_scopes`. Handlers are plain (`working`, `artifact`, `completed`), multi-turn (one
//!   `input_required` or, rarely, `auth_required` pause), failing, or nested: a `delegate` to a
//!   higher-numbered agent of the same tenant (so no cycles), in chains at most `D` hops long
//!   (default 3). A delegating agent holds the scopes its callee requires, and `max_depth` leaves
//!   room for the longest chain, so nested delegation is admitted unless clearance says otherwise.
//! - `C` callers (default two per tenant) over the tenants, with a classification, scopes that
//!   usually cover their tenant's agents, and sometimes a `delegation_chain` of free upstream ids.
//! - exactly `S` driver steps: mostly `send`/`stream` (aliased `t1`, `t2`, …; named or by
//!   discovery; some to another tenant or lacking a scope, hence denied; some with `push`, `data`,
//!   `context` or `context_of`), `reply` to paused tasks of the same caller, `set_push_config`
//!   (allowed hosts, refused hosts, missing tokens), `get`, `cancel` and `discover`. An alias is
//!   only ever used after the step that defines it.
//!
//! With `--history H` (> 0) it prints a long-history scenario instead: one agent whose handler
//! pauses on `input_required` H times, one caller, one `send` aliased `long` and H `reply` steps to
//! it — for measuring how cost grows with the number of status changes of one task. The other
//! flags, `--seed` included, do not change that scenario.
//!
//! Agents and callers depend only on the seed and the world flags, never on `--steps`, so two
//! files that differ only in `--steps` share the same world.

mod driver;
mod rng;
mod scenario;
#[cfg(test)]
mod tests;
mod vocab;
mod world;
mod yaml;

use clap::Parser;

use crate::scenario::{generate, generate_long_history};

/// Raw flags; [`Args::into_mode`] turns them into a validated [`Mode`].
#[derive(Debug, Parser)]
#[command(
    name = "a2a-sim-gen",
    version,
    about = "Print a synthetic a2a-sim scenario (YAML) to stdout, reproducibly",
    override_usage = "a2a-sim-gen --seed N --agents A --steps S [--tenants T] [--skills-per-agent K] \
                      [--callers C] [--nesting-depth D]\n       \
                      a2a-sim-gen --seed N --history H"
)]
pub struct Args {
    /// Seed of the generator: the same flags always give the same bytes
    #[arg(long)]
    seed: u64,
    /// Number of agents
    #[arg(long, required_unless_present = "history")]
    agents: Option<usize>,
    /// Number of driver steps (exactly)
    #[arg(long, required_unless_present = "history")]
    steps: Option<usize>,
    /// Number of tenants [default: min(3, agents)]
    #[arg(long)]
    tenants: Option<usize>,
    /// Skills per agent
    #[arg(long, default_value_t = 2)]
    skills_per_agent: usize,
    /// Number of callers [default: 2 per tenant]
    #[arg(long)]
    callers: Option<usize>,
    /// When > 0: a long-history scenario instead (one task paused and resumed H times); the other
    /// flags are then ignored
    #[arg(long, default_value_t = 0)]
    history: usize,
    /// Longest chain of nested delegations a handler starts
    #[arg(long, default_value_t = 3)]
    nesting_depth: usize,
}

/// The validated flags of a synthetic scenario.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    seed: u64,
    agents: usize,
    steps: usize,
    tenants: usize,
    skills_per_agent: usize,
    callers: usize,
    nesting_depth: usize,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mode {
    Synthetic(Config),
    LongHistory { history: usize },
}

impl Args {
    pub fn into_mode(self) -> Result<Mode, String> {
        if self.history > 0 {
            return Ok(Mode::LongHistory {
                history: self.history,
            });
        }
        let agents = self
            .agents
            .ok_or("--agents is required unless --history is more than 0")?;
        let steps = self
            .steps
            .ok_or("--steps is required unless --history is more than 0")?;
        if agents == 0 {
            return Err("--agents must be at least 1".into());
        }
        let tenants = self.tenants.unwrap_or(agents.min(3));
        if tenants == 0 || tenants > agents {
            return Err(format!(
                "--tenants must be between 1 and the number of agents ({agents}), got {tenants}"
            ));
        }
        if self.skills_per_agent == 0 {
            return Err("--skills-per-agent must be at least 1: every agent needs a skill".into());
        }
        let callers = self.callers.unwrap_or(2 * tenants);
        if callers == 0 {
            return Err("--callers must be at least 1".into());
        }
        Ok(Mode::Synthetic(Config {
            seed: self.seed,
            agents,
            steps,
            tenants,
            skills_per_agent: self.skills_per_agent,
            callers,
            nesting_depth: self.nesting_depth,
        }))
    }
}

impl Mode {
    /// The scenario these flags describe, as YAML.
    pub fn yaml(&self) -> Result<String, std::fmt::Error> {
        match self {
            Mode::Synthetic(config) => generate(config),
            Mode::LongHistory { history } => generate_long_history(*history),
        }
    }
}

/// The scenario that `a2a-sim-gen ARGS` prints (`args` without the program name), for tests that
/// want a generated file without running the binary.
pub fn yaml_for(args: &[&str]) -> Result<String, String> {
    let args = Args::try_parse_from(std::iter::once("a2a-sim-gen").chain(args.iter().copied()))
        .map_err(|e| e.to_string())?;
    args.into_mode()?.yaml().map_err(|e| e.to_string())
}
