//! `run --format html`: one self-contained page (no network, no script): an inline-SVG timeline
//! — a lane per agent, each task a bar coloured by its state over the ticks, links from parent to
//! child, denials, pushes and `when` decisions marked, each task's history on hover (SVG titles)
//! and a click through to its tables — above the report's tables. Rendered from the engine's
//! records only; deterministic.

use std::fmt::Write as _;

use crate::report::condition::CondText;
use crate::report::handler_steps::when_at;
use crate::report::html_marks::{Bands, lane_marks};
pub use crate::report::html_text::esc;
use crate::report::html_text::{COLOURS, colour};
use crate::report::mermaid_steps::step_anchors;
use engine::record::{ErrorCode, Record, Task, task_id};

const GUTTER: f64 = 190.0;
const ROW: f64 = 22.0;
const BAR: f64 = 14.0;
const LANE_PAD: f64 = 8.0;
const AXIS: f64 = 28.0;
/// The strip at the top of a lane that holds its refusal marks (denied, refused requests), so
/// that they never sit on a bar, a decision or a push.
const STRIP: f64 = 18.0;
/// The width a lane mark takes.
const MARK_W: f64 = 12.0;

/// Writes the page.
pub fn write(record: &Record, out: &mut dyn std::io::Write) -> std::io::Result<()> {
    out.write_all(render(record).as_bytes())
}

const STYLE: &str = "body{font:14px/1.4 system-ui,-apple-system,'Segoe UI',sans-serif;margin:24px;color:#1e293b;background:#fff}\
h1{font-size:20px;margin:0 0 4px}h2{font-size:16px;margin:28px 0 8px}h3{font-size:14px;margin:18px 0 6px}\
.summary{color:#475569;margin:0 0 12px}.legend span{display:inline-block;margin-right:14px;font-size:12px}\
.legend i{display:inline-block;width:12px;height:12px;border-radius:2px;margin-right:4px;vertical-align:-2px}\
.timeline{overflow-x:auto;border:1px solid #e2e8f0;border-radius:6px;padding:4px 0;margin:8px 0 4px}\
svg text{font:11px system-ui,sans-serif;fill:#1e293b}svg .lane{font-size:12px;font-weight:600}\
svg .axis{fill:#64748b;font-size:10px}svg .on{fill:#fff;font-size:10px;pointer-events:none}\
svg a:hover rect{stroke:#0f172a;stroke-width:1.5}svg .mark{font-size:10px;font-weight:600}\
table{border-collapse:collapse;margin:4px 0 10px;font-size:13px}th,td{border:1px solid #e2e8f0;padding:3px 8px;text-align:left;vertical-align:top}\
th{background:#f8fafc}td.n{text-align:right;font-variant-numeric:tabular-nums}section{padding:2px 8px;border-left:3px solid transparent}\
section:target{border-left-color:#3b82f6;background:#eff6ff}.state{display:inline-block;padding:0 6px;border-radius:3px;color:#fff;font-size:12px}\
.hint{color:#64748b;font-size:12px}ul.decisions{margin:0;padding-left:20px}ul.decisions li{margin:2px 0}code{font-size:12px}";

/// The page as text.
pub fn render(record: &Record) -> String {
    let s = record.scenario;
    let mut out = String::new();
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>{} — a2a-sim</title>\n<style>{STYLE}</style>\n</head>\n<body>\n<h1>{}</h1>\n",
        esc(&s.name),
        esc(&s.name)
    );
    let _ = writeln!(
        out,
        "<p class=\"summary\">{} steps, {} tasks, {} denials, {} pushes, {} errors</p>",
        record.steps.len(),
        record.tasks.len(),
        record.denials.len(),
        record.pushes.len(),
        record.errors.len()
    );
    out.push_str("<div class=\"legend\">");
    for (state, c) in COLOURS {
        let _ = write!(out, "<span><i style=\"background:{c}\"></i>{state}</span>");
    }
    out.push_str(
        "<span>◆ decision</span><span>▼ push</span><span style=\"color:#dc2626\">✕ denial</span>",
    );
    if !record.refused_attempts.is_empty()
        || record.errors.iter().any(|e| {
            matches!(
                e.code,
                ErrorCode::AgentUnavailable | ErrorCode::Unauthenticated
            )
        })
    {
        out.push_str("<span style=\"color:#ea580c\">⊘ refused</span>");
    }
    out.push_str("</div>\n");
    timeline(record, &mut out);
    out.push_str(
        "<p class=\"hint\">Hover a bar for the task's history; click it for its tables.</p>\n",
    );
    decisions(record, &mut out);
    crate::report::html_tables::tables(record, &mut out);
    out.push_str("</body>\n</html>\n");
    out
}

