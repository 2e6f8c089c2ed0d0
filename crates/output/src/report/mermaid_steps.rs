//! Where the driver's steps sit in the Mermaid diagram's time (the HTML timeline places them the
//! same way) and their lines, with every root task's subtree after them, all in time order.

use crate::report::mermaid_lines::{Item, arrow, esc, line, note, sort};
use crate::report::mermaid_tasks::{Tree, subtree};
use engine::record::*;
use engine::scenario::Step;

/// Where a driver step sits in time, as `(tick, rank)`: a send or stream at its task's creation
/// (rank 0, before the tick's other lines); a `wait` when it ended; any other step just after
/// the step before it ended (rank 9, after everything of that tick). A step that leaves a task
/// in a state ended at the first status entry with that state it made (a send: from its task's
/// creation on; any other step: after the step before it ended). Never
/// decreasing; one entry per step.
pub(crate) fn step_anchors(record: &Record) -> Vec<(u64, u8)> {
    let mut anchors = Vec::with_capacity(record.steps.len());
    let mut end = 0u64;
    for (i, r) in record.steps.iter().enumerate() {
        let step = record.scenario.steps.get(i);
        let anchor = match &r.result {
            StepResult::Task { task, .. } if matches!(step, Some(Step::Send(_))) => record
                .tasks
                .get(*task)
                .and_then(|t| t.history.first())
                .map(|h| (h.tick.max(end), 0))
                .unwrap_or((end, 9)),
            StepResult::Tick(t) => ((*t).max(end), 9),
            _ => (end, 9),
        };
        end = anchor.0;
        // A send's task is new; any other step's effects come after the step before it ended.
        let sends = matches!(step, Some(Step::Send(_)));
        let made = |tick: u64| if sends { tick >= end } else { tick > end };
        if let StepResult::Task { task, state, .. } = &r.result
            && let Some(t) = record.tasks.get(*task)
            && let Some(h) = t.history.iter().find(|h| made(h.tick) && h.state == *state)
        {
            end = h.tick;
        }
        anchors.push(anchor);
    }
    anchors
}

pub(super) fn top_items(record: &Record) -> Vec<Item> {
    let anchors = step_anchors(record);
    let s = record.scenario;
    let mut items = Vec::new();
    let mut seq = 0usize;
    let mut next = || {
        seq += 1;
        seq
    };
    for (i, r) in record.steps.iter().enumerate() {
        let (tick, rank) = anchors[i];
        let caller = r.caller().map(|c| s.callers[c].id.as_str()).unwrap_or("");
        let step = &s.steps[i];
        let key = (tick, rank, next());
        match (&r.result, step) {
            (StepResult::Task { .. }, Step::Send(_)) => {} // the task's own first line
            (StepResult::Task { task, state, .. }, _) => {
                let Some(t) = record.tasks.get(*task) else {
                    continue;
                };
                let agent = s.agents[t.agent()].name();
                let label = match step {
                    Step::Reply { message, .. } => {
                        format!("reply {}: {}", task_id(*task), esc(&message.text))
                    }
                    _ => format!("{} {}", step.op(), task_id(*task)),
                };
                items.push(line(key, arrow(caller, "->>", agent, &label)));
                if matches!(step, Step::Get { .. } | Step::SetPushConfig { .. }) {
                    let k = (tick, rank, next());
                    let label = format!("{} {state}", task_id(*task));
                    items.push(line(k, arrow(agent, "-->>", caller, &label)));
                }
            }
            (StepResult::Denied(codes), _) => {
                let callee = record
                    .denials
                    .iter()
                    .find(|d| d.step() == i + 1)
                    .map_or("", |d| s.agents[d.callee()].name());
                let codes: Vec<&str> = codes.iter().map(|c| c.as_str()).collect();
                let label = format!("{} denied: {}", step.op(), codes.join(", "));
                items.push(line(key, arrow(caller, "-x", callee, &label)));
            }
            (StepResult::Ranking(ranking), _) => {
                let list: Vec<String> = ranking
                    .iter()
                    .map(|x| format!("{} ({})", s.agents[x.agent].name(), x.score))
                    .collect();
                let list = if list.is_empty() {
                    "(no agent matches)".to_string()
                } else {
                    list.join(", ")
                };
                items.push(line(
                    key,
                    note(caller, &format!("discover: {}", esc(&list))),
                ));
            }
            (StepResult::Matrix(grid), Step::Matrix { callers, .. }) => {
                // Admission evaluated for every pair, nothing created: one note over the first
                // caller it asked about, no arrows.
                let pairs: usize = grid.iter().map(Vec::len).sum();
                let admitted = grid.iter().flatten().filter(|c| c.is_empty()).count();
                let label = format!("matrix: {admitted} of {pairs} pairs admitted");
                if let Some(&first) = callers.first() {
                    items.push(line(key, note(&s.callers[first].id, &label)));
                }
            }
            (StepResult::Matrix(_), _) => {}
            (StepResult::Tick(t), _) => {
                // `wait` has no caller: a note over every participant would widen the diagram.
                items.push(Item::Line(key, format!("%WAIT%wait until t{t}")));
            }
            (StepResult::Nothing, _) => {
                let codes: Vec<&str> = record
                    .errors
                    .iter()
                    .filter(|e| e.step() == i + 1)
                    .map(|e| e.code.as_str())
                    .collect();
                let label = format!("{}: nothing done: {}", step.op(), codes.join(", "));
                items.push(line(key, note(caller, &label)));
            }
        }
    }
    let tree = Tree::new(record);
    for (ix, t) in record.tasks.iter().enumerate() {
        if t.parent().is_none() {
            subtree(record, ix, &tree, &mut items);
        }
    }
    sort(&mut items);
    items
}
