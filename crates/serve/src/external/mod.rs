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

pub(crate) mod client;
mod process;
mod wire;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use engine::faults::{FaultKind, FaultTarget};
use engine::ids::{AgentIx, TaskIx};
use engine::record::{ErrorCode, StepResult};
use engine::scenario::{Caller, Scenario, Step, Target, TaskRef};
use engine::world::World;

use crate::ServeError;
use crate::http::{WorldSide, WorldStart};
use crate::job::{Job, Req};
use crate::owner::Desk;
use client::Answered;

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
}

impl Default for Options {
    fn default() -> Self {
        Options {
            listen: SocketAddr::from(([127, 0, 0, 1], 0)),
            agent_logs: None,
            agent_timeout: Duration::from_secs(30),
            tick_ms: 10,
        }
    }
}

/// Whether a scenario has real agents in it (and so runs through [`run`]).
pub fn has_external(scenario: &Scenario) -> bool {
    scenario.agents.iter().any(|a| a.external.is_some())
}

/// The run: its finished world (the scenario leaked with it, as `serve`'s is) and where the
/// agents' logs are.
pub struct Run {
    pub world: World<'static>,
    pub logs: PathBuf,
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
            token: None,
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
        suffix,
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
            if temporary {
                // Nothing went wrong: a folder nobody asked for is not left behind.
                let _ = std::fs::remove_dir_all(&logs);
            }
            Ok(Run { world, logs })
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

/// A real agent as the run knows it.
struct Live {
    agent: AgentIx,
    process: Option<process::Agent>,
    endpoint: wire::Endpoint,
}

/// The agent's own ids of one of its tasks, kept at the edge (never reported).
#[derive(Default, Clone)]
struct Theirs {
    task_id: Option<String>,
    context_id: Option<String>,
    /// The agent messages of its history already recorded (an answer repeats them).
    history_seen: usize,
}

struct Pump {
    world: World<'static>,
    desk: Desk,
    rx: Receiver<Job>,
    tx: Sender<Job>,
    handle: tokio::runtime::Handle,
    live: Vec<Live>,
    theirs: std::collections::BTreeMap<TaskIx, Theirs>,
    /// The task of each real agent with a2a-sim's request in flight.
    in_flight: Option<TaskIx>,
    first_agent_caller: usize,
    timeout: Duration,
    rpc_id: u64,
    /// A signal asked the run to stop: no further step is driven.
    stopping: bool,
    /// How to start an agent again after a `crash` fault's restart.
    starter: Option<Starter>,
    /// The `crash` faults (by index) whose kill, and whose restart, has been done.
    crashed: std::collections::BTreeSet<usize>,
    restarted: std::collections::BTreeSet<usize>,
}

/// The trace id a2a-sim puts on the requests for task `ix`: recognisable and never zero.
fn trace_of(ix: TaskIx) -> u128 {
    (0xa2a5_u128 << 112) | (ix as u128 + 1)
}

fn task_of_trace(trace: u128) -> Option<TaskIx> {
    (trace >> 112 == 0xa2a5)
        .then_some((trace & ((1u128 << 112) - 1)) as usize)?
        .checked_sub(1)
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
        let mut pump = Pump {
            world,
            desk,
            rx,
            tx,
            handle,
            live: Vec::new(),
            theirs: Default::default(),
            in_flight: None,
            first_agent_caller: self.first_agent_caller,
            timeout: self.options.agent_timeout,
            rpc_id: 0,
            stopping: false,
            starter: None,
            crashed: Default::default(),
            restarted: Default::default(),
        };
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
        Ok(())
    }
}

/// What starting a real agent again needs (a `crash` fault with `restart`).
struct Starter {
    logs: PathBuf,
    suffix: String,
    base: String,
}

