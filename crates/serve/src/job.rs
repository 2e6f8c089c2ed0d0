//! What the HTTP side asks of the world's thread and what comes back: a request ([`Req`]) and the
//! queries it carries, the world's [`Answer`], and the [`Job`] that takes one over the jobs'
//! channel and brings its [`Reply`] back. The bindings build requests, the owner answers them and
//! a run with real agents hands its agents' answers in as one: all of them import this, and it
//! imports none of them.

use std::time::Duration;

use serde_json::Value;
use tokio::sync::mpsc::UnboundedReceiver;

use super::external::client::Answered;
use super::failure::Failure;
use engine::scenario::Step;
use output::protocol::A2aVersion;

/// What the server asks of the world.
pub enum Req {
    /// A driver step (send, stream, reply, get, cancel, set push config). `stream`: answered
    /// with its events (a reply sent on a stream too); `push_id`: the id a push config was given.
    Step {
        step: Box<Step>,
        /// The agent the request was sent to (its URL's).
        agent: usize,
        version: A2aVersion,
        stream: bool,
        push_id: String,
        /// The `messageId` of the client's message (a send's or a reply's), which its answers
        /// give back as sent.
        message_id: Option<String>,
    },
    List(ListQuery, A2aVersion),
    /// A live subscription to a task.
    Subscribe {
        caller: usize,
        agent: usize,
        task: String,
        version: A2aVersion,
    },
    /// Read or delete a task's push config.
    PushConfig(PushQuery),
    /// End the subscriptions, write the report (if asked) and stop.
    Shutdown,
    /// What a real agent answered a2a-sim (a run with `external:` agents only).
    Agent(Box<Answered>),
    /// A webhook a real agent sent for its task `task` (the task's index, from the path
    /// a2a-sim gave it in the push config), with its JSON body.
    Webhook {
        task: usize,
        body: Value,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PushOp {
    Get,
    List,
    Delete,
}

pub struct PushQuery {
    pub op: PushOp,
    pub caller: usize,
    pub agent: usize,
    pub task: String,
    /// The config's id (get and delete; list takes none).
    pub id: Option<String>,
    pub version: A2aVersion,
}

/// ListTasks' filters and page, as the request gave them.
pub struct ListQuery {
    pub caller: usize,
    pub agent: usize,
    pub context_id: Option<String>,
    pub status: Option<engine::record::TaskState>,
    /// Only tasks whose status changed after this instant (milliseconds since the epoch).
    pub status_after: Option<i64>,
    pub history_length: Option<usize>,
    pub include_artifacts: bool,
    pub page_size: usize,
    pub offset: usize,
}

/// The world's answer to one request.
pub enum Answer {
    /// A Task (GetTask, CancelTask, a blocking or non-blocking send).
    Task(Value),
    /// A stream's events, in order, its Task last; each with how long after the request it
    /// happened (the idle ticks before it, in real time).
    Events(Vec<(Value, Duration)>),
    /// A live stream: its events as they happen; it ends when the sender is dropped.
    Live(LiveStream),
    /// Any other result (ListTasks' page, a push config, an empty answer).
    Value(Value),
    Error(Failure),
}

/// The receiving end the HTTP side streams from.
pub type LiveStream = UnboundedReceiver<Value>;

pub struct Job {
    pub req: Req,
    pub reply: tokio::sync::oneshot::Sender<Reply>,
    /// The W3C trace id of the request's `traceparent`, if it had a valid one: how a real
    /// agent's call is tied to the task it was made for.
    pub trace: Option<u128>,
}

/// An answer and how long real time the request's idle ticks take.
pub struct Reply {
    pub answer: Answer,
    pub delay: Duration,
}
