//! The lifecycle table and the stream rules, applied per task as the lines go by. Memory is
//! per task being tracked, never per line; finished tasks are forgotten oldest first beyond
//! [`MAX_TRACKED`], so a day of traffic runs in bounded memory.

use std::collections::{HashMap, HashSet, VecDeque};

use crate::engine::parse_rfc3339;
use crate::engine::record::TaskState;

use super::event::{Event, Kind};

/// A rule broken at a line of the recording.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// 1-based.
    pub line: u64,
    pub rule: &'static str,
    pub message: String,
}

/// How many tasks are remembered at most; beyond it, the oldest finished ones are dropped.
pub const MAX_TRACKED: usize = 1 << 16;

#[derive(Default)]
struct Track {
    first_line: u64,
    context: Option<Box<str>>,
    state: Option<TaskState>,
    /// The line that made it terminal.
    terminal_at: Option<u64>,
    last_ms: Option<(i64, u64)>,
    artifacts: HashSet<Box<str>>,
    /// Events after the last Task snapshot, and the last of them.
    pending: Option<(u64, &'static str)>,
    /// 0.3: a status update marked final, since the last Task snapshot.
    final_at: Option<u64>,
    /// 0.3: the last status update since the last Task snapshot, and its `final`.
    last_status: Option<(u64, bool)>,
    /// 0.3: a status update that left the task terminal or interrupted, not marked `final`,
    /// with nothing of the task after it yet: if the stream ends there, the mark is missing.
    unmarked: Option<u64>,
    /// Queued in `finished`.
    queued: bool,
}

#[derive(Default)]
pub struct Rules {
    tasks: HashMap<Box<str>, Track>,
    finished: VecDeque<Box<str>>,
    /// Every tracked id in the order first seen (with stale ones, pruned now and then).
    order: VecDeque<Box<str>>,
}

/// The two edges the table leaves out on purpose, named when they are attempted.
fn omission(from: TaskState, to: TaskState) -> Option<&'static str> {
    match (from, to) {
        (TaskState::Submitted, TaskState::Completed) => {
            Some(" (left out on purpose: a completion with no working state shows no work)")
        }
        (TaskState::InputRequired, TaskState::Rejected) => Some(
            " (left out on purpose: rejection is an admission decision, made before a question)",
        ),
        _ => None,
    }
}

