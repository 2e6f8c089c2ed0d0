//! `run --format mermaid`: the run as one Mermaid `sequenceDiagram`, rendered from the engine's
//! records only. Participants are declared in order of first appearance; every line is in tick
//! order (a fan-out's members each in a branch of a `par` block). Deterministic text.

use std::collections::HashMap;
use std::fmt::Write as _;

use crate::report::condition::CondText;
use crate::report::handler_steps::when_at;
use engine::delegation::{Delegation, Spec};
use engine::faults::Refusal;
use engine::lifecycle::TaskState;
use engine::record::Record;
use engine::record::*;
use engine::scenario::{Join, Step};
use engine::task::{TaskIx, task_id};

/// Message texts in labels are cut to this many characters.
pub const LABEL_CHARS: usize = 40;

/// Writes the diagram.
pub fn write(record: &Record, out: &mut dyn std::io::Write) -> std::io::Result<()> {
    out.write_all(render(record).as_bytes())
}

/// The diagram as text.
pub fn render(record: &Record) -> String {
    let mut d = Diagram {
        ids: HashMap::new(),
        order: Vec::new(),
        body: String::new(),
    };
    let items = top_items(record);
    d.emit(&items, 1);
    let mut out = String::from("sequenceDiagram\n");
    let _ = writeln!(out, "    title {}", escape(&record.scenario.name, 120));
    for (id, name) in &d.order {
        let _ = writeln!(out, "    participant {id} as {}", escape(name, 80));
    }
    out.push_str(&d.body);
    out
}

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

/// One line (or block) of the diagram, with its place in time: `(tick, rank, seq)`. Ranks
/// within a tick: 0 driver steps and created tasks, 1 decisions (placed before the status change
/// they led to), 2 status changes, 3 pushes, 4 nested denials, 6 decisions followed by no status
/// change, 9 driver steps after everything of their tick.
enum Item {
    Line((u64, u8, usize), String),
    /// A fan-out: its label and each member's lines.
    Par((u64, u8, usize), String, Vec<Vec<Item>>),
}

impl Item {
    fn key(&self) -> (u64, u8, usize) {
        match self {
            Item::Line(k, _) | Item::Par(k, _, _) => *k,
        }
    }
}

/// A line to be written: participants by name, resolved to ids when written.
fn line(key: (u64, u8, usize), text: String) -> Item {
    Item::Line(key, text)
}

struct Diagram {
    ids: HashMap<String, String>,
    order: Vec<(String, String)>,
    body: String,
}

