//! The world: every agent an in-process A2A server, one tick clock, one id source and one
//! scheduler for all. Pure: it reads a loaded [`Scenario`] and records what happens.
//!
//! The driver's steps run in order; each runs the scheduler as long as it blocks (behaviour.md
//! §2), and after the last one the scheduler runs to quiescence.

use std::borrow::Cow;

use crate::caller_context::CallerContext;
use crate::chain::{ChainRef, Chains};
use crate::delegation::Delegation;

use crate::faults::Faults;
use crate::ix::Ix;
use crate::program::{Op, compile};
use crate::record::*;
pub use crate::record::{Ids, RecordStreams};
pub(crate) use crate::run_state::Run;
use crate::scenario::*;
use crate::scheduler::{Activity, Scheduler};
use crate::symbols::Sym;
use crate::task::*;

/// A run in progress: what it records ([`Record`], which a `World` also reads as, through `Deref`),
/// the state that drives it (each task's place in its script, the scheduler, the compiled
/// handlers), what a server session paces its real time by, and a cache. Reports read the record
/// only; the engine alone writes it.
#[derive(Debug)]
pub struct World<'s> {
    /// What the run has recorded so far.
    pub record: Record<'s>,
    /// What drives the run on, beside what it records; never read by a report.
    pub(crate) state: RunState<'s>,
    /// The driver step running now (1-based): errors of work it drives go under it.
    pub step: usize,
    /// A server session's bookkeeping (`serve`): idle time and how events were paced in it.
    pub session: Session,
    pub(crate) cache: Cache,
}

/// What the engine keeps to drive a run on: each task's place in its script, the scheduler, the
/// compiled handlers, the driver callers' chains and verified tokens, and the requests counted
/// for faults. The record holds what happened; this holds what happens next.
#[derive(Debug)]
pub(crate) struct RunState<'s> {
    /// What the engine keeps of each task while it runs, beside the task's record.
    pub(crate) runs: Vec<Run>,
    pub(crate) scheduler: Scheduler,
    /// Each agent's handler, compiled.
    pub(crate) programs: Vec<Vec<Op<'s>>>,
    /// Each driver caller's own chain plus its id: the chain of the tasks it creates.
    pub(crate) caller_chains: Vec<ChainRef>,
    /// Each driver caller's own chain.
    pub(crate) caller_upstream: Vec<ChainRef>,
    /// Set when a driver `wait: N` activity runs.
    pub(crate) driver_woken: bool,
    /// The numbers of caller-supplied `ctx-N` ids not minted yet: the counter skips them.
    pub(crate) literal_contexts: std::collections::BTreeSet<u64>,
    /// Each driver caller's token as last verified (verified callers only).
    pub(crate) verified: Vec<Option<crate::token::VerifiedToken>>,
    /// Requests counted per agent, for the `calls` of faults.
    pub(crate) requests: Requests,
}

/// The requests made to each agent so far and, when a fault picks requests by number, the
/// request that created each task (a `slow` on the K-th call slows the task it opened).
#[derive(Debug, Default)]
pub(crate) struct Requests {
    pub per_agent: Vec<u32>,
    pub of_task: std::collections::BTreeMap<TaskIx, u32>,
}

/// A server session's bookkeeping: how much idle time the run skipped, and when.
#[derive(Debug, Default)]
pub struct Session {
    /// Ticks the clock jumped while idle (waiting for a timer, a `wait` or a slow agent): what a
    /// server session turns into real time.
    pub idle_ticks: u64,
    /// In a server session, each idle jump as (events recorded before it, the clock and
    /// `idle_ticks` after it): when each event and push happened in idle time, so that streams
    /// and webhooks are paced as the agent was slow.
    pub(crate) idle_marks: Option<Vec<(usize, u64, u64)>>,
    /// How the latest request a fault refused was refused (`None` when it was not): the wire
    /// answers `http_error` and `reset` as they say.
    pub last_refusal: Option<crate::faults::Refusal>,
    /// The task on whose behalf the next driver send is made: a real agent's call to a scripted
    /// agent, attributed to one of its tasks (see `external.rs`).
    pub(crate) on_behalf: Option<TaskIx>,
}

