//! `a2a-sim explore` (faults.md §3): runs each scenario under fault schedules drawn from a seed,
//! checks every run, shrinks each violation to a 1-minimal schedule and prints it as a `faults:`
//! block to paste back. Runs use every core; output is in run order, the same bytes for any
//! `--jobs`.

use std::io::Write;
use std::path::PathBuf;

use crate::engine::faults::{Fault, Faults};
use crate::engine::scenario::Scenario;
use crate::engine::world;
use crate::error::Status;
use crate::scenario::loader;
use crate::scenario::overrides::Override;
use crate::testing::check::{Rule, Violation, check};
use crate::testing::schedule::{Inputs, fault_json, fault_yaml};
use crate::testing::shrink::shrink;

#[derive(Debug, Clone)]
pub struct Options {
    pub runs: u64,
    pub seed: u64,
    pub kinds: [bool; 5],
    pub jobs: usize,
    /// `slice:M/N` as `(M, N)`: runs M, M + N, …
    pub slice: Option<(u64, u64)>,
    pub json: bool,
}

/// One violating run, shrunk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    pub run: u64,
    pub violation: Violation,
    /// The minimal drawn schedule (the file's own faults come on top of it).
    pub faults: Vec<Fault>,
}

/// What exploring one scenario found: how many runs it made, and each violation in run order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Explored {
    pub runs: u64,
    pub found: Vec<Found>,
}

/// The run numbers a partition keeps.
pub fn kept_runs(runs: u64, slice: Option<(u64, u64)>) -> Vec<u64> {
    (1..=runs)
        .filter(|r| slice.is_none_or(|(m, n)| (r - 1) % n == m - 1))
        .collect()
}

/// Explores one loaded scenario.
pub fn explore(scenario: &Scenario, opts: &Options) -> Explored {
    let base = &scenario.faults;
    let clock = world::run_recording(scenario, world::RecordStreams::StreamSteps).clock();
    let inputs = Inputs::new(scenario, clock, opts.kinds);
    let runs = kept_runs(opts.runs, opts.slice);
    // Chunks keep the hand-off between threads rare next to the runs themselves.
    let chunks: Vec<&[u64]> = runs.chunks(64).collect();
    let mut found = Vec::new();
    crate::corpus::for_each_ordered(
        &chunks,
        opts.jobs,
        |chunk| {
            let mut faults = base.clone();
            let mut out = Vec::new();
            for &run in chunk.iter() {
                let drawn = inputs.draw(opts.seed, run);
                faults.entries.truncate(base.entries.len());
                faults.entries.extend_from_slice(&drawn);
                if let Some(v) = check(scenario, &faults) {
                    let (faults, violation) = shrink(scenario, base, drawn, v);
                    out.push(Found {
                        run,
                        violation,
                        faults,
                    });
                }
            }
            out
        },
        |_, mut r| found.append(&mut r),
    );
    Explored {
        runs: runs.len() as u64,
        found,
    }
}

/// The schedule a violation was drawn with, plus the file's own, as a [`Faults`].
pub fn schedule(base: &Faults, drawn: &[Fault]) -> Faults {
    let mut f = base.clone();
    f.entries.extend_from_slice(drawn);
    f
}

fn rule_text(rule: Rule) -> String {
    match rule {
        Rule::Invariant(name) => format!("invariant `{name}`"),
        Rule::Expect(i) => format!("expect entry {i}"),
    }
}

/// The human report of one violation: what broke, and the schedule to paste.
pub fn human(file: &str, seed: u64, scenario: &Scenario, f: &Found) -> String {
    let mut s = format!(
        "{file}: run {} (seed {seed}): {} violated: {}\n",
        f.run,
        rule_text(f.violation.rule),
        f.violation.message
    );
    if f.faults.is_empty() {
        // Nothing drawn is needed: an empty `faults:` block would read as a paste-able fix.
        s.push_str(if scenario.faults.entries.is_empty() {
            "  no fault needed: the scenario violates it as written\n"
        } else {
            "  no fault needed beyond the scenario's own faults\n"
        });
        return s;
    }
    if scenario.faults.entries.is_empty() {
        s.push_str("  minimal schedule (paste into the scenario):\n");
    } else {
        s.push_str("  minimal schedule (add to the scenario's own faults):\n");
    }
    s.push_str("  faults:\n");
    for fault in &f.faults {
        s.push_str(&format!("    - {}\n", fault_yaml(scenario, fault)));
    }
    s
}

/// The JSON line of one violation.
pub fn json_line(file: &str, seed: u64, scenario: &Scenario, f: &Found) -> String {
    use serde_json::json;
    let violation = match f.violation.rule {
        Rule::Invariant(name) => {
            json!({"kind": "invariant", "name": name, "message": f.violation.message})
        }
        Rule::Expect(i) => json!({"kind": "expect", "index": i, "message": f.violation.message}),
    };
    let faults: Vec<_> = f.faults.iter().map(|x| fault_json(scenario, x)).collect();
    json!({"file": file, "run": f.run, "seed": seed, "violation": violation, "faults": faults})
        .to_string()
}

/// The command: every file in order, a summary line; failed on a violation.
pub fn command(
    files: &[PathBuf],
    opts: &Options,
    overrides: &[Override],
    out: &mut dyn Write,
) -> Status {
    let mut status = Status::Success;
    let (mut runs, mut violations) = (0u64, 0u64);
    for path in files {
        // `--set` as for `run`: each override checked like file content, located at the override.
        let scenario = match loader::load_path_with(path, overrides) {
            Ok(l) => l.scenario,
            Err(e) => {
                let _ = out.flush();
                eprintln!("{e}");
                status = Status::InputErrors;
                continue;
            }
        };
        let file = path.display().to_string();
        let explored = explore(&scenario, opts);
        runs += explored.runs;
        violations += explored.found.len() as u64;
        for f in &explored.found {
            let text = if opts.json {
                json_line(&file, opts.seed, &scenario, f) + "\n"
            } else {
                human(&file, opts.seed, &scenario, f)
            };
            if out.write_all(text.as_bytes()).is_err() {
                return status;
            }
        }
    }
    let summary = if opts.json {
        serde_json::json!({"runs": runs, "violations": violations}).to_string()
    } else {
        format!("{runs} runs, {violations} violations")
    };
    let _ = writeln!(out, "{summary}");
    let _ = out.flush();
    if status != Status::Success {
        status
    } else if violations > 0 {
        Status::Failed
    } else {
        Status::Success
    }
}
