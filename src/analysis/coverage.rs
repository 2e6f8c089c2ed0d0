//! `a2a-sim coverage`: what a corpus of scenarios exercised — lifecycle edges taken (of all legal
//! ones) and illegal ones attempted, denial and error codes seen, and per agent the handler steps
//! and `when` branches that ran. Percentages, what never ran, `--fail-under` for CI.
//!
//! The total is every item of every category together: covered items / all items.

use std::collections::BTreeSet;
use std::path::PathBuf;

use serde_json::{Value, json};

use crate::engine::World;
use crate::engine::record::{Branch, DenialCode, ErrorCode, TRANSITIONS, TaskState};
use crate::engine::scenario::HandlerStep;
use crate::error::{Error, Status};
use crate::report::step_at;

/// One agent's handler in one scenario file.
struct AgentCoverage {
    file: String,
    agent: String,
    /// (pre-order number, kind)
    steps: Vec<(usize, String)>,
    ran: BTreeSet<usize>,
    /// `when` step numbers, and the branches taken of each.
    whens: Vec<usize>,
    branches: BTreeSet<(usize, &'static str)>,
}

#[derive(Default)]
pub struct Coverage {
    scenarios: usize,
    edges: BTreeSet<(TaskState, TaskState)>,
    /// Each illegal edge attempted, with the files that attempted it, in order.
    illegal: std::collections::BTreeMap<(TaskState, TaskState), Vec<String>>,
    denials: BTreeSet<DenialCode>,
    errors: BTreeSet<&'static str>,
    agents: Vec<AgentCoverage>,
}

fn kind(step: &HandlerStep) -> String {
    match step {
        HandlerStep::Status(s, _) => s.as_str().to_string(),
        HandlerStep::Message(_) => "message".into(),
        HandlerStep::Artifact(_) => "artifact".into(),
        HandlerStep::Delegate(_) => "delegate".into(),
        HandlerStep::FanOut(_) => "fan_out".into(),
        HandlerStep::Wait(_) => "wait".into(),
        HandlerStep::When(_) => "when".into(),
    }
}

/// `from -> to` and the handler step of an `illegal_transition` detail (the engine's own wording,
/// pinned by a test).
fn illegal_detail(detail: &str) -> Option<(TaskState, TaskState, usize)> {
    let rest = detail.split(" asked for ").nth(1)?;
    let (edge, step) = rest.split_once(" at handler step ")?;
    let (from, to) = edge.split_once(" -> ")?;
    let n = step.split_whitespace().next()?.parse().ok()?;
    Some((TaskState::from_a2a(from)?, TaskState::from_a2a(to)?, n))
}

pub fn legal_edges() -> Vec<(TaskState, TaskState)> {
    TRANSITIONS
        .iter()
        .flat_map(|(from, to)| to.iter().map(move |t| (*from, *t)))
        .collect()
}

impl Coverage {
    /// Adds one run of the scenario in `file`.
    pub fn add(&mut self, file: &str, world: &World) {
        let s = world.scenario;
        self.scenarios += 1;
        for t in &world.tasks {
            for pair in t.history.windows(2) {
                self.edges.insert((pair[0].state, pair[1].state));
            }
        }
        for d in &world.denials {
            self.denials.extend(d.denials.iter().map(|x| x.code));
        }
        let first = self.agents.len();
        for a in &s.agents {
            let mut steps = Vec::new();
            let mut whens = Vec::new();
            let mut n = 1;
            while let Some(step) = step_at(&a.handler, n) {
                if matches!(step, HandlerStep::When(_)) {
                    whens.push(n);
                }
                steps.push((n, kind(step)));
                n += 1;
            }
            self.agents.push(AgentCoverage {
                file: file.to_string(),
                agent: a.name().to_string(),
                steps,
                ran: BTreeSet::new(),
                whens,
                branches: BTreeSet::new(),
            });
        }
        for e in &world.errors {
            self.errors.insert(e.code.as_str());
            if e.code == ErrorCode::IllegalTransition
                && let Some((from, to, n)) = illegal_detail(&e.detail)
            {
                let files = self.illegal.entry((from, to)).or_default();
                if !files.iter().any(|f| f == file) {
                    files.push(file.to_string());
                }
                if let Some(t) = e.task() {
                    self.agents[first + world.tasks[t].agent()].ran.insert(n);
                }
            }
        }
        for (ix, t) in world.tasks.iter().enumerate() {
            let agent = &mut self.agents[first + t.agent()];
            agent.ran.extend(super::explain::steps_taken(world, ix));
            for d in t.decisions() {
                let b = match d.branch {
                    Branch::Then => "then",
                    Branch::Else => "else",
                };
                agent.ran.insert(d.handler_step);
                agent.branches.insert((d.handler_step, b));
            }
        }
    }

