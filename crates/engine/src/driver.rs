//! The driver's steps: each acts at the current clock and, when it blocks, runs the scheduler
//! until what it waits for has happened (behaviour.md §2).

use std::borrow::Cow;

use crate::admission::{Denial, check_delegation};
use crate::caller_context::CallerContext;
use crate::ix::Ix;
use crate::lifecycle::IllegalTransition;
use crate::lifecycle::TaskState;
use crate::new_task::NewTask;
use crate::record::*;
use crate::scenario::*;
use crate::scheduler::Activity;
use crate::symbols::Sym;
use crate::task::*;
use crate::world::World;

impl<'s> World<'s> {
    pub fn run_step(&mut self, step: &'s Step) {
        // A verified caller's token is checked on every request, before anything else happens.
        if let Some(caller) = step.caller()
            && !self.authenticate(caller)
        {
            self.record
                .steps
                .push(StepRecord::new(Some(caller), StepResult::Nothing));
            return;
        }
        let result = match step {
            Step::Discover {
                caller,
                tags,
                limit,
            } => {
                let ctx = self.driver_context(*caller);
                StepResult::ranking(self.discover(&ctx, tags, *limit))
            }
            Step::Send(send) => self.driver_send(send),
            Step::Reply {
                caller,
                task,
                message,
            } => self.reply(*caller, task, message),
            Step::SetPushConfig {
                caller,
                task,
                agent,
                push,
            } => self.driver_set_push_config(*caller, task, *agent, push),
            Step::Cancel { caller, task } => self.cancel(*caller, task),
            Step::Get { caller, task } => match self.available_task(*caller, task) {
                Some(t) => StepResult::Task {
                    task: t,
                    state: self.record.tasks[t].state,
                    stream: None,
                },
                None => StepResult::Nothing,
            },
            Step::Wait(wait) => self.driver_wait(wait),
            Step::Matrix { callers, agents } => self.matrix(callers, agents),
        };
        self.record
            .steps
            .push(StepRecord::new(step.caller(), result));
    }

    /// Admission only: nothing is created and nothing recorded but the grid (no denials, no tick).
    fn matrix(&self, callers: &[CallerIx], agents: &[AgentIx]) -> StepResult {
        let rows: Vec<_> = callers
            .iter()
            .map(|&c| {
                let ctx = self.driver_context(c);
                agents
                    .iter()
                    .map(|&a| {
                        let card = &self.record.scenario.agents[a];
                        check_delegation(&ctx, card, self.record.scenario, &self.record.chains)
                            .into_iter()
                            .map(|d| d.code)
                            .collect()
                    })
                    .collect()
            })
            .collect();
        StepResult::matrix(rows)
    }

    /// The `task_not_found` detail for an alias whose send created no task.
    pub(crate) fn no_task(&self, alias: AliasIx) -> String {
        format!(
            "`{}` names no task: its send created none",
            &self.record.scenario.aliases[alias]
        )
    }

    /// The task a step names, if the caller may see it; otherwise `task_not_found` is recorded.
    /// A task that exists but belongs to someone else is reported exactly like an unknown id.
    fn visible_task(&mut self, caller: CallerIx, task: &TaskRef) -> Option<TaskIx> {
        let found = self.lookup_task(caller, task);
        if found.is_none() {
            self.report_not_found(task);
        }
        found
    }

    /// [`visible_task`](Self::visible_task), then the fault check: a task the caller may not see
    /// gives `task_not_found` first, so a fault never reveals that a task exists.
    fn available_task(&mut self, caller: CallerIx, task: &TaskRef) -> Option<TaskIx> {
        let ix = self.visible_task(caller, task)?;
        let agent = self.record.tasks[ix].agent();
        if self.is_unavailable(agent) {
            self.unavailable(self.record.scenario.callers[caller].sym, agent);
            return None;
        }
        Some(ix)
    }

    pub(crate) fn report_not_found(&mut self, task: &TaskRef) {
        {
            let detail = match task {
                TaskRef::Alias(a) => match self.alias_task(*a) {
                    Some(t) => format!("task `{}` not found", task_id(t)),
                    None => self.no_task(*a),
                },
                TaskRef::Id(id) => format!("task `{id}` not found"),
            };
            self.error(ErrorCode::TaskNotFound, detail, None);
        }
    }

