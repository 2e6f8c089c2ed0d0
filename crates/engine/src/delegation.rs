//! Delegations of a running task: `delegate` (with timeout, retry, scripted replies and
//! escalation) and `fan_out` (children at once, joined by `all` or `any`). A delegation's state
//! lives here; its children are ordinary tasks. The world makes and settles delegations in
//! `delegating.rs`.

pub use crate::codes::Outcome;
use crate::ids::TaskIx;
pub use crate::member::Member;
use crate::scenario::{Delegate, FanOut, OnError};

/// What a task's next turn must handle first: each names a [`DelegationIx`](crate::ids::DelegationIx), kept in 32 bits
/// as a task's run keeps its indices.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub enum Pending {
    #[default]
    None,
    /// The delegation resolved: take its outcome.
    Outcome(u32),
    /// The attempt failed and another is due: make it.
    Retry(u32),
    /// The child paused: give a scripted reply, or escalate.
    ChildPaused(u32),
}

#[derive(Debug, Clone, Copy)]
pub enum Spec<'s> {
    Delegate(&'s Delegate),
    FanOut(&'s FanOut),
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
    /// Inline when one (a delegate's, most fan-outs are larger).
    pub members: smallvec::SmallVec<[Member; 1]>,
    /// Set once it resolved.
    pub outcome: Option<Outcome>,
}

impl Delegation<'_> {
    pub fn is_group(&self) -> bool {
        matches!(self.spec, Spec::FanOut(_))
    }

    pub fn timeout(&self) -> Option<u64> {
        match self.spec {
            Spec::Delegate(d) => d.timeout,
            Spec::FanOut(f) => f.timeout,
        }
    }

    pub fn on_error(&self) -> OnError {
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
