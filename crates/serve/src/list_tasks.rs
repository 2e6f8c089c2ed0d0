//! ListTasks: the caller's tasks on one agent, filtered and paged, most recently updated first
//! (by the tick of their last status change; of two changed at one tick, the later task first).

use serde_json::{Value, json};

use super::failure::{Failure, FailureKind};
use super::job::{Answer, ListQuery};
use super::ownership::owns;
use super::protocol;
use engine::World;
use output::protocol::{A2aVersion, export};

/// One page of the tasks the query matches, in the version's shapes. A page token is the
/// offset of its page's first task among the matching tasks, most recently updated first; one
/// past the last of them is no token this server gave (InvalidParams).
pub fn list(world: &World, q: &ListQuery, v: A2aVersion) -> Answer {
    let mut matching: Vec<usize> = (0..world.tasks.len())
        .filter(|&ix| {
            let t = &world.tasks[ix];
            owns(world, q.caller, ix)
                && t.agent() == q.agent
                && q.context_id
                    .as_deref()
                    .is_none_or(|c| t.context.to_string() == c)
                && q.status.is_none_or(|s| t.state == s)
                // "Greater than or equal to" the time given.
                && q.status_after.is_none_or(|after| {
                    t.history
                        .last()
                        .is_some_and(|h| world.scenario.clock.millis(h.tick) >= after)
                })
        })
        .collect();
    let updated = |ix: usize| world.tasks[ix].history.last().map_or(0, |h| h.tick);
    matching.sort_by_key(|&ix| std::cmp::Reverse((updated(ix), ix)));
    if q.offset > 0 && q.offset >= matching.len() {
        return Answer::Error(Failure::new(
            FailureKind::InvalidParams,
            format!(
                "`pageToken` `{}` is not one this server gave for this query",
                q.offset
            ),
        ));
    }
    let page: Vec<Value> = matching
        .iter()
        .skip(q.offset)
        .take(q.page_size)
        .map(|&ix| {
            let mut task =
                protocol::trim_history(export::task_value(world, v, ix), q.history_length);
            // ListTasks leaves artifacts out unless asked for them.
            if !q.include_artifacts
                && let Some(o) = task.as_object_mut()
            {
                o.remove("artifacts");
            }
            task
        })
        .collect();
    let end = q.offset.saturating_add(q.page_size);
    let next = if end < matching.len() {
        end.to_string()
    } else {
        String::new()
    };
    Answer::Value(json!({
        "tasks": page,
        "nextPageToken": next,
        "pageSize": q.page_size,
        "totalSize": matching.len(),
    }))
}
