//! A push's notification, delivered: every attempt is worked out when the status change happens,
//! against the fault schedule's hosts, so it takes no tick and queues nothing.

use crate::delivery::{Delivery, DeliveryOutcome, retry_tick};
use crate::ids::TaskIx;
use crate::lifecycle::TaskState;
use crate::world::World;

impl World<'_> {
    /// A push of `task`'s status change to its config's URL `url`: recorded, and its
    /// notification delivered.
    pub(crate) fn push(&mut self, task: TaskIx, url: usize, tick: u64, state: TaskState) {
        self.record.pushes.push(crate::record::Push {
            tick,
            task,
            url,
            state,
        });
        self.deliver_notification(task, url, tick, state);
    }

    /// Works out every attempt of the notification of `task`'s latest status change, sent to the
    /// push URL `url` at `tick`.
    pub(crate) fn deliver_notification(
        &mut self,
        task: TaskIx,
        url: usize,
        tick: u64,
        state: TaskState,
    ) {
        let Some(policy) = self.record.faults.deliveries() else {
            return;
        };
        let position = self.record.tasks[task].history.len();
        let host = self.record.push_hosts[url].as_str();
        let mut at = tick;
        for attempt in 1..=policy.attempts.max(1) {
            if attempt >= 2 {
                at = retry_tick(at, policy.backoff, attempt);
            }
            let record = |outcome| Delivery {
                tick: at,
                task,
                position,
                state,
                url,
                attempt,
                outcome,
            };
            if !self.record.faults.host_down(host, at) {
                self.record
                    .deliveries
                    .push(record(DeliveryOutcome::Delivered));
                if self.record.faults.duplicates(host) {
                    self.record
                        .deliveries
                        .push(record(DeliveryOutcome::Delivered));
                }
                return;
            }
            let last = attempt >= policy.attempts;
            self.record.deliveries.push(record(if last {
                DeliveryOutcome::DeadLetter
            } else {
                DeliveryOutcome::Failed
            }));
        }
    }
}
