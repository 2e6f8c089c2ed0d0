//! A run with real agents in it (`external:` agents): a2a-sim starts each one (or reaches it at
//! its URL), serves every scripted agent to it on loopback under the agent's own prefix
//! (`/as/AGENT/agents/NAME/`: the URL is its identity, nothing to send), drives it with the
//! scenario's steps over JSON-RPC, and records what it answered and what it asked of the scripted
//! agents in the same world a `run` records: one report, `test`'s goldens and `expect` unchanged.
//!
//! The seam with the engine is a pump: the world's thread makes each request to the agent on the
//! runtime and, until its answer comes back on the jobs' channel, answers the agent's own calls
//! from that channel; it never blocks on the agent while holding the world. What makes the
//! report deterministic: the engine numbers tasks, contexts and messages and moves the clock one
//! tick per recorded event, and the agent's ids and timestamps are never recorded.

mod call;
mod calls;
pub(crate) mod client;
mod process;
mod pump;
mod push;
mod settle;
mod start;
mod wire;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use engine::World;
use engine::scenario::{Caller, Scenario};

use crate::ServeError;
use crate::desk::Desk;
use crate::http::{WorldSide, WorldStart};
use pump::Pump;
use start::Starter;

pub use process::stop_all;

/// The flags of a run with real agents.
#[derive(Debug, Clone)]
pub struct Options {
    /// Where the scripted agents are served to the real ones (`--listen`, default any free
    /// loopback port).
    pub listen: SocketAddr,
    /// The folder for the agents' logs (`--agent-logs`); a temporary one when not given.
    pub agent_logs: Option<PathBuf>,
    /// The bound on every wait on an agent (`--agent-timeout`).
    pub agent_timeout: Duration,
    /// Real milliseconds per tick of a scripted agent's `slow` (`--tick-ms`).
    pub tick_ms: u64,
    /// Where the server's log lines go (see [`crate::Options::log`]).
    pub log: fn(&str),
}

impl Default for Options {
    fn default() -> Self {
        Options {
            listen: SocketAddr::from(([127, 0, 0, 1], 0)),
            agent_logs: None,
            agent_timeout: Duration::from_secs(30),
            tick_ms: 10,
            log: |_| {},
        }
    }
}

/// The run: its finished world (the scenario leaked with it, as `serve`'s is) and where the
/// agents' logs are.
pub struct Run {
    pub world: World<'static>,
    pub logs: PathBuf,
    /// Each started agent's log (`(agent, file)`), when the folder is kept: `--agent-logs` was
    /// given, or a real agent exited, timed out or broke the protocol. Empty when a temporary
    /// folder was removed.
    pub kept_logs: Vec<(String, PathBuf)>,
}

/// Runs `scenario`, whose real agents are started (or reached) and driven; every process
/// started is stopped before this returns.
pub fn run(mut scenario: Scenario, options: Options) -> Result<Run, ServeError> {
    // Each real agent calls the scripted agents as a caller of its own name, with its platform
    // metadata: the prefix `/as/AGENT/` names it; each call is then attributed to its task.
    let first_agent_caller = scenario.callers.len();
    let agent_callers: Vec<Caller> = scenario
        .agents
        .iter()
        .filter(|a| a.external.is_some())
        .map(|a| Caller {
            id: a.name().to_string(),
            sym: a.sym,
            tenant: a.tenant,
            classification: a.clearance,
            scopes: a.scopes.clone(),
            delegation_chain: Vec::new(),
            // With `keys`, the token minted for it: its calls must carry it (`{token}`).
            token: a.external.as_ref().and_then(|e| e.token.clone()),
        })
        .collect();
    scenario.callers.extend(agent_callers);
    let scenario: &'static Scenario = Box::leak(Box::new(scenario));
    // The k-th run with real agents in this process (explore and test make many, in parallel).
    static RUNS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let k = RUNS.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
    let (logs, temporary) = match &options.agent_logs {
        Some(dir) => (dir.clone(), false),
        None => (
            std::env::temp_dir().join(format!("a2a-sim-agents-{}-{k}", std::process::id())),
            true,
        ),
    };
    // NAME.log for the first run, NAME.K.log for the K-th: runs never share a log.
    let suffix = match (temporary, k) {
        (false, k) if k > 1 => format!(".{k}"),
        _ => String::new(),
    };
    std::fs::create_dir_all(&logs).map_err(|e| {
        ServeError(format!(
            "cannot make the agents' log folder {}: {e}; give --agent-logs a writable folder",
            logs.display()
        ))
    })?;
    let slot: Arc<Mutex<Option<World<'static>>>> = Arc::new(Mutex::new(None));
    let driver = Driver {
        options: options.clone(),
        logs: logs.clone(),
        suffix: suffix.clone(),
        first_agent_caller,
        slot: slot.clone(),
    };
    let side: WorldSide = Box::new(move |start: WorldStart| {
        std::thread::Builder::new()
            .name("a2a-sim-world".into())
            .spawn(move || driver.drive(start))
    });
    let serve = crate::Options {
        listen: options.listen,
        tick_ms: Some(options.tick_ms),
        log: options.log,
        ..crate::Options::default()
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| ServeError(format!("cannot start the runtime: {e}")))?;
    let served = runtime.block_on(crate::http::serve_with(scenario, serve, side));
    let world = slot.lock().ok().and_then(|mut s| s.take());
    match (served, world) {
        (Ok(()), Some(world)) => {
            let troubled = world
                .errors
                .iter()
                .any(|e| engine::record::ErrorCode::REAL_AGENT.contains(&e.code));
            let kept_logs = if temporary && !troubled {
                // Nothing went wrong: a folder nobody asked for is not left behind.
                let _ = std::fs::remove_dir_all(&logs);
                Vec::new()
            } else {
                scenario
                    .agents
                    .iter()
                    .filter(|a| a.external.as_ref().is_some_and(|e| e.url.is_none()))
                    .map(|a| {
                        let file = start::log_file(&logs, a.name(), &suffix);
                        (a.name().to_string(), file)
                    })
                    .collect()
            };
            Ok(Run {
                world,
                logs,
                kept_logs,
            })
        }
        (Err(e), _) => Err(ServeError(e)),
        (Ok(()), None) => Err(ServeError("the run ended before its steps did".into())),
    }
}

