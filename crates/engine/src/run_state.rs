//! What the engine keeps of each task while it runs, beside the task's record: its place in its
//! script and its ties to other work.

use crate::delegation::Pending;
use crate::ids::TaskIx;
use crate::ix::{Ix, ix32};

/// A task's place in its script and its ties to other work.
/// Indices it keeps are stored in 32 bits (as stream events are): one of these is kept per task,
/// and the run's logs never reach 2^32 entries.
#[derive(Debug, Default)]
pub(crate) struct Run {
    /// The op of its program to run next.
    pub pc: u32,
    /// The seq of its queued turn, 0 when none is queued. A wake replaces the queued turn
    /// (behaviour.md §1): the new entry's seq is kept here, and an entry of this task with
    /// another seq, still in the scheduler, is stale and dropped when it comes up.
    pub turn: u64,
    /// The [`CallId`](crate::record::CallId) whose stream its events go to, while one is open.
    pub call: Option<Ix>,
    /// Its child tasks, in creation order: most tasks have none.
    pub children: crate::rare::Rare<TaskIx>,
    /// The [`DelegationIx`](crate::scheduler::DelegationIx) that created it, and its
    /// member number there.
    pub via: Option<(Ix, u32)>,
    /// Its handler's named results (`as`), by [`ResultIx`](crate::scenario::ResultIx): the
    /// [`DelegationIx`](crate::scheduler::DelegationIx) of each that ran.
    pub results: crate::rare::Rare<Option<Ix>>,
    /// The [`DelegationIx`](crate::scheduler::DelegationIx) it is blocked on.
    pub waiting_on: Option<Ix>,
    /// What its next turn must handle first ([`Run::take_pending`]), by kind: it is always about
    /// the delegation in `waiting_on`, so that is not kept twice (a `Pending` is eight bytes).
    pending_kind: u8,
    /// Whether it took on the pause of the child of the delegation in `waiting_on`
    /// (`on_pause: escalate`).
    pub escalated: bool,
    /// Index into its messages of the latest reply it received.
    pub last_reply: Option<Ix>,
    /// How many times it has reached a pause or a terminal state: a blocking step waits for this
    /// to grow.
    pub resolutions: u32,
}

impl Run {
    const NONE: u8 = 0;
    const OUTCOME: u8 = 1;
    const RETRY: u8 = 2;
    const CHILD_PAUSED: u8 = 3;

    /// A new task's, created by this delegation member (or by the driver).
    pub fn created_by(via: Option<(Ix, u32)>) -> Run {
        Run {
            via,
            ..Run::default()
        }
    }

    /// What its next turn must handle first, which is then cleared.
    pub fn take_pending(&mut self) -> Pending {
        let kind = std::mem::replace(&mut self.pending_kind, Run::NONE);
        let Some(on) = self.waiting_on.map(|d| ix32(d.get())) else {
            return Pending::None;
        };
        match kind {
            Run::OUTCOME => Pending::Outcome(on),
            Run::RETRY => Pending::Retry(on),
            Run::CHILD_PAUSED => Pending::ChildPaused(on),
            _ => Pending::None,
        }
    }

    /// Sets what its next turn must handle first: always about the delegation it waits on.
    pub fn set_pending(&mut self, pending: Pending) {
        let (kind, on) = match pending {
            Pending::None => (Run::NONE, None),
            Pending::Outcome(d) => (Run::OUTCOME, Some(d)),
            Pending::Retry(d) => (Run::RETRY, Some(d)),
            Pending::ChildPaused(d) => (Run::CHILD_PAUSED, Some(d)),
        };
        debug_assert!(
            on.is_none_or(|d| self.waiting_on.map(|w| ix32(w.get())) == Some(d)),
            "pending work is about the delegation the task waits on"
        );
        self.pending_kind = kind;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_runs_pending_work_reads_back_as_it_was_set_once() {
        let mut run = Run::default();
        assert_eq!(run.take_pending(), Pending::None);
        for (d, p) in [
            (7, Pending::Outcome(7)),
            (0, Pending::Retry(0)),
            (u32::MAX - 1, Pending::ChildPaused(u32::MAX - 1)),
        ] {
            run.waiting_on = Some(Ix::new(d as usize));
            run.set_pending(p);
            assert_eq!(run.take_pending(), p);
            assert_eq!(run.take_pending(), Pending::None);
        }
        run.set_pending(Pending::Retry(u32::MAX - 1));
        run.set_pending(Pending::None);
        assert_eq!(run.take_pending(), Pending::None);
        // Once the task waits on nothing, nothing is pending.
        run.set_pending(Pending::Outcome(u32::MAX - 1));
        run.waiting_on = None;
        assert_eq!(run.take_pending(), Pending::None);
    }

    /// One of these is kept per task: a big run keeps tens of thousands.
    #[test]
    fn a_tasks_run_state_stays_compact() {
        assert!(
            std::mem::size_of::<Run>() <= 56,
            "{}",
            std::mem::size_of::<Run>()
        );
    }
}
