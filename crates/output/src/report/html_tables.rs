//! The tables of the HTML page (`run --format html`): the same facts as `run --format table`,
//! as HTML tables, each task in a section the timeline's bars link to.

use std::fmt::Write as _;

use crate::report::condition::CondText;
use crate::report::handler_steps::when_at;
use crate::report::html_text::{colour, esc};
use engine::record::{Record, Role, task_id};

pub(crate) fn tables(record: &Record, out: &mut String) {
    let s = record.scenario;
    let names = &s.symbols;
    out.push_str("<h2>Steps</h2>\n");
    let rows = record.steps.iter().enumerate().map(|(i, r)| {
        vec![
            (i + 1).to_string(),
            s.steps[i].op().to_string(),
            r.caller()
                .map_or(String::new(), |c| s.callers[c].id.clone()),
            crate::report::table::step_summary(record, i + 1, r),
        ]
    });
    table(out, &["step", "op", "caller", "result"], rows);
    out.push_str("<h2>Tasks</h2>\n");
    for (ix, t) in record.tasks.iter().enumerate() {
        let chain: Vec<&str> = record
            .chains
            .to_vec(t.delegation_chain)
            .iter()
            .map(|&h| names.name(h))
            .collect();
        let _ = writeln!(
            out,
            "<section id=\"{}\"><h3>{} on {} <span class=\"state\" style=\"background:{}\">{}</span></h3>\n<p>caller {}, context <code>{}</code>, chain {}, parent {}{}</p>",
            task_id(ix),
            task_id(ix),
            esc(s.agents[t.agent()].name()),
            colour(t.state),
            t.state,
            esc(names.name(t.owner.id)),
            esc(&t.context.to_string()),
            if chain.is_empty() {
                "(empty)".to_string()
            } else {
                esc(&chain.join(" → "))
            },
            t.parent().map_or("none".to_string(), |p| format!(
                "<a href=\"#{0}\">{0}</a>",
                task_id(p)
            )),
            if t.attempt >= 2 {
                format!(", attempt {}", t.attempt)
            } else {
                String::new()
            }
        );
        let rows = t.history.iter().map(|h| {
            let msg = h.message().and_then(|m| t.messages.get(m));
            vec![
                h.tick.to_string(),
                h.state.to_string(),
                msg.map_or(String::new(), |m| m.text.to_string()),
            ]
        });
        table(out, &["tick", "state", "message"], rows);
        if !t.decisions().is_empty() {
            let agent = &s.agents[t.agent()];
            let rows = t.decisions().iter().map(|d| {
                let when = when_at(&agent.handler, d.handler_step).map_or(String::new(), |w| {
                    CondText {
                        cond: &w.cond,
                        results: &agent.results,
                    }
                    .to_string()
                });
                let step = d.handler_step.to_string();
                vec![
                    d.tick.to_string(),
                    step,
                    when,
                    d.branch.as_str().to_string(),
                ]
            });
            table(out, &["tick", "handler step", "when", "branch"], rows);
        }
        let rows = t.messages.iter().map(|m| {
            let role = if m.role() == Role::User {
                "user"
            } else {
                "agent"
            };
            let data = record
                .message_data(m)
                .map(|d| serde_json::to_string(d).unwrap_or_default());
            let id = format!("msg-{}", m.id());
            vec![
                id,
                role.into(),
                m.text.to_string(),
                data.unwrap_or_default(),
            ]
        });
        table(out, &["message", "role", "text", "data"], rows);
        if !t.artifacts.is_empty() {
            let rows = t.artifacts.iter().map(|a| {
                let data = a
                    .data
                    .as_ref()
                    .map(|d| serde_json::to_string(d).unwrap_or_default());
                vec![
                    format!("artifact-{}", a.id),
                    a.name.unwrap_or_default().to_string(),
                    a.text().map_or("", |t| t).to_string(),
                    data.unwrap_or_default(),
                ]
            });
            table(out, &["artifact", "name", "text", "data"], rows);
        }
        out.push_str("</section>\n");
    }
    if !record.denials.is_empty() {
        out.push_str("<h2>Denials</h2>\n");
        let rows = record.denials.iter().flat_map(|d| {
            d.denials.iter().map(move |x| {
                vec![
                    d.step().to_string(),
                    names.name(d.caller).to_string(),
                    s.agents[d.callee()].name().to_string(),
                    x.code.as_str().to_string(),
                    x.detail.to_string(),
                ]
            })
        });
        table(out, &["step", "caller", "callee", "code", "detail"], rows);
    }
    if !record.pushes.is_empty() {
        out.push_str("<h2>Pushes</h2>\n");
        let rows = record.pushes.iter().map(|p| {
            let url = record.push_urls.get(p.url).cloned().unwrap_or_default();
            vec![
                p.tick.to_string(),
                task_id(p.task),
                url,
                p.state.to_string(),
            ]
        });
        table(out, &["tick", "task", "url", "state"], rows);
    }
    if !record.errors.is_empty() {
        out.push_str("<h2>Errors</h2>\n");
        let rows = record.errors.iter().map(|e| {
            vec![
                e.step().to_string(),
                e.code.as_str().to_string(),
                e.detail.to_string(),
            ]
        });
        table(out, &["step", "code", "detail"], rows);
    }
}

/// A table; cells are escaped, numbers right-aligned.
fn table(out: &mut String, header: &[&str], rows: impl Iterator<Item = Vec<String>>) {
    out.push_str("<table><tr>");
    for h in header {
        let _ = write!(out, "<th>{}</th>", esc(h));
    }
    out.push_str("</tr>\n");
    for row in rows {
        out.push_str("<tr>");
        for cell in row {
            let class = if !cell.is_empty() && cell.bytes().all(|b| b.is_ascii_digit()) {
                " class=\"n\""
            } else {
                ""
            };
            let _ = write!(out, "<td{class}>{}</td>", esc(&cell));
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</table>\n");
}
