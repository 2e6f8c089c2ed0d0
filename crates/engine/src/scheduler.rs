//! The scheduler: a binary heap of activities ordered by `(ready_at, seq)`. Everything that can
//! happen next is an activity in it; there is no second queue and no recursion.
//!
//! Nothing is ever taken out of the heap but its top. Work that was called off stays in it and
//! the world drops it when it comes up: a timer of a delegation that resolved, a turn of a task
//! that ended, a turn that a later wake of its task replaced (the world keeps each task's live
//! turn by its seq).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

pub use crate::ids::DelegationIx;
use crate::ids::TaskIx;

/// What can happen next.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Activity {
    /// One handler step of a task.
    Turn(TaskIx),
    /// A delegation's timer; `attempt` is the attempt it was set for (a fan-out's is 1).
    Timer {
        delegation: DelegationIx,
        attempt: u32,
    },
    /// A driver `wait: N` ending.
    DriverWait,
    /// A `crash` fault, by its index among the run's faults.
    Crash(usize),
}

/// One queued activity. Ordered by `(ready_at, seq)` alone: `seq` is unique.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Queued {
    pub ready_at: u64,
    pub seq: u64,
    pub activity: Activity,
}

#[derive(Debug, Default)]
pub struct Scheduler {
    heap: BinaryHeap<Reverse<Queued>>,
    /// The world-wide counter drawn each time an activity is queued.
    seq: u64,
}

impl Scheduler {
    /// Queues an activity; its seq, drawn now, is returned (never 0).
    pub fn push(&mut self, ready_at: u64, activity: Activity) -> u64 {
        self.seq += 1;
        self.heap.push(Reverse(Queued {
            ready_at,
            seq: self.seq,
            activity,
        }));
        self.seq
    }

    /// The activity with the smallest `(ready_at, seq)`.
    pub fn pop(&mut self) -> Option<Queued> {
        self.heap.pop().map(|Reverse(q)| q)
    }

    /// Whether something queued is due at `clock` — i.e. would run before an activity queued now.
    pub fn has_due(&self, clock: u64) -> bool {
        self.heap
            .peek()
            .is_some_and(|Reverse(q)| q.ready_at <= clock)
    }

    /// The activity with the smallest `(ready_at, seq)`, left queued.
    pub fn peek(&self) -> Option<&Queued> {
        self.heap.peek().map(|Reverse(q)| q)
    }

    /// When the earliest queued activity is due.
    pub fn peek_ready_at(&self) -> Option<u64> {
        self.peek().map(|q| q.ready_at)
    }

    /// Draws a seq without queueing: the activity runs at once, as it would have if queued, since
    /// nothing queued is due before it.
    pub fn skip(&mut self) {
        self.seq += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn activities_run_in_ready_at_then_seq_order() {
        let mut s = Scheduler::default();
        s.push(5, Activity::Turn(0));
        s.push(3, Activity::Turn(1));
        s.push(5, Activity::DriverWait);
        s.push(3, Activity::Turn(2));
        let order: Vec<Activity> = std::iter::from_fn(|| s.pop().map(|q| q.activity)).collect();
        assert_eq!(
            order,
            [
                Activity::Turn(1),
                Activity::Turn(2),
                Activity::Turn(0),
                Activity::DriverWait
            ]
        );
    }

    #[test]
    fn due_means_ready_at_or_before_the_clock() {
        let mut s = Scheduler::default();
        assert!(!s.has_due(0));
        s.push(4, Activity::DriverWait);
        assert!(!s.has_due(3));
        assert!(s.has_due(4));
    }
}
