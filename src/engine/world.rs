//! The world: every agent an in-process A2A server, one tick clock and one id source for all.
//! Pure: it reads a loaded [`Scenario`] and records what happens; rendering is elsewhere.

use std::borrow::Cow;

use crate::engine::admission::{CallerContext, Denial, check_delegation};
use crate::engine::chain::{ChainRef, Chains};
use crate::engine::discovery::{self, discover};
use crate::engine::lifecycle::TaskState;
use crate::engine::push::check_push_url;
use crate::engine::record::*;
use crate::engine::scenario::*;
use crate::engine::task::*;

/// World-wide counters, one per kind of id; an id is drawn only when its object is created.
#[derive(Debug, Default, Clone)]
pub struct Ids {
    pub tick: u64,
    pub task: u64,
    pub context: u64,
    pub message: u64,
    pub artifact: u64,
}

#[derive(Debug)]
pub struct World<'s> {
    pub scenario: &'s Scenario,
    pub ids: Ids,
    pub tasks: Vec<Task<'s>>,
    pub chains: Chains,
    pub steps: Vec<StepRecord>,
    pub denials: Vec<DenialRecord>,
    pub errors: Vec<ErrorRecord>,
    pub pushes: Vec<Push>,
    pub push_urls: Vec<String>,
    pub calls: Vec<Call>,
    pub events: Vec<Event>,
    /// The task each alias's send created, if any.
    pub alias_tasks: Vec<Option<TaskIx>>,
    /// Each driver caller's own chain plus its id: the chain of the tasks it creates.
    caller_chains: Vec<ChainRef>,
    /// Each driver caller's own chain.
    caller_upstream: Vec<ChainRef>,
    /// The handler stack, kept between runs so it is allocated once.
    frames: Vec<Frame>,
}

/// Runs every step of the scenario.
pub fn run(scenario: &Scenario) -> World<'_> {
    let mut world = World::new(scenario);
    for (i, step) in scenario.steps.iter().enumerate() {
        world.run_step(i + 1, step);
    }
    world
}

/// Why `set_status` refused a change.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IllegalTransition {
    pub from: TaskState,
    pub to: TaskState,
}

enum Advance {
    /// The handler paused, reached a terminal state, or the task was failed.
    Done,
    /// A nested task was created; run it before this handler goes on.
    Delegated {
        child: TaskIx,
        call: CallId,
        on_error: OnError,
    },
}

/// What a new task starts from. Its chain is built by the server from the caller's verified
/// context before this is filled in; nothing else can set it.
struct NewTask<'s> {
    agent: AgentIx,
    owner: Owner,
    delegation_chain: ChainRef,
    classification: Level,
    parent: Option<TaskIx>,
    /// `None`: mint a fresh `ctx-N`.
    context: Option<Context<'s>>,
    text: Cow<'s, str>,
    data: Option<&'s DataMap>,
}

#[derive(Debug)]
struct Frame {
    task: TaskIx,
    call: CallId,
    /// What the parent's `delegate` step does when this (nested) task does not complete.
    on_error: OnError,
}

impl<'s> World<'s> {
    pub fn new(scenario: &'s Scenario) -> Self {
        let mut chains = Chains::default();
        let mut caller_chains = Vec::with_capacity(scenario.callers.len());
        let mut caller_upstream = Vec::with_capacity(scenario.callers.len());
        for c in &scenario.callers {
            let upstream = chains.from_slice(&c.delegation_chain);
            caller_upstream.push(upstream);
            caller_chains.push(chains.push(upstream, c.sym));
        }
        // Room for the common case (one task per send, a handful of events each), so the big logs
        // do not regrow and copy themselves while the run goes.
        let sends = scenario
            .steps
            .iter()
            .filter(|s| matches!(s, Step::Send(_)))
            .count();
        World {
            scenario,
            ids: Ids::default(),
            tasks: Vec::with_capacity(sends),
            chains,
            steps: Vec::with_capacity(scenario.steps.len()),
            denials: Vec::new(),
            errors: Vec::new(),
            pushes: Vec::new(),
            push_urls: Vec::new(),
            calls: Vec::with_capacity(sends),
            events: Vec::with_capacity(sends * 5),
            alias_tasks: vec![None; scenario.aliases.len()],
            caller_chains,
            caller_upstream,
            frames: Vec::new(),
        }
    }

    /// The events of one call, in order (its range of the run's events holds nested calls' too).
    pub fn call_events(&self, call: CallId) -> impl Iterator<Item = &Event> + Clone {
        let c = &self.calls[call];
        self.events[c.first_event..c.end_event]
            .iter()
            .filter(move |e| e.call() == call)
    }