/// Where each task's bar lies: its lane (agent) and row within the lane.
struct Layout {
    /// Agents in order of first appearance, each with its rows' count.
    lanes: Vec<(usize, usize)>,
    /// Per task: (lane, row).
    place: Vec<(usize, usize)>,
    /// The y of each lane's top.
    lane_y: Vec<f64>,
    /// Whether each lane has a strip of refusal marks above its rows.
    strip: Vec<bool>,
    height: f64,
    ticks: u64,
    px: f64,
}

impl Layout {
    fn new(record: &Record, anchors: &[(u64, u8)]) -> Layout {
        let mut lane_of: Vec<Option<usize>> = vec![None; record.scenario.agents.len()];
        let mut lanes: Vec<(usize, usize)> = Vec::new();
        let mut lane = |agent: usize, lanes: &mut Vec<(usize, usize)>| -> usize {
            *lane_of[agent].get_or_insert_with(|| {
                lanes.push((agent, 0));
                lanes.len() - 1
            })
        };
        // Rows: each task in the first row of its lane free from its start on.
        let mut row_ends: Vec<Vec<u64>> = Vec::new();
        let mut place = Vec::with_capacity(record.tasks.len());
        for t in &record.tasks {
            let l = lane(t.agent(), &mut lanes);
            if row_ends.len() <= l {
                row_ends.resize(l + 1, Vec::new());
            }
            let (start, end) = span(t);
            let rows = &mut row_ends[l];
            let r = rows.iter().position(|&e| e <= start).unwrap_or(rows.len());
            if r == rows.len() {
                rows.push(0);
            }
            rows[r] = end;
            place.push((l, r));
        }
        let marked: Vec<usize> = lane_marks(record, anchors)
            .iter()
            .map(|m| lane(m.agent, &mut lanes))
            .collect();
        let mut strip = vec![false; lanes.len()];
        for l in marked {
            strip[l] = true;
        }
        let mut lane_y = Vec::with_capacity(lanes.len());
        let mut y = AXIS;
        for (l, entry) in lanes.iter_mut().enumerate() {
            entry.1 = row_ends.get(l).map_or(0, Vec::len).max(1);
            lane_y.push(y);
            y += entry.1 as f64 * ROW + 2.0 * LANE_PAD + if strip[l] { STRIP } else { 0.0 };
        }
        let last = record
            .tasks
            .iter()
            .flat_map(|t| t.history.iter().map(|h| h.tick))
            .chain(record.pushes.iter().map(|p| p.tick))
            .chain(anchors.iter().map(|a| a.0))
            .max()
            .unwrap_or(0);
        let ticks = last.saturating_add(2);
        // At least 6 px a tick while that keeps the page under 12,000 px wide; a longer run is
        // squeezed into that width.
        let px = (960.0 / ticks as f64).clamp((12000.0 / ticks as f64).min(6.0), 48.0);
        Layout {
            lanes,
            place,
            lane_y,
            strip,
            height: y + 4.0,
            ticks,
            px,
        }
    }

    fn x(&self, tick: u64) -> f64 {
        GUTTER + tick.min(self.ticks) as f64 * self.px
    }

    /// The centre line of a task's bar.
    fn y(&self, task: usize) -> f64 {
        let (l, r) = self.place[task];
        self.rows_y(l) + LANE_PAD + r as f64 * ROW + ROW / 2.0
    }

    /// Where a lane's rows begin: below its strip of marks, if it has one.
    fn rows_y(&self, l: usize) -> f64 {
        self.lane_y[l] + if self.strip[l] { STRIP } else { 0.0 }
    }
}

/// The ticks a task's bar covers, end exclusive: from its creation through its terminal state
/// (which gets one tick of its own colour); a task left open runs to the end of the timeline.
fn span(t: &Task) -> (u64, u64) {
    let start = t.history.first().map_or(0, |h| h.tick);
    match t.history.last() {
        Some(h) if h.state.is_terminal() => (start, h.tick.saturating_add(1)),
        _ => (start, u64::MAX),
    }
}

