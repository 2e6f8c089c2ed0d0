//! The table report's fault sections: the faults of the run, and the webhook deliveries.

use std::fmt::Write;

use comfy_table::Table;

use engine::record::{Record, task_id};
use engine::scenario::{FaultKind, FaultTarget, Window};
use scenario::escape::Escaped;

/// A window as the scenario writes it: `[from, to)`, `to` forever when open.
pub fn window(w: &Window) -> String {
    match w.to {
        Some(to) => format!("[{}, {to})", w.from),
        None => format!("[{}, forever)", w.from),
    }
}

/// `faults` (when the run has any) and `deliveries` (when they are worked out).
pub fn render(record: &Record, out: &mut String, table: impl Fn(&[&str]) -> Table) {
    let s = record.scenario;
    if !record.faults.entries.is_empty() {
        let _ = writeln!(out, "\nfaults");
        let mut t = table(&["fault", "target", "kind", "when"]);
        for (i, f) in record.faults.entries.iter().enumerate() {
            let target = match &f.target {
                FaultTarget::Agent(a) => format!("agent {}", Escaped(s.agents[*a].name())),
                FaultTarget::PushHost(h) => format!("push host {}", Escaped(&h.to_string())),
            };
            let span = |w: &Window| match &f.calls {
                Some(calls) => format!(
                    "calls {}",
                    calls
                        .iter()
                        .map(|c| c.to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                None => window(w),
            };
            let when = match &f.kind {
                FaultKind::Unavailable(w) | FaultKind::Down(w) | FaultKind::Reset(w) => span(w),
                FaultKind::Slow { window: w, extra } => format!("{} +{extra} ticks", span(w)),
                FaultKind::HttpError { window: w, status } => format!("{} HTTP {status}", span(w)),
                FaultKind::DropStream { window: w, after } => {
                    format!("{} after {after} events", span(w))
                }
                FaultKind::Crash { at, restart } => match restart {
                    Some(r) => format!("at {at}, restart {r}"),
                    None => format!("at {at}, no restart"),
                },
                FaultKind::Duplicate(d) => d.to_string(),
            };
            t.add_row(vec![
                (i + 1).to_string(),
                target,
                f.kind.word().to_string(),
                when,
            ]);
        }
        let _ = writeln!(out, "{t}");
    }
    if record.faults.deliveries().is_some() && !record.deliveries.is_empty() {
        let _ = writeln!(out, "\ndeliveries");
        let mut t = table(&["tick", "key", "task", "state", "url", "attempt", "outcome"]);
        for d in record.deliveries_by_tick() {
            t.add_row(vec![
                d.tick.to_string(),
                format!("{}/{}", task_id(d.task), d.position),
                task_id(d.task),
                d.state.to_string(),
                Escaped(&record.push_urls[d.url]).to_string(),
                d.attempt.to_string(),
                d.outcome.as_str().to_string(),
            ]);
        }
        let _ = writeln!(out, "{t}");
    }
}