    pub fn json(&self) -> Value {
        let legal = legal_edges();
        let edge = |(f, t): &(TaskState, TaskState)| format!("{f} -> {t}");
        let taken: Vec<String> = legal
            .iter()
            .filter(|e| self.edges.contains(e))
            .map(edge)
            .collect();
        let never: Vec<String> = legal
            .iter()
            .filter(|e| !self.edges.contains(e))
            .map(edge)
            .collect();
        let illegal: Vec<Value> = self
            .illegal
            .iter()
            .map(|((f, t), files)| json!({"edge": format!("{f} -> {t}"), "files": files}))
            .collect();
        let den_seen: Vec<&str> = DenialCode::ALL
            .iter()
            .filter(|c| self.denials.contains(c))
            .map(|c| c.as_str())
            .collect();
        let den_never: Vec<&str> = DenialCode::ALL
            .iter()
            .filter(|c| !self.denials.contains(c))
            .map(|c| c.as_str())
            .collect();
        let err_seen: Vec<&str> = ErrorCode::ALL
            .iter()
            .map(|c| c.as_str())
            .filter(|c| self.errors.contains(c))
            .collect();
        let err_never: Vec<&str> = ErrorCode::ALL
            .iter()
            .map(|c| c.as_str())
            .filter(|c| !self.errors.contains(c))
            .collect();
        let (mut steps_ran, mut steps_all, mut br_ran, mut br_all) = (0, 0, 0, 0);
        let agents: Vec<Value> = self
            .agents
            .iter()
            .map(|a| {
                let never_steps: Vec<Value> = a
                    .steps
                    .iter()
                    .filter(|(n, _)| !a.ran.contains(n))
                    .map(|(n, k)| json!({"handler_step": n, "kind": k}))
                    .collect();
                let never_branches: Vec<Value> = a
                    .whens
                    .iter()
                    .flat_map(|&w| ["then", "else"].map(|b| (w, b)))
                    .filter(|wb| !a.branches.contains(wb))
                    .map(|(w, b)| json!({"handler_step": w, "branch": b}))
                    .collect();
                let ran = a.steps.len() - never_steps.len();
                let branches = a.whens.len() * 2 - never_branches.len();
                steps_ran += ran;
                steps_all += a.steps.len();
                br_ran += branches;
                br_all += a.whens.len() * 2;
                json!({
                    "file": a.file,
                    "agent": a.agent,
                    "handler_steps": {"ran": ran, "of": a.steps.len(), "percent": pct(ran, a.steps.len()), "never": never_steps},
                    "branches": {"ran": branches, "of": a.whens.len() * 2, "percent": pct(branches, a.whens.len() * 2), "never": never_branches},
                })
            })
            .collect();
        let covered = taken.len() + den_seen.len() + err_seen.len() + steps_ran + br_ran;
        let all = legal.len() + DenialCode::ALL.len() + ErrorCode::ALL.len() + steps_all + br_all;
        json!({
            "scenarios": self.scenarios,
            "lifecycle_edges": {"taken": taken.len(), "of": legal.len(), "percent": pct(taken.len(), legal.len()), "never": never, "illegal_attempted": illegal},
            "denial_codes": {"seen": den_seen, "of": DenialCode::ALL.len(), "percent": pct(den_seen.len(), DenialCode::ALL.len()), "never": den_never},
            "error_codes": {"seen": err_seen, "of": ErrorCode::ALL.len(), "percent": pct(err_seen.len(), ErrorCode::ALL.len()), "never": err_never},
            "handler_steps": {"ran": steps_ran, "of": steps_all, "percent": pct(steps_ran, steps_all)},
            "branches": {"ran": br_ran, "of": br_all, "percent": pct(br_ran, br_all)},
            "agents": agents,
            "total": {"covered": covered, "of": all, "percent": pct(covered, all)},
        })
    }
}

/// A percentage with one decimal, as a number; 100 for an empty category (nothing to miss).
fn pct(n: usize, of: usize) -> f64 {
    if of == 0 {
        return 100.0;
    }
    (n as f64 * 1000.0 / of as f64).floor() / 10.0
}

/// The human text of [`Coverage::json`].
pub fn human(doc: &Value) -> String {
    let mut out = String::new();
    // One line each: a file or agent name in it is shown escaped ([`crate::escape`]).
    let mut line = |s: String| {
        out.push_str(&crate::escape::text(&s));
        out.push('\n');
    };
    let words = |v: &Value| -> String {
        v.as_array()
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_str)
                    .collect::<Vec<_>>()
                    .join(", ")
            })
            .unwrap_or_default()
    };
    line(format!("coverage of {} scenarios", doc["scenarios"]));
    let e = &doc["lifecycle_edges"];
    line(format!(
        "lifecycle edges  {}/{}  {}%",
        e["taken"], e["of"], e["percent"]
    ));
    if !words(&e["never"]).is_empty() {
        line(format!("  never taken: {}", words(&e["never"])));
    }
    for i in e["illegal_attempted"].as_array().into_iter().flatten() {
        line(format!(
            "  illegal attempted: {} ({})",
            i["edge"].as_str().unwrap_or_default(),
            words(&i["files"])
        ));
    }
    for (key, label) in [
        ("denial_codes", "denial codes"),
        ("error_codes", "error codes"),
    ] {
        let c = &doc[key];
        let seen = c["seen"].as_array().map_or(0, Vec::len);
        line(format!("{label:<16} {seen}/{}  {}%", c["of"], c["percent"]));
        if !words(&c["never"]).is_empty() {
            line(format!("  never seen: {}", words(&c["never"])));
        }
    }
    for (key, label) in [
        ("handler_steps", "handler steps"),
        ("branches", "when branches"),
    ] {
        let c = &doc[key];
        line(format!(
            "{label:<16} {}/{}  {}%",
            c["ran"], c["of"], c["percent"]
        ));
    }
    line("agents".into());
    for a in doc["agents"].as_array().into_iter().flatten() {
        let (st, br) = (&a["handler_steps"], &a["branches"]);
        line(format!(
            "  {} {}: steps {}/{}, branches {}/{}",
            a["file"].as_str().unwrap_or_default(),
            a["agent"].as_str().unwrap_or_default(),
            st["ran"],
            st["of"],
            br["ran"],
            br["of"]
        ));
        let mut never: Vec<String> = st["never"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|s| {
                format!(
                    "step {} ({})",
                    s["handler_step"],
                    s["kind"].as_str().unwrap_or_default()
                )
            })
            .collect();
        never.extend(br["never"].as_array().into_iter().flatten().map(|b| {
            format!(
                "step {} {} branch",
                b["handler_step"],
                b["branch"].as_str().unwrap_or_default()
            )
        }));
        if !never.is_empty() {
            line(format!("    never ran: {}", never.join(", ")));
        }
    }
    let t = &doc["total"];
    line(format!(
        "total {}/{}  {}%",
        t["covered"], t["of"], t["percent"]
    ));
    out
}

