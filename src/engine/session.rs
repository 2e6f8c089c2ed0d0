//! The incremental API a server session drives: one request in (a driver step at the current
//! clock), its effects recorded; scheduled work run up to a tick when real time says it is due.
//! Pure like the rest of the engine: the server decides *when*, the world decides *what*.

use crate::engine::record::{ErrorRecord, StepRecord};
use crate::engine::scenario::Step;
use crate::engine::world::World;

impl<'s> World<'s> {
    /// The step at `i` (0-based): the scenario's own, then the requests a session served.
    pub fn step_at(&self, i: usize) -> &'s Step {
        match self.scenario.steps.get(i) {
            Some(s) => s,
            None => self.served[i - self.scenario.steps.len()],
        }
    }

    /// Runs one request as the next driver step, exactly as `run` runs a step, and hands back its
    /// record and the errors recorded under it.
    pub fn serve_step(&mut self, step: &'s Step) -> (&StepRecord, &[ErrorRecord]) {
        self.served.push(step);
        self.step = self.steps.len() + 1;
        let first_error = self.errors.len();
        self.run_step(step);
        (
            &self.steps[self.steps.len() - 1],
            &self.errors[first_error..],
        )
    }

    /// The tick of the earliest scheduled activity, if any.
    pub fn next_due(&self) -> Option<u64> {
        self.scheduler.peek_ready_at()
    }

    /// Runs every scheduled activity due at or before `tick` (the clock jumps no further than
    /// the last of them).
    pub fn advance_to(&mut self, tick: u64) {
        self.run_until(|w| !w.scheduler.has_due(tick));
    }

    /// Runs the scheduler to quiescence, as `run` does after its last step.
    pub fn finish(&mut self) {
        self.run_until(|_| false);
    }
}
