//! `a2a-sim explore` (faults.md §3): runs each scenario under fault schedules drawn from a seed,
//! checks every run, shrinks each violation to a 1-minimal schedule and prints it as a `faults:`
//! block to paste back. Runs use every core; output is in run order, the same bytes for any
//! `--jobs`. Violations with the same claim and the same shrunk schedule are one finding, printed
//! once with how many runs gave it; faults can be aimed at some agents only.

use std::io::Write;
use std::path::PathBuf;

use crate::engine;
use crate::engine::scenario::{Fault, Faults, Scenario};
use crate::error::Status;
use crate::scenario::{Load, Override};
use crate::testing::check::{Rule, Source, Violation, check_with, real_run};
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
    /// `--agents`: draw agent faults on these only (default: every agent).
    pub agents: Option<Vec<String>>,
    /// `--skip-agents`: never draw agent faults on these.
    pub skip_agents: Vec<String>,
    /// `--max-distinct N`: stop at the run that gives the N-th distinct violation.
    pub max_distinct: Option<usize>,
}

impl Options {
    /// Every run, every kind, one thread, human output: what `explore FILE` does.
    pub fn new(runs: u64, seed: u64) -> Options {
        Options {
            runs,
            seed,
            kinds: [true; 5],
            jobs: 1,
            slice: None,
            json: false,
            agents: None,
            skip_agents: Vec::new(),
            max_distinct: None,
        }
    }

    /// The agents of `scenario` faults may target, in file order; an unknown name is an error
    /// naming the option, with a hint.
    pub fn eligible_agents(&self, scenario: &Scenario) -> Result<Vec<usize>, String> {
        let names: Vec<&str> = scenario.agents.iter().map(|a| a.name()).collect();
        let index = |option: &str, name: &str| {
            names.iter().position(|n| *n == name).ok_or_else(|| {
                crate::error::with_hint(
                    format!("{option}: no agent `{name}` in this scenario"),
                    name,
                    names.iter().copied(),
                )
            })
        };
        let mut eligible: Vec<usize> = match &self.agents {
            Some(only) => {
                let mut v = only
                    .iter()
                    .map(|n| index("--agents", n))
                    .collect::<Result<Vec<_>, _>>()?;
                v.sort_unstable();
                v.dedup();
                v
            }
            None => (0..names.len()).collect(),
        };
        for name in &self.skip_agents {
            let skip = index("--skip-agents", name)?;
            eligible.retain(|&a| a != skip);
        }
        Ok(eligible)
    }
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

impl Explored {
    /// The distinct violations (the same claim, message and shrunk schedule are one), in the order
    /// of their first run, each with its number of runs.
    pub fn distinct(&self) -> Vec<(&Found, u64)> {
        let mut at: std::collections::HashMap<(&Violation, &[Fault]), usize> =
            std::collections::HashMap::new();
        let mut out: Vec<(&Found, u64)> = Vec::new();
        for f in &self.found {
            match at.entry((&f.violation, f.faults.as_slice())) {
                std::collections::hash_map::Entry::Occupied(e) => out[*e.get()].1 += 1,
                std::collections::hash_map::Entry::Vacant(e) => {
                    e.insert(out.len());
                    out.push((f, 1));
                }
            }
        }
        out
    }
}

/// The run numbers a partition keeps.
pub fn kept_runs(runs: u64, slice: Option<(u64, u64)>) -> Vec<u64> {
    (1..=runs)
        .filter(|r| slice.is_none_or(|(m, n)| (r - 1) % n == m - 1))
        .collect()
}

/// Explores one loaded scenario, drawing agent faults on `agents` only (see
/// [`Options::eligible_agents`]).
pub fn explore_agents(scenario: &Scenario, opts: &Options, agents: Vec<usize>) -> Explored {
    explore_from(scenario, opts, agents, None)
}

/// [`explore_agents`]; a scenario with real agents runs from its `source`, each run (and each
/// shrinking step) with its agents started afresh.
pub fn explore_from(
    scenario: &Scenario,
    opts: &Options,
    agents: Vec<usize>,
    source: Option<Source>,
) -> Explored {
    let base = &scenario.faults;
    // Windows are drawn over the run's length: the file's own run (a real one with real agents).
    let (clock, requests) = match source {
        Some(src) => {
            real_run(src, base, |w| (w.clock(), Some(w.tasks.len() as u64))).unwrap_or((1, Some(1)))
        }
        None => (
            engine::run_recording(scenario, engine::RecordStreams::StreamSteps).clock(),
            None,
        ),
    };
    let mut inputs = Inputs::new(scenario, clock, opts.kinds);
    inputs.requests = requests;
    inputs.agents = agents;
    let runs = kept_runs(opts.runs, opts.slice);
    // Chunks keep the hand-off between threads rare next to the runs themselves; a run with real
    // agents takes a second, far longer than a hand-off, so each is a chunk of its own.
    let chunk = if source.is_some() { 1 } else { 64 };
    let chunks: Vec<&[u64]> = runs.chunks(chunk).collect();
    let mut found = Vec::new();
    // `--max-distinct`: the run that gave the last distinct violation wanted. Results come in run
    // order, so the cut is the same for any `--jobs`; workers only skip runs past it.
    let stop = std::sync::atomic::AtomicBool::new(false);
    let mut seen: std::collections::HashSet<(Violation, Vec<Fault>)> = Default::default();
    let mut cut: Option<u64> = None;
    crate::corpus::for_each_ordered(
        &chunks,
        opts.jobs,
        |chunk| {
            let mut faults = base.clone();
            let mut out = Vec::new();
            for &run in chunk.iter() {
                if stop.load(std::sync::atomic::Ordering::Relaxed) {
                    break;
                }
                let drawn = inputs.draw(opts.seed, run);
                faults.entries.truncate(base.entries.len());
                faults.entries.extend_from_slice(&drawn);
                if let Some(v) = check_with(scenario, &faults, source) {
                    let (faults, violation) = shrink(scenario, base, drawn, v, source);
                    out.push(Found {
                        run,
                        violation,
                        faults,
                    });
                }
            }
            out
        },
        |_, r: Vec<Found>| {
            for f in r {
                if cut.is_some() {
                    return;
                }
                if let Some(max) = opts.max_distinct {
                    seen.insert((f.violation.clone(), f.faults.clone()));
                    if seen.len() >= max {
                        cut = Some(f.run);
                        stop.store(true, std::sync::atomic::Ordering::Relaxed);
                    }
                }
                found.push(f);
            }
        },
    );
    let made = match cut {
        Some(run) => runs.iter().position(|&r| r == run).map_or(0, |i| i + 1),
        None => runs.len(),
    };
    Explored {
        runs: made as u64,
        found,
    }
}

/// Explores one loaded scenario, faults drawn on every agent.
pub fn explore(scenario: &Scenario, opts: &Options) -> Explored {
    explore_agents(scenario, opts, (0..scenario.agents.len()).collect())
}

/// Where each run of a scenario with real agents loads it from; `None` for a scripted one. An
/// agent at a `url` cannot be explored: each run needs an agent of its own, started fresh.
fn real_source<'a>(
    scenario: &Scenario,
    path: &'a std::path::Path,
    overrides: &'a [Override],
    real: &'a crate::running::RealAgentArgs,
) -> Result<Option<Source<'a>>, String> {
    if !scenario.has_real_agents() {
        return Ok(None);
    }
    if let Some(a) = scenario
        .agents
        .iter()
        .find(|a| a.external.as_ref().is_some_and(|e| e.url.is_some()))
    {
        return Err(format!(
            "agent `{}` is reached at a `url`: explore starts a fresh agent for every run (and every shrinking step), so it needs a `command` to start it with",
            a.name()
        ));
    }
    Ok(Some(Source {
        path,
        overrides,
        real,
    }))
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

