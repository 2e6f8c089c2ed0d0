//! Delegations of a running task: `delegate` (with timeout, retry, scripted replies and
//! escalation) and `fan_out` (children at once, joined by `all` or `any`). A delegation's state
//! lives here; its children are ordinary tasks.

use std::borrow::Cow;

use crate::engine::admission::check_delegation;
use crate::engine::conditions::Facts;
use crate::engine::discovery;
use crate::engine::lifecycle::TaskState;
use crate::engine::scenario::*;
use crate::engine::scheduler::{Activity, DelegationIx};
use crate::engine::status::{IllegalTransition, NewTask};
use crate::engine::task::*;
use crate::engine::world::{Next, World};

/// What a task's next turn must handle first.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub enum Pending {
    #[default]
    None,
    /// The delegation resolved: take its outcome.
    Outcome(DelegationIx),
    /// The attempt failed and another is due: make it.
    Retry(DelegationIx),
    /// The child paused: give a scripted reply, or escalate.
    ChildPaused(DelegationIx),
}

#[derive(Debug, Clone, Copy)]
pub enum Spec<'s> {
    Delegate(&'s Delegate),
    FanOut(&'s FanOut),
}

/// One member of a delegation: a fan-out's child, or a delegate's current attempt.
#[derive(Debug, Clone, Copy)]
pub struct Member {
    /// The child task; none when it was denied or had no candidate.
    pub task: Option<TaskIx>,
    pub outcome: Option<Outcome>,
    /// Index into the world's denials, when admission refused it.
    pub denial: Option<usize>,
}

#[derive(Debug)]
pub struct Delegation<'s> {
    pub parent: TaskIx,
    pub spec: Spec<'s>,
    /// The 1-based handler step that made it.
    pub handler_step: usize,
    /// The attempt now running (1 unless retried).
    pub attempt: u32,
    /// Scripted replies given in this attempt.
    pub replies_given: usize,
    pub members: Vec<Member>,
    /// Set once it resolved.
    pub outcome: Option<Outcome>,
}

impl Delegation<'_> {
    pub fn is_group(&self) -> bool {
        matches!(self.spec, Spec::FanOut(_))
    }

    fn timeout(&self) -> Option<u64> {
        match self.spec {
            Spec::Delegate(d) => d.timeout,
            Spec::FanOut(f) => f.timeout,
        }
    }

    fn on_error(&self) -> OnError {
        match self.spec {
            Spec::Delegate(d) => d.on_error,
            Spec::FanOut(f) => f.on_error,
        }
    }

    /// A timer counts only for the attempt it was set for, while that attempt runs.
    pub(crate) fn timer_is_live(&self, attempt: u32) -> bool {
        self.outcome.is_none()
            && self.attempt == attempt
            && self.members.iter().any(|m| m.outcome.is_none())
    }

    /// The tasks whose parts are this result's: a delegation's last attempt (whatever its
    /// outcome), a group's completed members in creation order.
    pub fn result_tasks(&self) -> impl Iterator<Item = TaskIx> + '_ {
        let group = self.is_group();
        self.members
            .iter()
            .filter(move |m| !group || m.outcome == Some(Outcome::Completed))
            .filter_map(|m| m.task)
    }

    /// How many members completed.
    pub fn completed(&self) -> usize {
        self.members
            .iter()
            .filter(|m| m.outcome == Some(Outcome::Completed))
            .count()
    }
}

impl<'s> World<'s> {
    /// A `delegate` step: its first attempt.
    pub(crate) fn delegate(&mut self, task: TaskIx, n: usize, d: &'s Delegate) -> Next {
        let ix = self.delegations.len();
        self.delegations.push(Delegation {
            parent: task,
            spec: Spec::Delegate(d),
            handler_step: n,
            attempt: 0,
            replies_given: 0,
            members: Vec::new(),
            outcome: None,
        });
        if let Some(r) = d.result {
            let results = &mut self.runs[task].results;
            if results.len() <= r {
                results.resize(r + 1, None);
            }
            results[r] = Some(ix);
        }
        self.runs[task].waiting_on = Some(ix);
        self.attempt(task, ix)
    }