fn timeline(record: &Record, out: &mut String) {
    let s = record.scenario;
    let anchors = step_anchors(record);
    let lay = Layout::new(record, &anchors);
    let width = lay.x(lay.ticks) + 20.0;
    let _ = writeln!(
        out,
        "<div class=\"timeline\"><svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width:.0}\" height=\"{:.0}\" viewBox=\"0 0 {width:.0} {:.0}\" role=\"img\" aria-label=\"timeline of the tasks by agent over ticks\">",
        lay.height, lay.height
    );
    out.push_str("<defs><marker id=\"arrow\" viewBox=\"0 0 8 8\" refX=\"7\" refY=\"4\" markerWidth=\"6\" markerHeight=\"6\" orient=\"auto\"><path d=\"M0,0L8,4L0,8z\" fill=\"#64748b\"/></marker></defs>\n");
    // Lanes, alternating shade, and the tick axis.
    for (l, &(agent, rows)) in lay.lanes.iter().enumerate() {
        let y = lay.lane_y[l];
        let h = rows as f64 * ROW + 2.0 * LANE_PAD + if lay.strip[l] { STRIP } else { 0.0 };
        let fill = if l % 2 == 0 { "#f8fafc" } else { "#ffffff" };
        let _ = writeln!(
            out,
            "<rect x=\"0\" y=\"{y:.1}\" width=\"{width:.0}\" height=\"{h:.1}\" fill=\"{fill}\"/><text class=\"lane\" x=\"8\" y=\"{:.1}\">{}</text>",
            lay.rows_y(l) + LANE_PAD + ROW / 2.0 + 4.0,
            esc(&cut(s.agents[agent].name(), 26))
        );
    }
    // A label every 1, 2 or 5 × 10^k ticks, at least 36 px apart.
    let mut every = 1u64;
    for k in (0..19).flat_map(|e| [1u64, 2, 5].map(|m| m * 10u64.pow(e))) {
        every = k;
        if k as f64 * lay.px >= 36.0 {
            break;
        }
    }
    let mut t = 0;
    while t < lay.ticks {
        let x = lay.x(t);
        let _ = writeln!(
            out,
            "<line x1=\"{x:.1}\" y1=\"{:.1}\" x2=\"{x:.1}\" y2=\"{:.1}\" stroke=\"#e2e8f0\"/><text class=\"axis\" x=\"{x:.1}\" y=\"16\" text-anchor=\"middle\">t{t}</text>",
            AXIS - 6.0,
            lay.height
        );
        t += every;
    }
    // Links from each parent to its children, under the bars.
    for (c, child) in record.tasks.iter().enumerate() {
        if let Some(p) = child.parent().filter(|&p| p < record.tasks.len()) {
            let x = lay.x(span(child).0);
            let (y1, y2) = (lay.y(p), lay.y(c));
            let dir = if y2 > y1 { 1.0 } else { -1.0 };
            let _ = writeln!(
                out,
                "<path d=\"M{:.1},{y1:.1} C{:.1},{y1:.1} {:.1},{y2:.1} {:.1},{:.1}\" fill=\"none\" stroke=\"#64748b\" stroke-width=\"1.2\" marker-end=\"url(#arrow)\"/>",
                x - lay.px * 0.5,
                x - lay.px * 0.5 - 10.0,
                x - 12.0,
                x - 1.0,
                y2 - dir * 0.0
            );
        }
    }
    let mut bands = Bands::default();
    for (ix, task) in record.tasks.iter().enumerate() {
        bar(record, &lay, ix, task, &mut bands, out);
    }
    for p in &record.pushes {
        if p.task < record.tasks.len() {
            // Above its task's bar; pushes of one row side by side.
            let want = lay.x(p.tick) + lay.px / 2.0 - 4.0;
            let (x, y) = (
                bands.place((1, p.task), want, 8.0) + 4.0,
                lay.y(p.task) - BAR / 2.0 - 1.0,
            );
            let _ = writeln!(
                out,
                "<path d=\"M{:.1},{:.1}h8l-4,6z\" fill=\"#0f172a\"><title>t{} push of {} ({}) to {}</title></path>",
                x - 4.0,
                y - 6.0,
                p.tick,
                task_id(p.task),
                p.state,
                esc(&record.push_urls[p.url])
            );
        }
    }
    for m in lane_marks(record, &anchors) {
        let Some(l) = lay.lanes.iter().position(|&(a, _)| a == m.agent) else {
            continue;
        };
        let want = lay.x(m.tick) + lay.px / 2.0 - MARK_W / 2.0;
        let x = bands.place((0, l), want, MARK_W) + MARK_W / 2.0;
        let y = lay.lane_y[l] + STRIP / 2.0 + 5.0;
        let (glyph, fill) = if m.denied {
            ("✕", "#dc2626")
        } else {
            ("⊘", "#ea580c")
        };
        let _ = writeln!(
            out,
            "<text class=\"mark refusal\" x=\"{x:.1}\" y=\"{y:.1}\" text-anchor=\"middle\" style=\"fill:{fill};font-size:13px;stroke:#fff;stroke-width:3px;paint-order:stroke\">{glyph}<title>{}</title></text>",
            esc(&m.title)
        );
    }
    out.push_str("</svg></div>\n");
}

