//! `{received: AGENT, …}` entries: the tasks an agent was given, and the first message of each.

use crate::engine::World;
use crate::engine::record::task_id;
use crate::engine::scenario::{ReceivedExpectation, text_holds, value_holds};

use super::wording::{data_misses, text_test, value_test};

/// Why the entry does not hold (every reason), or nothing.
pub fn check(world: &World, r: &ReceivedExpectation) -> Vec<String> {
    let s = world.scenario;
    let agent = s.agents[r.agent].name();
    let tasks: Vec<usize> = world
        .tasks
        .iter()
        .enumerate()
        .filter(|(_, t)| t.agent() == r.agent)
        .filter(|(_, t)| {
            r.from
                .as_deref()
                .is_none_or(|f| s.symbols.name(t.owner.id) == f)
        })
        .map(|(i, _)| i)
        .collect();
    let what = match &r.from {
        Some(f) => format!("`{agent}` received from `{f}`"),
        None => format!("`{agent}` received"),
    };
    let mut out = Vec::new();
    if let Some(count) = &r.count
        && !value_holds(count, Some(&serde_json::Value::from(tasks.len())))
    {
        out.push(format!(
            "{what}: expected {} tasks, got {}",
            value_test(count),
            tasks.len()
        ));
    }
    if r.text.is_none() && r.data.is_empty() {
        return out;
    }
    let tested: Vec<(usize, usize)> = match r.nth {
        Some(n) => match tasks.get(n - 1) {
            Some(&t) => vec![(n, t)],
            None => {
                out.push(format!(
                    "{what}: no task number {n} (it received {})",
                    tasks.len()
                ));
                return out;
            }
        },
        None => tasks.iter().enumerate().map(|(i, &t)| (i + 1, t)).collect(),
    };
    for (n, t) in tested {
        let task = &world.tasks[t];
        let Some(first) = task.messages.first() else {
            continue;
        };
        let label = format!("{what}, task {n} ({})", task_id(t));
        let text: &str = &first.text;
        if let Some(test) = &r.text
            && !text_holds(test, Some(text))
        {
            out.push(format!(
                "{label}: expected text {}, got {text:?}",
                text_test(test)
            ));
        }
        let data = world.message_data(first);
        data_misses(&label, &r.data, data, &mut out);
    }
    out
}