    /// One attempt of a delegation: admission with the derived context, then a child task on the
    /// callee with a fresh context id and this task as parent, and its timer.
    pub(crate) fn attempt(&mut self, task: TaskIx, ix: DelegationIx) -> Next {
        let Spec::Delegate(d) = self.delegations[ix].spec else {
            return Next::Stop;
        };
        let del = &mut self.delegations[ix];
        del.attempt += 1;
        del.replies_given = 0;
        let attempt = del.attempt;
        let member = self.member(task, ix, 0, &d.to, &d.message, attempt);
        self.delegations[ix].members = vec![member];
        match member.task {
            Some(child) => {
                if let Some(n) = d.timeout {
                    let at = self.tasks[child].history[0].tick.saturating_add(n);
                    self.scheduler.push(
                        at,
                        Activity::Timer {
                            delegation: ix,
                            attempt,
                        },
                    );
                }
                Next::Stop
            }
            // Denied or no candidate: the consequence comes in the task's next turn.
            None => {
                let outcome = member.outcome.unwrap_or(Outcome::Denied);
                self.resolve(ix, outcome);
                Next::Stop
            }
        }
    }

    /// A `fan_out` step: every child in this one turn, each admission-checked on its own.
    pub(crate) fn fan_out(&mut self, task: TaskIx, n: usize, f: &'s FanOut) -> Next {
        let ix = self.delegations.len();
        let start = self.clock();
        self.delegations.push(Delegation {
            parent: task,
            spec: Spec::FanOut(f),
            handler_step: n,
            attempt: 1,
            replies_given: 0,
            members: Vec::new(),
            outcome: None,
        });
        if let Some(r) = f.result {
            let results = &mut self.runs[task].results;
            if results.len() <= r {
                results.resize(r + 1, None);
            }
            results[r] = Some(ix);
        }
        self.runs[task].waiting_on = Some(ix);
        let targets: Vec<Cow<'s, Target>> = match &f.to {
            FanTargets::List(list) => list.iter().map(Cow::Borrowed).collect(),
            FanTargets::Ranking { tags, limit } => {
                let ctx = self.nested_context(task);
                let ranking = discovery::discover(
                    &ctx,
                    tags,
                    *limit,
                    &self.scenario.directory,
                    &self.scenario.agents,
                );
                if ranking.is_empty() {
                    self.no_candidate(task, tags);
                    self.resolve(ix, Outcome::Failed);
                    return Next::Stop;
                }
                ranking
                    .iter()
                    .map(|r| Cow::Owned(Target::Agent(r.agent)))
                    .collect()
            }
        };
        for (m, to) in targets.iter().enumerate() {
            let member = self.member(task, ix, m, to.as_ref(), &f.message, 1);
            self.delegations[ix].members.push(member);
        }
        let any_child = self.delegations[ix]
            .members
            .iter()
            .any(|m| m.task.is_some());
        if !any_child {
            self.settle_group(ix);
            return Next::Stop;
        }
        if let Some(n) = f.timeout {
            self.scheduler.push(
                start.saturating_add(n),
                Activity::Timer {
                    delegation: ix,
                    attempt: 1,
                },
            );
        }
        Next::Stop
    }

    /// Resolves a target, checks admission and creates the child: one member of a delegation.
    fn member(
        &mut self,
        task: TaskIx,
        ix: DelegationIx,
        m: usize,
        to: &Target,
        message: &'s MessageSpec,
        attempt: u32,
    ) -> Member {
        let ctx = self.nested_context(task);
        let callee = match to {
            Target::Agent(a) => *a,
            Target::Discover(tags) => {
                match discovery::top(&ctx, tags, &self.scenario.directory, &self.scenario.agents) {
                    Some(a) => a,
                    None => {
                        self.no_candidate(task, tags);
                        return Member {
                            task: None,
                            outcome: Some(Outcome::NoCandidate),
                            denial: None,
                        };
                    }
                }
            }
        };
        let denials = check_delegation(
            &ctx,
            &self.scenario.agents[callee],
            self.scenario,
            &self.chains,
        );
        if !denials.is_empty() {
            self.deny(ctx.agent_id, callee, denials);
            return Member {
                task: None,
                outcome: Some(Outcome::Denied),
                denial: Some(self.denials.len() - 1),
            };
        }
        let owner = Owner {
            id: ctx.agent_id,
            tenant: ctx.tenant,
        };
        let chain = self.chains.push(ctx.delegation_chain, ctx.agent_id);
        let (child, _) = self.create_task(NewTask {
            agent: callee,
            owner,
            delegation_chain: chain,
            classification: ctx.classification,
            parent: Some(task),
            context: None,
            text: Cow::Borrowed(message.text.as_str()),
            data: message.data.as_ref(),
            via: Some((ix, m)),
            attempt,
        });
        Member {
            task: Some(child),
            outcome: None,
            denial: None,
        }
    }

    fn no_candidate(&mut self, task: TaskIx, tags: &[crate::engine::symbols::Sym]) {
        let ctx = self.nested_context(task);
        self.record_no_candidate(&ctx, tags);
    }

    /// A child reached a pause or a terminal state.
    pub(crate) fn child_resolved(&mut self, child: TaskIx) {
        let Some((ix, m)) = self.runs[child].via else {
            return;
        };
        let d = &self.delegations[ix];
        if d.outcome.is_some() || d.members.get(m).is_none_or(|mem| mem.task != Some(child)) {
            return;
        }
        if d.members[m].outcome.is_some() {
            return;
        }
        let state = self.tasks[child].state;
        let parent = d.parent;
        if state.is_terminal() {
            self.delegations[ix].members[m].outcome = Some(Outcome::of_state(state));
            return self.settle(ix, m);
        }
        // A pause.
        if let Spec::Delegate(spec) = d.spec
            && (d.replies_given < spec.replies.len() || spec.on_pause == OnPause::Escalate)
        {
            // The answer comes in the delegating task's next turn.
            self.runs[parent].pending = Pending::ChildPaused(ix);
            let clock = self.clock();
            return self.wake(parent, clock);
        }
        // No answer: the paused child is canceled now, in its pausing turn.
        self.delegations[ix].members[m].outcome = Some(Outcome::of_state(state));
        let why = format!(
            "canceled by `{}`: the delegation was abandoned while {state}",
            self.agent_name(parent)
        );
        self.cancel_tree(child, Some(why));
        self.settle(ix, m);
    }

    /// A member's outcome is known: does the delegation resolve?
    fn settle(&mut self, ix: DelegationIx, m: usize) {
        if !self.delegations[ix].is_group() {
            let outcome = self.delegations[ix].members[m]
                .outcome
                .unwrap_or(Outcome::Failed);
            return self.resolve(ix, outcome);
        }
        self.settle_group(ix);
    }

    fn settle_group(&mut self, ix: DelegationIx) {
        let d = &self.delegations[ix];
        let Spec::FanOut(f) = d.spec else {
            return;
        };
        let completed = d.completed();
        let all_done = d.members.iter().all(|m| m.outcome.is_some());
        if f.join == Join::Any && completed > 0 {
            self.resolve(ix, Outcome::Completed);
            // The first completion decides; the rest are no longer wanted.
            return self.cancel_open_members(ix, None, "join: any was satisfied");
        }
        if all_done {
            let success = completed == d.members.len() && f.join == Join::All;
            let outcome = if success {
                Outcome::Completed
            } else {
                Outcome::Failed
            };
            self.resolve(ix, outcome);
        }
    }

    /// Cancels each member still running, with its subtree, in creation order.
    fn cancel_open_members(&mut self, ix: DelegationIx, outcome: Option<Outcome>, why: &str) {
        let parent = self.delegations[ix].parent;
        for m in 0..self.delegations[ix].members.len() {
            let member = self.delegations[ix].members[m];
            let Some(child) = member.task.filter(|_| member.outcome.is_none()) else {
                continue;
            };
            self.delegations[ix].members[m].outcome = Some(outcome.unwrap_or(Outcome::Canceled));
            let why = format!("canceled by `{}`: {why}", self.agent_name(parent));
            self.cancel_tree(child, Some(why));
        }
    }

    /// The delegation resolved with `outcome` — unless a retry is due.
    fn resolve(&mut self, ix: DelegationIx, outcome: Outcome) {
        let d = &self.delegations[ix];
        let parent = d.parent;
        let clock = self.clock();
        if let Spec::Delegate(spec) = d.spec
            && outcome.is_retried()
            && d.attempt < spec.retry.attempts
        {
            // Before attempt k ≥ 2 the task waits B × 2^(k−2) ticks, from now.
            let k = d.attempt + 1;
            let wait = spec
                .retry
                .backoff
                .saturating_mul(1u64.checked_shl(k - 2).unwrap_or(u64::MAX));
            self.runs[parent].pending = Pending::Retry(ix);
            return self.wake(parent, clock.saturating_add(wait));
        }
        self.delegations[ix].outcome = Some(outcome);
        self.runs[parent].pending = Pending::Outcome(ix);
        // An escalated parent stays paused; its next turn takes the outcome.
        if self.runs[parent].escalated == Some(ix) {
            self.runs[parent].escalated = None;
        }
        self.wake(parent, clock);
    }

    /// A delegation's timer ran while it was unresolved: cancel what still runs.
    pub(crate) fn fire_timer(&mut self, ix: DelegationIx, _attempt: u32) {
        let n = self.delegations[ix].timeout().unwrap_or(0);
        let why = format!("timed out after {n} ticks");
        self.cancel_open_members(ix, Some(Outcome::Timeout), &why);
        self.resolve(ix, Outcome::Timeout);
    }

    /// The delegating task's turn after its child paused: a scripted reply, else an escalation.
    pub(crate) fn answer_pause(&mut self, task: TaskIx, ix: DelegationIx) -> Next {
        let d = &self.delegations[ix];
        let Spec::Delegate(spec) = d.spec else {
            return Next::Stop;
        };
        let Some(child) = d.members.first().and_then(|m| m.task) else {
            return Next::Stop;
        };
        if d.outcome.is_some() || !self.tasks[child].state.is_pause() {
            return Next::Stop;
        }
        if let Some(reply) = spec.replies.get(d.replies_given) {
            self.delegations[ix].replies_given += 1;
            self.give_reply(
                child,
                Cow::Borrowed(reply.text.as_str()),
                reply.data.as_ref(),
            );
            return Next::Stop;
        }
        // Escalate: take the child's pause, with its latest status message, and wait for the owner.
        let state = self.tasks[child].state;
        let message = self.latest_status_message(child);
        match self.set_status(task, state, message) {
            Ok(()) => {
                self.runs[task].escalated = Some(ix);
                Next::Stop
            }
            Err(IllegalTransition { from, to }) => {
                let n = self.delegations[ix].handler_step;
                self.delegations[ix].members[0].outcome = Some(Outcome::of_state(state));
                let why = format!(
                    "canceled by `{}`: the escalation was refused",
                    self.agent_name(task)
                );
                self.cancel_tree(child, Some(why));
                self.illegal_transition(task, n, from, to);
                Next::Stop
            }
        }
    }

    fn latest_status_message(&self, task: TaskIx) -> Option<Cow<'s, str>> {
        let t = &self.tasks[task];
        let entry = t.history.last()?;
        entry.message.map(|m| t.messages[m].text.clone())
    }

    /// A reply joins the task's messages (no state change, no tick) and opens a call for the
    /// resumed handler.
    fn deliver(&mut self, task: TaskIx, text: Cow<'s, str>, data: Option<&'s DataMap>) {
        let id = self.next_message_id();
        let t = &mut self.tasks[task];
        t.messages.push(Message {
            id,
            role: Role::User,
            text,
            data,
        });
        self.runs[task].last_reply = Some(t.messages.len() - 1);
        self.open_call(task);
    }

    /// A scripted reply from the delegating agent to its paused child.
    fn give_reply(&mut self, child: TaskIx, text: Cow<'s, str>, data: Option<&'s DataMap>) {
        self.deliver(child, text, data);
        let clock = self.clock();
        self.wake(child, clock);
    }

    /// A reply to a paused task. When the task took its pause from a child (`escalate`), each
    /// escalated level moves back to `working`, top down, one tick each, and forwards the reply
    /// to its child as its own; the handler of the task that paused by itself resumes.
    pub(crate) fn reply_down(
        &mut self,
        task: TaskIx,
        text: Cow<'s, str>,
        data: Option<&'s DataMap>,
    ) {
        self.deliver(task, text.clone(), data);
        let mut at = task;
        while let Some(ix) = self.runs[at].escalated.take() {
            let _ = self.set_status(at, TaskState::Working, None);
            let Some(child) = self.delegations[ix].members.first().and_then(|m| m.task) else {
                return;
            };
            self.deliver(child, text.clone(), data);
            at = child;
        }
        let clock = self.clock();
        self.wake(at, clock);
    }

    /// The outcome of a resolved delegation, in the delegating task's turn. `None`: the script
    /// goes on in this turn.
    pub(crate) fn take_outcome(&mut self, task: TaskIx, ix: DelegationIx) -> Option<Next> {
        self.runs[task].waiting_on = None;
        let d = &self.delegations[ix];
        let outcome = d.outcome.unwrap_or(Outcome::Failed);
        if outcome == Outcome::Completed || d.on_error() == OnError::Continue {
            return None;
        }
        let why = self.failure_message(ix);
        self.fail(task, why);
        Some(Next::Stop)
    }

    /// Why a delegation did not succeed, in the delegating task's status message.
    fn failure_message(&self, ix: DelegationIx) -> String {
        let d = &self.delegations[ix];
        let outcome = d.outcome.unwrap_or(Outcome::Failed);
        let agents = &self.scenario.agents;
        if d.is_group() {
            if outcome == Outcome::Timeout {
                let n = d.timeout().unwrap_or(0);
                return format!("fan-out timed out after {n} ticks");
            }
            return format!(
                "fan-out did not complete: {} of {} children completed",
                d.completed(),
                d.members.len()
            );
        }
        let child = d.members.first().and_then(|m| m.task);
        match (outcome, child) {
            (Outcome::Timeout, Some(c)) => format!(
                "delegation to `{}` timed out after {} ticks",
                agents[self.tasks[c].agent].name(),
                d.timeout().unwrap_or(0)
            ),
            (_, Some(c)) => format!(
                "delegation to `{}` did not complete: {} ended {outcome}",
                agents[self.tasks[c].agent].name(),
                task_id(c)
            ),
            (Outcome::NoCandidate, None) => {
                "delegation failed: no agent matches the tags".to_string()
            }
            (_, None) => self.denied_message(ix),
        }
    }

    fn denied_message(&self, ix: DelegationIx) -> String {
        let denial = self.delegations[ix].members.first().and_then(|m| m.denial);
        let Some(r) = denial.map(|i| &self.denials[i]) else {
            return "delegation denied".to_string();
        };
        let list = r
            .denials
            .iter()
            .map(|x| x.code.as_str())
            .collect::<Vec<_>>()
            .join(", ");
        format!(
            "delegation to `{}` denied: {list}",
            self.scenario.agents[r.callee].name()
        )
    }

    /// What `when` sees of a delegation or group.
    pub(crate) fn delegation_facts(&self, d: &Delegation<'s>) -> Facts<'_> {
        if d.is_group() {
            return Facts {
                outcome: d.outcome,
                completed: Some(d.completed()),
                size: Some(d.members.len()),
                ..Facts::default()
            };
        }
        let Some(child) = d.members.first().and_then(|m| m.task) else {
            return Facts {
                outcome: d.outcome,
                ..Facts::default()
            };
        };
        let (text, data) = self.task_parts(child);
        Facts {
            outcome: d.outcome,
            state: Some(self.tasks[child].state),
            text,
            data,
            ..Facts::default()
        }
    }
}