/// The `coverage` command: failed below `--fail-under`; input errors when a file does not load.
pub fn command(paths: &[PathBuf], as_json: bool, fail_under: Option<f64>) -> Result<Status, Error> {
    let files = crate::corpus::expand(paths).map_err(Error::Usage)?;
    let mut cov = Coverage::default();
    let mut status = Status::Success;
    for f in &files {
        let scenario = match crate::scenario::Load::file(f).scenario() {
            Ok(s) => s,
            Err(e) => {
                eprintln!("{e}");
                status = Status::InputErrors;
                continue;
            }
        };
        let name = f.display().to_string();
        let ran = crate::running::run(
            scenario,
            crate::engine::RecordStreams::All,
            crate::running::Teardown::Drop,
            // `coverage` has no real-agent flags: their defaults.
            &crate::running::RealAgentArgs::default(),
            |w, _| cov.add(&name, w),
        );
        if let Err(m) = ran {
            eprintln!("{name}: {}", crate::escape::lines(&m));
            status = Status::InputErrors;
        }
    }
    if status != Status::Success {
        return Ok(status);
    }
    let doc = cov.json();
    let mut out = std::io::stdout().lock();
    let written = if as_json {
        crate::report::json::write_pretty(&doc, &mut out)
    } else {
        std::io::Write::write_all(&mut out, human(&doc).as_bytes())
    };
    crate::error::written(written)?;
    let total = doc["total"]["percent"].as_f64().unwrap_or(0.0);
    Ok(match fail_under {
        Some(min) if total < min => {
            eprintln!("coverage {total}% is below --fail-under {min}%");
            Status::Failed
        }
        _ => Status::Success,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_engines_illegal_transition_detail() {
        let d = "the handler of `a` asked for submitted -> completed at handler step 3 of task-1";
        assert_eq!(
            illegal_detail(d),
            Some((TaskState::Submitted, TaskState::Completed, 3))
        );
        assert_eq!(illegal_detail("nonsense"), None);
    }
}
