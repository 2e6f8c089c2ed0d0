//! The world: every agent an in-process A2A server, one tick clock, one id source and one
//! scheduler for all. Pure: it reads a loaded [`Scenario`] and records what happens.
//!
//! The driver's steps run in order; each runs the scheduler as long as it blocks (behaviour.md
//! §2), and after the last one the scheduler runs to quiescence.

use std::borrow::Cow;

use crate::engine::admission::CallerContext;
use crate::engine::chain::{ChainRef, Chains};
use crate::engine::delegation::Delegation;
use crate::engine::delivery::Delivery;
use crate::engine::faults::Faults;
use crate::engine::ix::Ix;
use crate::engine::program::{Op, compile};
use crate::engine::record::*;
pub(crate) use crate::engine::run_state::Run;
use crate::engine::scenario::*;
use crate::engine::scheduler::{Activity, Scheduler};
use crate::engine::symbols::Sym;
use crate::engine::task::*;

/// World-wide counters, one per kind of id; an id is drawn only when its object is created.
#[derive(Debug, Default, Clone)]
pub struct Ids {
    /// The clock: virtual time in ticks.
    pub tick: u64,
    pub task: u64,
    pub context: u64,
    pub message: u64,
    pub artifact: u64,
}

#[derive(Debug)]
pub struct World<'s> {
    pub scenario: &'s Scenario,
    /// The faults this run consults: the file's own, or a schedule `explore` drew.
    pub faults: &'s Faults,
    pub ids: Ids,
    pub tasks: Vec<Task<'s>>,
    pub chains: Chains,
    pub steps: Vec<StepRecord>,
    pub denials: Vec<DenialRecord>,
    pub errors: Vec<ErrorRecord>,
    pub pushes: Vec<Push>,
    pub push_urls: Vec<String>,
    /// The host of each of `push_urls`, as the parser normalised it.
    pub push_hosts: Vec<String>,
    /// Webhook delivery attempts, in the order the status changes happened (the report sorts them
    /// by tick).
    pub deliveries: Vec<Delivery>,
    pub calls: Vec<Call>,
    pub events: Vec<Event>,
    /// Whose events `calls` and `events` hold (see [`World::streams`]).
    pub(crate) streams: RecordStreams,
    /// The counts of each Task event (see [`World::event_kind`]).
    pub(crate) snapshots: Vec<Snapshot>,
    /// The task each alias's send created, if any (see [`World::alias_task`]).
    pub(crate) alias_tasks: Vec<Option<Ix>>,
    /// The data of the messages that have some, in the order they were stored (see
    /// [`World::message_data`]).
    pub(crate) message_data: Vec<&'s DataMap>,
    /// Every delegation and fan-out a handler made, in the order they were made.
    pub delegations: Vec<Delegation<'s>>,
    /// What the engine keeps of each task while it runs, beside the task's record.
    pub(crate) runs: Vec<Run>,
    pub(crate) scheduler: Scheduler,
    /// The driver step running now (1-based): errors of work it drives go under it.
    pub(crate) step: usize,
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
    pub(crate) verified: Vec<Option<crate::engine::token::VerifiedToken>>,
    /// The verified token of the caller that created each task, for tasks created by one.
    pub caller_tokens: std::collections::BTreeMap<TaskIx, crate::engine::token::VerifiedToken>,
    /// The check that failed, for each nested token a callee refused (a member's `refused`).
    pub(crate) token_refusals: Vec<String>,
    /// Requests a server session ran as steps after the scenario's own (`serve`; empty in `run`).
    pub served: Vec<&'s Step>,
    /// How many of the oldest steps a server session wrote out and dropped: `steps` and `served`
    /// hold the rest (see [`World::forget_steps`]; 0 in `run`).
    pub steps_forgotten: usize,
    /// Ticks the clock jumped while idle (waiting for a timer, a `wait` or a slow agent): what a
    /// server session turns into real time.
    pub idle_ticks: u64,
    /// In a server session, each idle jump as (events recorded before it, the clock and
    /// `idle_ticks` after it): when each event and push happened in idle time, so that streams
    /// and webhooks are paced as the agent was slow.
    pub(crate) idle_marks: Option<Vec<(usize, u64, u64)>>,
    /// Each discovery query's scored cards, by tag set: the directory never changes during a
    /// run, and a large run asks the same few thousand queries 20,000 times.
    pub(crate) scored: Scored,
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

