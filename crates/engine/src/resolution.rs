//! A resolved delegation as its delegating task sees it: the outcome taken in its next turn, the
//! status message of a failure, and the facts a `when` reads.

use crate::conditions::Facts;
use crate::delegation::Delegation;
use crate::scenario::*;
use crate::scheduler::DelegationIx;
use crate::task::*;
use crate::world::{Next, World};

impl<'s> World<'s> {
    /// The outcome of a resolved delegation, in the delegating task's turn. `None`: the script
    /// goes on in this turn.
    pub(crate) fn take_outcome(&mut self, task: TaskIx, ix: DelegationIx) -> Option<Next> {
        self.state.runs[task].waiting_on = None;
        let d = &self.record.delegations[ix];
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
        let d = &self.record.delegations[ix];
        let outcome = d.outcome.unwrap_or(Outcome::Failed);
        let agents = &self.record.scenario.agents;
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
        if let Some(why) = self.refused_message(ix) {
            return why;
        }
        let child = d.members.first().and_then(|m| m.task);
        match (outcome, child) {
            (Outcome::Timeout, Some(c)) => format!(
                "delegation to `{}` timed out after {} ticks",
                agents[self.record.tasks[c].agent()].name(),
                d.timeout().unwrap_or(0)
            ),
            (_, Some(c)) => format!(
                "delegation to `{}` did not complete: {} ended {outcome}",
                agents[self.record.tasks[c].agent()].name(),
                task_id(c)
            ),
            (Outcome::Unavailable, None) => format!(
                "delegation to `{}` failed: the agent is unavailable",
                d.members
                    .first()
                    .and_then(|m| m.callee())
                    .map_or("?", |a| agents[a].name())
            ),
            (Outcome::NoCandidate, None) => {
                "delegation failed: no agent matches the tags".to_string()
            }
            (_, None) => self.denied_message(ix),
        }
    }

    /// A delegation whose callee refused the platform's token, with the check that failed.
    fn refused_message(&self, ix: DelegationIx) -> Option<String> {
        let m = self.record.delegations[ix].members.first()?;
        let why = self.record.token_refusals.get(m.refused()?)?;
        let callee = m
            .callee()
            .map_or("?", |a| self.record.scenario.agents[a].name());
        Some(format!(
            "delegation to `{callee}` refused: unauthenticated ({why})"
        ))
    }

    fn denied_message(&self, ix: DelegationIx) -> String {
        let denial = self.record.delegations[ix]
            .members
            .first()
            .and_then(|m| m.denial());
        let Some(r) = denial.map(|i| &self.record.denials[i]) else {
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
            self.record.scenario.agents[r.callee()].name()
        )
    }

    /// What `when` sees of a delegation or group.
    /// What a condition sees of one member of a fan-out: as of a single delegation, its child
    /// task's state, text and data, and its own outcome (none while it runs).
    pub(crate) fn member_facts(&self, d: &Delegation<'s>, m: usize) -> Facts<'_> {
        let Some(member) = d.members.get(m) else {
            return Facts::default();
        };
        let Some(child) = member.task else {
            return Facts {
                outcome: member.outcome,
                ..Facts::default()
            };
        };
        let (text, data) = self.task_parts(child);
        let state = self.record.tasks[child].state;
        // A member that ended or paused has its outcome by its state until the group says more.
        let ended = state.is_terminal() || state.is_pause();
        Facts {
            outcome: member
                .outcome
                .or(ended.then(|| crate::codes::Outcome::of_state(state))),
            state: Some(state),
            text,
            data,
            ..Facts::default()
        }
    }

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
            state: Some(self.record.tasks[child].state),
            text,
            data,
            ..Facts::default()
        }
    }
}
