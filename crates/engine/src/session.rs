//! The incremental API a server session drives: one request in (a driver step at the current
//! clock), its effects recorded; scheduled work run up to a tick when real time says it is due.
//! Pure like the rest of the engine: the server decides *when*, the world decides *what*.

use crate::record::{CallId, ErrorRecord, Event, StepRecord};
use crate::scenario::Step;
use crate::task::TaskIx;
use crate::world::World;

impl<'s> World<'s> {
    /// Drops the records of the oldest `n` steps still held, and the requests among them: a
    /// server session wrote them to its report, and a long one would otherwise keep every
    /// request it served. Later steps keep their numbers.
    pub fn forget_steps(&mut self, n: usize) {
        let r = &mut self.record;
        let n = n.min(r.steps.len());
        let scripted = r.scenario.steps.len();
        let served_before = r.steps_forgotten.saturating_sub(scripted);
        r.steps.drain(..n);
        r.steps_forgotten += n;
        let served_gone = r.steps_forgotten.saturating_sub(scripted) - served_before;
        r.served.drain(..served_gone.min(r.served.len()));
    }

    /// Whether `call` is still open: its events may grow.
    pub fn call_open(&self, call: CallId) -> bool {
        let task = self.record.calls[call].task as usize;
        self.state.runs[task].call.map(crate::ix::Ix::get) == Some(call)
    }

    /// The call the step just served opened on `task`: a reply's own call (the reply opens one
    /// on the task it resumes), where a reply on a stream finds its events.
    pub fn step_call(&self, task: TaskIx) -> Option<CallId> {
        self.record
            .calls
            .iter()
            .enumerate()
            .rev()
            .take_while(|(_, c)| c.step as usize == self.step)
            .filter(|(_, c)| c.task as usize == task)
            .last()
            .map(|(i, _)| i)
    }

    /// The events of `call` together with those of every call its step opened while it was open
    /// (its nested delegations', a reply's way down an escalation), in the order they happened:
    /// what a server relays on the call's stream, as `run --format a2a-stream` shows it.
    /// Each with its index in `World::events`.
    pub fn relayed_events(&self, call: CallId) -> impl Iterator<Item = (usize, &Event)> {
        let c = &self.record.calls[call];
        let span = c.first_event as usize..c.end_event as usize;
        span.clone()
            .zip(&self.record.events[span])
            .filter(move |(_, e)| self.record.calls[e.call()].step == c.step)
    }

    /// Runs one request as the next driver step, exactly as `run` runs a step, and hands back its
    /// record and the errors recorded under it.
    pub fn serve_step(&mut self, step: &'s Step) -> (&StepRecord, &[ErrorRecord]) {
        self.record.served.push(step);
        self.step = self.record.steps_forgotten + self.record.steps.len() + 1;
        let first_error = self.record.errors.len();
        self.run_step(step);
        (
            &self.record.steps[self.record.steps.len() - 1],
            &self.record.errors[first_error..],
        )
    }

    /// Runs a request as a call within the current driver step (a real agent's call to a
    /// scripted agent, made while a2a-sim's request to it is in flight): recorded as a
    /// handler's delegation is, under that step, not as a step of its own. Its would-be step
    /// record and the errors recorded under it.
    pub fn serve_call(&mut self, step: &'s Step) -> (StepRecord, &[ErrorRecord]) {
        let first_error = self.record.errors.len();
        self.run_step(step);
        let record =
            self.record.steps.pop().unwrap_or_else(|| {
                StepRecord::new(step.caller(), crate::record::StepResult::Nothing)
            });
        (record, &self.record.errors[first_error..])
    }

    /// The tick of the earliest scheduled activity that still has work to do, if any: a timer of
    /// a resolved delegation or a turn a later wake replaced is not waited for.
    pub fn next_due(&mut self) -> Option<u64> {
        // Dead work never comes back to life: dropping it now or when it comes up is the same.
        while let Some(q) = self.state.scheduler.peek().copied()
            && !self.is_live(&q)
        {
            self.state.scheduler.pop();
        }
        self.state.scheduler.peek_ready_at()
    }

    /// Runs every scheduled activity due at or before `tick` (the clock jumps no further than
    /// the last of them).
    pub fn advance_to(&mut self, tick: u64) {
        self.run_until(|w| !w.state.scheduler.has_due(tick));
    }

    /// Runs the scheduler to quiescence, as `run` does after its last step.
    pub fn finish(&mut self) {
        self.run_until(|_| false);
    }

    /// Starts recording when, in idle ticks, each event happens ([`World::idle_at`]).
    pub fn pace_events(&mut self) {
        self.session.idle_marks.get_or_insert_with(Vec::new);
    }

    /// `idle_ticks` as it stood when the event at `index` of `World::events` was recorded
    /// (after [`World::pace_events`]; 0 before it).
    pub fn idle_at(&self, index: usize) -> u64 {
        let marks = self.session.idle_marks.as_deref().unwrap_or_default();
        // The last jump made before the event was recorded.
        match marks.partition_point(|&(before, _, _)| before <= index) {
            0 => 0,
            n => marks[n - 1].2,
        }
    }

    /// `idle_ticks` as it stood at `tick` (a push's): the last jump that reached it.
    pub fn idle_at_tick(&self, tick: u64) -> u64 {
        let marks = self.session.idle_marks.as_deref().unwrap_or_default();
        match marks.partition_point(|&(_, reached, _)| reached <= tick) {
            0 => 0,
            n => marks[n - 1].2,
        }
    }

    /// Makes the task's future events recorded, for a subscriber: opens a call on it unless one
    /// is open (a task resumed by no request of its own, e.g. after a non-blocking send). The
    /// call ends, like any, when the task next pauses or ends. Whether a call was opened (its
    /// first event is then the task as it stands).
    pub fn watch(&mut self, task: TaskIx) -> bool {
        if self.state.runs[task].call.is_some() {
            return false;
        }
        self.open_call(task, true);
        true
    }

    /// Removes the task's push config (a session's DeleteTaskPushNotificationConfig): later
    /// status changes push nothing. Pushes already made stay in the record.
    pub fn delete_push_config(&mut self, task: TaskIx) {
        self.record.tasks[task].set_push(None);
    }
}