    pub fn lookup_task(&self, caller: CallerIx, task: &TaskRef) -> Option<TaskIx> {
        let ix = match task {
            TaskRef::Alias(a) => self.alias_task(*a)?,
            TaskRef::Id(id) => parse_task_id(id).filter(|&ix| ix < self.record.tasks.len())?,
        };
        let c = &self.record.scenario.callers[caller];
        (self.record.tasks[ix].owner
            == Owner {
                id: c.sym,
                tenant: c.tenant,
            })
        .then_some(ix)
    }

    fn driver_send(&mut self, send: &'s Send) -> StepResult {
        let context = match send.context() {
            ContextSpec::Fresh => None,
            ContextSpec::Literal(c) => Some(Context::Named(c)),
            // A context id is a correlation key, not a credential: any earlier task's will do.
            ContextSpec::Of(a) => match self.alias_task(*a) {
                Some(t) => Some(self.record.tasks[t].context),
                None => {
                    let detail = self.no_task(*a);
                    self.error(ErrorCode::TaskNotFound, detail, None);
                    return StepResult::Nothing;
                }
            },
        };
        // A real agent's call made for one of its tasks: that task delegating, its chain and
        // context (admission as for a handler's delegation); else the caller's own.
        let parent = self.session.on_behalf.take();
        let ctx = match parent {
            Some(p) => self.nested_context(p),
            None => self.driver_context(send.caller()),
        };
        let Some(callee) = self.resolve_target(&ctx, &send.to) else {
            return StepResult::Nothing;
        };
        // What the card itself refuses comes before admission (faults.md's one order of checks).
        if send.stream() && !self.record.scenario.agents[callee].card.streaming {
            let detail = format!(
                "agent `{}` does not support streaming (its card says `streaming: false`); use `send`",
                self.record.scenario.agents[callee].name()
            );
            self.error(ErrorCode::StreamingNotSupported, detail, None);
            return StepResult::Nothing;
        }
        if self.is_unavailable(callee) {
            self.unavailable(ctx.agent_id, callee);
            return StepResult::Nothing;
        }
        if !self.token_required(send.caller(), callee) {
            return StepResult::Nothing;
        }
        if let Some(codes) = self.refused(&ctx, callee) {
            return StepResult::Denied(codes);
        }
        let c = &self.record.scenario.callers[send.caller()];
        let owner = Owner {
            id: c.sym,
            tenant: c.tenant,
        };
        let delegation_chain = match parent {
            Some(_) => self.record.chains.push(ctx.delegation_chain, ctx.agent_id),
            None => self.state.caller_chains[send.caller()],
        };
        let (task, call) = self.create_task(NewTask {
            agent: callee,
            owner,
            delegation_chain,
            classification: ctx.classification,
            parent,
            context,
            text: Cow::Borrowed(send.text.as_str()),
            data: send.data().map(Cow::Borrowed),
            via: None,
            attempt: 1,
            scopes: ctx.scopes.clone(),
            origin: send.caller(),
            stream: send.stream(),
        });
        if let Some(a) = send.alias() {
            self.record.alias_tasks[a] = Some(Ix::new(task));
        }
        if let Some(vt) = &self.state.verified[send.caller()] {
            self.record.caller_tokens.insert(task, vt.clone());
        }
        if let Some(push) = send.push() {
            self.set_push_config(callee, Some(task), None, push);
        }
        if self.record.scenario.agents[callee].external.is_some() {
            // A real agent works on it at the edge, which reports what it did (`external.rs`).
        } else if send.return_immediately() {
            // The step ends once the task exists, and so does its call: the handler stays queued,
            // and what it does later is seen by polling (`get`) or pushes, not by this response.
            self.record.tasks[task].return_immediately = true;
            self.close_call(task);
        } else {
            self.run_until(|w| w.resolved(task, 1));
        }
        StepResult::Task {
            task,
            state: self.record.tasks[task].state,
            stream: call.filter(|_| send.stream()).map(Ix::new),
        }
    }

