//! `run --format table`: the same facts as the JSON report, laid out for people.
//! The layout never depends on the terminal unless stdout is one.

use std::fmt::Write as _;

use comfy_table::{ContentArrangement, Table, presets};

use crate::report::condition::CondText;
use crate::report::handler_steps::when_at;
use engine::record::*;
use engine::scenario::Step;
use scenario::escape::Escaped;

/// How tables are laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// Fixed: the same bytes for the same input (stdout is not a terminal).
    Fixed,
    /// Fit to the terminal's width.
    Terminal,
}

pub fn render(record: &Record, layout: Layout) -> String {
    let mut out = String::new();
    let s = record.scenario;
    let names = &s.symbols;
    let _ = writeln!(out, "== scenario: {} ==", Escaped(&s.name));
    if !s.overrides.is_empty() {
        let _ = writeln!(out, "overrides: {}", Escaped(&s.overrides.join(" ")));
    }
    let _ = writeln!(
        out,
        "{}, {}, {}, {}, {}",
        super::plural(record.steps.len(), "step"),
        super::plural(record.tasks.len(), "task"),
        super::plural(record.denials.len(), "denial"),
        super::plural(record.pushes.len(), "push"),
        super::plural(record.errors.len(), "error")
    );

    let _ = writeln!(out, "\nsteps");
    let mut t = table(layout, &["step", "op", "caller", "result"]);
    for (i, r) in record.steps.iter().enumerate() {
        t.add_row(vec![
            (i + 1).to_string(),
            s.steps[i].op().to_string(),
            r.caller().map_or(String::new(), |c| esc(&s.callers[c].id)),
            step_result(record, i + 1, r),
        ]);
    }
    let _ = writeln!(out, "{t}");

    for (i, r) in record.steps.iter().enumerate() {
        if let StepResult::Ranking(ranking) = &r.result {
            let _ = writeln!(
                out,
                "\ndiscover (step {}, caller {})",
                i + 1,
                Escaped(r.caller().map_or("", |c| s.callers[c].id.as_str()))
            );
            let mut t = table(layout, &["rank", "agent", "score"]);
            for (k, row) in ranking.iter().enumerate() {
                t.add_row(vec![
                    (k + 1).to_string(),
                    esc(s.agents[row.agent].name()),
                    row.score.to_string(),
                ]);
            }
            if ranking.is_empty() {
                t.add_row(vec!["-", "(no agent matches)", ""]);
            }
            let _ = writeln!(out, "{t}");
        }
    }

    for (i, r) in record.steps.iter().enumerate() {
        if let (Step::Matrix { callers, agents }, StepResult::Matrix(grid)) =
            (&s.steps[i], &r.result)
        {
            let _ = writeln!(out, "\nmatrix (step {})", i + 1);
            let mut header = vec!["caller \\ agent".to_string()];
            header.extend(agents.iter().map(|&a| esc(s.agents[a].name())));
            let header: Vec<&str> = header.iter().map(String::as_str).collect();
            let mut t = table(layout, &header);
            for (&c, row) in callers.iter().zip(grid.iter()) {
                let mut cells = vec![esc(&s.callers[c].id)];
                cells.extend(row.iter().map(|codes| {
                    if codes.is_empty() {
                        "✓".to_string()
                    } else {
                        codes
                            .iter()
                            .map(|c| c.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    }
                }));
                t.add_row(cells);
            }
            let _ = writeln!(out, "{t}");
        }
    }

    for (ix, task) in record.tasks.iter().enumerate() {
        let chain: Vec<&str> = record
            .chains
            .to_vec(task.delegation_chain)
            .iter()
            .map(|&h| names.name(h))
            .collect();
        let _ = writeln!(
            out,
            "\ntask {} on {} ({}{}), caller {}, context {}",
            task_id(ix),
            Escaped(s.agents[task.agent()].name()),
            task.state,
            if crashed(record, ix) { ", crashed" } else { "" },
            Escaped(names.name(task.owner.id)),
            Escaped(&task.context.to_string())
        );
        let _ = writeln!(
            out,
            "  chain:  {}",
            if chain.is_empty() {
                "(empty)".into()
            } else {
                scenario::escape::text(&chain.join(" -> ")).into_owned()
            }
        );
        if let Some(vt) = record.caller_tokens.get(&ix) {
            let act = if vt.act_chain.is_empty() {
                "(none)".to_string()
            } else {
                scenario::escape::text(&vt.act_chain.join(" -> ")).into_owned()
            };
            let _ = writeln!(
                out,
                "  token:  sub {}, iss {}, kid {}, act {act}, exp {}",
                Escaped(&vt.sub),
                Escaped(&vt.iss),
                Escaped(&vt.kid),
                vt.exp
            );
        }
        let _ = writeln!(
            out,
            "  parent: {}",
            task.parent().map_or("none".to_string(), task_id)
        );
        if task.attempt >= 2 {
            let _ = writeln!(out, "  attempt: {}", task.attempt);
        }
        if record.scenario.policy.authority_keys {
            let list = |s: &[engine::scenario::Sym]| {
                scenario::escape::text(
                    &s.iter()
                        .map(|&s| names.name(s))
                        .collect::<Vec<_>>()
                        .join(", "),
                )
                .into_owned()
            };
            let scopes = match list(&task.scopes) {
                l if l.is_empty() => "(none)".to_string(),
                l => l,
            };
            let _ = writeln!(out, "  scopes: {scopes}");
            if !task.amplified().is_empty() {
                let _ = writeln!(out, "  \u{26a0} amplified: {}", list(task.amplified()));
            }
        }
        let mut t = table(layout, &["tick", "state", "message"]);
        for h in &task.history {
            let msg = h.message().map_or("", |m| &*task.messages[m].text);
            t.add_row(vec![h.tick.to_string(), h.state.to_string(), esc(msg)]);
        }
        let _ = writeln!(out, "{t}");
        if !task.decisions().is_empty() {
            let _ = writeln!(out, "{}", decisions(record, task, layout));
        }
        let mut t = table(layout, &["message", "role", "text", "data"]);
        for m in &task.messages {
            let role = if m.role() == engine::record::Role::User {
                "user"
            } else {
                "agent"
            };
            let data = record
                .message_data(m)
                .map(|d| serde_json::to_string(d).unwrap_or_default())
                .unwrap_or_default();
            t.add_row(vec![
                format!("msg-{}", m.id()),
                role.to_string(),
                esc(&m.text),
                esc(&data),
            ]);
        }
        let _ = writeln!(out, "{t}");
        if !task.artifacts.is_empty() {
            let mut t = table(layout, &["artifact", "name", "part", "content"]);
            for a in &task.artifacts {
                let id = format!("artifact-{}", a.id);
                let name = esc(a.name.unwrap_or_default());
                if let Some(text) = a.text() {
                    t.add_row(vec![id.clone(), name.clone(), "text".into(), esc(text)]);
                }
                if let Some(data) = &a.data {
                    let json = serde_json::to_string(data).unwrap_or_default();
                    t.add_row(vec![id, name, "data".into(), esc(&json)]);
                }
            }
            let _ = writeln!(out, "{t}");
        }
    }

    if !record.denials.is_empty() {
        let _ = writeln!(out, "\ndenials");
        let mut t = table(layout, &["step", "caller", "callee", "code", "detail"]);
        for d in &record.denials {
            for x in &d.denials {
                t.add_row(vec![
                    d.step().to_string(),
                    esc(names.name(d.caller)),
                    esc(s.agents[d.callee()].name()),
                    x.code.as_str().to_string(),
                    esc(&x.detail),
                ]);
            }
        }
        let _ = writeln!(out, "{t}");
    }
    if !record.pushes.is_empty() {
        let _ = writeln!(out, "\npushes");
        let mut t = table(layout, &["tick", "task", "url", "state"]);
        for p in &record.pushes {
            t.add_row(vec![
                p.tick.to_string(),
                task_id(p.task),
                esc(&record.push_urls[p.url]),
                p.state.to_string(),
            ]);
        }
        let _ = writeln!(out, "{t}");
    }
    crate::report::faults_table::render(record, &mut out, |h| table(layout, h));
    if !record.errors.is_empty() {
        let _ = writeln!(out, "\nerrors");
        let mut t = table(layout, &["step", "code", "detail"]);
        for e in &record.errors {
            t.add_row(vec![
                e.step().to_string(),
                e.code.as_str().to_string(),
                esc(&e.detail),
            ]);
        }
        let _ = writeln!(out, "{t}");
    }
    if !record.warnings.is_empty() {
        let _ = writeln!(out, "\nwarnings");
        let mut t = table(layout, &["step", "task", "detail"]);
        for w in &record.warnings {
            t.add_row(vec![
                w.step().to_string(),
                w.task().map(task_id).unwrap_or_default(),
                esc(&w.detail),
            ]);
        }
        let _ = writeln!(out, "{t}");
    }
    out
}

/// Which branch each `when` took, and why: the condition as the handler states it.
fn decisions(record: &Record, task: &Task, layout: Layout) -> Table {
    let agent = &record.scenario.agents[task.agent()];
    let mut t = table(layout, &["tick", "handler step", "when", "branch"]);
    for d in task.decisions() {
        let when = when_at(&agent.handler, d.handler_step).map_or(String::new(), |w| {
            esc(&CondText {
                cond: &w.cond,
                results: &agent.results,
            }
            .to_string())
        });
        t.add_row(vec![
            d.tick.to_string(),
            d.handler_step.to_string(),
            when,
            d.branch.as_str().to_string(),
        ]);
    }
    t
}

/// A step's result in one cell.
fn step_result(record: &Record, step: usize, r: &StepRecord) -> String {
    match &r.result {
        StepResult::Task {
            stream: Some(call), ..
        } => {
            let events: Vec<String> = record
                .call_events(call.get())
                .map(|e| {
                    let t = &record.tasks[record.event_task(e)];
                    match record.event_kind(e) {
                        EventKind::Task { history, .. } => {
                            format!("task {}", t.history[history - 1].state)
                        }
                        EventKind::Status(h) => format!("status {}", t.history[h].state),
                        EventKind::Message(m) => format!("message msg-{}", t.messages[m].id()),
                        EventKind::Artifact(a) => {
                            format!("artifact artifact-{}", t.artifacts[a].id)
                        }
                    }
                })
                .collect();
            format!(
                "{}\nevents: {}",
                step_summary(record, step, r),
                events.join(", ")
            )
        }
        StepResult::Nothing
            if record
                .errors
                .iter()
                .any(|e| e.step() == step && e.code == ErrorCode::AgentUnavailable) =>
        {
            format!(
                "refused (agent unavailable) - {}",
                step_summary(record, step, r)
            )
        }
        _ => step_summary(record, step, r),
    }
}

/// A step's result in one line, as every tabular view shows it.
pub(crate) fn step_summary(record: &Record, step: usize, r: &StepRecord) -> String {
    let s = record.scenario;
    match &r.result {
        StepResult::Tick(t) => format!("tick {t}"),
        StepResult::Ranking(ranking) if ranking.is_empty() => "ranking: (no agent matches)".into(),
        StepResult::Ranking(ranking) => {
            let list: Vec<String> = ranking
                .iter()
                .map(|x| format!("{} ({})", Escaped(s.agents[x.agent].name()), x.score))
                .collect();
            format!("ranking: {}", list.join(", "))
        }
        StepResult::Task { task, state, .. } => format!("{} {state}", task_id(*task)),
        StepResult::Denied(codes) => {
            let codes: Vec<&str> = codes.iter().map(|c| c.as_str()).collect();
            format!("denied: {}", codes.join(", "))
        }
        StepResult::Matrix(grid) => {
            let pairs: usize = grid.iter().map(Vec::len).sum();
            let admitted = grid.iter().flatten().filter(|c| c.is_empty()).count();
            format!("matrix: {admitted} of {pairs} pairs admitted")
        }
        StepResult::Nothing => {
            let codes: Vec<&str> = record
                .errors
                .iter()
                .filter(|e| e.step() == step)
                .map(|e| e.code.as_str())
                .collect();
            format!("nothing done: {}", codes.join(", "))
        }
    }
}

/// Whether a crash failed this task (its last status message says so).
fn crashed(record: &Record, task: usize) -> bool {
    if record.faults.entries.is_empty() {
        return false;
    }
    let t = &record.tasks[task];
    t.history
        .last()
        .and_then(|h| h.message())
        .is_some_and(|m| t.messages[m].text == engine::CRASHED)
        && t.state == engine::record::TaskState::Failed
}

/// A name or text from the scenario, for a cell: control characters escaped, its lines kept as
/// the cell's lines ([`scenario::escape::cell`]).
pub(crate) fn esc(s: &str) -> String {
    scenario::escape::cell(s).into_owned()
}

fn table(layout: Layout, header: &[&str]) -> Table {
    let mut t = Table::new();
    t.load_style(presets::UTF8_FULL_CONDENSED);
    match layout {
        Layout::Fixed => {
            t.force_no_tty()
                .set_content_arrangement(ContentArrangement::Disabled);
        }
        // A terminal that reports no width (some pseudo-terminals say 0) gets the fixed layout.
        Layout::Terminal if t.width().is_some_and(|w| w >= 40) => {
            t.set_content_arrangement(ContentArrangement::Dynamic);
        }
        Layout::Terminal => {
            t.set_content_arrangement(ContentArrangement::Disabled);
        }
    }
    t.set_header(header.to_vec());
    t
}
