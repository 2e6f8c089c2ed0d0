//! A task delegating: a `delegate` step's attempts (each admission-checked, with its timer and
//! retries) and a `fan_out`'s members, then settling them as the children pause or end. What the
//! delegating task does with the outcome is in `resolution.rs` and `escalation.rs`.

use std::borrow::Cow;

use crate::delegation::{Delegation, Member, Outcome, Pending, Spec};
use crate::faults::Refusal;
use crate::ix::{Ix, ix32};
use crate::new_task::NewTask;
use crate::record::{ErrorCode, RefusedAttempt, RefusedWhy};
use crate::scenario::*;
use crate::scheduler::{Activity, DelegationIx};
use crate::task::*;
use crate::world::{Next, World};

impl<'s> World<'s> {
    /// A `delegate` step: its first attempt.
    pub(crate) fn delegate(&mut self, task: TaskIx, n: usize, d: &'s Delegate) -> Next {
        let ix = self.record.delegations.len();
        self.record.delegations.push(Delegation {
            parent: task,
            spec: Spec::Delegate(d),
            handler_step: n,
            attempt: 0,
            replies_given: 0,
            members: smallvec::SmallVec::new(),
            outcome: None,
        });
        if let Some(r) = d.result {
            self.state.runs[task].results.set(r, Some(Ix::new(ix)));
        }
        self.state.runs[task].waiting_on = Some(Ix::new(ix));
        self.attempt(task, ix)
    }

