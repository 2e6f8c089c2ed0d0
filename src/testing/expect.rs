//! Checks a run against the scenario's `expect:` entries. Matching is exact.

use crate::engine::record::StepResult;
use crate::engine::scenario::{Expectation, Expected};
use crate::engine::task::task_id;
use crate::engine::world::World;

/// A failed expectation: its index in `expect:` and what differed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unmet {
    pub index: usize,
    pub message: String,
}

pub fn check(world: &World) -> Vec<Unmet> {
    let s = world.scenario;
    let mut unmet = Vec::new();
    let mut fail = |index: usize, message: String| unmet.push(Unmet { index, message });
    for (i, e) in s.expectations.iter().enumerate() {
        match e {
            Expectation::Task(te) => {
                let (alias, delegation_chain) = (&te.path.alias, &te.delegation_chain);
                let state = te.state.as_ref().and_then(|s| s.first());
                let name = &s.aliases[*alias];
                let Some(t) = world.alias_tasks[*alias] else {
                    fail(
                        i,
                        format!("expected task `{name}`, but its send created no task"),
                    );
                    continue;
                };
                let task = &world.tasks[t];
                if let Some(want) = state
                    && *want != task.state
                {
                    fail(
                        i,
                        format!(
                            "task `{name}` ({}): expected state {want}, got {}",
                            task_id(t),
                            task.state
                        ),
                    );
                }
                if let Some(want) = delegation_chain {
                    let got: Vec<&str> = world
                        .chains
                        .to_vec(task.delegation_chain)
                        .iter()
                        .map(|&h| s.symbols.name(h))
                        .collect();
                    if got != *want {
                        fail(
                            i,
                            format!(
                                "task `{name}` ({}): expected delegation_chain {want:?}, got {got:?}",
                                task_id(t)
                            ),
                        );
                    }
                }
            }
            Expectation::Denied { step, codes } => {
                let got: Vec<&str> = match world.steps.get(step - 1).map(|r| &r.result) {
                    Some(StepResult::Denied(c)) => c.iter().map(|c| c.as_str()).collect(),
                    _ => Vec::new(),
                };
                let want: Vec<&str> = codes.iter().map(|c| c.as_str()).collect();
                if got != want {
                    fail(
                        i,
                        format!("step {step}: expected denial codes {want:?}, got {got:?}"),
                    );
                }
            }
            Expectation::DeniedPath { .. } | Expectation::Ranking { .. } => {}
            Expectation::Pushes(want) => {
                let got: Vec<&str> = world.pushes.iter().map(|p| p.state.as_str()).collect();
                compare(&mut fail, i, "pushes", want, &got, |st| st.as_str());
            }
            Expectation::Errors(want) => {
                let got: Vec<&str> = world.errors.iter().map(|e| e.code.as_str()).collect();
                compare(&mut fail, i, "errors", want, &got, |c| c.as_str());
            }
        }
    }
    unmet
}

fn compare<T>(
    fail: &mut impl FnMut(usize, String),
    i: usize,
    what: &str,
    want: &Expected<T>,
    got: &[&str],
    name: impl Fn(&T) -> &'static str,
) {
    match want {
        Expected::Count(n) if *n != got.len() => fail(
            i,
            format!("expected {n} {what}, got {}: {got:?}", got.len()),
        ),
        Expected::List(list) => {
            let want: Vec<&str> = list.iter().map(name).collect();
            if want != got {
                fail(i, format!("expected {what} {want:?}, got {got:?}"));
            }
        }
        Expected::Count(_) => {}
    }
}
