//! The Mermaid diagram's lines of tasks: who is under whom, walked once; a task's status
//! changes, decisions, pushes and delegations, a fan-out's members each in a branch of its `par`
//! block.

use crate::report::condition::CondText;
use crate::report::handler_steps::when_at;
use crate::report::mermaid_lines::{Item, arrow, esc, host, line, note, sort};
use engine::record::*;
use engine::scenario::{Join, Step};

/// Who is under whom, built once (so a run of many tasks renders in linear time).
pub(super) struct Tree {
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
    pub(super) fn new(record: &Record) -> Tree {
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
pub(super) fn subtree(record: &Record, root: TaskIx, tree: &Tree, items: &mut Vec<Item>) {
    let mut stack = vec![root];
    while let Some(ix) = stack.pop() {
        task_items(record, ix, tree, items);
        stack.extend(tree.children[ix].iter().rev());
    }
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
    // Replies that reached a child task from the task above it (forwarded down an escalated
    // chain, or scripted by the delegating agent): each drawn at the tick the child resumed.
    if let Some(parent) = t.parent() {
        let from = s.agents[record.tasks[parent].agent()].name();
        let resumes = t
            .history
            .windows(2)
            .filter(|w| w[0].state.is_pause() && w[1].state == TaskState::Working)
            .map(|w| w[1].tick);
        let replies = t
            .messages
            .iter()
            .skip(1)
            .filter(|m| m.role() == engine::record::Role::User);
        for (k, (tick, m)) in resumes.zip(replies).enumerate() {
            let label = format!("[t{tick}] reply {}: {}", task_id(ix), esc(&m.text));
            items.push(line(
                (tick, 1, seq + 400 + k),
                arrow(from, "->>", agent, &label),
            ));
        }
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
        let what = esc(&record.refused_why(&r.why));
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
