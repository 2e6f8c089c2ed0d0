//! Live subscriptions (SubscribeToTask, 0.3's `tasks/resubscribe`): the task as it stands, then
//! each of its events as the world records them, until it next pauses or ends — the same events,
//! in the same order, a stream of the task shows.

use std::time::Duration;

use serde_json::Value;
use tokio::sync::mpsc::{UnboundedSender, unbounded_channel};

use super::failure::{Failure, FailureKind};
use super::job::Answer;
use super::ownership::owns;
use super::stream_events::{served_event, task_event};
use engine::World;
use engine::record::{EventKind, TaskIx, parse_task_id, task_id};
use engine::scenario::{AgentIx, CallerIx};
use output::protocol::{A2aVersion, export};

struct Subscriber {
    task: TaskIx,
    version: A2aVersion,
    /// The next event of `World::events` to look at.
    next: usize,
    /// Whether the task as it stood was sent (the stream's first event).
    sent: bool,
    tx: UnboundedSender<Value>,
}

#[derive(Default)]
pub struct Subscriptions {
    live: Vec<Subscriber>,
}

impl Subscriptions {
    /// Opens a subscription, or refuses it: a task the caller cannot see on this agent is not
    /// found; a terminal one has nothing left to stream (A2A: UnsupportedOperationError).
    pub fn open(
        &mut self,
        world: &mut World,
        caller: CallerIx,
        agent: AgentIx,
        task: &str,
        version: A2aVersion,
    ) -> Answer {
        let found = parse_task_id(task).filter(|&ix| {
            ix < world.tasks.len() && owns(world, caller, ix) && world.tasks[ix].agent() == agent
        });
        let Some(ix) = found else {
            return Answer::Error(Failure::new(
                FailureKind::TaskNotFound,
                format!("task_not_found: task `{task}` not found"),
            ));
        };
        let state = world.tasks[ix].state;
        if state.is_terminal() {
            return Answer::Error(Failure::new(
                FailureKind::Unsupported,
                format!(
                    "{} is {state}: a terminal task has no updates to subscribe to",
                    task_id(ix)
                ),
            ));
        }
        // An interrupted task (input- or auth-required) waits on its caller: as the official
        // servers do, the subscription gets the task as it stands and ends.
        if state.is_pause() {
            return Answer::Events(vec![(task_event(world, version, ix), Duration::ZERO)]);
        }
        let (tx, rx) = unbounded_channel();
        let next = world.events.len();
        // A call opened here starts with the task as it stands; else send it first ourselves.
        let sent = !world.watch(ix);
        if sent {
            let _ = tx.send(task_event(world, version, ix));
        }
        self.live.push(Subscriber {
            task: ix,
            version,
            next,
            sent,
            tx,
        });
        Answer::Live(rx)
    }

    /// Sends every subscriber the events recorded since it last looked; ends the streams whose
    /// task paused or ended with the status update that says so, and forgets those whose client went away.
    pub fn pump(&mut self, world: &World) {
        self.live.retain_mut(|s| {
            for (i, e) in world.events.iter().enumerate().skip(s.next) {
                if world.event_task(e) != s.task {
                    continue;
                }
                let kind = world.event_kind(e);
                // Snapshots open calls: a subscriber gets the first only (a reply's new call
                // opens with one it has seen).
                if matches!(kind, EventKind::Task { .. }) && s.sent {
                    continue;
                }
                // The status update that leaves the task terminal or interrupted is the
                // stream's last event, as the official servers end theirs.
                let resolves = export::ends_stream(world, e);
                let _ = s.tx.send(served_event(world, s.version, i, e, resolves));
                s.sent = true;
                if resolves {
                    return false;
                }
            }
            s.next = world.events.len();
            !s.tx.is_closed()
        });
    }

    /// Ends every stream (the session is over): each gets the task as it now stands last.
    pub fn close_all(&mut self, world: &World) {
        self.pump(world);
        for s in self.live.drain(..) {
            let _ = s.tx.send(task_event(world, s.version, s.task));
        }
    }
}