fn top_items(record: &Record) -> Vec<Item> {
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

/// Who is under whom, built once (so a run of many tasks renders in linear time).
struct Tree {
    /// Each task's delegations, in the order they were made.
    delegations: Vec<Vec<usize>>,
    /// Each task's children that are no fan-out's members (every attempt of a delegate).
    children: Vec<Vec<TaskIx>>,
    /// Each task's pushes.
    pushes: Vec<Vec<usize>>,
    /// The driver op that created each task (`send` or `stream`).
    op: Vec<&'static str>,
    /// Each delegation's attempts that made no task for another reason than a denial (refused by
    /// a fault or for its token): indices into `Record::refused_attempts`.
    refused: Vec<Vec<usize>>,
}

impl Tree {
    fn new(record: &Record) -> Tree {
        let n = record.tasks.len();
        let mut tree = Tree {
            delegations: vec![Vec::new(); n],
            children: vec![Vec::new(); n],
            pushes: vec![Vec::new(); n],
            op: vec!["send"; n],
            refused: vec![Vec::new(); record.delegations.len()],
        };
        for (k, r) in record.refused_attempts.iter().enumerate() {
            if !matches!(r.why, RefusedWhy::Denied(_))
                && let Some(list) = tree.refused.get_mut(r.delegation)
            {
                list.push(k);
            }
        }
        for (i, r) in record.steps.iter().enumerate() {
            if let (StepResult::Task { task, .. }, Some(step @ Step::Send(_))) =
                (&r.result, record.scenario.steps.get(i))
                && let Some(op) = tree.op.get_mut(*task)
            {
                *op = step.op();
            }
        }
        let mut member = vec![false; n];
        for (d, del) in record.delegations.iter().enumerate() {
            if let Some(list) = tree.delegations.get_mut(del.parent) {
                list.push(d);
            }
            if del.is_group() {
                for t in del.members.iter().filter_map(|m| m.task) {
                    if let Some(m) = member.get_mut(t) {
                        *m = true;
                    }
                }
            }
        }
        for (c, t) in record.tasks.iter().enumerate() {
            if let Some(p) = t.parent().filter(|&p| p < n && !member[c]) {
                tree.children[p].push(c);
            }
        }
        for (k, p) in record.pushes.iter().enumerate() {
            if let Some(list) = tree.pushes.get_mut(p.task) {
                list.push(k);
            }
        }
        tree
    }
}

/// The lines of a task and of its subtree, walked with a stack of its own (delegation chains
/// can be thousands deep); a fan-out's members go into their `par` block.
fn subtree(record: &Record, root: TaskIx, tree: &Tree, items: &mut Vec<Item>) {
    let mut stack = vec![root];
    while let Some(ix) = stack.pop() {
        task_items(record, ix, tree, items);
        stack.extend(tree.children[ix].iter().rev());
    }
}

fn sort(items: &mut [Item]) {
    items.sort_by_key(Item::key);
}

/// A task's own lines, and its fan-outs as `par` blocks.
fn task_items(record: &Record, ix: TaskIx, tree: &Tree, items: &mut Vec<Item>) {
    let s = record.scenario;
    let t = &record.tasks[ix];
    let agent = s.agents[t.agent()].name();
    let owner = s.symbols.name(t.owner.id);
    let text = |m: Option<usize>| m.and_then(|m| t.messages.get(m)).map(|m| &*m.text);
    let seq = ix * 1000;
    for (h, entry) in t.history.iter().enumerate() {
        let key = (entry.tick, if h == 0 { 0 } else { 2 }, seq + h);
        let msg = text(entry.message()).map_or(String::new(), |m| format!(": {}", esc(m)));
        let label = if h == 0 {
            let op = match t.parent() {
                Some(_) => "delegate",
                None => tree.op[ix],
            };
            let attempt = if t.attempt >= 2 {
                format!(" (attempt {})", t.attempt)
            } else {
                String::new()
            };
            format!("[t{}] {op} {}{attempt}{msg}", entry.tick, task_id(ix))
        } else {
            format!("[t{}] {} {}{msg}", entry.tick, task_id(ix), entry.state)
        };
        let (from, kind, to) = if h == 0 {
            (owner, "->>", agent)
        } else {
            (agent, "-->>", owner)
        };
        items.push(line(key, arrow(from, kind, to, &label)));
    }
    for (k, d) in t.decisions().iter().enumerate() {
        let a = &s.agents[t.agent()];
        let cond = when_at(&a.handler, d.handler_step).map_or(String::new(), |w| {
            let c = CondText {
                cond: &w.cond,
                results: &a.results,
            };
            format!(" {}", esc(&c.to_string()))
        });
        let label = format!(
            "[t{}] {} when{cond} (step {}): {}",
            d.tick,
            task_id(ix),
            d.handler_step,
            d.branch.as_str()
        );
        // Decided on what came before its tick; placed just before the task's next status
        // change (after the driver step that made it go on, such as a reply).
        let key = t
            .history
            .iter()
            .find(|h| h.tick > d.tick)
            .map_or((d.tick, 6), |h| (h.tick, 1));
        items.push(line((key.0, key.1, seq + 100 + k), note(agent, &label)));
    }
    for (k, p) in tree.pushes[ix].iter().map(|&k| (k, &record.pushes[k])) {
        let host = host(&record.push_urls[p.url]);
        let label = format!("[t{}] push {} {}", p.tick, task_id(ix), p.state);
        let key = (p.tick, 3, seq + 200 + k);
        items.push(line(key, arrow(agent, "-)", &host, &label)));
    }
    // Its delegations: a plain one's children among its lines, a fan-out as one block.
    let mine: Vec<&Delegation> = tree.delegations[ix]
        .iter()
        .map(|&d| &record.delegations[d])
        .collect();
    let mut floor = t.history.first().map_or(0, |h| h.tick);
    // A refused attempt, where it happened: `[t5] delegate refused (attempt 2): unavailable`.
    let refused = |r: &RefusedAttempt, key: (u64, u8, usize)| -> Item {
        let what = match &r.why {
            RefusedWhy::Fault(Refusal::Unavailable) => "unavailable".to_string(),
            RefusedWhy::Fault(Refusal::HttpError(status)) => format!("HTTP {status}"),
            RefusedWhy::Fault(Refusal::Reset) => "connection reset".to_string(),
            RefusedWhy::Token(why) => format!("token refused: {}", esc(why)),
            RefusedWhy::Denied(_) => "denied".to_string(),
        };
        let label = format!(
            "[t{}] delegate refused (attempt {}): {what}",
            r.tick, r.attempt
        );
        line(key, arrow(agent, "-x", s.agents[r.callee].name(), &label))
    };
    for (n, d) in tree.delegations[ix].iter().enumerate() {
        if record.delegations[*d].is_group() {
            continue;
        }
        for (k, &r) in tree.refused[*d].iter().enumerate() {
            let r = &record.refused_attempts[r];
            items.push(refused(r, (r.tick, 4, seq + 500 + n * 20 + k)));
        }
    }
    for (n, del) in mine.iter().enumerate() {
        // A denied member has no tick: it is placed after the delegations before it.
        let after = t
            .history
            .iter()
            .find(|h| h.tick >= floor && h.state == TaskState::Working)
            .map_or(floor, |h| h.tick);
        let denial = |m: &Member, k: usize| -> Option<Item> {
            let rec = record.denials.get(m.denial()?)?;
            let codes: Vec<&str> = rec.denials.iter().map(|x| x.code.as_str()).collect();
            let label = format!("delegate denied: {}", codes.join(", "));
            let callee = s.agents[rec.callee()].name();
            Some(line(
                (after, 4, seq + 300 + n * 10 + k),
                arrow(agent, "-x", callee, &label),
            ))
        };
        if del.is_group() {
            let mut branches = Vec::new();
            let mut key = None;
            for (k, m) in del.members.iter().enumerate() {
                let mut branch = Vec::new();
                let d = tree.delegations[ix][n];
                let refusal = tree.refused[d]
                    .iter()
                    .map(|&r| &record.refused_attempts[r])
                    .find(|r| r.member as usize == k);
                if let Some(c) = m.task {
                    subtree(record, c, tree, &mut branch);
                } else if let Some(item) = denial(m, k) {
                    branch.push(item);
                } else if let Some(r) = refusal {
                    branch.push(refused(r, (r.tick, 4, seq + 300 + k)));
                } else {
                    let label = format!("fan-out member {}: no candidate", k + 1);
                    branch.push(line((after, 4, seq + 300 + k), note(agent, &label)));
                }
                sort(&mut branch);
                if let Some(first) = branch.first() {
                    key = Some(key.map_or(first.key(), |k: (u64, u8, usize)| k.min(first.key())));
                }
                branches.push(branch);
            }
            let label = match del.spec {
                Spec::FanOut(f) => {
                    let join = match f.join {
                        Join::All => "all",
                        Join::Any => "any",
                    };
                    format!("fan-out of {agent} (join {join})")
                }
                Spec::Delegate(_) => format!("fan-out of {agent}"),
            };
            let key = key.unwrap_or((after, 4, seq + 300 + n * 10));
            items.push(Item::Par(key, esc(&label), branches));
        } else {
            for (k, m) in del.members.iter().enumerate() {
                if let Some(item) = denial(m, k) {
                    items.push(item);
                }
            }
        }
        for m in &del.members {
            if let Some(c) = m.task.and_then(|c| record.tasks.get(c)) {
                floor = floor.max(c.history.iter().map(|h| h.tick).max().unwrap_or(0));
            }
        }
    }
}

use engine::delegation::Member;

impl Diagram {
    /// Writes items; participants are named `⟦name⟧` in their text and resolved here.
    fn emit(&mut self, items: &[Item], depth: usize) {
        let pad = "    ".repeat(depth);
        for item in items {
            match item {
                Item::Line(_, text) => {
                    let text = if let Some(rest) = text.strip_prefix("%WAIT%") {
                        match self.order.first().map(|(id, _)| id.clone()) {
                            Some(id) => format!("Note over {id}: {rest}"),
                            None => continue,
                        }
                    } else {
                        self.resolve(text)
                    };
                    let _ = writeln!(self.body, "{pad}{text}");
                }
                Item::Par(_, label, branches) => {
                    for (k, branch) in branches.iter().enumerate() {
                        let kw = if k == 0 { "par" } else { "and" };
                        let _ = writeln!(self.body, "{pad}{kw} {label}, member {}", k + 1);
                        self.emit(branch, depth + 1);
                    }
                    let _ = writeln!(self.body, "{pad}end");
                }
            }
        }
    }

    /// Replaces each `⟦name⟧` by the participant's id, declaring it on first sight.
    fn resolve(&mut self, text: &str) -> String {
        let mut out = String::new();
        let mut rest = text;
        while let Some(start) = rest.find('⟦') {
            out.push_str(&rest[..start]);
            let after = &rest[start + '⟦'.len_utf8()..];
            let Some(end) = after.find('⟧') else {
                out.push_str(&rest[start..]);
                return out;
            };
            let name = &after[..end];
            out.push_str(&self.id(name));
            rest = &after[end + '⟧'.len_utf8()..];
        }
        out.push_str(rest);
        out
    }

    fn id(&mut self, name: &str) -> String {
        if let Some(id) = self.ids.get(name) {
            return id.clone();
        }
        let mut base: String = name
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .collect();
        if !base.starts_with(|c: char| c.is_ascii_alphabetic()) {
            base.insert(0, 'p');
        }
        if KEYWORDS.contains(&base.to_ascii_lowercase().as_str()) {
            base.push('_');
        }
        let mut id = base.clone();
        let mut n = 2;
        while self.ids.values().any(|v| v == &id) {
            id = format!("{base}_{n}");
            n += 1;
        }
        self.ids.insert(name.to_string(), id.clone());
        self.order.push((id.clone(), name.to_string()));
        id
    }
}

/// Words Mermaid's sequence lexer reads as keywords (case-insensitive).
#[rustfmt::skip]
const KEYWORDS: &[&str] = &[
    "participant", "actor", "as", "end", "loop", "alt", "else", "opt", "par", "and", "rect",
    "critical", "option", "break", "note", "over", "left", "right", "of", "title", "activate",
    "deactivate", "autonumber", "off", "box", "links", "link", "properties", "details", "create",
    "destroy", "accdescr", "acctitle", "sequencediagram", "x",
];

/// Participants are written `⟦name⟧` until [`Diagram::resolve`] gives them ids; a name holding
/// `⟦` or `⟧` loses those characters.
fn who(name: &str) -> String {
    let clean: String = name.chars().filter(|c| *c != '⟦' && *c != '⟧').collect();
    format!("⟦{clean}⟧")
}

fn arrow(from: &str, kind: &str, to: &str, label: &str) -> String {
    format!("{}{kind}{}: {label}", who(from), who(to))
}

fn note(over: &str, label: &str) -> String {
    format!("Note over {}: {label}", who(over))
}

/// The host a push goes to, as the URL parser reads it; the URL itself if it has none.
fn host(url: &str) -> String {
    url::Url::parse(url)
        .ok()
        .and_then(|u| u.host_str().map(str::to_string))
        .unwrap_or_else(|| url.to_string())
}

/// A message text for a label: truncated, escaped.
fn esc(text: &str) -> String {
    escape(text, LABEL_CHARS)
}

/// One line of text Mermaid takes literally: whitespace runs to one space, at most `max`
/// characters (then `…`), and the characters the sequence lexer gives a meaning written as
/// Mermaid entity codes.
pub fn escape(text: &str, max: usize) -> String {
    let flat: Vec<&str> = text.split_whitespace().collect();
    let flat = flat.join(" ");
    let mut out = String::new();
    for (n, c) in flat.chars().enumerate() {
        if n == max {
            out.push('…');
            break;
        }
        match c {
            ';' => out.push_str("#59;"),
            '#' => out.push_str("#35;"),
            '<' => out.push_str("#lt;"),
            '>' => out.push_str("#gt;"),
            '%' => out.push_str("#37;"),
            '⟦' | '⟧' => {}
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_cuts_flattens_and_codes_what_the_lexer_reads() {
        assert_eq!(escape("a;b#c", 40), "a#59;b#35;c");
        assert_eq!(escape("a\n  b\tc", 40), "a b c");
        assert_eq!(escape("<x>", 40), "#lt;x#gt;");
        assert_eq!(escape("abcdef", 3), "abc…");
        assert_eq!(escape("100% {k: v}", 40), "100#37; {k: v}");
    }
}