/// What the engine looks up rather than recomputes; never read by a report.
#[derive(Debug, Default)]
pub(crate) struct Cache {
    /// Each discovery query's scored cards, by tag set: the directory never changes during a
    /// run, and a large run asks the same few thousand queries 20,000 times.
    pub(crate) scored: Scored,
    /// The directory with the skills of the real agents' own cards, read when they started
    /// (see [`World::use_live_skills`]); the scenario's when there is none.
    pub(crate) live_directory: Option<Box<crate::discovery::Directory>>,
}

/// A running world reads as its record: reports, expectations and a server's answers take a
/// [`Record`], and `&world` is one. Only the engine writes it, through `world.record`.
impl<'s> std::ops::Deref for World<'s> {
    type Target = Record<'s>;

    fn deref(&self) -> &Record<'s> {
        &self.record
    }
}

impl<'s> World<'s> {
    /// The record alone, once the run is over: the state that drove it is dropped.
    pub fn into_record(self) -> Record<'s> {
        self.record
    }
}

/// What a task's turn leaves it doing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Next {
    /// Runnable: queue it again now.
    Again,
    /// Runnable from this tick on.
    At(u64),
    /// Paused, terminal, blocked on its children, or already queued.
    Stop,
}

/// Runs every step of the scenario, then the scheduler to quiescence.
pub fn run(scenario: &Scenario) -> World<'_> {
    run_with(scenario, &scenario.faults)
}

/// [`run`], recording only the streams asked for.
pub fn run_recording(scenario: &Scenario, streams: RecordStreams) -> World<'_> {
    drive(World::recording(scenario, &scenario.faults, streams))
}

/// Scored cards by query (see [`World::scored`]). Looked up, never walked.
pub(crate) type Scored = std::collections::HashMap<
    smallvec::SmallVec<[Sym; 4]>,
    Box<[(usize, u32)]>,
    foldhash::fast::FixedState,
>;

/// [`run`] under another fault schedule than the file's own.
pub fn run_with<'s>(scenario: &'s Scenario, faults: &'s Faults) -> World<'s> {
    drive(World::with_faults(scenario, faults))
}

/// The steps, then the scheduler to quiescence. Never inlined, so that profiles (and
/// `scripts/bench.py`'s instruction counts) can name the engine's share of a run.
#[inline(never)]
fn drive<'s>(mut world: World<'s>) -> World<'s> {
    let scenario = world.record.scenario;
    for (i, step) in scenario.steps.iter().enumerate() {
        world.step = i + 1;
        world.run_step(step);
    }
    world.run_until(|_| false);
    world
}

impl<'s> World<'s> {
    pub fn new(scenario: &'s Scenario) -> Self {
        World::with_faults(scenario, &scenario.faults)
    }

    pub fn with_faults(scenario: &'s Scenario, faults: &'s Faults) -> Self {
        World::recording(scenario, faults, RecordStreams::All)
    }

