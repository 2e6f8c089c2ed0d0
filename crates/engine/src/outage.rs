//! What faults do to agents while the world runs: requests refused before the server sees them
//! (`agent_unavailable`) and crashes that fail every task an agent holds (faults.md §1).

use std::borrow::Cow;

use crate::faults::FaultTarget;
use crate::lifecycle::TaskState;
use crate::record::ErrorCode;
use crate::scenario::AgentIx;
use crate::symbols::Sym;
use crate::world::World;

/// The status message of a task failed by a crash.
pub const CRASHED: &str = "agent crashed";

impl<'s> World<'s> {
    /// Whether a request to `agent` judged at the clock now is refused.
    pub(crate) fn is_unavailable(&self, agent: AgentIx) -> bool {
        !self.record.faults.entries.is_empty()
            && self.record.faults.unavailable(agent, self.clock())
    }

    /// Records one refused request: the error `agent_unavailable` under the running driver step.
    pub(crate) fn unavailable(&mut self, caller: Sym, agent: AgentIx) {
        let detail = format!(
            "`{}` is unavailable at tick {}: the request from `{}` failed before the server saw it",
            self.record.scenario.agents[agent].name(),
            self.clock(),
            self.record.scenario.symbols.name(caller)
        );
        self.error(ErrorCode::AgentUnavailable, detail, None);
    }

    /// A crash fault runs: every non-terminal task the agent holds fails, in creation order, its
    /// subtree canceled first. Its queued turns die with it (dead work is dropped).
    pub(crate) fn crash(&mut self, fault: usize) {
        let FaultTarget::Agent(agent) = self.record.faults.entries[fault].target else {
            return;
        };
        for t in 0..self.record.tasks.len() {
            let task = &self.record.tasks[t];
            if task.agent() == agent && !task.state.is_terminal() {
                let _ = self.set_status(t, TaskState::Failed, Some(Cow::Borrowed(CRASHED)));
            }
        }
    }
}
