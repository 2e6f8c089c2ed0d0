//! Tasks come into being and change state here, and only here: creation, `set_status` with its
//! side effects (history, push, stream event, the subtree's cancel), and the calls that stream.

use std::borrow::Cow;

use crate::ix::{Ix, ix32};
pub use crate::lifecycle::IllegalTransition;
use crate::lifecycle::TaskState;
use crate::new_task::NewTask;
use crate::record::*;
use crate::task::*;
use crate::world::{RecordStreams, Run, World};

impl<'s> World<'s> {
    /// Creates a task in `submitted` at the next tick, opens its call's stream with it (when it is
    /// recorded: see [`World::open_call`]) and queues its handler.
    pub(crate) fn create_task(&mut self, new: NewTask<'s>) -> (TaskIx, Option<CallId>) {
        let context = match new.context {
            Some(c) => {
                self.hold_context(c);
                c
            }
            None => self.mint_context(),
        };
        let amplified = self.amplified(new.agent, new.origin);
        self.record.ids.task += 1;
        let tick = self.next_tick();
        let message = self.message(Role::User, new.text, new.data);
        let ix = self.record.tasks.len();
        self.record.tasks.push(Task {
            context,
            agent: ix32(new.agent),
            owner: new.owner,
            delegation_chain: new.delegation_chain,
            parent: new.parent.map(Ix::new),
            classification: ix32(new.classification),
            state: TaskState::Submitted,
            history: smallvec::smallvec![StatusEntry::new(tick, TaskState::Submitted, Some(0))],
            messages: smallvec::smallvec![message],
            artifacts: smallvec::SmallVec::new(),
            extras: TaskExtras::amplified(amplified),
            attempt: new.attempt,
            return_immediately: false,
            scopes: Scopes::from(new.scopes),
            origin: ix32(new.origin),
        });
        self.state
            .runs
            .push(Run::created_by(new.via.map(|(d, m)| (Ix::new(d), ix32(m)))));
        if let Some(parent) = new.parent {
            self.state.runs[parent].children.push(ix);
        }
        if self.record.faults.selects_calls()
            && let Some(call) = self.latest_call(new.agent)
        {
            self.state.requests.of_task.insert(ix, call);
        }
        let call = self.open_call(ix, new.stream);
        // A new task's handler is ready at its submitted tick.
        self.wake(ix, tick);
        (ix, call)
    }

