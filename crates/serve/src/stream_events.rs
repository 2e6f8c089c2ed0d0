//! The events of a served stream: a call's own (and, on request, those of the calls its step
//! opened), as the A2A bindings carry them.

use serde_json::{Value, json};

use engine::World;
use engine::record::{CallId, Event, EventKind, TaskIx};
use output::protocol::{A2aVersion, export};

/// A call's stream as a server sends it: the call's own events, up to and including the status
/// update that leaves its task terminal or interrupted ([`export::ends_stream`]) — nothing follows
/// it, as the official servers end their streams. With `children` (`serve --relay-children`),
/// also the status changes, messages and artifacts of the calls its step opened (nested
/// delegations, a reply's way down), in order, their tasks' snapshots left out, so that the
/// stream's only Task is its own first; 0.3's `final` on the call's own last status only.
pub fn relay(
    world: &World,
    v: A2aVersion,
    call: CallId,
    children: bool,
) -> impl Iterator<Item = (usize, Value)> {
    let mut events: Vec<(usize, &Event)> = world
        .relayed_events(call)
        .filter(|(_, e)| {
            e.call() == call || (children && !matches!(world.event_kind(e), EventKind::Task { .. }))
        })
        .collect();
    if let Some(end) = events
        .iter()
        .position(|(_, e)| e.call() == call && export::ends_stream(world, e))
    {
        events.truncate(end + 1);
    }
    let last = events.iter().rposition(|(_, e)| {
        e.call() == call && matches!(world.event_kind(e), EventKind::Status(_))
    });
    events
        .into_iter()
        .enumerate()
        .map(move |(n, (i, e))| (i, served_event(world, v, i, e, last == Some(n))))
}

/// The event at `index` of `World::events` as a served stream carries it. An agent's message that
/// changed no state is a status update repeating the task's state with that message: in a served
/// stream (as the A2A specs have it) a Message is the whole answer, and the SDK clients stop
/// reading at one.
pub fn served_event(world: &World, v: A2aVersion, index: usize, e: &Event, last: bool) -> Value {
    let ix = world.event_task(e);
    let EventKind::Message(m) = world.event_kind(e) else {
        return export::stream_event(world, v, ix, world.event_kind(e), last);
    };
    // The task's state then: its latest status or snapshot recorded before the message.
    let entry = world.events[..index]
        .iter()
        .rev()
        .filter(|p| world.event_task(p) == ix)
        .find_map(|p| match world.event_kind(p) {
            EventKind::Status(h) => Some(h),
            EventKind::Task { history, .. } => history.checked_sub(1),
            _ => None,
        })
        .unwrap_or(0);
    let mut update = export::stream_event(world, v, ix, EventKind::Status(entry), false);
    let message = export::stream_event(world, v, ix, EventKind::Message(m), false);
    match v {
        A2aVersion::V1_0 => {
            update["statusUpdate"]["status"]["message"] = message["message"].clone()
        }
        A2aVersion::V0_3 => update["status"]["message"] = message,
    }
    update
}

/// The task as it stands, as a stream event.
pub fn task_event(world: &World, v: A2aVersion, ix: TaskIx) -> Value {
    as_stream_event(export::task_value(world, v, ix), v)
}

/// A Task as a stream event: 1.0 wraps it (`StreamResponse`), 0.3 sends it as it is.
pub fn as_stream_event(task: Value, v: A2aVersion) -> Value {
    match v {
        A2aVersion::V1_0 => json!({ "task": task }),
        A2aVersion::V0_3 => task,
    }
}