/// A task's bar: a segment per status entry, its history as the hover title, a link to its
/// tables; its decisions as diamonds.
fn bar(record: &Record, lay: &Layout, ix: usize, t: &Task, bands: &mut Bands, out: &mut String) {
    let s = record.scenario;
    let y = lay.y(ix) - BAR / 2.0;
    let mut title = format!(
        "{} on {} ({}), caller {}",
        task_id(ix),
        s.agents[t.agent()].name(),
        t.state,
        s.symbols.name(t.owner.id)
    );
    if let Some(p) = t.parent() {
        let _ = write!(title, ", parent {}", task_id(p));
    }
    if t.attempt >= 2 {
        let _ = write!(title, ", attempt {}", t.attempt);
    }
    for h in &t.history {
        let _ = write!(title, "\nt{} {}", h.tick, h.state);
        if let Some(m) = h.message().and_then(|m| t.messages.get(m)) {
            let _ = write!(title, ": {}", cut(&m.text, 80));
        }
    }
    let _ = write!(
        out,
        "<a href=\"#{}\"><title>{}</title>",
        task_id(ix),
        esc(&title)
    );
    let last = t.history.len().saturating_sub(1);
    for (k, h) in t.history.iter().enumerate() {
        let end = match t.history.get(k + 1) {
            Some(next) => next.tick,
            None if h.state.is_terminal() || k < last => h.tick.saturating_add(1),
            None => lay.ticks,
        };
        let (x1, x2) = (lay.x(h.tick), lay.x(end.max(h.tick.saturating_add(1))));
        let _ = write!(
            out,
            "<rect x=\"{x1:.1}\" y=\"{y:.1}\" width=\"{:.1}\" height=\"{BAR}\" rx=\"2\" fill=\"{}\"/>",
            (x2 - x1).max(1.0),
            colour(h.state)
        );
    }
    let (start, end) = span(t);
    let end = end.min(lay.ticks);
    let label = task_id(ix);
    if (lay.x(end) - lay.x(start)) >= label.len() as f64 * 6.5 + 6.0 {
        let _ = write!(
            out,
            "<text class=\"on\" x=\"{:.1}\" y=\"{:.1}\">{label}</text>",
            lay.x(start) + 3.0,
            y + BAR - 3.5
        );
    }
    out.push_str("</a>\n");
    let agent = &s.agents[t.agent()];
    for d in t.decisions() {
        // A diamond and its branch word (about 6 px a letter), clear of the task's others.
        let width = 12.0 + 6.0 * d.branch.as_str().len() as f64;
        let x = bands.place((2, ix), lay.x(d.tick) + lay.px - 5.0, width) + 5.0;
        let cond = when_at(&agent.handler, d.handler_step).map_or(String::new(), |w| {
            CondText {
                cond: &w.cond,
                results: &agent.results,
            }
            .to_string()
        });
        let _ = writeln!(
            out,
            "<g><path d=\"M{x:.1},{:.1}l5,5l-5,5l-5,-5z\" fill=\"#fff\" stroke=\"#0f172a\" stroke-width=\"1.5\"/><text class=\"mark\" x=\"{:.1}\" y=\"{:.1}\">{}</text><title>t{} {} when {} (handler step {}) → {}</title></g>",
            y - 3.0,
            x + 6.0,
            y + 1.0,
            d.branch.as_str(),
            d.tick,
            task_id(ix),
            esc(&cond),
            d.handler_step,
            d.branch.as_str()
        );
    }
}

/// Every `when` taken, in tick order, under the timeline: what was decided, at a glance.
fn decisions(record: &Record, out: &mut String) {
    let s = record.scenario;
    let mut all: Vec<(u64, usize, usize)> = Vec::new();
    for (ix, t) in record.tasks.iter().enumerate() {
        all.extend((0..t.decisions().len()).map(|k| (t.decisions()[k].tick, ix, k)));
    }
    if all.is_empty() {
        return;
    }
    all.sort_unstable();
    out.push_str("<h2>Decisions</h2>\n<ul class=\"decisions\">\n");
    for (tick, ix, k) in all {
        let t = &record.tasks[ix];
        let d = &t.decisions()[k];
        let agent = &s.agents[t.agent()];
        let cond = when_at(&agent.handler, d.handler_step).map_or(String::new(), |w| {
            CondText {
                cond: &w.cond,
                results: &agent.results,
            }
            .to_string()
        });
        let _ = writeln!(
            out,
            "<li>t{tick} <a href=\"#{0}\">{0}</a> on {1}: when <code>{2}</code> → <b>{3}</b></li>",
            task_id(ix),
            esc(agent.name()),
            esc(&cond),
            d.branch.as_str()
        );
    }
    out.push_str("</ul>\n");
}

/// At most `max` characters, then `…`.
fn cut(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &text[..i]),
        None => text.to_string(),
    }
}