    fn recording(scenario: &'s Scenario, faults: &'s Faults, streams: RecordStreams) -> Self {
        let mut chains = Chains::default();
        let mut caller_chains = Vec::with_capacity(scenario.callers.len());
        let mut caller_upstream = Vec::with_capacity(scenario.callers.len());
        for c in &scenario.callers {
            let upstream = chains.from_slice(&c.delegation_chain);
            caller_upstream.push(upstream);
            caller_chains.push(chains.push(upstream, c.sym));
        }
        // Room for twice the common case (one task per send, a handful of events each), so the big
        // logs do not regrow and copy themselves while the run goes: a regrown log held its old
        // copy and its new one at once (8 MiB of the peak on 100,000 steps, where nested
        // delegations make 61,022 tasks of 59,404 sends). Room never written to costs no memory.
        let (sends, stream_sends) = scenario.steps.iter().fold((0, 0), |(n, k), s| match s {
            Step::Send(s) => (n + 1, k + usize::from(s.stream())),
            _ => (n, k),
        });
        let recorded = match streams {
            RecordStreams::All => sends,
            RecordStreams::StreamSteps => stream_sends,
        };
        // Crashes are queued first, in fault order, so each runs before anything else due at its tick.
        let mut scheduler = Scheduler::default();
        for (i, _, at) in faults.crashes() {
            scheduler.push(at, Activity::Crash(i));
        }
        World {
            record: Record {
                scenario,
                faults,
                ids: Ids::default(),
                tasks: Vec::with_capacity(sends * 2),
                chains,
                steps: Vec::with_capacity(scenario.steps.len()),
                denials: Vec::new(),
                errors: Vec::new(),
                pushes: Vec::new(),
                push_urls: Vec::new(),
                push_hosts: Vec::new(),
                deliveries: Vec::new(),
                calls: Vec::with_capacity(recorded * 2),
                events: Vec::with_capacity(recorded * 10),
                snapshots: Vec::with_capacity(recorded * 4),
                streams,
                alias_tasks: vec![None; scenario.aliases.len()],
                message_data: Vec::new(),
                delegations: Vec::new(),
                caller_tokens: std::collections::BTreeMap::new(),
                token_refusals: Vec::new(),
                refused_attempts: Vec::new(),
                warnings: Vec::new(),
                served: Vec::new(),
                steps_forgotten: 0,
            },
            state: RunState {
                runs: Vec::with_capacity(sends * 2),
                scheduler,
                programs: scenario
                    .agents
                    .iter()
                    .map(|a| compile(&a.handler))
                    .collect(),
                caller_chains,
                caller_upstream,
                driver_woken: false,
                literal_contexts: std::collections::BTreeSet::new(),
                verified: vec![None; scenario.callers.len()],
                requests: Requests::default(),
            },
            step: 0,
            session: Session::default(),
            cache: Cache::default(),
        }
    }