impl Starter {
    /// Starts agent `ix` (or reaches it at its URL) and reads its card: the live agent, or it
    /// (for stopping) with why it cannot be used.
    fn start(
        &self,
        handle: &tokio::runtime::Handle,
        scenario: &'static Scenario,
        ix: AgentIx,
        again: bool,
    ) -> Result<Live, Box<(Live, String)>> {
        let agent = &scenario.agents[ix];
        let Some(spec) = &agent.external else {
            return Err(Box::new((
                Live {
                    agent: ix,
                    process: None,
                    endpoint: placeholder(),
                },
                format!("agent `{}` is not a real agent", agent.name()),
            )));
        };
        let name = agent.name();
        let base = &self.base;
        let url_of = |n: &str| {
            scenario
                .agents
                .iter()
                .find(|a| a.name() == n && a.external.is_none())
                .map(|_| format!("{base}/as/{name}/agents/{n}/"))
        };
        let dead = |process| Live {
            agent: ix,
            process,
            endpoint: placeholder(),
        };
        let (root, mut process) = match &spec.url {
            Some(u) => (u.clone(), None),
            None => {
                let port = process::free_port().map_err(|e| {
                    Box::new((dead(None), format!("agent `{name}`: no free port: {e}")))
                })?;
                let log = self.logs.join(format!("{name}{}.log", self.suffix));
                let p = process::Agent::start(name, spec, port, &log, again, &url_of)
                    .map_err(|why| Box::new((dead(None), why)))?;
                (format!("http://127.0.0.1:{port}/"), Some(p))
            }
        };
        let card_url = format!("{}/.well-known/agent-card.json", root.trim_end_matches('/'));
        let deadline = Instant::now() + Duration::from_secs(spec.ready_timeout_s);
        let card = loop {
            if let Some(p) = &mut process
                && p.exited().is_some()
            {
                let why = p.failure("it exited before its card answered");
                return Err(Box::new((dead(process), why)));
            }
            let got = handle.block_on(client::call(&card_url, &[], None, Duration::from_secs(2)));
            match got {
                Ok(a) if a.status == 200 => break a.body,
                _ if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(50)),
                other => {
                    let what = match other {
                        Ok(a) => format!("its card answered HTTP {}", a.status),
                        Err(e) => e,
                    };
                    let why = match &mut process {
                        Some(p) => p.failure(&format!(
                            "its card did not answer within {} s ({what})",
                            spec.ready_timeout_s
                        )),
                        None => format!(
                            "agent `{name}`: its card {card_url} did not answer within {} s ({what})",
                            spec.ready_timeout_s
                        ),
                    };
                    return Err(Box::new((dead(process), why)));
                }
            }
        };
        match wire::endpoint(&card, &root) {
            Ok(endpoint) => Ok(Live {
                agent: ix,
                process,
                endpoint,
            }),
            Err(e) => Err(Box::new((dead(process), format!("agent `{name}`: {e}")))),
        }
    }
}

fn placeholder() -> wire::Endpoint {
    wire::Endpoint {
        url: String::new(),
        v1: true,
        streaming: false,
    }
}

impl Pump {
    /// `crash` faults on a real agent act on its process: at the first step boundary at or
    /// after `at` it is killed (SIGKILL, no time to tidy up), and it is started again at the
    /// first one at or after `restart` (a crash without `restart` leaves it down). The engine
    /// fails its open tasks at `at` and refuses requests to it until `restart`.
    fn crashes(&mut self) {
        let clock = self.world.clock();
        let faults = self.world.faults;
        for (i, f) in faults.entries.iter().enumerate() {
            let (FaultTarget::Agent(agent), FaultKind::Crash { at, restart }) =
                (&f.target, &f.kind)
            else {
                continue;
            };
            let Some(l) = self.live_of(*agent) else {
                continue;
            };
            if *at <= clock
                && self.crashed.insert(i)
                && let Some(p) = self.live[l].process.take()
            {
                p.kill();
            }
            let restarted = restart.is_some_and(|r| r <= clock) && self.restarted.insert(i);
            let started = self.world.scenario.agents[*agent]
                .external
                .as_ref()
                .is_some_and(|e| e.url.is_none());
            if restarted
                && started
                && self.live[l].process.is_none()
                && let Some(starter) = &self.starter
            {
                let scenario = self.world.scenario;
                match starter.start(&self.handle, scenario, *agent, true) {
                    Ok(live) => self.live[l] = live,
                    Err(failed) => {
                        let (live, why) = *failed;
                        self.live[l] = live;
                        let detail = format!("restarting after its crash: {why}");
                        self.world
                            .external_error(ErrorCode::AgentExited, detail, None);
                    }
                }
            }
        }
    }

    fn live_of(&self, agent: AgentIx) -> Option<usize> {
        self.live.iter().position(|l| l.agent == agent)
    }