/// Which calls' stream events a run records. Every call's are the bulk of a large run's record
/// (five in six events on 100,000 steps), and only `--format a2a-stream` and a server show them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RecordStreams {
    /// Every call's: sends, streams, replies and nested delegations.
    #[default]
    All,
    /// Only those of the driver's `stream` steps, which are their step's result: what every report
    /// but the stream exports shows. The other calls leave no record at all.
    StreamSteps,
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
    let scenario = world.scenario;
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
            runs: Vec::with_capacity(sends * 2),
            scheduler,
            step: 0,
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
            caller_tokens: std::collections::BTreeMap::new(),
            token_refusals: Vec::new(),
            served: Vec::new(),
            steps_forgotten: 0,
            idle_ticks: 0,
            idle_marks: None,
            scored: Scored::default(),
        }
    }

    /// Whose stream events the run recorded: under [`RecordStreams::StreamSteps`], `calls` and
    /// `events` hold the driver's `stream` steps' calls only.
    pub fn streams(&self) -> RecordStreams {
        self.streams
    }

    /// The events of one call, in order (its range of the run's events holds other calls' too).
    pub fn call_events(&self, call: CallId) -> impl Iterator<Item = &Event> + Clone {
        let c = &self.calls[call];
        self.events[c.first_event as usize..c.end_event as usize]
            .iter()
            .filter(move |e| e.call() == call)
    }

    /// A stored message's data, if it has some.
    pub fn message_data(&self, m: &Message) -> Option<&'s DataMap> {
        m.data.map(|d| self.message_data[d.get()])
    }

    /// A message to store, its data kept in the world's message data.
    pub(crate) fn message(
        &mut self,
        role: Role,
        text: Cow<'s, str>,
        data: Option<&'s DataMap>,
    ) -> Message<'s> {
        let id = self.next_message_id();
        let data = data.map(|d| {
            self.message_data.push(d);
            Ix::new(self.message_data.len() - 1)
        });
        Message::new(id, role, text, data)
    }

    /// The task an alias's send created, if it created one.
    pub fn alias_task(&self, alias: AliasIx) -> Option<TaskIx> {
        self.alias_tasks[alias].map(Ix::get)
    }

    /// What an event records.
    pub fn event_kind(&self, e: &Event) -> EventKind {
        e.kind(&self.snapshots)
    }

    /// The task an event is of: its call's.
    pub fn event_task(&self, e: &Event) -> TaskIx {
        self.calls[e.call()].task as usize
    }

    /// The clock now.
    pub fn clock(&self) -> u64 {
        self.ids.tick
    }

    /// The delegation a task's handler named `result` (`as`), if that step ran.
    pub fn result_of(&self, task: TaskIx, result: ResultIx) -> Option<&Delegation<'s>> {
        let d = (*self.runs[task].results.get(result)?)?;
        Some(&self.delegations[d.get()])
    }

    /// The clock stops at `u64::MAX` (a `slow` window of `i64::MAX` ticks gets there): later
    /// events share that last tick rather than wrapping to zero.
    pub(crate) fn next_tick(&mut self) -> u64 {
        self.ids.tick = self.ids.tick.saturating_add(1);
        self.ids.tick
    }

    pub(crate) fn next_message_id(&mut self) -> u64 {
        self.ids.message += 1;
        self.ids.message
    }

    pub(crate) fn driver_context(&self, caller: CallerIx) -> CallerContext<'s> {
        let c = &self.scenario.callers[caller];
        CallerContext {
            agent_id: c.sym,
            tenant: c.tenant,
            classification: c.classification,
            scopes: Cow::Borrowed(&c.scopes),
            delegation_chain: self.caller_upstream[caller],
        }
    }

    /// The context a server derives from its running task for a nested delegation: this agent,
    /// its tenant, the task's data classification and chain, and the scopes of
    /// [`nested_scopes`](Self::nested_scopes). Nothing the handler says can change it.
    pub(crate) fn nested_context(&self, task: TaskIx) -> CallerContext<'s> {
        let t = &self.tasks[task];
        let agent = &self.scenario.agents[t.agent()];
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
        let t = &self.tasks[task];
        let agent = &self.scenario.agents[t.agent()];
        match agent.authority(&self.scenario.policy) {
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
        self.errors.push(ErrorRecord::new(
            self.step,
            code,
            detail.into_boxed_str(),
            task,
        ));
    }

    pub(crate) fn agent_name(&self, task: TaskIx) -> &'s str {
        self.scenario.agents[self.tasks[task].agent()].name()
    }

    /// Queues a turn of `task` at `at`, unless one is queued already. A continuation due now on a
    /// `slow` agent waits the window's extra ticks.
    pub(crate) fn wake(&mut self, task: TaskIx, at: u64) {
        let clock = self.clock();
        let at = if at <= clock {
            clock.saturating_add(self.slow_extra(task))
        } else {
            at
        };
        let run = &mut self.runs[task];
        if !run.queued && !self.tasks[task].state.is_terminal() {
            run.queued = true;
            self.scheduler.push(at, Activity::Turn(task));
        }
    }

    /// The extra ticks a continuation of `task` queued now would wait.
    fn slow_extra(&self, task: TaskIx) -> u64 {
        if self.faults.entries.is_empty() {
            return 0;
        }
        self.faults
            .slow_extra(self.tasks[task].agent(), self.clock())
    }

    /// Runs activities in `(ready_at, seq)` order until `done` holds or nothing is left.
    pub(crate) fn run_until(&mut self, done: impl Fn(&World<'s>) -> bool) {
        while !done(self) {
            let Some(q) = self.scheduler.pop() else {
                return;
            };
            // Dead work is dropped before it can move the clock.
            if !self.is_live(q.activity) {
                continue;
            }
            // Idle time passes: the clock jumps, taking no tick of its own.
            if q.ready_at > self.ids.tick {
                self.idle_ticks += q.ready_at - self.ids.tick;
                self.ids.tick = q.ready_at;
                if let Some(marks) = &mut self.idle_marks {
                    marks.push((self.events.len(), self.ids.tick, self.idle_ticks));
                }
            }
            match q.activity {
                Activity::Turn(task) => {
                    self.runs[task].queued = false;
                    self.turns(task, &done);
                }
                Activity::Timer {
                    delegation,
                    attempt,
                } => self.fire_timer(delegation, attempt),
                Activity::DriverWait => self.driver_woken = true,
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
                    if self.runs[task].queued
                        || done(self)
                        || self.scheduler.has_due(clock)
                        || self.slow_extra(task) > 0
                    {
                        return self.wake(task, clock);
                    }
                    self.scheduler.skip();
                }
            }
        }
    }

    fn is_live(&self, activity: Activity) -> bool {
        match activity {
            Activity::Turn(task) => !self.tasks[task].state.is_terminal(),
            Activity::Timer {
                delegation,
                attempt,
            } => self.delegations[delegation].timer_is_live(attempt),
            Activity::DriverWait | Activity::Crash(_) => true,
        }
    }

    /// Whether a task has paused or ended at least `n` times.
    pub(crate) fn resolved(&self, task: TaskIx, n: u64) -> bool {
        u64::from(self.runs[task].resolutions) >= n
    }
}

impl<'s> World<'s> {
    /// The query's scored cards, computed once per tag set in a run.
    fn scored(&mut self, tags: &[Sym]) -> &[(usize, u32)] {
        if !self.scored.contains_key(tags) {
            let scores = self.scenario.directory.scores(tags);
            self.scored.insert(
                smallvec::SmallVec::from_slice(tags),
                scores.into_vec().into(),
            );
        }
        self.scored.get(tags).map_or(&[], |s| s)
    }

    /// [`crate::engine::discovery::discover`], with the run's scored queries.
    pub(crate) fn discover(
        &mut self,
        ctx: &CallerContext,
        tags: &[Sym],
        limit: Option<usize>,
    ) -> Vec<crate::engine::discovery::Ranked> {
        let scenario = self.scenario;
        let scores = self.scored(tags);
        crate::engine::discovery::rank(ctx, scores, limit, &scenario.directory, &scenario.agents)
    }

    /// [`crate::engine::discovery::top`], with the run's scored queries.
    pub(crate) fn discover_top(&mut self, ctx: &CallerContext, tags: &[Sym]) -> Option<AgentIx> {
        let scenario = self.scenario;
        let scores = self.scored(tags);
        crate::engine::discovery::best(ctx, scores, &scenario.directory)
    }
}