    /// A message to store, its data kept in the world's message data.
    pub(crate) fn message(
        &mut self,
        role: Role,
        text: Cow<'s, str>,
        data: Option<Cow<'s, DataMap>>,
    ) -> Message<'s> {
        let id = self.next_message_id();
        let data = data.map(|d| {
            self.record.message_data.push(crate::task::DataRef::from(d));
            Ix::new(self.record.message_data.len() - 1)
        });
        Message::new(id, role, text, data)
    }

    /// The delegation a task's handler named `result` (`as`), if that step ran.
    pub fn result_of(&self, task: TaskIx, result: ResultIx) -> Option<&Delegation<'s>> {
        let d = (*self.state.runs[task].results.get(result)?)?;
        Some(&self.record.delegations[d.get()])
    }

    /// The clock stops at `u64::MAX` (a `slow` window of `i64::MAX` ticks gets there): later
    /// events share that last tick rather than wrapping to zero.
    pub(crate) fn next_tick(&mut self) -> u64 {
        self.record.ids.tick = self.record.ids.tick.saturating_add(1);
        self.record.ids.tick
    }

    pub(crate) fn next_message_id(&mut self) -> u64 {
        self.record.ids.message += 1;
        self.record.ids.message
    }

    /// The delegation (its index in `delegations`) whose call created `task`, if one did.
    pub fn created_by_delegation(&self, task: TaskIx) -> Option<usize> {
        self.state.runs[task].via.map(|(d, _)| d.get())
    }

    pub fn driver_context(&self, caller: CallerIx) -> CallerContext<'s> {
        let c = &self.record.scenario.callers[caller];
        CallerContext {
            agent_id: c.sym,
            tenant: c.tenant,
            classification: c.classification,
            scopes: Cow::Borrowed(&c.scopes),
            delegation_chain: self.state.caller_upstream[caller],
        }
    }

    /// The context a server derives from its running task for a nested delegation: this agent,
    /// its tenant, the task's data classification and chain, and the scopes of
    /// [`nested_scopes`](Self::nested_scopes). Nothing the handler says can change it.
    pub(crate) fn nested_context(&self, task: TaskIx) -> CallerContext<'s> {
        let t = &self.record.tasks[task];
        let agent = &self.record.scenario.agents[t.agent()];
        CallerContext {
            agent_id: agent.sym,
            tenant: agent.tenant,
            classification: t.classification(),
            scopes: self.nested_scopes(task),
            delegation_chain: t.delegation_chain,
        }
    }

    /// The scopes a delegation from `task` carries (authority.md §1): under `own` the agent's
    /// own; under `attenuate` the agent's ∩ those of the context that created the task, in the
    /// agent's order. The one place they are computed (a minted token's `scope` claim is these).
    pub(crate) fn nested_scopes(&self, task: TaskIx) -> Cow<'s, [Sym]> {
        let t = &self.record.tasks[task];
        let agent = &self.record.scenario.agents[t.agent()];
        match agent.authority(&self.record.scenario.policy) {
            Authority::Own => Cow::Borrowed(&agent.scopes),
            Authority::Attenuate => {
                let kept = |s: &&Sym| t.scopes.contains(s);
                if agent.scopes.iter().all(|s| kept(&s)) {
                    Cow::Borrowed(&agent.scopes)
                } else {
                    Cow::Owned(agent.scopes.iter().filter(kept).copied().collect())
                }
            }
        }
    }

    pub(crate) fn error(&mut self, code: ErrorCode, detail: String, task: Option<TaskIx>) {
        self.record.errors.push(ErrorRecord::new(
            self.step,
            code,
            detail.into_boxed_str(),
            task,
        ));
    }

    pub(crate) fn agent_name(&self, task: TaskIx) -> &'s str {
        self.record.scenario.agents[self.record.tasks[task].agent()].name()
    }

    /// Queues a turn of `task` at `at`. A turn queued already is replaced: the task's next turn
    /// is this one, with its `ready_at` and a fresh seq, and the earlier entry is left stale in
    /// the scheduler (see [`Run::turn`]). A continuation due now on a `slow` agent waits the
    /// window's extra ticks.
    pub(crate) fn wake(&mut self, task: TaskIx, at: u64) {
        if self.record.tasks[task].state.is_terminal() {
            return;
        }
        let clock = self.clock();
        let at = if at <= clock {
            clock.saturating_add(self.slow_extra(task))
        } else {
            at
        };
        self.state.runs[task].turn = self.state.scheduler.push(at, Activity::Turn(task));
    }

    /// The extra ticks a continuation of `task` queued now would wait.
    fn slow_extra(&self, task: TaskIx) -> u64 {
        if self.record.faults.entries.is_empty() {
            return 0;
        }
        let call = self.state.requests.of_task.get(&task).copied();
        self.record
            .faults
            .slow_extra(self.record.tasks[task].agent(), self.clock(), call)
    }

    /// Runs activities in `(ready_at, seq)` order until `done` holds or nothing is left.
    pub(crate) fn run_until(&mut self, done: impl Fn(&World<'s>) -> bool) {
        while !done(self) {
            let Some(q) = self.state.scheduler.pop() else {
                return;
            };
            // Dead work is dropped before it can move the clock.
            if !self.is_live(&q) {
                continue;
            }
            // Idle time passes: the clock jumps, taking no tick of its own.
            if q.ready_at > self.record.ids.tick {
                self.session.idle_ticks += q.ready_at - self.record.ids.tick;
                self.record.ids.tick = q.ready_at;
                if let Some(marks) = &mut self.session.idle_marks {
                    marks.push((
                        self.record.events.len(),
                        self.record.ids.tick,
                        self.session.idle_ticks,
                    ));
                }
            }
            match q.activity {
                Activity::Turn(task) => {
                    self.state.runs[task].turn = 0;
                    self.turns(task, &done);
                }
                Activity::Timer {
                    delegation,
                    attempt,
                } => self.fire_timer(delegation, attempt),
                Activity::DriverWait => self.state.driver_woken = true,
                Activity::Crash(fault) => self.crash(fault),
            }
        }
    }

    /// Turns of one task, back to back while nothing else is due: the same order the scheduler
    /// would give, without a round trip through the heap for each step.
    fn turns(&mut self, task: TaskIx, done: &impl Fn(&World<'s>) -> bool) {
        loop {
            match self.turn(task) {
                Next::Stop => return,
                Next::At(at) => return self.wake(task, at),
                Next::Again => {
                    let clock = self.clock();
                    if self.state.runs[task].turn != 0
                        || done(self)
                        || self.state.scheduler.has_due(clock)
                        || self.slow_extra(task) > 0
                    {
                        return self.wake(task, clock);
                    }
                    self.state.scheduler.skip();
                }
            }
        }
    }

    /// Whether a queued activity still has work to do: not a turn that a later wake replaced or
    /// whose task ended, not the timer of a delegation that resolved.
    pub(crate) fn is_live(&self, q: &crate::scheduler::Queued) -> bool {
        match q.activity {
            Activity::Turn(task) => {
                self.state.runs[task].turn == q.seq && !self.record.tasks[task].state.is_terminal()
            }
            Activity::Timer {
                delegation,
                attempt,
            } => self.record.delegations[delegation].timer_is_live(attempt),
            Activity::DriverWait | Activity::Crash(_) => true,
        }
    }

    /// Whether a task has paused or ended at least `n` times.
    pub(crate) fn resolved(&self, task: TaskIx, n: u64) -> bool {
        u64::from(self.state.runs[task].resolutions) >= n
    }
}

impl<'s> World<'s> {
    /// The query's scored cards, computed once per tag set in a run.
    fn scored(&mut self, tags: &[Sym]) -> (&[(usize, u32)], &crate::discovery::Directory) {
        let scenario = self.record.scenario;
        let directory = self
            .cache
            .live_directory
            .as_deref()
            .unwrap_or(&scenario.directory);
        if !self.cache.scored.contains_key(tags) {
            let scores = directory.scores(tags);
            self.cache.scored.insert(
                smallvec::SmallVec::from_slice(tags),
                scores.into_vec().into(),
            );
        }
        (self.cache.scored.get(tags).map_or(&[], |s| s), directory)
    }

    /// Discovery ranks the real agents by the skills of their own cards (`live`: each one's
    /// skills, as tag sets); tags no query of the scenario names are left out.
    pub fn use_live_skills(&mut self, live: &std::collections::BTreeMap<AgentIx, Vec<Vec<Sym>>>) {
        let scenario = self.record.scenario;
        self.cache.live_directory = Some(Box::new(crate::discovery::Directory::with_skills(
            &scenario.agents,
            live,
        )));
        self.cache.scored.clear();
    }

    /// [`crate::discovery::discover`], with the run's scored queries.
    pub(crate) fn discover(
        &mut self,
        ctx: &CallerContext,
        tags: &[Sym],
        limit: Option<usize>,
    ) -> Vec<crate::discovery::Ranked> {
        let scenario = self.record.scenario;
        let (scores, directory) = self.scored(tags);
        crate::discovery::rank(ctx, scores, limit, directory, &scenario.agents)
    }

    /// [`crate::discovery::top`], with the run's scored queries.
    pub(crate) fn discover_top(&mut self, ctx: &CallerContext, tags: &[Sym]) -> Option<AgentIx> {
        let (scores, directory) = self.scored(tags);
        crate::discovery::best(ctx, scores, directory)
    }
}