struct Driver {
    options: Options,
    logs: PathBuf,
    /// Between the agent's name and `.log`.
    suffix: String,
    first_agent_caller: usize,
    slot: Arc<Mutex<Option<World<'static>>>>,
}

impl Driver {
    fn drive(self, start: WorldStart) -> Result<(), String> {
        let WorldStart {
            scenario,
            settings,
            rx,
            tx,
            base,
            handle,
            done,
        } = start;
        let mut world = World::new(scenario);
        world.pace_events();
        let mut desk = Desk::new(settings);
        desk.nested = true;
        let mut pump = Pump::new(
            world,
            desk,
            (rx, tx),
            handle,
            self.first_agent_caller,
            self.options.agent_timeout,
        );
        pump.settle = Duration::from_millis(
            scenario
                .agents
                .iter()
                .filter_map(|a| a.external.as_ref().map(|e| e.settle_ms))
                .max()
                .unwrap_or(0),
        );
        let started = self.start_agents(&mut pump, scenario, &base);
        let result = started.and_then(|()| {
            for (i, step) in scenario.steps.iter().enumerate() {
                pump.world.step = i + 1;
                pump.crashes();
                pump.step(step);
                pump.drain();
                pump.crashes();
                if pump.stopping {
                    return Err("interrupted: the run was stopped by a signal; every agent it started has been stopped".to_string());
                }
            }
            pump.world.finish();
            pump.desk.notify(&pump.world, None);
            pump.desk.subscriptions.close_all(&pump.world);
            Ok(())
        });
        for live in pump.live.drain(..).rev() {
            if let Some(p) = live.process {
                p.stop();
            }
        }
        if result.is_ok()
            && let Ok(mut slot) = self.slot.lock()
        {
            *slot = Some(pump.world);
        }
        drop(done);
        result
    }

    /// Starts (or reaches) every real agent and reads its card; the first that fails ends the
    /// run with why, the others already started being stopped by the caller.
    fn start_agents(
        &self,
        pump: &mut Pump,
        scenario: &'static Scenario,
        base: &str,
    ) -> Result<(), String> {
        let starter = Starter {
            logs: self.logs.clone(),
            suffix: self.suffix.clone(),
            base: base.to_string(),
        };
        for (ix, agent) in scenario.agents.iter().enumerate() {
            if agent.external.is_some() {
                match starter.start(&pump.handle, scenario, ix, false) {
                    Ok(l) => pump.live.push(l),
                    Err(failed) => {
                        let (l, why) = *failed;
                        pump.live.push(l);
                        return Err(why);
                    }
                }
            }
        }
        pump.starter = Some(starter);
        // `discover` ranks each real agent by its own card's skills; a tag no step of the
        // scenario names matches nothing, so it need not be known.
        let live = pump
            .live
            .iter()
            .map(|l| {
                let sets = l.skills.iter().map(|tags| {
                    let mut set: Vec<_> = tags
                        .iter()
                        .filter_map(|t| scenario.symbols.get(t))
                        .collect();
                    set.sort_unstable();
                    set.dedup();
                    set
                });
                (l.agent, sets.collect())
            })
            .collect();
        pump.world.use_live_skills(&live);
        Ok(())
    }
}
