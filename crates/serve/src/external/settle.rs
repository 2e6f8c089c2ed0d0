//! Calls a real agent makes at the same time (a fan-out with `asyncio.gather`, say) reach
//! a2a-sim in whatever order the network and the agent's threads give them. To record them the
//! same way on every run, the pump answers a batch at once: the call that came and those already
//! waiting, and — with the agent's `settle_ms` — those that come while it waits that long after
//! each. The agent's calls are answered in a canonical order (by target agent, then content);
//! anything else in the batch keeps its place in front of them.

use std::sync::mpsc::Receiver;
use std::time::Duration;

use crate::job::Job;

/// What a call is ordered by: its target agent's name, then its message's text and data (as
/// canonical JSON).
pub(super) type Key = (String, String, String);

/// `first` and the jobs that follow it within `settle` of each other (only those already
/// waiting when `settle` is zero), the calls among them (those `key` gives a key) in the order of
/// their keys, after the rest in arrival order. A batch of one stays as it is.
pub(super) fn gather(
    rx: &Receiver<Job>,
    first: Job,
    settle: Duration,
    key: impl Fn(&Job) -> Option<Key>,
) -> Vec<Job> {
    let mut batch = vec![first];
    loop {
        let next = match settle.is_zero() {
            true => rx.try_recv().ok(),
            false => rx.recv_timeout(settle).ok(),
        };
        match next {
            Some(job) => batch.push(job),
            None => break,
        }
    }
    if batch.len() == 1 {
        return batch;
    }
    let (mut calls, mut rest): (Vec<_>, Vec<_>) = batch
        .into_iter()
        .map(|job| (key(&job), job))
        .partition(|(k, _)| k.is_some());
    // A stable sort: identical calls keep their arrival order (and are recorded alike anyway).
    calls.sort_by(|(a, _), (b, _)| a.cmp(b));
    rest.extend(calls);
    rest.into_iter().map(|(_, job)| job).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::job::Req;

    fn job(n: u64) -> Job {
        let (reply, _) = tokio::sync::oneshot::channel();
        Job {
            req: Req::Shutdown,
            reply,
            trace: Some(n.into()),
        }
    }

    /// Jobs with an even trace are calls keyed by it, backwards; odd ones are not calls.
    fn key(job: &Job) -> Option<Key> {
        let n = job.trace? as u64;
        n.is_multiple_of(2)
            .then(|| (format!("{}", 100 - n), String::new(), String::new()))
    }

    fn traces(batch: &[Job]) -> Vec<u64> {
        batch.iter().map(|j| j.trace.unwrap_or(0) as u64).collect()
    }

    #[test]
    fn calls_waiting_are_put_in_key_order_after_the_rest() {
        let (tx, rx) = std::sync::mpsc::channel();
        for n in [4, 1, 6, 3] {
            tx.send(job(n)).unwrap();
        }
        let batch = gather(&rx, job(2), Duration::ZERO, key);
        assert_eq!(traces(&batch), [1, 3, 6, 4, 2]);
    }

    #[test]
    fn with_settle_a_call_that_comes_a_little_later_joins_the_batch() {
        let (tx, rx) = std::sync::mpsc::channel();
        let late = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(20));
            tx.send(job(8)).unwrap();
            // Held open past the wait so the batch ends by the quiet period, not a hang-up.
            std::thread::sleep(Duration::from_millis(400));
        });
        let batch = gather(&rx, job(2), Duration::from_millis(200), key);
        assert_eq!(traces(&batch), [8, 2]);
        late.join().unwrap();
    }

    #[test]
    fn without_settle_a_later_call_is_not_waited_for() {
        let (tx, rx) = std::sync::mpsc::channel::<Job>();
        let batch = gather(&rx, job(2), Duration::ZERO, key);
        assert_eq!(traces(&batch), [2]);
        drop(tx);
    }
}
