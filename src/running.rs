//! Running a loaded scenario: in process, or — when it has real agents (`external:`) — with
//! them started, served the scripted agents and driven over the wire (`serve::external`), with
//! the real-agent flags of the command's config.

use std::path::PathBuf;

use crate::engine::World;
use crate::engine::scenario::Scenario;

/// `--agent-logs`, `--agent-timeout`, `--listen` and `--tick-ms` of `run` and `test`.
#[derive(Debug, Clone, PartialEq, Eq, clap::Args)]
#[command(next_help_heading = "Real agents (`external:` in the scenario)")]
pub struct RealAgentArgs {
    /// The folder for their logs, NAME.log each (default: a temporary folder).
    #[arg(long, value_name = "DIR")]
    pub agent_logs: Option<PathBuf>,
    /// The bound, in seconds, on every wait on one.
    #[arg(long, value_name = "SECS", default_value_t = 30, value_parser = clap::value_parser!(u64).range(1..))]
    pub agent_timeout: u64,
    /// Where the scripted agents are served to them.
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:0")]
    pub listen: std::net::SocketAddr,
    /// Real milliseconds per tick of a scripted agent's `slow`.
    #[arg(long, value_name = "MS", default_value_t = 10)]
    pub tick_ms: u64,
}

/// The flags' defaults, for a command that has none of them (`coverage`).
impl Default for RealAgentArgs {
    fn default() -> Self {
        RealAgentArgs {
            agent_logs: None,
            agent_timeout: 30,
            listen: std::net::SocketAddr::from(([127, 0, 0, 1], 0)),
            tick_ms: 10,
        }
    }
}

/// How a finished run's memory goes.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Teardown {
    Drop,
    /// The process ends right after: leave the memory to the OS instead of freeing a run's
    /// every task and string one by one (2 % of a 100,000-step run).
    Leak,
}

/// The one way the binary runs a scenario to its end: in process, recording `streams`, or —
/// when it has real agents (`external:`) — with them started, served the scripted agents and
/// driven over the wire. `then` reads the finished world, with each started agent's log
/// `(agent, file)` when the logs were kept (`--agent-logs`, or an agent that exited, timed out
/// or broke the protocol). `Err`: a real agent could not be started or reached (a message of
/// several lines, an agent's log quoted: show it with [`crate::escape::lines`]).
pub fn run<T>(
    scenario: Scenario,
    streams: crate::engine::RecordStreams,
    teardown: Teardown,
    real: &RealAgentArgs,
    then: impl FnOnce(&World<'_>, &[(String, PathBuf)]) -> T,
) -> Result<T, String> {
    if scenario.has_real_agents() {
        // The world of a real run keeps its scenario for as long as the process lives.
        let (world, logs) = run_real(scenario, real)?;
        return Ok(then(&world, &logs));
    }
    let world = crate::engine::run_recording(&scenario, streams);
    let result = then(&world, &[]);
    if teardown == Teardown::Leak {
        std::mem::forget(world);
        std::mem::forget(scenario);
    }
    Ok(result)
}

#[cfg(feature = "serve")]
fn run_real(
    scenario: Scenario,
    flags: &RealAgentArgs,
) -> Result<(World<'static>, Vec<(String, PathBuf)>), String> {
    let options = serve::external::Options {
        listen: flags.listen,
        agent_logs: flags.agent_logs.clone(),
        agent_timeout: std::time::Duration::from_secs(flags.agent_timeout),
        tick_ms: flags.tick_ms,
        log: crate::error::log,
    };
    serve::external::run(scenario, options)
        .map(|run| (run.world, run.kept_logs))
        .map_err(|e| e.0)
}

#[cfg(not(feature = "serve"))]
fn run_real(
    _: Scenario,
    _: &RealAgentArgs,
) -> Result<(World<'static>, Vec<(String, PathBuf)>), String> {
    Err("this scenario has real agents (`external:`), which need a2a-sim built with the `serve` feature".into())
}
