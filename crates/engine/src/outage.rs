//! What faults do to agents while the world runs: requests refused before the server sees them
//! (`agent_unavailable`) and crashes that fail every task an agent holds (faults.md §1).

use std::borrow::Cow;

use crate::faults::{FaultTarget, Refusal};
use crate::lifecycle::TaskState;
use crate::record::ErrorCode;
use crate::scenario::AgentIx;
use crate::symbols::Sym;
use crate::world::World;

/// The status message of a task failed by a crash.
pub const CRASHED: &str = "agent crashed";

impl<'s> World<'s> {
    /// One request to `agent` now: counted (the `calls` of faults number them), and refused if
    /// a fault says so. How it was refused is kept for the wire ([`Session::last_refusal`]).
    ///
    /// [`Session::last_refusal`]: crate::world::Session::last_refusal
    pub(crate) fn is_unavailable(&mut self, agent: AgentIx) -> bool {
        let faults = self.record.faults;
        if faults.entries.is_empty() {
            return false;
        }
        let calls = &mut self.state.requests.per_agent;
        if calls.len() <= agent {
            calls.resize(agent + 1, 0);
        }
        calls[agent] += 1;
        let call = calls[agent];
        let refusal = faults.refusal(agent, self.clock(), Some(call));
        self.session.last_refusal = refusal;
        refusal.is_some()
    }

    /// The number of the latest request to `agent` (1-based), when faults count them.
    pub(crate) fn latest_call(&self, agent: AgentIx) -> Option<u32> {
        self.state
            .requests
            .per_agent
            .get(agent)
            .copied()
            .filter(|&n| n > 0)
    }

    /// After how many events the stream of the next request to `agent` is cut (a `drop_stream`
    /// fault judged as every fault is: at the clock the request arrives, by its number), if one
    /// is. Asked before the request runs.
    pub fn next_stream_cut(&self, agent: AgentIx) -> Option<u32> {
        if self.record.faults.entries.is_empty() {
            return None;
        }
        let call = self.latest_call(agent).unwrap_or(0).saturating_add(1);
        self.record
            .faults
            .drop_stream(agent, self.clock(), Some(call))
    }

    /// Records one refused request: the error `agent_unavailable` under the running driver step,
    /// saying how the request was refused.
    pub(crate) fn unavailable(&mut self, caller: Sym, agent: AgentIx) {
        let name = self.record.scenario.agents[agent].name();
        let how = match self.session.last_refusal {
            Some(Refusal::HttpError(status)) => format!("answered HTTP {status}"),
            Some(Refusal::Reset) => "closed the connection without an answer".to_string(),
            _ => "is unavailable".to_string(),
        };
        let detail = format!(
            "`{name}` {how} at tick {}: the request from `{}` failed before the server saw it",
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
