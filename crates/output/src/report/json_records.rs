//! The JSON report's records after the tasks (denials, pushes, deliveries, errors) and its
//! matrices, written with [`Out`] as the rest of the report is.

use crate::report::json_out::{Out, key};
use engine::record::*;
use engine::scenario::REDACTED;

/// An array of strings.
pub(super) fn strings<'a>(o: &mut Out, items: impl Iterator<Item = &'a str>) {
    o.open_array();
    for s in items {
        o.element();
        o.str(s);
    }
    o.close_array();
}

pub(super) fn task_id(o: &mut Out, task: usize) {
    o.id("task-", task as u64 + 1);
}

pub(super) fn denial(w: &Record, o: &mut Out, d: &DenialRecord) {
    o.open_object();
    key!(o, "step");
    o.u64(d.step() as u64);
    key!(o, "caller");
    o.str(w.scenario.symbols.name(d.caller));
    key!(o, "callee");
    o.str(w.scenario.agents[d.callee()].name());
    key!(o, "codes");
    strings(o, d.denials.iter().map(|x| x.code.as_str()));
    key!(o, "details");
    strings(o, d.denials.iter().map(|x| &*x.detail));
    o.close_object();
}

pub(super) fn push(w: &Record, o: &mut Out, p: &Push) {
    o.open_object();
    key!(o, "tick");
    o.u64(p.tick);
    key!(o, "task");
    task_id(o, p.task);
    key!(o, "url");
    o.str(&w.push_urls[p.url]);
    key!(o, "state");
    o.plain(p.state.as_str());
    key!(o, "token");
    o.plain(REDACTED);
    o.close_object();
}

pub(super) fn delivery(w: &Record, o: &mut Out, d: &engine::record::Delivery) {
    o.open_object();
    key!(o, "tick");
    o.u64(d.tick);
    key!(o, "key");
    o.display(format_args!("task-{}/{}", d.task + 1, d.position));
    key!(o, "task");
    task_id(o, d.task);
    key!(o, "state");
    o.plain(d.state.as_str());
    key!(o, "url");
    o.str(&w.push_urls[d.url]);
    key!(o, "attempt");
    o.u64(d.attempt.into());
    key!(o, "outcome");
    o.plain(d.outcome.as_str());
    o.close_object();
}

pub(super) fn error(o: &mut Out, e: &ErrorRecord) {
    noted(o, e.step(), Some(e.code.as_str()), &e.detail, e.task());
}

pub(super) fn warning(o: &mut Out, w: &engine::record::Warning) {
    noted(o, w.step(), None, &w.detail, w.task());
}

/// An error (with its code) or a warning: `{step, code?, detail, task?}`.
fn noted(o: &mut Out, step: usize, code: Option<&'static str>, detail: &str, task: Option<usize>) {
    o.open_object();
    key!(o, "step");
    o.u64(step as u64);
    if let Some(code) = code {
        key!(o, "code");
        o.plain(code);
    }
    key!(o, "detail");
    o.str(detail);
    if let Some(t) = task {
        key!(o, "task");
        task_id(o, t);
    }
    o.close_object();
}

/// A matrix step's grid.
pub(super) fn matrix(w: &Record, o: &mut Out, i: usize) {
    let sc = w.scenario;
    let (engine::scenario::Step::Matrix { callers, agents }, StepResult::Matrix(grid)) =
        (&sc.steps[i], &w.steps[i].result)
    else {
        o.raw("null");
        return;
    };
    o.open_object();
    key!(o, "step");
    o.u64(i as u64 + 1);
    key!(o, "callers");
    strings(o, callers.iter().map(|&c| sc.callers[c].id.as_str()));
    key!(o, "agents");
    strings(o, agents.iter().map(|&a| sc.agents[a].name()));
    key!(o, "grid");
    o.open_array();
    for (&c, row) in callers.iter().zip(grid.iter()) {
        o.element();
        o.open_object();
        key!(o, "caller");
        o.str(&sc.callers[c].id);
        // A mapping by agent name: a name listed twice keeps its first place and its last codes.
        let mut cells = serde_json::Map::new();
        for (&a, codes) in agents.iter().zip(row) {
            let list = codes
                .iter()
                .map(|c| serde_json::Value::from(c.as_str()))
                .collect();
            cells.insert(
                sc.agents[a].name().to_string(),
                serde_json::Value::Array(list),
            );
        }
        key!(o, "denied");
        o.map(&cells);
        o.close_object();
    }
    o.close_array();
    o.close_object();
}