    /// A fresh `ctx-N`, skipping every number a caller-supplied `ctx-N` already holds, so two
    /// unrelated conversations never share an id (semantics.md §1).
    fn mint_context(&mut self) -> Context<'s> {
        loop {
            self.record.ids.context += 1;
            if !self
                .state
                .literal_contexts
                .contains(&self.record.ids.context)
            {
                return Context::Minted(self.record.ids.context);
            }
        }
    }

    /// Notes a caller-supplied id that reads like a minted one and is not minted yet.
    fn hold_context(&mut self, c: Context<'s>) {
        if let Context::Named(s) = c
            && let Some(n) = minted_number(s)
            && n > self.record.ids.context
        {
            self.state.literal_contexts.insert(n);
        }
    }

    /// The callee's required scopes the originating caller lacks (authority.md §2).
    fn amplified(&self, agent: AgentIx, origin: CallerIx) -> Vec<crate::symbols::Sym> {
        let held = &self.record.scenario.callers[origin].scopes;
        self.record.scenario.agents[agent]
            .required_scopes
            .iter()
            .filter(|s| !held.contains(s))
            .copied()
            .collect()
    }

    /// Opens a call (a send, stream, reply or nested delegation) whose stream the task's events
    /// go to until it pauses or ends. `shown`: a driver `stream` step's or a subscriber's, whose
    /// events are shown whatever the run records; other calls are opened only when it records
    /// them all ([`RecordStreams`](crate::world::RecordStreams)).
    pub(crate) fn open_call(&mut self, task: TaskIx, shown: bool) -> Option<CallId> {
        if !shown && self.record.streams == RecordStreams::StreamSteps {
            return None;
        }
        let call = self.record.calls.len();
        let first_event = ix32(self.record.events.len());
        self.record.calls.push(Call {
            task: ix32(task),
            step: ix32(self.step),
            first_event,
            end_event: first_event,
        });
        self.snapshot(call, task);
        self.state.runs[task].call = Some(Ix::new(call));
        Some(call)
    }

    /// Ends a task's open call with the task as it now is: the stream's last event.
    pub(crate) fn close_call(&mut self, task: TaskIx) {
        if let Some(call) = self.state.runs[task].call.take().map(Ix::get) {
            self.snapshot(call, task);
            self.record.calls[call].end_event = ix32(self.record.events.len());
        }
    }

    fn snapshot(&mut self, call: CallId, task: TaskIx) {
        let t = &self.record.tasks[task];
        let kind = EventKind::Task {
            history: t.history.len(),
            messages: t.messages.len(),
            artifacts: t.artifacts.len(),
        };
        self.record
            .events
            .push(Event::new(call, kind, &mut self.record.snapshots));
    }

    /// An event of the task's open call, if it has one.
    pub(crate) fn event(&mut self, task: TaskIx, kind: EventKind) {
        if let Some(call) = self.state.runs[task].call.map(Ix::get) {
            self.record
                .events
                .push(Event::new(call, kind, &mut self.record.snapshots));
        }
    }

    /// The only way a state changes: checks the lifecycle table, appends one history entry at the
    /// next tick, and — as a side effect the handler cannot skip — records a push when the task has
    /// a push config. A terminal state first cancels every non-terminal descendant, so no task
    /// outlives its parent. A refused change consumes nothing.
    pub fn set_status(
        &mut self,
        task: TaskIx,
        state: TaskState,
        message: Option<Cow<'s, str>>,
    ) -> Result<(), IllegalTransition> {
        let from = self.record.tasks[task].state;
        if !from.can_move_to(state) {
            return Err(IllegalTransition { from, to: state });
        }
        if state.is_terminal() && !self.state.runs[task].children.is_empty() {
            self.cancel_descendants(task);
        }
        let tick = self.next_tick();
        // A real agent's task notifies as the agent does: its own webhooks (`external_push`).
        let external = self.is_external(self.record.tasks[task].agent());
        let message = message.map(|text| {
            let message = self.message(Role::Agent, text, None);
            let t = &mut self.record.tasks[task];
            t.messages.push(message);
            t.messages.len() - 1
        });
        let t = &mut self.record.tasks[task];
        t.state = state;
        t.history.push(StatusEntry::new(tick, state, message));
        let entry = t.history.len() - 1;
        if state.is_terminal() {
            // A finished task's logs do not grow: give back the room they grew into (a log
            // that spilled doubled its room; a fifth message left three slots empty).
            t.history.shrink_to_fit();
            t.messages.shrink_to_fit();
            t.artifacts.shrink_to_fit();
        }
        if let Some(url) = t.push().filter(|_| !external).map(|p| p.url) {
            self.push(task, url, tick, state);
        }
        self.event(task, EventKind::Status(entry));
        if state.is_terminal() || state.is_pause() {
            self.state.runs[task].resolutions = self.state.runs[task].resolutions.saturating_add(1);
            self.close_call(task);
            if self.state.runs[task].via.is_some() {
                self.child_resolved(task);
            }
        }
        Ok(())
    }

    /// Fails a non-terminal task so that nobody waits on it forever.
    pub(crate) fn fail(&mut self, task: TaskIx, why: String) {
        // Every non-terminal state may move to failed; a terminal task needs no failing.
        let _ = self.set_status(task, TaskState::Failed, Some(Cow::Owned(why)));
    }

    /// Cancels a task and, first, its whole subtree. A terminal task is left as it is.
    pub(crate) fn cancel_tree(&mut self, task: TaskIx, why: Option<String>) {
        let _ = self.set_status(task, TaskState::Canceled, why.map(Cow::Owned));
    }

    /// Cancels every non-terminal descendant: deepest first, then in creation order. A terminal
    /// task's subtree is all terminal already, so the walk stops there.
    fn cancel_descendants(&mut self, root: TaskIx) {
        let mut found: Vec<(usize, TaskIx)> = Vec::new();
        let mut stack: Vec<(usize, TaskIx)> = vec![(0, root)];
        while let Some((depth, t)) = stack.pop() {
            for &c in &self.state.runs[t].children {
                if !self.record.tasks[c].state.is_terminal() {
                    found.push((depth + 1, c));
                    stack.push((depth + 1, c));
                }
            }
        }
        found.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        for (_, t) in found {
            let parent = self.record.tasks[t]
                .parent()
                .map_or_else(String::new, task_id);
            let why = format!("canceled: parent {parent} was canceled");
            // The deeper ones went first, so this one has no live descendant left.
            let _ = self.set_status(t, TaskState::Canceled, Some(Cow::Owned(why)));
        }
    }
}

/// `N` when `id` is exactly how the counter would print `ctx-N` (so `ctx-02` is not `ctx-2`).
fn minted_number(id: &str) -> Option<u64> {
    let digits = id.strip_prefix("ctx-")?;
    let n: u64 = digits.parse().ok()?;
    (n.to_string() == digits).then_some(n)
}
