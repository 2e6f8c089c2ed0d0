//! Webhook delivery (faults.md §2): every push of a task is also a notification, delivered with
//! retries on exponential backoff, an idempotency key, and a dead letter when every attempt failed.
//! Here are the attempts as the record keeps them and the backoff between them; the world works
//! them out in `notification.rs`.

use crate::ids::TaskIx;
use crate::lifecycle::TaskState;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeliveryOutcome {
    Delivered,
    Failed,
    DeadLetter,
}

impl DeliveryOutcome {
    pub const ALL: [DeliveryOutcome; 3] = [
        DeliveryOutcome::Delivered,
        DeliveryOutcome::Failed,
        DeliveryOutcome::DeadLetter,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            DeliveryOutcome::Delivered => "delivered",
            DeliveryOutcome::Failed => "failed",
            DeliveryOutcome::DeadLetter => "dead_letter",
        }
    }
}

/// One delivery attempt (or a duplicate arrival) of one notification.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Delivery {
    pub tick: u64,
    pub task: TaskIx,
    /// The N of the key `TASK_ID/N`: the status change's position in the task's history, 1-based.
    pub position: usize,
    pub state: TaskState,
    /// Index into `World::push_urls`.
    pub url: usize,
    pub attempt: u32,
    pub outcome: DeliveryOutcome,
}

/// The tick of attempt `k` (k ≥ 2) after one at `previous`: `backoff × 2^(k−2)` later, saturating.
pub fn retry_tick(previous: u64, backoff: u64, k: u32) -> u64 {
    let factor = 1u64.checked_shl(k.saturating_sub(2)).unwrap_or(u64::MAX);
    previous.saturating_add(backoff.saturating_mul(factor))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_and_saturates() {
        let rows = [
            (10, 1, 2, 11),
            (11, 1, 3, 13),
            (13, 1, 4, 17),
            (5, 0, 5, 5),
            (5, 3, 3, 11),
            (u64::MAX - 1, 5, 2, u64::MAX),
            (1, u64::MAX, 64, u64::MAX),
            (1, 1, 70, u64::MAX),
        ];
        for (prev, backoff, k, want) in rows {
            assert_eq!(retry_tick(prev, backoff, k), want, "{prev} {backoff} {k}");
        }
    }
}
