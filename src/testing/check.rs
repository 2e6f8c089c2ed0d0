//! What `explore` checks of each run (faults.md §3): the engine invariants, then the scenario's
//! `always` expectations. The first violation found is the run's.

use std::panic::{AssertUnwindSafe, catch_unwind};

use crate::engine::record::{DeliveryOutcome, task_id};
use crate::engine::scenario::{Faults, Scenario, Step};
use crate::engine::{self, World};
use crate::scenario::Override;

/// What was violated: an invariant by name, or an `expect` entry by its 1-based index.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Rule {
    Invariant(&'static str),
    Expect(usize),
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Violation {
    pub rule: Rule,
    pub message: String,
}

/// Where a scenario with real agents comes from: each run loads it afresh (its agents started
/// anew, on ports of their own), so that runs share nothing.
#[derive(Debug, Clone, Copy)]
pub struct Source<'a> {
    pub path: &'a std::path::Path,
    pub overrides: &'a [Override],
    /// The command's real-agent flags.
    pub real: &'a crate::running::RealAgentArgs,
}

/// Runs the scenario under `faults` and returns its first violation, if any.
pub fn check(scenario: &Scenario, faults: &Faults) -> Option<Violation> {
    check_with(scenario, faults, None)
}

/// [`check`]; a scenario with real agents runs from its `source`.
pub fn check_with(
    scenario: &Scenario,
    faults: &Faults,
    source: Option<Source>,
) -> Option<Violation> {
    let render = |scenario: &Scenario, faults: &Faults| match source {
        Some(src) => render_real(src, faults),
        None => render(scenario, faults),
    };
    let first = catch_unwind(AssertUnwindSafe(|| render(scenario, faults)));
    let Ok((report, violation)) = first else {
        return Some(invariant("no_panic", "the engine panicked".into()));
    };
    if violation.is_some() {
        return violation;
    }
    for token in tokens(scenario) {
        if report.windows(token.len()).any(|w| w == token.as_bytes()) {
            return Some(invariant(
                "no_token",
                "the report shows a push token".into(),
            ));
        }
    }
    let again = catch_unwind(AssertUnwindSafe(|| render(scenario, faults).0));
    if !again.is_ok_and(|a| a == report) {
        return Some(invariant(
            "deterministic",
            "the run is not byte-identical when repeated".into(),
        ));
    }
    None
}

fn invariant(name: &'static str, message: String) -> Violation {
    Violation {
        rule: Rule::Invariant(name),
        message,
    }
}

/// One run: its JSON report, and its first violation of the world's invariants or of an `always`.
fn render(scenario: &Scenario, faults: &Faults) -> (Vec<u8>, Option<Violation>) {
    judge(&engine::run_with(scenario, faults))
}

/// A finished run's JSON report, and its first violation of the world's invariants or of an
/// `always`.
fn judge(w: &World) -> (Vec<u8>, Option<Violation>) {
    let mut out = Vec::with_capacity(4096);
    let _ = crate::report::json::write(w, &mut out);
    let violation = invariants(w).or_else(|| always(w));
    (out, violation)
}

/// A run of a scenario with real agents under `faults`, the file loaded afresh: what `then`
/// reads of the finished world, or why there is none (an agent that did not start is a
/// violation of its own).
pub fn real_run<T>(
    src: Source,
    faults: &Faults,
    then: impl FnOnce(&World<'_>) -> T,
) -> Result<T, String> {
    let mut scenario = crate::scenario::Load::file(src.path)
        .overrides(src.overrides)
        .load()
        .map_err(|e| e.to_string())?
        .scenario;
    scenario.faults = faults.clone();
    crate::running::run(
        scenario,
        crate::engine::RecordStreams::StreamSteps,
        crate::running::Teardown::Drop,
        src.real,
        |w, _| then(w),
    )
    .map_err(|m| crate::escape::lines(&m))
}

fn render_real(src: Source, faults: &Faults) -> (Vec<u8>, Option<Violation>) {
    real_run(src, faults, judge)
        .unwrap_or_else(|e| (Vec::new(), Some(invariant("agent_started", e))))
}

/// The engine's invariants on a finished run.
pub fn invariants(w: &World) -> Option<Violation> {
    for (i, t) in w.tasks.iter().enumerate() {
        if let Some(p) = t.parent()
            && w.tasks[p].state.is_terminal()
            && !t.state.is_terminal()
        {
            let msg = format!(
                "{} is {} under {}, which is {}",
                task_id(i),
                t.state,
                task_id(p),
                w.tasks[p].state
            );
            return Some(invariant("subtree", msg));
        }
    }
    for (i, t) in w.tasks.iter().enumerate() {
        if !t.state.is_terminal() && !t.state.is_pause() {
            let msg = format!(
                "{} is {} at quiescence: blocked forever",
                task_id(i),
                t.state
            );
            return Some(invariant("quiescence", msg));
        }
    }
    // Each notification's last record must be delivered or dead-lettered.
    let mut last: std::collections::HashMap<(usize, usize), DeliveryOutcome> = Default::default();
    for d in &w.deliveries {
        last.insert((d.task, d.position), d.outcome);
    }
    let mut open: Vec<(usize, usize)> = last
        .into_iter()
        .filter(|(_, o)| *o == DeliveryOutcome::Failed)
        .map(|(k, _)| k)
        .collect();
    open.sort();
    if let Some((t, n)) = open.first() {
        let msg = format!(
            "notification {}/{n} was neither delivered nor dead-lettered",
            task_id(*t)
        );
        return Some(invariant("deliveries", msg));
    }
    None
}

/// The first `always: true` entry that does not hold.
pub fn always(w: &World) -> Option<Violation> {
    let s = w.scenario;
    if !s.always.iter().any(|&a| a) {
        return None;
    }
    crate::testing::expect::check(w)
        .into_iter()
        .find(|u| s.always.get(u.index).copied().unwrap_or(false))
        .map(|u| Violation {
            rule: Rule::Expect(u.index + 1),
            message: u.message,
        })
}

/// The non-empty push tokens the file gives.
fn tokens(scenario: &Scenario) -> Vec<&str> {
    scenario
        .steps
        .iter()
        .filter_map(|s| match s {
            Step::Send(send) => send.push().as_ref().map(|p| p.token.expose()),
            Step::SetPushConfig { push, .. } => Some(push.token.expose()),
            _ => None,
        })
        .filter(|t| !t.is_empty())
        .collect()
}
