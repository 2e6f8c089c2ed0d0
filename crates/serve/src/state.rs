//! What the HTTP side shares: the [`State`] every connection's requests are answered from (the
//! served agents and their cards, the callers, the limits, the jobs' channel to the world's
//! thread, the counters the shutdown watches), and [`ask`], a request put to the world and its
//! answer awaited. The listener, the routing and both bindings use it; it imports none of them.

use std::collections::HashMap;
use std::sync::atomic::AtomicU64;
use std::sync::mpsc::Sender;
use std::time::{Duration, Instant};

use bytes::Bytes;
use tokio::sync::Notify;

use super::failure::{Failure, FailureKind};
use super::job::{Answer, Job, Reply, Req};
use super::sse::Streams;
use engine::scenario::Scenario;
use output::protocol::A2aVersion;

pub(super) struct State {
    pub(super) agents: HashMap<String, usize>,
    /// Each agent's served card, rendered once.
    pub(super) cards: Vec<Bytes>,
    /// Each agent's `defaultOutputModes`, as its card names them.
    pub(super) output_modes: Vec<Vec<String>>,
    pub(super) callers: HashMap<String, usize>,
    /// Verified callers by their bearer token (scenarios with `keys`).
    pub(super) bearers: HashMap<String, usize>,
    pub(super) keyed: bool,
    /// The `--advertise-host` name, lower-cased and without brackets: a Host it is taken.
    pub(super) advertised: Option<String>,
    /// `--default-caller`: the caller of a request that names none.
    pub(super) default_caller: Option<usize>,
    /// The served base URL and the cards' version, for the cards served under a caller's prefix.
    pub(super) base: String,
    /// The gRPC port's advertised `HOST:PORT` (`--grpc-listen`).
    pub(super) grpc: Option<String>,
    pub(super) version: A2aVersion,
    pub(super) scenario: &'static Scenario,
    pub(super) root: Option<usize>,
    pub(super) tx: std::sync::Mutex<Sender<Job>>,
    pub(super) max_body: usize,
    /// How long a request's body may take to arrive (the header timeout).
    pub(super) body_timeout: Duration,
    pub(super) exit_after: Option<u64>,
    pub(super) served: AtomicU64,
    /// Milliseconds since `start` of the last request's arrival.
    pub(super) last: AtomicU64,
    pub(super) start: Instant,
    pub(super) stop: Notify,
    /// The live streams: whether the server is stopping, and how many are open.
    pub(super) streams: Streams,
}

tokio::task_local! {
    /// The trace id of the request being answered (its `traceparent`'s), for [`ask`].
    pub(super) static TRACE: Option<u128>;
}

impl State {
    /// Marks activity now: `--idle-exit` counts from the last request's start or end.
    pub(super) fn touch(&self) {
        let now = self.start.elapsed().as_millis() as u64;
        self.last.store(now, std::sync::atomic::Ordering::Relaxed);
    }

    /// Counts a request served; the one `--exit-after` allows last stops the server.
    pub(super) fn served_one(&self) {
        let n = self
            .served
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst)
            + 1;
        if self.exit_after.is_some_and(|limit| n >= limit) {
            self.stop.notify_one();
        }
    }
}

pub(super) async fn ask(state: &State, req: Req) -> Answer {
    let (reply, answer) = tokio::sync::oneshot::channel();
    let sent = match state.tx.lock() {
        Ok(tx) => {
            let trace = TRACE.try_with(|t| *t).ok().flatten();
            tx.send(Job { req, reply, trace }).is_ok()
        }
        Err(_) => false,
    };
    if !sent {
        return Answer::Error(Failure::new(
            FailureKind::Internal,
            "the server is stopping",
        ));
    }
    match answer.await {
        Ok(Reply { answer, delay }) => {
            if !delay.is_zero() {
                tokio::time::sleep(delay).await;
            }
            answer
        }
        Err(_) => Answer::Error(Failure::new(
            FailureKind::Internal,
            "the server is stopping",
        )),
    }
}