    /// One driver step: to a scripted agent as `run` runs it; to a real agent over the wire.
    fn step(&mut self, step: &'static Step) {
        let external_task = |w: &World<'static>, caller, task: &TaskRef| {
            w.lookup_task(caller, task)
                .filter(|&t| w.is_external(w.tasks[t].agent()))
        };
        match step {
            Step::Send(s) if matches!(s.to, Target::Agent(a) if self.world.is_external(a)) => {
                if let Some(task) = self.run_step(step) {
                    self.send(task, s.text.as_str(), s.data(), s.stream());
                }
            }
            Step::Reply {
                caller,
                task,
                message,
            } if external_task(&self.world, *caller, task).is_some() => {
                if let Some(task) = self.run_step(step) {
                    self.send(task, message.text.as_str(), message.data(), false);
                }
            }
            _ => {
                self.world.run_step(step);
            }
        }
    }

    /// Runs a driver step; the task it made or resumed.
    fn run_step(&mut self, step: &'static Step) -> Option<TaskIx> {
        self.world.run_step(step);
        match self.world.steps.last()?.result {
            StepResult::Task { task, .. } => Some(task),
            _ => None,
        }
    }

    /// Sends the agent of `task` a message for it (its first, or a reply) and records what it
    /// answered; its calls to scripted agents are answered meanwhile.
    fn send(
        &mut self,
        task: TaskIx,
        text: &str,
        data: Option<&engine::data::DataMap>,
        stream: bool,
    ) {
        let agent = self.world.tasks[task].agent();
        let Some(l) = self.live_of(agent) else {
            return;
        };
        let theirs = self.theirs.get(&task).cloned().unwrap_or_default();
        let message_id = format!(
            "msg-{}",
            self.world.tasks[task].messages.last().map_or(0, |m| m.id())
        );
        self.rpc_id += 1;
        let endpoint = self.live[l].endpoint.clone();
        // A `stream` step streams when the agent's card says it can (else it is sent as a send).
        let stream = stream && endpoint.streaming;
        let body = wire::send_request(
            &endpoint,
            self.rpc_id,
            &wire::Outgoing {
                message_id,
                text,
                data,
                task_id: theirs.task_id.as_deref(),
                context_id: theirs.context_id.as_deref(),
            },
            stream,
        );
        let mut headers = vec![(
            "traceparent",
            format!("00-{:032x}-{:016x}-01", trace_of(task), self.rpc_id),
        )];
        if endpoint.v1 {
            headers.push(("A2A-Version", "1.0".to_string()));
        }
        let tx = self.tx.clone();
        let timeout = self.timeout;
        self.handle.spawn(async move {
            let result = client::call(&endpoint.url, &headers, Some(body), timeout).await;
            let (reply, _) = tokio::sync::oneshot::channel();
            let _ = tx.send(Job {
                req: Req::Agent(Box::new(Answered { task, result })),
                reply,
                trace: None,
            });
        });
        self.in_flight = Some(task);
        let result = self.pump_until(task);
        self.in_flight = None;
        self.record(l, task, theirs, result, stream);
        self.world.external_step_answered();
    }

    /// Answers the agent's calls until the answer for `task` comes (or the run's bound on a
    /// wait on an agent passes).
    fn pump_until(&mut self, task: TaskIx) -> Result<client::Answer, String> {
        let deadline = Instant::now() + self.timeout + Duration::from_secs(5);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.rx.recv_timeout(left) {
                Ok(Job {
                    req: Req::Agent(a), ..
                }) if a.task == task => return a.result,
                Ok(Job {
                    req: Req::Agent(_), ..
                }) => {}
                Ok(job) => {
                    self.answer(job);
                    if self.stopping {
                        return Err("the run is stopping".into());
                    }
                }
                Err(RecvTimeoutError::Timeout) => {
                    return Err(format!("no answer within {} s", self.timeout.as_secs_f64()));
                }
                Err(RecvTimeoutError::Disconnected) => return Err("the run is stopping".into()),
            }
        }
    }

    /// The requests already waiting (an agent's calls made after it answered).
    fn drain(&mut self) {
        while let Ok(job) = self.rx.try_recv() {
            if !matches!(job.req, Req::Agent(_)) {
                self.answer(job);
            }
        }
    }

    /// A request to a scripted agent: a real agent's call is attributed to one of its tasks
    /// (by the trace id a2a-sim gave that task's request, else the task with a2a-sim's request
    /// in flight) and admitted as that task's delegation.
    fn answer(&mut self, mut job: Job) {
        if let Req::Shutdown = job.req {
            // A signal: the server stops taking requests; the steps stop here.
            self.stopping = true;
            return;
        }
        if let Req::Step { step, .. } = &mut job.req
            && let Step::Send(s) = &mut **step
            && s.caller() >= self.first_agent_caller
        {
            if let Some(data) = s.data_mut() {
                let value =
                    crate::message::canonical(serde_json::Value::Object(std::mem::take(data)));
                if let serde_json::Value::Object(o) = value {
                    *data = o;
                }
            }
            let agent_sym = self.world.scenario.callers[s.caller()].sym;
            let agent = self
                .world
                .scenario
                .agents
                .iter()
                .position(|a| a.sym == agent_sym);
            let of_agent =
                |t: TaskIx, w: &World<'static>| (Some(w.tasks[t].agent()) == agent).then_some(t);
            let parent = job
                .trace
                .and_then(task_of_trace)
                .filter(|&t| t < self.world.tasks.len())
                .and_then(|t| of_agent(t, &self.world))
                .or_else(|| self.in_flight.and_then(|t| of_agent(t, &self.world)));
            self.world.attribute_next_send(parent);
        }
        let reply = self.desk.answer(&mut self.world, job.req);
        self.world.attribute_next_send(None);
        if let Some(reply) = reply {
            let _ = job.reply.send(reply);
        }
    }

    /// Records the agent's answer for `task`, or what went wrong.
    fn record(
        &mut self,
        l: usize,
        task: TaskIx,
        mut theirs: Theirs,
        result: Result<client::Answer, String>,
        stream: bool,
    ) {
        let name = self.world.scenario.agents[self.live[l].agent].name();
        let read = if stream {
            wire::read_stream_answer
        } else {
            wire::read_send_answer
        };
        let failure = match result {
            Ok(answer) => {
                match read(&self.live[l].endpoint, answer.status, &answer.body) {
                    Ok(a) => {
                        let agent_messages = a
                            .reported
                            .iter()
                            .filter(|r| {
                                matches!(r, wire::Reported::Status { state, .. } if *state == engine::lifecycle::TaskState::Working)
                            })
                            .count();
                        // A blocking answer repeats the history already recorded; a stream's
                        // updates are each new.
                        let skip = if stream {
                            0
                        } else {
                            theirs.history_seen.min(agent_messages)
                        };
                        // What the next answer's history will repeat: these, and the message of
                        // the status it ended in (the SDKs move it into `history` when the next
                        // status comes: a question the agent asked, say).
                        let last_said = matches!(
                            a.reported.last(),
                            Some(wire::Reported::Status { text: Some(_), .. })
                        );
                        theirs.history_seen = agent_messages + usize::from(last_said && !stream);
                        theirs.task_id = a.task_id.clone().or(theirs.task_id);
                        theirs.context_id = a.context_id.clone().or(theirs.context_id);
                        self.theirs.insert(task, theirs);
                        if self.world.tasks[task].state.is_terminal() {
                            // A crash fault (or a cancel) ended it meanwhile: what the agent
                            // says now changes nothing.
                            return;
                        }
                        let mut working_seen = 0;
                        for r in a.reported {
                            if let wire::Reported::Status {
                                state: engine::lifecycle::TaskState::Working,
                                ..
                            } = &r
                            {
                                working_seen += 1;
                                if working_seen <= skip {
                                    continue;
                                }
                            }
                            if let Err(e) = self.apply(task, r) {
                                let detail = format!("agent `{name}` reported {e}");
                                self.world.external_error(
                                    ErrorCode::ProtocolError,
                                    detail,
                                    Some(task),
                                );
                                break;
                            }
                        }
                        return;
                    }
                    Err(why) => (
                        ErrorCode::ProtocolError,
                        format!("agent `{name}` answered {why}"),
                    ),
                }
            }
            Err(why) => {
                // A connection that broke may be a process that is dying: give it a moment to
                // be seen dead, so that the same agent is reported the same way every time.
                let exited = self.live[l].process.as_mut().and_then(|p| {
                    let deadline = Instant::now() + Duration::from_secs(2);
                    loop {
                        if let Some(status) = p.exited() {
                            return Some(status);
                        }
                        if Instant::now() >= deadline || why.starts_with("no answer within") {
                            return None;
                        }
                        std::thread::sleep(Duration::from_millis(20));
                    }
                });
                match exited {
                    // Nothing of the run's own (a port, a path, the log) in the report.
                    Some(status) => (
                        ErrorCode::AgentExited,
                        format!(
                            "agent `{name}`'s process exited ({status}) while a2a-sim waited on it; its output is in its log (--agent-logs)"
                        ),
                    ),
                    None if why.starts_with("no answer within") => (
                        ErrorCode::AgentTimeout,
                        format!("agent `{name}`: {why} (--agent-timeout)"),
                    ),
                    None => (ErrorCode::ProtocolError, format!("agent `{name}`: {why}")),
                }
            }
        };
        self.world.external_error(failure.0, failure.1, Some(task));
    }

    fn apply(&mut self, task: TaskIx, r: wire::Reported) -> Result<(), String> {
        match r {
            wire::Reported::Status { state, text, data } => self
                .world
                .external_status(task, state, text, data)
                .map_err(|e| format!("an illegal transition: {} → {}", e.from, e.to)),
            wire::Reported::Artifact { name, text, data } => {
                self.world.external_artifact(task, name, text, data);
                Ok(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_trace_id_names_its_task_and_nothing_else_does() {
        for ix in [0, 1, 41, 1 << 40] {
            assert_eq!(task_of_trace(trace_of(ix)), Some(ix));
        }
        assert_eq!(task_of_trace(0x4bf92f3577b34da6a3ce929d0e0e4736), None);
        assert_eq!(task_of_trace(0xa2a5_u128 << 112), None);
    }
}