/// The human report of one distinct violation (`count` runs gave it): what broke, and the
/// schedule to paste.
pub fn human(file: &str, seed: u64, scenario: &Scenario, f: &Found, count: u64) -> String {
    let first_of = if count > 1 {
        format!(", first of {count} runs")
    } else {
        String::new()
    };
    let mut s = format!(
        "{file}: run {} (seed {seed}{first_of}): {} violated: {}\n",
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

/// The JSON line of one distinct violation (`count` runs gave it).
pub fn json_line(file: &str, seed: u64, scenario: &Scenario, f: &Found, count: u64) -> String {
    use serde_json::json;
    let violation = match f.violation.rule {
        Rule::Invariant(name) => {
            json!({"kind": "invariant", "name": name, "message": f.violation.message})
        }
        Rule::Expect(i) => json!({"kind": "expect", "index": i, "message": f.violation.message}),
    };
    let faults: Vec<_> = f.faults.iter().map(|x| fault_json(scenario, x)).collect();
    json!({"file": file, "run": f.run, "count": count, "seed": seed, "violation": violation, "faults": faults})
        .to_string()
}

/// The command: every file in order, a summary line; failed on a violation.
pub fn command(
    files: &[PathBuf],
    opts: &Options,
    overrides: &[Override],
    real: &crate::running::RealAgentArgs,
    out: &mut dyn Write,
) -> Status {
    let mut status = Status::Success;
    let (mut runs, mut violations, mut distinct) = (0u64, 0u64, 0u64);
    for path in files {
        // `--set` as for `run`: each override checked like file content, located at the override.
        let scenario = match Load::file(path).overrides(overrides).load() {
            Ok(l) => l.scenario,
            Err(e) => {
                let _ = out.flush();
                eprintln!("{e}");
                status = Status::InputErrors;
                continue;
            }
        };
        let file = path.display().to_string();
        let agents = match opts.eligible_agents(&scenario) {
            Ok(a) => a,
            Err(e) => {
                let _ = out.flush();
                eprintln!("{file}: {e}");
                status = Status::InputErrors;
                continue;
            }
        };
        let source = match real_source(&scenario, path, overrides, real) {
            Ok(source) => source,
            Err(e) => {
                let _ = out.flush();
                eprintln!("{file}: {e}");
                status = Status::InputErrors;
                continue;
            }
        };
        let explored = explore_from(&scenario, opts, agents, source);
        runs += explored.runs;
        violations += explored.found.len() as u64;
        let groups = explored.distinct();
        distinct += groups.len() as u64;
        for (f, count) in groups {
            let text = if opts.json {
                json_line(&file, opts.seed, &scenario, f, count) + "\n"
            } else {
                human(&file, opts.seed, &scenario, f, count)
            };
            if out.write_all(text.as_bytes()).is_err() {
                return status;
            }
        }
    }
    let summary = if opts.json {
        serde_json::json!({"runs": runs, "violations": violations, "distinct": distinct})
            .to_string()
    } else if violations > 0 {
        format!("{runs} runs, {violations} violations, {distinct} distinct")
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