    /// One attempt of a delegation: admission with the derived context, then a child task on the
    /// callee with a fresh context id and this task as parent, and its timer.
    pub(crate) fn attempt(&mut self, task: TaskIx, ix: DelegationIx) -> Next {
        let Spec::Delegate(d) = self.record.delegations[ix].spec else {
            return Next::Stop;
        };
        let del = &mut self.record.delegations[ix];
        del.attempt += 1;
        del.replies_given = 0;
        let attempt = del.attempt;
        let member = self.member(task, ix, 0, &d.to, &d.message, attempt);
        self.record.delegations[ix].members = smallvec::smallvec![member];
        match member.task {
            Some(child) => {
                if let Some(n) = d.timeout {
                    let at = self.record.tasks[child].history[0].tick.saturating_add(n);
                    self.state.scheduler.push(
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
        let ix = self.record.delegations.len();
        let start = self.clock();
        self.record.delegations.push(Delegation {
            parent: task,
            spec: Spec::FanOut(f),
            handler_step: n,
            attempt: 1,
            replies_given: 0,
            members: smallvec::SmallVec::new(),
            outcome: None,
        });
        if let Some(r) = f.result {
            self.state.runs[task].results.set(r, Some(Ix::new(ix)));
        }
        self.state.runs[task].waiting_on = Some(Ix::new(ix));
        let targets: Vec<Cow<'s, Target>> = match &f.to {
            FanTargets::List(list) => list.iter().map(Cow::Borrowed).collect(),
            FanTargets::Ranking { tags, limit } => {
                let ctx = self.nested_context(task);
                let ranking = self.discover(&ctx, tags, *limit);
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
            self.record.delegations[ix].members.push(member);
        }
        let any_child = self.record.delegations[ix]
            .members
            .iter()
            .any(|m| m.task.is_some());
        if !any_child {
            self.settle_group(ix);
            return Next::Stop;
        }
        if let Some(n) = f.timeout {
            self.state.scheduler.push(
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
            Target::Discover(tags) => match self.discover_top(&ctx, tags) {
                Some(a) => a,
                None => {
                    self.no_candidate(task, tags);
                    return Member::unresolved(Outcome::NoCandidate, None);
                }
            },
        };
        // An unavailable agent is refused before admission: no denial, no task, no tick.
        if self.is_unavailable(callee) {
            self.unavailable(ctx.agent_id, callee);
            let how = self.session.last_refusal.unwrap_or(Refusal::Unavailable);
            self.refused_attempt(task, callee, (ix, m), attempt, RefusedWhy::Fault(how));
            return Member::unresolved(Outcome::Unavailable, Some(callee));
        }
        // Then the callee verifies the token the platform minted for this hop.
        let (ctx, token) = match self.nested_token(task, ctx, callee, "delegation") {
            Ok(verified) => verified,
            Err(refused) => {
                let why = self.record.token_refusals[refused].clone();
                self.refused_attempt(task, callee, (ix, m), attempt, RefusedWhy::Token(why));
                return Member::unresolved(Outcome::Denied, Some(callee)).refused_by(refused);
            }
        };
        if self.refused(&ctx, callee).is_some() {
            let denial = self.record.denials.len() - 1;
            self.refused_attempt(task, callee, (ix, m), attempt, RefusedWhy::Denied(denial));
            return Member::unresolved(Outcome::Denied, Some(callee)).denied_by(denial);
        }
        // The data as written, or with its templates filled in; a reference without a value
        // means the delegation cannot be made as written.
        let data = match self.render_data(task, message.data(), message.template()) {
            Ok(data) => data,
            Err(missing) => {
                let detail = format!(
                    "`{missing}` in the data of a delegation of `{}` has no value ({}): the delegation to `{}` was not made",
                    self.agent_name(task),
                    task_id(task),
                    self.record.scenario.agents[callee].name()
                );
                self.error(ErrorCode::TemplateMissing, detail, Some(task));
                return Member::unresolved(Outcome::Failed, Some(callee));
            }
        };
        let owner = Owner {
            id: ctx.agent_id,
            tenant: ctx.tenant,
        };
        let chain = self.record.chains.push(ctx.delegation_chain, ctx.agent_id);
        let (child, _) = self.create_task(NewTask {
            agent: callee,
            owner,
            delegation_chain: chain,
            classification: ctx.classification,
            parent: Some(task),
            context: None,
            text: self.render(task, &message.text),
            data,
            via: Some((ix, m)),
            attempt,
            scopes: ctx.scopes,
            origin: self.record.tasks[task].origin(),
            stream: false,
        });
        if let Some(vt) = token {
            self.record.caller_tokens.insert(child, vt);
        }
        Member::created(child, callee)
    }

    /// Keeps one attempt that made no task, at the clock now, for the views.
    fn refused_attempt(
        &mut self,
        task: TaskIx,
        callee: AgentIx,
        (delegation, member): (DelegationIx, usize),
        attempt: u32,
        why: RefusedWhy,
    ) {
        let tick = self.clock();
        self.record.refused_attempts.push(RefusedAttempt {
            tick,
            task,
            callee,
            delegation,
            attempt,
            member: crate::ix::ix32(member),
            why,
        });
    }

    fn no_candidate(&mut self, task: TaskIx, tags: &[crate::symbols::Sym]) {
        let ctx = self.nested_context(task);
        self.record_no_candidate(&ctx, tags);
    }

    /// A child reached a pause or a terminal state.
    pub(crate) fn child_resolved(&mut self, child: TaskIx) {
        let Some((ix, m)) = self.state.runs[child]
            .via
            .map(|(d, m)| (d.get(), m as usize))
        else {
            return;
        };
        let d = &self.record.delegations[ix];
        if d.outcome.is_some() || d.members.get(m).is_none_or(|mem| mem.task != Some(child)) {
            return;
        }
        if d.members[m].outcome.is_some() {
            return;
        }
        let state = self.record.tasks[child].state;
        let parent = d.parent;
        if state.is_terminal() {
            self.record.delegations[ix].members[m].outcome = Some(Outcome::of_state(state));
            return self.settle(ix, m);
        }
        // A pause.
        if let Spec::Delegate(spec) = d.spec
            && (d.replies_given < spec.replies.len() || spec.on_pause == OnPause::Escalate)
        {
            // The answer comes in the delegating task's next turn.
            self.state.runs[parent].set_pending(Pending::ChildPaused(ix32(ix)));
            let clock = self.clock();
            return self.wake(parent, clock);
        }
        // No answer: the paused child is canceled now, in its pausing turn.
        self.record.delegations[ix].members[m].outcome = Some(Outcome::of_state(state));
        let why = format!(
            "canceled by `{}`: the delegation was abandoned while {state}",
            self.agent_name(parent)
        );
        self.cancel_tree(child, Some(why));
        self.settle(ix, m);
    }

    /// A member's outcome is known: does the delegation resolve?
    pub(crate) fn settle(&mut self, ix: DelegationIx, m: usize) {
        if !self.record.delegations[ix].is_group() {
            let outcome = self.record.delegations[ix].members[m]
                .outcome
                .unwrap_or(Outcome::Failed);
            return self.resolve(ix, outcome);
        }
        self.settle_group(ix);
    }

    fn settle_group(&mut self, ix: DelegationIx) {
        let d = &self.record.delegations[ix];
        let Spec::FanOut(f) = d.spec else {
            return;
        };
        let completed = d.completed();
        let all_done = d.members.iter().all(|m| m.outcome.is_some());
        if f.join == Join::Any && completed > 0 {
            // The first completion decides; the rest are no longer wanted. They are canceled
            // first, and only then is the delegating task queued, as after every clean-up.
            self.cancel_open_members(ix, None, "join: any was satisfied");
            return self.resolve(ix, Outcome::Completed);
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
        let parent = self.record.delegations[ix].parent;
        for m in 0..self.record.delegations[ix].members.len() {
            let member = self.record.delegations[ix].members[m];
            let Some(child) = member.task.filter(|_| member.outcome.is_none()) else {
                continue;
            };
            self.record.delegations[ix].members[m].outcome =
                Some(outcome.unwrap_or(Outcome::Canceled));
            let why = format!("canceled by `{}`: {why}", self.agent_name(parent));
            self.cancel_tree(child, Some(why));
        }
    }

    /// The delegation resolved with `outcome` — unless a retry is due.
    fn resolve(&mut self, ix: DelegationIx, outcome: Outcome) {
        let d = &self.record.delegations[ix];
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
            self.state.runs[parent].set_pending(Pending::Retry(ix32(ix)));
            return self.wake(parent, clock.saturating_add(wait));
        }
        self.record.delegations[ix].outcome = Some(outcome);
        self.state.runs[parent].set_pending(Pending::Outcome(ix32(ix)));
        // An escalated parent stays paused; its next turn takes the outcome.
        self.state.runs[parent].escalated = false;
        self.wake(parent, clock);
    }

    /// A delegation's timer ran while it was unresolved: cancel what still runs.
    pub(crate) fn fire_timer(&mut self, ix: DelegationIx, _attempt: u32) {
        let n = self.record.delegations[ix].timeout().unwrap_or(0);
        let why = format!("timed out after {n} ticks");
        self.cancel_open_members(ix, Some(Outcome::Timeout), &why);
        self.resolve(ix, Outcome::Timeout);
    }
}