    fn next_tick(&mut self) -> u64 {
        self.ids.tick += 1;
        self.ids.tick
    }

    fn next_message_id(&mut self) -> u64 {
        self.ids.message += 1;
        self.ids.message
    }

    fn driver_context(&self, caller: CallerIx) -> CallerContext<'s> {
        let c = &self.scenario.callers[caller];
        CallerContext {
            agent_id: c.sym,
            tenant: c.tenant,
            classification: c.classification,
            scopes: &c.scopes,
            delegation_chain: self.caller_upstream[caller],
        }
    }

    /// The context a server derives from its running task for a nested delegation: this agent,
    /// its tenant and scopes, the task's data classification and chain. Nothing the handler says
    /// can change it.
    fn nested_context(&self, task: TaskIx) -> CallerContext<'s> {
        let t = &self.tasks[task];
        let agent = &self.scenario.agents[t.agent];
        CallerContext {
            agent_id: agent.sym,
            tenant: agent.tenant,
            classification: t.classification,
            scopes: &agent.scopes,
            delegation_chain: t.delegation_chain,
        }
    }

    /// The `task_not_found` detail for an alias whose send created no task.
    fn no_task(&self, alias: AliasIx) -> String {
        format!(
            "`{}` names no task: its send created none",
            self.scenario.aliases[alias]
        )
    }

    fn error(&mut self, step: usize, code: ErrorCode, detail: String, task: Option<TaskIx>) {
        self.errors.push(ErrorRecord {
            step,
            code,
            detail,
            task,
        });
    }

    fn record(&mut self, caller: Option<CallerIx>, result: StepResult) {
        self.steps.push(StepRecord { caller, result });
    }

    fn run_step(&mut self, n: usize, step: &'s Step) {
        let caller = step.caller();
        let result = match step {
            Step::Discover {
                caller,
                tags,
                limit,
            } => {
                let ctx = self.driver_context(*caller);
                StepResult::Ranking(discover(
                    &ctx,
                    tags,
                    *limit,
                    &self.scenario.directory,
                    &self.scenario.agents,
                ))
            }
            Step::Send(send) => self.driver_send(n, send),
            Step::Reply {
                caller,
                task,
                message,
            } => self.reply(n, *caller, task, message),
            Step::SetPushConfig {
                caller,
                task,
                agent,
                push,
            } => self.driver_set_push_config(n, *caller, task, *agent, push),
            Step::Cancel { caller, task } => self.cancel(n, *caller, task),
            Step::Wait(_) => StepResult::Nothing,
            Step::Get { caller, task } => match self.visible_task(n, *caller, task) {
                Some(t) => StepResult::Task {
                    task: t,
                    state: self.tasks[t].state,
                    stream: None,
                },
                None => StepResult::Nothing,
            },
        };
        self.record(caller, result);
    }

    /// The task a step names, if the caller may see it; otherwise `task_not_found` is recorded.
    /// A task that exists but belongs to someone else is reported exactly like an unknown id.
    fn visible_task(&mut self, step: usize, caller: CallerIx, task: &TaskRef) -> Option<TaskIx> {
        let found = self.lookup_task(caller, task);
        if found.is_none() {
            let detail = match task {
                TaskRef::Alias(a) => match self.alias_tasks[*a] {
                    Some(t) => format!("task `{}` not found", task_id(t)),
                    None => self.no_task(*a),
                },
                TaskRef::Id(id) => format!("task `{id}` not found"),
            };
            self.error(step, ErrorCode::TaskNotFound, detail, None);
        }
        found
    }

    fn lookup_task(&self, caller: CallerIx, task: &TaskRef) -> Option<TaskIx> {
        let ix = match task {
            TaskRef::Alias(a) => self.alias_tasks[*a]?,
            TaskRef::Id(id) => parse_task_id(id).filter(|&ix| ix < self.tasks.len())?,
        };
        let c = &self.scenario.callers[caller];
        (self.tasks[ix].owner
            == Owner {
                id: c.sym,
                tenant: c.tenant,
            })
        .then_some(ix)
    }

    fn driver_send(&mut self, n: usize, send: &'s Send) -> StepResult {
        let context = match &send.context {
            ContextSpec::Fresh => None,
            ContextSpec::Literal(c) => Some(Context::Named(c)),
            // A context id is a correlation key, not a credential: any earlier task's will do.
            ContextSpec::Of(a) => match self.alias_tasks[*a] {
                Some(t) => Some(self.tasks[t].context),
                None => {
                    let detail = self.no_task(*a);
                    self.error(n, ErrorCode::TaskNotFound, detail, None);
                    return StepResult::Nothing;
                }
            },
        };
        let ctx = self.driver_context(send.caller);
        let Some(callee) = self.resolve_target(n, &ctx, &send.to) else {
            return StepResult::Nothing;
        };
        let denials = check_delegation(
            &ctx,
            &self.scenario.agents[callee],
            self.scenario,
            &self.chains,
        );
        if !denials.is_empty() {
            return StepResult::Denied(self.deny(n, ctx.agent_id, callee, denials));
        }
        let c = &self.scenario.callers[send.caller];
        let (owner, chain) = (
            Owner {
                id: c.sym,
                tenant: c.tenant,
            },
            self.caller_chains[send.caller],
        );
        let new = NewTask {
            agent: callee,
            owner,
            delegation_chain: chain,
            classification: ctx.classification,
            parent: None,
            context,
            text: Cow::Borrowed(send.message.text.as_str()),
            data: send.message.data.as_ref(),
        };
        let (task, call) = self.create_task(n, new);
        if let Some(push) = &send.push {
            self.set_push_config(n, callee, Some(task), push);
        }
        self.run_handler(n, task, call);
        if let Some(a) = send.alias {
            self.alias_tasks[a] = Some(task);
        }
        StepResult::Task {
            task,
            state: self.tasks[task].state,
            stream: send.stream.then_some(call),
        }
    }

    fn deny(
        &mut self,
        step: usize,
        caller: crate::engine::symbols::Sym,
        callee: AgentIx,
        denials: Vec<Denial>,
    ) -> Vec<crate::engine::admission::DenialCode> {
        let codes = denials.iter().map(|d| d.code).collect();
        self.denials.push(DenialRecord {
            step,
            caller,
            callee,
            denials,
        });
        codes
    }

    fn resolve_target(&mut self, step: usize, ctx: &CallerContext, to: &Target) -> Option<AgentIx> {
        match to {
            Target::Agent(ix) => Some(*ix),
            Target::Discover(tags) => {
                let found =
                    discovery::top(ctx, tags, &self.scenario.directory, &self.scenario.agents);
                if found.is_none() {
                    let names = &self.scenario.symbols;
                    let list = tags
                        .iter()
                        .map(|&t| names.name(t))
                        .collect::<Vec<_>>()
                        .join(", ");
                    let detail = format!(
                        "no agent that `{}` may use matches the tags [{list}]",
                        names.name(ctx.agent_id)
                    );
                    self.error(step, ErrorCode::NoCandidate, detail, None);
                }
                found
            }
        }
    }

    /// Creates a task in `submitted` at the next tick and opens its call's stream with it.
    fn create_task(&mut self, step: usize, new: NewTask<'s>) -> (TaskIx, CallId) {
        let NewTask {
            agent,
            owner,
            delegation_chain,
            classification,
            parent,
            context,
            text,
            data,
        } = new;
        let context = context.unwrap_or_else(|| {
            self.ids.context += 1;
            Context::Minted(self.ids.context)
        });
        self.ids.task += 1;
        let tick = self.next_tick();
        let message = Message {
            id: self.next_message_id(),
            role: Role::User,
            text,
            data,
        };
        let ix = self.tasks.len();
        self.tasks.push(Task {
            context,
            agent,
            owner,
            delegation_chain,
            parent,
            classification,
            state: TaskState::Submitted,
            history: smallvec::smallvec![StatusEntry {
                tick,
                state: TaskState::Submitted,
                message: Some(0)
            }],
            messages: smallvec::smallvec![message],
            artifacts: smallvec::SmallVec::new(),
            pc: 0,
            push: None,
            attempt: 1,
            decisions: Vec::new(),
            return_immediately: false,
        });
        let call = self.open_call(step, ix);
        (ix, call)
    }

    fn open_call(&mut self, step: usize, task: TaskIx) -> CallId {
        let call = self.calls.len();
        let first_event = self.events.len();
        self.calls.push(Call {
            task,
            step,
            first_event,
            end_event: first_event,
        });
        self.snapshot(call, task);
        call
    }

    fn snapshot(&mut self, call: CallId, task: TaskIx) {
        let t = &self.tasks[task];
        let kind = EventKind::Task {
            history: t.history.len(),
            messages: t.messages.len(),
            artifacts: t.artifacts.len(),
        };
        self.events.push(Event::new(call, task, kind));
    }

    /// The only way a state changes: checks the lifecycle table, appends one history entry at the
    /// next tick, and — as a side effect the handler cannot skip — records a push when the task has
    /// a push config. A refused change consumes nothing.
    pub fn set_status(
        &mut self,
        task: TaskIx,
        state: TaskState,
        message: Option<Cow<'s, str>>,
        call: Option<CallId>,
    ) -> Result<(), IllegalTransition> {
        let from = self.tasks[task].state;
        if !from.can_move_to(state) {
            return Err(IllegalTransition { from, to: state });
        }
        let tick = self.next_tick();
        let message = message.map(|text| {
            let id = self.next_message_id();
            let t = &mut self.tasks[task];
            t.messages.push(Message {
                id,
                role: Role::Agent,
                text,
                data: None,
            });
            t.messages.len() - 1
        });
        let t = &mut self.tasks[task];
        t.state = state;
        t.history.push(StatusEntry {
            tick,
            state,
            message,
        });
        let entry = t.history.len() - 1;
        if let Some(push) = &t.push {
            self.pushes.push(Push {
                tick,
                task,
                url: push.url,
                state,
            });
        }
        if let Some(call) = call {
            self.events
                .push(Event::new(call, task, EventKind::Status(entry)));
        }
        Ok(())
    }

    /// Fails a non-terminal task so that nobody waits on it forever.
    fn fail(&mut self, task: TaskIx, why: String, call: Option<CallId>) {
        // Every non-terminal state may move to failed; a terminal task needs no failing.
        let _ = self.set_status(task, TaskState::Failed, Some(Cow::Owned(why)), call);
    }

    /// Runs (or resumes) a task's handler, and every nested delegation it makes, to a pause or a
    /// terminal state. Nesting uses an explicit stack, so depth is bounded by the file, not by the
    /// thread's stack.
    fn run_handler(&mut self, step: usize, task: TaskIx, call: CallId) {
        let mut stack = std::mem::take(&mut self.frames);
        stack.push(Frame {
            task,
            call,
            on_error: OnError::Fail,
        });
        let mut finished_child: Option<(TaskIx, OnError)> = None;
        while let Some(frame) = stack.last() {
            let (task, call) = (frame.task, frame.call);
            let advance = match finished_child.take() {
                Some((child, on_error)) if !self.child_succeeded(task, child, call, on_error) => {
                    Advance::Done
                }
                _ => self.advance(step, task, call),
            };
            match advance {
                Advance::Delegated {
                    child,
                    call,
                    on_error,
                } => stack.push(Frame {
                    task: child,
                    call,
                    on_error,
                }),
                Advance::Done => {
                    self.snapshot(call, task);
                    self.calls[call].end_event = self.events.len();
                    let on_error = stack.pop().map_or(OnError::Fail, |f| f.on_error);
                    if !stack.is_empty() {
                        finished_child = Some((task, on_error));
                    }
                }
            }
        }
        self.frames = stack;
    }

    /// After a nested task stopped: did the delegation succeed? If not, a paused child is canceled
    /// (no abandoned child waits forever) and, under `on_error: fail`, the parent fails.
    /// Returns whether the parent's script goes on.
    fn child_succeeded(
        &mut self,
        parent: TaskIx,
        child: TaskIx,
        call: CallId,
        on_error: OnError,
    ) -> bool {
        let state = self.tasks[child].state;
        if state == TaskState::Completed {
            return true;
        }
        let agents = &self.scenario.agents;
        let parent_agent = agents[self.tasks[parent].agent].name();
        let child_agent = agents[self.tasks[child].agent].name();
        if state.is_pause() {
            let why =
                format!("canceled by `{parent_agent}`: the delegation was abandoned while {state}");
            let _ = self.set_status(child, TaskState::Canceled, Some(Cow::Owned(why)), None);
        }
        if on_error == OnError::Continue {
            return true;
        }
        let why = format!(
            "delegation to `{child_agent}` did not complete: {} ended {state}",
            task_id(child)
        );
        self.fail(parent, why, Some(call));
        false
    }

    /// Runs handler steps until the task pauses, ends, or delegates.
    fn advance(&mut self, step: usize, task: TaskIx, call: CallId) -> Advance {
        let script = &self.scenario.agents[self.tasks[task].agent].handler;
        loop {
            let t = &mut self.tasks[task];
            if t.state.is_terminal() {
                return Advance::Done;
            }
            let Some(hstep) = script.get(t.pc) else {
                let detail = format!(
                    "the handler of `{}` ran out of steps with {} in {}; a script must end in a terminal state or pause",
                    self.scenario.agents[t.agent].name(),
                    task_id(task),
                    t.state
                );
                self.error(step, ErrorCode::HandlerIncomplete, detail, Some(task));
                self.fail(
                    task,
                    "handler bug: the script ended without a terminal state".into(),
                    Some(call),
                );
                return Advance::Done;
            };
            t.pc += 1;
            let handler_step = t.pc;
            match hstep {
                HandlerStep::Status(state, text) => {
                    let message = text.as_deref().map(Cow::Borrowed);
                    match self.set_status(task, *state, message, Some(call)) {
                        Ok(()) if state.is_terminal() || state.is_pause() => return Advance::Done,
                        Ok(()) => {}
                        Err(IllegalTransition { from, to }) => {
                            let agent = self.scenario.agents[self.tasks[task].agent].name();
                            let detail = format!(
                                "the handler of `{agent}` asked for {from} -> {to} at handler step {handler_step} of {}",
                                task_id(task)
                            );
                            self.error(step, ErrorCode::IllegalTransition, detail, Some(task));
                            let why = format!(
                                "handler bug: illegal transition {from} -> {to} (handler step {handler_step})"
                            );
                            self.fail(task, why, Some(call));
                            return Advance::Done;
                        }
                    }
                }
                HandlerStep::Message(text) => {
                    let id = self.next_message_id();
                    let t = &mut self.tasks[task];
                    t.messages.push(Message {
                        id,
                        role: Role::Agent,
                        text: Cow::Borrowed(text),
                        data: None,
                    });
                    let ix = t.messages.len() - 1;
                    self.events
                        .push(Event::new(call, task, EventKind::Message(ix)));
                }
                HandlerStep::Artifact(spec) => {
                    self.ids.artifact += 1;
                    let t = &mut self.tasks[task];
                    t.artifacts.push(Artifact::scripted(self.ids.artifact, spec));
                    let ix = t.artifacts.len() - 1;
                    self.events
                        .push(Event::new(call, task, EventKind::Artifact(ix)));
                }
                HandlerStep::FanOut(_) | HandlerStep::Wait(_) | HandlerStep::When(_) => {}
                HandlerStep::Delegate(d) => match self.delegate(step, task, d) {
                    Ok((child, child_call)) => {
                        return Advance::Delegated {
                            child,
                            call: child_call,
                            on_error: d.on_error,
                        };
                    }
                    Err(why) if d.on_error == OnError::Fail => {
                        self.fail(task, why, Some(call));
                        return Advance::Done;
                    }
                    Err(_) => {}
                },
            }
        }
    }

    /// A nested delegation from a running task: admission with the derived context, then a new
    /// task on the callee with a fresh context id and this task as parent.
    fn delegate(
        &mut self,
        step: usize,
        task: TaskIx,
        d: &'s Delegate,
    ) -> Result<(TaskIx, CallId), String> {
        let ctx = self.nested_context(task);
        let Some(callee) = self.resolve_target(step, &ctx, &d.to) else {
            return Err("delegation failed: no agent matches the tags".to_string());
        };
        let denials = check_delegation(
            &ctx,
            &self.scenario.agents[callee],
            self.scenario,
            &self.chains,
        );
        let callee_name = self.scenario.agents[callee].name();
        if !denials.is_empty() {
            let codes = self.deny(step, ctx.agent_id, callee, denials);
            let list = codes
                .iter()
                .map(|c| c.as_str())
                .collect::<Vec<_>>()
                .join(", ");
            return Err(format!("delegation to `{callee_name}` denied: {list}"));
        }
        let owner = Owner {
            id: ctx.agent_id,
            tenant: ctx.tenant,
        };
        let chain = self.chains.push(ctx.delegation_chain, ctx.agent_id);
        let new = NewTask {
            agent: callee,
            owner,
            delegation_chain: chain,
            classification: ctx.classification,
            parent: Some(task),
            context: None,
            text: Cow::Borrowed(d.message.text.as_str()),
            data: None,
        };
        Ok(self.create_task(step, new))
    }

    fn reply(
        &mut self,
        n: usize,
        caller: CallerIx,
        task: &TaskRef,
        message: &'s MessageSpec,
    ) -> StepResult {
        let Some(ix) = self.visible_task(n, caller, task) else {
            return StepResult::Nothing;
        };
        let state = self.tasks[ix].state;
        if state.is_terminal() {
            let detail = format!("{} is {state}: a terminal task takes no reply", task_id(ix));
            self.error(n, ErrorCode::TaskTerminal, detail, None);
            return StepResult::Nothing;
        }
        // The reply joins the task's messages; it changes no state and takes no tick.
        let id = self.next_message_id();
        self.tasks[ix].messages.push(Message {
            id,
            role: Role::User,
            text: Cow::Borrowed(&message.text),
            data: message.data.as_ref(),
        });
        let call = self.open_call(n, ix);
        self.run_handler(n, ix, call);
        StepResult::Task {
            task: ix,
            state: self.tasks[ix].state,
            stream: None,
        }
    }

    fn cancel(&mut self, n: usize, caller: CallerIx, task: &TaskRef) -> StepResult {
        let Some(ix) = self.visible_task(n, caller, task) else {
            return StepResult::Nothing;
        };
        match self.set_status(ix, TaskState::Canceled, None, None) {
            Ok(()) => StepResult::Task {
                task: ix,
                state: TaskState::Canceled,
                stream: None,
            },
            Err(IllegalTransition { from, .. }) => {
                let detail = format!(
                    "{} is {from}: a terminal task cannot be canceled",
                    task_id(ix)
                );
                self.error(n, ErrorCode::TaskNotCancelable, detail, None);
                StepResult::Nothing
            }
        }
    }

    fn driver_set_push_config(
        &mut self,
        n: usize,
        caller: CallerIx,
        task: &TaskRef,
        agent: Option<AgentIx>,
        push: &'s PushSpec,
    ) -> StepResult {
        let visible = self.lookup_task(caller, task);
        // With no agent named, the agent asked is the one holding the task as the caller sees it.
        let Some(agent) = agent.or_else(|| visible.map(|t| self.tasks[t].agent)) else {
            self.visible_task(n, caller, task);
            return StepResult::Nothing;
        };
        if !self.set_push_config_checked(n, agent, visible, Some(task), push) {
            return StepResult::Nothing;
        }
        let ix = visible.unwrap_or_default();
        StepResult::Task {
            task: ix,
            state: self.tasks[ix].state,
            stream: None,
        }
    }

    /// A push config passed with a send, set right after `submitted`.
    fn set_push_config(
        &mut self,
        n: usize,
        agent: AgentIx,
        task: Option<TaskIx>,
        push: &'s PushSpec,
    ) {
        self.set_push_config_checked(n, agent, task, None, push);
    }

    /// The four refusals, in order, first failure wins: capability first, so an agent without push
    /// never reveals whether a task id exists.
    fn set_push_config_checked(
        &mut self,
        n: usize,
        agent: AgentIx,
        visible: Option<TaskIx>,
        named: Option<&TaskRef>,
        push: &'s PushSpec,
    ) -> bool {
        let card = &self.scenario.agents[agent];
        if !card.card.push_notifications {
            let detail = format!("`{}` does not support push notifications", card.name());
            self.error(n, ErrorCode::PushNotSupported, detail, None);
            return false;
        }
        let Some(task) = visible.filter(|&t| self.tasks[t].agent == agent) else {
            let detail = match named {
                Some(TaskRef::Alias(a)) if self.alias_tasks[*a].is_none() => self.no_task(*a),
                Some(TaskRef::Alias(a)) => format!(
                    "task `{}` not found on `{}`",
                    task_id(self.alias_tasks[*a].unwrap_or_default()),
                    card.name()
                ),
                Some(TaskRef::Id(id)) => format!("task `{id}` not found on `{}`", card.name()),
                None => format!("the task is not on `{}`", card.name()),
            };
            self.error(n, ErrorCode::TaskNotFound, detail, None);
            return false;
        };
        let url = match check_push_url(&push.url, &self.scenario.policy.push_allowed_hosts) {
            Ok(url) => url,
            Err(why) => {
                self.error(n, ErrorCode::HostNotAllowed, why, Some(task));
                return false;
            }
        };
        if push.token.is_empty() {
            self.error(
                n,
                ErrorCode::MissingToken,
                "a push config needs a non-empty token".into(),
                Some(task),
            );
            return false;
        }
        self.push_urls.push(url);
        // At most one config per task: a new one replaces the old. On a terminal task it is
        // accepted and never fires, since nothing changes state any more.
        self.tasks[task].push = Some(PushConfig {
            url: self.push_urls.len() - 1,
            token: push.token.clone(),
        });
        true
    }
}