    /// Admission of a new task on `callee`: every denial recorded (under this step), or `None`
    /// when the caller is admitted.
    pub(crate) fn refused(&mut self, ctx: &CallerContext, callee: AgentIx) -> Option<DenialCodes> {
        let card = &self.record.scenario.agents[callee];
        let denials = check_delegation(ctx, card, self.record.scenario, &self.record.chains);
        (!denials.is_empty()).then(|| self.deny(ctx.agent_id, callee, denials))
    }

    pub(crate) fn deny(
        &mut self,
        caller: Sym,
        callee: AgentIx,
        denials: Vec<Denial>,
    ) -> DenialCodes {
        let codes = DenialCodes::of(&denials);
        self.record
            .denials
            .push(DenialRecord::new(self.step, caller, callee, denials));
        codes
    }

    fn resolve_target(&mut self, ctx: &CallerContext, to: &Target) -> Option<AgentIx> {
        match to {
            Target::Agent(ix) => Some(*ix),
            Target::Discover(tags) => {
                let found = self.discover_top(ctx, tags);
                if found.is_none() {
                    self.record_no_candidate(ctx, tags);
                }
                found
            }
        }
    }

    pub(crate) fn record_no_candidate(&mut self, ctx: &CallerContext, tags: &[Sym]) {
        let names = &self.record.scenario.symbols;
        let list = tags
            .iter()
            .map(|&t| names.name(t))
            .collect::<Vec<_>>()
            .join(", ");
        let detail = format!(
            "no agent that `{}` may use matches the tags [{list}]",
            names.name(ctx.agent_id)
        );
        self.error(ErrorCode::NoCandidate, detail, None);
    }

    fn reply(&mut self, caller: CallerIx, task: &TaskRef, message: &'s MessageSpec) -> StepResult {
        let Some(ix) = self.available_task(caller, task) else {
            return StepResult::Nothing;
        };
        let state = self.record.tasks[ix].state;
        if state.is_terminal() {
            let detail = format!("{} is {state}: a terminal task takes no reply", task_id(ix));
            self.error(ErrorCode::TaskTerminal, detail, None);
            return StepResult::Nothing;
        }
        if !state.is_pause() {
            let detail = format!(
                "{} is {state}: only a task waiting for input (input-required or auth-required) takes a reply",
                task_id(ix)
            );
            self.error(ErrorCode::TaskNotAwaiting, detail, None);
            return StepResult::Nothing;
        }
        let before = u64::from(self.state.runs[ix].resolutions);
        self.reply_down(
            ix,
            Cow::Borrowed(message.text.as_str()),
            message.data().map(Cow::Borrowed),
        );
        self.run_until(|w| w.resolved(ix, before + 1));
        StepResult::Task {
            task: ix,
            state: self.record.tasks[ix].state,
            stream: None,
        }
    }

    fn cancel(&mut self, caller: CallerIx, task: &TaskRef) -> StepResult {
        let Some(ix) = self.available_task(caller, task) else {
            return StepResult::Nothing;
        };
        match self.set_status(ix, TaskState::Canceled, None) {
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
                self.error(ErrorCode::TaskNotCancelable, detail, None);
                StepResult::Nothing
            }
        }
    }

    fn driver_wait(&mut self, wait: &WaitSpec) -> StepResult {
        match wait {
            WaitSpec::Ticks(n) => {
                self.state.driver_woken = false;
                let at = self.clock().saturating_add(*n);
                self.state.scheduler.push(at, Activity::DriverWait);
                self.run_until(|w| w.state.driver_woken);
            }
            WaitSpec::Task(alias) => {
                let Some(task) = self.alias_task(*alias) else {
                    let detail = self.no_task(*alias);
                    self.error(ErrorCode::TaskNotFound, detail, None);
                    return StepResult::Nothing;
                };
                self.run_until(|w| {
                    let state = w.record.tasks[task].state;
                    state.is_terminal() || state.is_pause()
                });
            }
        }
        StepResult::Tick(self.clock())
    }
}