impl Rules {
    pub fn event(&mut self, ev: &Event, line: u64, out: &mut Vec<Finding>) {
        let Some(id) = ev.task.as_deref() else {
            return; // a message outside any task
        };
        let mut find = |rule: &'static str, message: String| {
            out.push(Finding {
                line,
                rule,
                message,
            })
        };
        if !self.tasks.contains_key(id) {
            self.evict();
            self.tasks.insert(
                id.into(),
                Track {
                    first_line: line,
                    ..Track::default()
                },
            );
            self.order.push_back(id.into());
        }
        let Some(t) = self.tasks.get_mut(id) else {
            return;
        };
        if let Some(ctx) = ev.context.as_deref() {
            match &t.context {
                None => t.context = Some(ctx.into()),
                Some(c) if **c != *ctx => find(
                    "context-changed",
                    format!(
                        "task `{id}` moved from context `{c}` (line {}) to `{ctx}`",
                        t.first_line
                    ),
                ),
                Some(_) => {}
            }
        }
        if let Some(ts) = ev.timestamp.as_deref() {
            match parse_rfc3339(ts) {
                None => find("bad-timestamp", format!("timestamp `{ts}` is not RFC 3339")),
                Some(ms) => {
                    if let Some((prev, at)) = t.last_ms
                        && ms < prev
                    {
                        find(
                            "timestamp-backwards",
                            format!(
                                "task `{id}`: timestamp `{ts}` is earlier than the one at line {at}"
                            ),
                        );
                    }
                    t.last_ms = Some((ms, line));
                }
            }
        }
        let after_terminal = t.terminal_at.filter(|_| ev.kind != Kind::Task);
        if let Some(at) = after_terminal {
            find(
                "after-terminal",
                format!(
                    "task `{id}` was terminal at line {at}; {} follows",
                    kind_name(ev.kind)
                ),
            );
        }
        let unmarked = t.unmarked.take();
        match ev.kind {
            Kind::Task => {
                if let Some(at) = unmarked {
                    find("final-misplaced", unmarked_message(id, at));
                }
                if let Some((at, _)) = t.last_status.filter(|s| !s.1)
                    && t.final_at.is_none()
                    && t.pending.is_some()
                {
                    find(
                        "final-misplaced",
                        format!(
                            "task `{id}`: the stream's last status update (line {at}) is not marked `final: true`"
                        ),
                    );
                }
                if let Some(s) = ev.state {
                    transition(id, t, s, line, &mut find);
                }
                t.pending = None;
                t.final_at = None;
                t.last_status = None;
            }
            Kind::Status => {
                if let Some(at) = t.final_at {
                    find(
                        "final-misplaced",
                        format!(
                            "task `{id}`: a status update follows the one marked `final: true` at line {at}"
                        ),
                    );
                }
                if let Some(s) = ev.state
                    && after_terminal.is_none()
                {
                    if t.state == Some(s) {
                        find(
                            "illegal-transition",
                            format!("task `{id}`: {s} -> {s} is not a transition"),
                        );
                    } else {
                        transition(id, t, s, line, &mut find);
                    }
                }
                if ev.state.is_some_and(|s| s.is_terminal() || s.is_pause()) {
                    // The status update that leaves the task terminal or interrupted ends its
                    // stream, as the official servers end theirs: nothing is left open, and a
                    // later stream of the task (a reply's) starts afresh.
                    if ev.fin == Some(false) {
                        t.unmarked = Some(line);
                    }
                    t.pending = None;
                    t.final_at = None;
                    t.last_status = None;
                } else {
                    if ev.fin == Some(true) {
                        t.final_at = Some(line);
                    }
                    t.last_status = ev.fin.map(|f| (line, f));
                    t.pending = Some((line, "status update"));
                }
            }
            Kind::Artifact => {
                if let Some(a) = ev.artifact.as_deref() {
                    if ev.append && !t.artifacts.contains(a) {
                        find(
                            "append-unknown-artifact",
                            format!(
                                "task `{id}`: `append: true` to artifact `{a}`, which no earlier update created"
                            ),
                        );
                    }
                    if !t.artifacts.contains(a) {
                        t.artifacts.insert(a.into());
                    }
                }
                t.pending = Some((line, "artifact update"));
            }
            Kind::Message => t.pending = Some((line, "message")),
        }
        if t.terminal_at.is_some() && t.pending.is_none() && !t.queued {
            t.queued = true;
            self.finished.push_back(id.into());
        }
    }

    /// At the end of a file: every stream must end with its Task or with the status update that
    /// leaves the task terminal or interrupted.
    pub fn finish(self, out: &mut Vec<Finding>) {
        let mut open: Vec<(u64, &str, &'static str)> = self
            .tasks
            .iter()
            .filter_map(|(id, t)| t.pending.map(|(line, what)| (line, &**id, what)))
            .collect();
        let unmarked = self
            .tasks
            .iter()
            .filter_map(|(id, t)| t.unmarked.map(|line| (line, &**id, "")));
        open.extend(unmarked);
        open.sort_unstable();
        for (line, id, what) in open {
            out.push(if what.is_empty() {
                Finding {
                    line,
                    rule: "final-misplaced",
                    message: unmarked_message(id, line),
                }
            } else {
                Finding {
                    line,
                    rule: "stream-not-closed",
                    message: format!(
                        "task `{id}`: the stream ends with this {what}, not with the Task or a status update that ends or pauses it"
                    ),
                }
            });
        }
    }

    /// Finished tasks go first, oldest first; when none is finished, the oldest seen goes (its
    /// later events are then audited as a new task's).
    fn evict(&mut self) {
        while self.tasks.len() >= MAX_TRACKED {
            if let Some(id) = self.finished.pop_front() {
                self.tasks.remove(&id);
            } else if let Some(id) = self.order.pop_front() {
                self.tasks.remove(&id);
            } else {
                return;
            }
        }
        if self.order.len() > 2 * MAX_TRACKED {
            let tasks = &self.tasks;
            self.order.retain(|id| tasks.contains_key(id));
        }
    }
}

fn transition(
    id: &str,
    t: &mut Track,
    to: TaskState,
    line: u64,
    find: &mut impl FnMut(&'static str, String),
) {
    if let Some(from) = t.state
        && from != to
        && !from.can_move_to(to)
    {
        let why = omission(from, to).unwrap_or("");
        find(
            "illegal-transition",
            format!("task `{id}`: {from} -> {to} is not in the lifecycle table{why}"),
        );
    }
    if t.terminal_at.is_none() || t.state != Some(to) {
        t.state = Some(to);
    }
    if to.is_terminal() && t.terminal_at.is_none() {
        t.terminal_at = Some(line);
    }
}

fn unmarked_message(id: &str, at: u64) -> String {
    format!("task `{id}`: the stream's last status update (line {at}) is not marked `final: true`")
}

/// An event's kind with its article, for a sentence.
fn kind_name(k: Kind) -> &'static str {
    match k {
        Kind::Task => "a Task",
        Kind::Status => "a status update",
        Kind::Artifact => "an artifact update",
        Kind::Message => "a message",
    }
}
